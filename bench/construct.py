"""ctx/construct latency and window size (issue 5, "Measure").

Prints, through a real server with its index ready (warm: the scan has finished):
  1. on the bundled example workspace, every function, method and class of its .py files as
     a target: latency p50/p95, and the window's tokens;
  2. on Django's sdist (see bench/django.py for how it is obtained), a seeded sample of
     functions, methods and classes across django/: latency p50/p95, window tokens,
     omitted items;
  3. for the seed examples (auth/tokens.py::refresh_token, billing/cache.py::
     ShardedLRUCache._evict, billing/pricing.py::compute_line_total): the target item's
     tokens against the whole target file, and the window's tokens against whole-file
     inclusion of every file the window draws on.

Targets (issue 5) are printed beside the figures; nothing is asserted about time.
Usage: python bench/construct.py [--django ROOT] [--symbols N] [--ceiling N]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import pct, summary
from ctxls.tokens import tokenizer
from ctxls_client import CtxClient
from ctxls_client.client import RpcError

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "workspace"
DJANGO = Path("/tmp/corpora/py/django-5.2.19")
T_P50, T_P95 = 50.0, 200.0  # ms
SEEDS = [("auth/tokens.py", "refresh_token", "Extend token refresh with a grace period"),
         ("billing/cache.py", "ShardedLRUCache._evict", "Evict by tag as well as by age"),
         ("billing/pricing.py", "compute_line_total",
          "Bulk tiers should stack with coupons up to MAX_DISCOUNT")]


def targets(root: Path, under: str = "") -> list[tuple[str, str, int]]:
    """(path, qualified name, 1-based line) of module-level functions and classes and their
    methods (the line picks a property's getter among its setter and deleter)."""
    out = []
    for path in sorted((root / under).rglob("*.py") if under else root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if "/tests/" in f"/{rel}" and under:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.append((rel, node.name, node.lineno))
            if isinstance(node, ast.ClassDef):
                out += [(rel, f"{node.name}.{m.name}", m.lineno) for m in node.body
                        if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)]
    return out


async def run(client: CtxClient, picks: list[tuple[str, str, int]], ceiling: int,
              label: str) -> dict[str, Any]:
    ms: list[float] = []
    tokens: list[int] = []
    omitted: list[int] = []
    errors: list[str] = []
    for path, name, line in picks:
        t0 = time.perf_counter()
        try:
            r = await client.request("ctx/construct", {
                "path": path, "target": {"symbol": name, "line": line},
                "task": f"change {name}",
                "ceiling": ceiling})
        except RpcError as exc:
            errors.append(f"{path}::{name}: {exc.message}")
            continue
        ms.append((time.perf_counter() - t0) * 1000)
        tokens.append(r["tokenCount"])
        omitted.append(len(r["omitted"]))
        assert r["tokenCount"] <= ceiling, (path, name)
    print(summary(f"{label}: ctx/construct", ms)
          + f"  [target p50 <= {T_P50:.0f} ms {'ok' if pct(ms, 50) <= T_P50 else 'MISSED'}, "
            f"p95 <= {T_P95:.0f} ms {'ok' if pct(ms, 95) <= T_P95 else 'MISSED'}]")
    if tokens:
        print(f"  window tokens: median {statistics.median(tokens):.0f}, p90 "
              f"{pct([float(t) for t in tokens], 90):.0f}, max {max(tokens)} (ceiling "
              f"{ceiling}); omitted items: mean {statistics.fmean(omitted):.1f}")
    if errors:
        print(f"  {len(errors)} error(s); first: {errors[0]}")
    return {"ms": ms, "tokens": tokens, "errors": errors}


async def seeds(ceiling: int) -> None:
    count = tokenizer().count
    async with await CtxClient.start(EXAMPLE, options={"persist": False},
                                     wait_for_index=True) as client:
        for path, name, task in SEEDS:
            r = await client.request("ctx/construct", {
                "path": path, "target": {"symbol": name}, "task": task, "ceiling": ceiling})
            target = next(w for w in r["window"] if w["role"] == "target")
            whole = count((EXAMPLE / path).read_text())
            files = {w["path"] for w in r["window"] if w["path"]}
            all_files = sum(count((EXAMPLE / f).read_text()) for f in files)
            print(f"seed {path}::{name}: target item {target['tokens']} tokens "
                  f"({target['rendering']}) vs the whole file {whole} "
                  f"({target['tokens'] / whole:.2f}); window {r['tokenCount']} tokens over "
                  f"{len(files)} files vs those files whole {all_files} "
                  f"({r['tokenCount'] / all_files:.2f}); {len(r['window'])} items, "
                  f"{len(r['omitted'])} omitted")


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--django", type=Path, default=DJANGO)
    ap.add_argument("--symbols", type=int, default=150)
    ap.add_argument("--ceiling", type=int, default=24_000)
    args = ap.parse_args()
    await seeds(args.ceiling)
    async with await CtxClient.start(EXAMPLE, options={"persist": False},
                                     wait_for_index=True) as client:
        picks = targets(EXAMPLE)
        await run(client, picks, args.ceiling, f"example workspace ({len(picks)} targets)")
    if not args.django.is_dir():
        print(f"{args.django} missing: see bench/django.py for the sdist; skipped")
        return
    picks = targets(args.django, "django")
    random.Random(5).shuffle(picks)
    picks = picks[: args.symbols]
    cache = tempfile.mkdtemp(prefix="ctxls-bench-cache-")
    t0 = time.perf_counter()
    # The search index's background build is off: these figures are ctx/construct alone
    # (bench/chunks.py measures requests while that build runs).
    async with await CtxClient.start(args.django, options={"cacheDir": cache,
                                                            "searchPrebuild": False},
                                     wait_for_index=True, timeout=600) as client:
        print(f"Django: index ready in {time.perf_counter() - t0:.2f} s")
        await run(client, picks, args.ceiling, f"Django ({len(picks)} sampled targets)")
        await run(client, picks[:50], 4000, "Django, ceiling 4000 (first 50)")


if __name__ == "__main__":
    asyncio.run(main())
