"""textDocument/references (every use) at sampled declarations, each corpus on a fresh
server with its index built and nothing asked before: p50 / p95 / max and the total, the
three slowest, and the locations, saved with ``--save`` and held against a saved run with
``--against`` (the same answers, location for location, after a change that should change
only speed).

A declaration is sampled per file: ``--files`` files of the language, seeded, each with one
of its declarations (any kind), asked at its name.

``--ctx`` asks ``ctx/references`` instead, at the declaration's qualified name: its proven
uses and its candidates are saved, and held against a saved run each (the proven ones
location for location; of the candidates, how many answers gained any, and how many there
are in all before and after: a change that rules out candidates must gain none).

Usage: python bench/every_use.py LANG:CORPUS [LANG:CORPUS ...] [--files 150] [--seed 7]
       [--ctx] [--save DIR] [--against DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import pct
from ctxls.syntax import languages
from ctxls.syntax.outline import outline_source
from ctxls_client import CtxClient
from ctxls_client.client import RpcError

SKIP = ("node_modules", "vendor", "target", ".git", "build", "dist")


def sample(root: Path, lang_name: str, files: int, seed: int) -> list[tuple[str, str, int, int]]:
    """(path, qualname, row, UTF-16 column) of one declaration in each sampled file."""
    lang = languages.registry()[lang_name]
    paths = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in lang.extensions
                   and not any(s in p.relative_to(root).parts for s in SKIP)
                   and p.stat().st_size < 1 << 20)
    rng = random.Random(seed)
    out = []
    for path in rng.sample(paths, min(len(paths), files)):
        data = path.read_bytes()
        decls = outline_source(lang, data).decls
        if not decls:
            continue
        d = rng.choice(decls)
        line = data.split(b"\n")[d.name_span.start_row][: d.name_span.start_col]
        col = len(line.decode("utf-8", "replace").encode("utf-16-le")) // 2
        out.append((path.relative_to(root).as_posix(), d.qualname, d.name_span.start_row, col))
    return out


def _locs(root: Path, got: list[dict[str, Any]]) -> list[list[Any]]:
    return sorted([loc["uri"].removeprefix(root.as_uri()), loc["range"]["start"]["line"],
                   loc["range"]["start"]["character"]] for loc in got)


async def ask(root: Path, symbols: list[tuple[str, str, int, int]], ctx: bool = False
              ) -> dict[str, dict]:
    found: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as cache:
        async with await CtxClient.start(root, options={"cacheDir": cache,
                                                        "searchPrebuild": False},
                                         wait_for_index=True, timeout=900) as client:
            for path, qual, row, col in symbols:
                t = time.perf_counter()
                cands: list[list[Any]] = []
                try:
                    if ctx:
                        r = await client.request("ctx/references", {
                            "path": path, "name": qual, "line": row + 1, "limit": 100_000},
                            timeout=300)
                        locs, cands = _locs(root, r["references"]), _locs(root, r["candidates"])
                    else:
                        got = await client.request("textDocument/references", {
                            "textDocument": {"uri": (root / path).as_uri()},
                            "position": {"line": row, "character": col},
                            "context": {"includeDeclaration": True}}, timeout=300)
                        locs = _locs(root, got or [])
                except RpcError as exc:
                    locs = [[f"error: {exc}", 0, 0]]
                found[f"{path}::{qual}@{row + 1}"] = {
                    "ms": (time.perf_counter() - t) * 1000, "locations": locs,
                    "candidates": cands}
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpora", nargs="+", metavar="LANG:CORPUS")
    ap.add_argument("--files", type=int, default=150)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--ctx", action="store_true", help="ctx/references, with its candidates")
    ap.add_argument("--save", type=Path)
    ap.add_argument("--against", type=Path)
    args = ap.parse_args()
    for spec in args.corpora:
        lang, _, corpus = spec.partition(":")
        root = Path(corpus).resolve()
        found = asyncio.run(ask(root, sample(root, lang, args.files, args.seed), args.ctx))
        ms = [f["ms"] for f in found.values()]
        line = (f"{lang}: {root.name}, {len(ms)} asks, p50 {pct(ms, 50):.1f} p95 "
                f"{pct(ms, 95):.1f} max {max(ms, default=0):.1f} ms, total {sum(ms):.0f} ms; "
                f"{sum(len(f['locations']) for f in found.values())} locations")
        if args.against is not None:
            before = json.loads((args.against / f"{root.name}.json").read_text())
            differ = [k for k, f in found.items() if before.get(k, {}).get("locations")
                      != f["locations"]]
            was = sum(f["ms"] for f in before.values())
            line += (f"; against the saved run: total {was:.0f} ms "
                     f"({sum(ms) / was if was else float('nan'):.2f}x), "
                     f"{len(differ)} of {len(found)} answers differ"
                     + (f" (e.g. {', '.join(differ[:3])})" if differ else ""))
            if args.ctx:
                gained = [k for k, f in found.items() if not {tuple(c) for c in f["candidates"]}
                          <= {tuple(c) for c in before.get(k, {}).get("candidates", [])}]
                was_c = sum(len(f.get("candidates", [])) for f in before.values())
                line += (f"; candidates {was_c}"
                         f" -> {sum(len(f['candidates']) for f in found.values())}, "
                         f"{len(gained)} answers gained some"
                         + (f" (e.g. {', '.join(gained[:3])})" if gained else ""))
        print(line, flush=True)
        for k, f in sorted(found.items(), key=lambda kv: -kv[1]["ms"])[:3]:
            print(f"    {f['ms']:7.0f} ms  {k}  ({len(f['locations'])} locations, "
                  f"{len(f['candidates'])} candidates)", flush=True)
        if args.save is not None:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"{root.name}.json").write_text(json.dumps(found))


if __name__ == "__main__":
    main()
