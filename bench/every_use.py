"""textDocument/references (every use) at sampled declarations, each corpus on a fresh
server with its index built and nothing asked before: p50 / p95 / max and the total, and
the locations, saved with ``--save`` and held against a saved run with ``--against`` (the
same answers, location for location, after a change that should change only speed).

A declaration is sampled per file: ``--files`` files of the language, seeded, each with one
of its declarations (any kind), asked at its name.

Usage: python bench/every_use.py LANG:CORPUS [LANG:CORPUS ...] [--files 150] [--seed 7]
       [--save DIR] [--against DIR]
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


async def ask(root: Path, symbols: list[tuple[str, str, int, int]]) -> dict[str, dict]:
    found: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as cache:
        async with await CtxClient.start(root, options={"cacheDir": cache,
                                                        "searchPrebuild": False},
                                         wait_for_index=True, timeout=900) as client:
            for path, qual, row, col in symbols:
                params = {"textDocument": {"uri": (root / path).as_uri()},
                          "position": {"line": row, "character": col},
                          "context": {"includeDeclaration": True}}
                t = time.perf_counter()
                try:
                    got = await client.request("textDocument/references", params, timeout=300)
                    locs = sorted([loc["uri"].removeprefix(root.as_uri()),
                                   loc["range"]["start"]["line"],
                                   loc["range"]["start"]["character"]] for loc in got or [])
                except RpcError as exc:
                    locs = [[f"error: {exc}", 0, 0]]
                found[f"{path}::{qual}@{row + 1}"] = {
                    "ms": (time.perf_counter() - t) * 1000, "locations": locs}
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpora", nargs="+", metavar="LANG:CORPUS")
    ap.add_argument("--files", type=int, default=150)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--save", type=Path)
    ap.add_argument("--against", type=Path)
    args = ap.parse_args()
    for spec in args.corpora:
        lang, _, corpus = spec.partition(":")
        root = Path(corpus).resolve()
        found = asyncio.run(ask(root, sample(root, lang, args.files, args.seed)))
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
        print(line, flush=True)
        if args.save is not None:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"{root.name}.json").write_text(json.dumps(found))


if __name__ == "__main__":
    main()
