"""A long session: the server's memory over many mixed requests with edits.

One server on a corpus, its index built; then REQUESTS requests in a seeded mix, through
the real stdio protocol: ctx/skeleton, ctx/readSymbol, ctx/references,
textDocument/references, textDocument/documentSymbol, ctx/construct, ctx/search, and an
edit (didOpen once per file, then didChange of the whole text with a comment line added or
removed) every EDIT_EVERY requests, at most OPEN_FILES documents open at once (the oldest
is closed, as an editor closes what it is done with). Prints the server's RSS (from
/proc) after the scan, once what loads behind the ready signal has loaded (the baseline),
and at every tenth of the run, the peak, and the ratio of the last to the baseline (issue
19's target: at most 1.2), with the requests' p50 / p95 per method.

The server keeps its index and search index on disk (a fresh cacheDir), as it does by
default; ``--no-persist`` keeps nothing on disk, and the search index in memory.

Usage: python bench/longrun.py CORPUS [--requests 20000] [--seed 19] [--edit-every 10]
       [--open-files 8] [--no-persist] [--methods ctx/construct,ctx/search]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import pct
from ctxls.syntax import languages
from ctxls.syntax.outline import outline_source
from ctxls_client import CtxClient
from ctxls_client.client import RpcError

TARGET_RATIO = 1.2
METHODS = ["ctx/skeleton", "ctx/readSymbol", "ctx/references", "textDocument/references",
           "textDocument/documentSymbol", "ctx/construct", "ctx/search"]


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def declarations(root: Path, limit: int = 400) -> list[tuple[str, str, int, int]]:
    """(path, qualname, row, col) of functions, methods and classes in the corpus."""
    out = []
    for path in sorted(root.rglob("*")):
        lang = languages.for_path(path.name) if path.is_file() else None
        if lang is None or lang.generic or path.stat().st_size > 1 << 19 or any(
                p in ("node_modules", ".git", "vendor") for p in path.parts):
            continue
        rel = path.relative_to(root).as_posix()
        for d in outline_source(lang, path.read_bytes()).decls:
            if d.kind in ("function", "method", "class"):
                out.append((rel, d.qualname, d.name_span.start_row, d.name_span.start_col))
    random.Random(7).shuffle(out)
    return out[:limit]


async def run(args: argparse.Namespace) -> None:
    root = Path(args.corpus).resolve()
    decls = declarations(root)
    rng = random.Random(args.seed)
    ms: dict[str, list[float]] = defaultdict(list)
    opened: dict[str, tuple[str, int]] = {}  # path -> (text, version)
    cache = tempfile.mkdtemp(prefix="ctxls-longrun-")  # (the index and search on disk, as
    options = {"cacheDir": cache} if args.persist else {"persist": False}  # by default)
    async with await CtxClient.start(root, options=options, wait_for_index=True,
                                     timeout=600) as ctx:
        pid = ctx.proc.pid
        scan_rss = rss_mib(pid)
        # what loads behind the ready signal (the tokenizer, the grammars' queries, the
        # search index) is part of a settled server: the baseline is taken after it
        for _ in range(240):
            status = await ctx.request("ctx/status", {})
            if status.get("searchReady"):
                break
            await asyncio.sleep(0.5)
        await asyncio.sleep(1.0)
        start_rss = rss_mib(pid)
        marks = [(0, start_rss)]
        print(f"{root.name}: {len(decls)} declarations; RSS after the scan {scan_rss:.0f} MiB, "
              f"settled (tokenizer, queries, search index loaded) {start_rss:.0f} MiB",
              flush=True)
        began = time.perf_counter()
        for i in range(1, args.requests + 1):
            path, qual, row, col = rng.choice(decls)
            uri = (root / path).as_uri()
            if i % max(1, args.requests // 10) == 0:
                marks.append((i, rss_mib(pid)))
                print(f"  {i:>7} requests, {time.perf_counter() - began:6.0f} s: RSS "
                      f"{marks[-1][1]:.0f} MiB", flush=True)
            if i % args.edit_every == 0:
                text, version = opened.get(path) or ((root / path).read_text(
                    encoding="utf-8", errors="replace"), 0)
                if version == 0:
                    ctx.notify("textDocument/didOpen", {"textDocument": {
                        "uri": uri, "languageId": "plaintext", "version": 1, "text": text}})
                    version = 1
                marker = "\n// ctxls longrun edit\n"
                text = text[: -len(marker)] if text.endswith(marker) else text + marker
                version += 1
                ctx.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": text}]})
                opened.pop(path, None)
                opened[path] = (text, version)
                if len(opened) > args.open_files:  # an editor closes what it is done with
                    gone = next(iter(opened))
                    del opened[gone]
                    ctx.notify("textDocument/didClose",
                               {"textDocument": {"uri": (root / gone).as_uri()}})
                continue
            method = rng.choice(args.methods)
            params: dict[str, object] = {
                "ctx/skeleton": {"path": path},
                "ctx/readSymbol": {"path": path, "name": qual, "line": row + 1},
                "ctx/references": {"path": path, "name": qual, "line": row + 1},
                "textDocument/references": {"textDocument": {"uri": uri},
                                            "position": {"line": row, "character": col},
                                            "context": {"includeDeclaration": False}},
                "textDocument/documentSymbol": {"textDocument": {"uri": uri}},
                "ctx/construct": {"path": path, "target": {"symbol": qual, "line": row + 1},
                                  "task": f"change {qual}", "ceiling": 8000},
                "ctx/search": {"query": qual.replace(".", " "), "limit": 10},
            }[method]
            t = time.perf_counter()
            # (an edit may have moved a declaration: the error is an answer too)
            with contextlib.suppress(RpcError):
                await ctx.request(method, params, timeout=120)
            ms[method].append((time.perf_counter() - t) * 1000)
        marks.append((args.requests, rss_mib(pid)))
    peak = max(r for _, r in marks)
    ratio = marks[-1][1] / start_rss
    print(f"RSS settled {start_rss:.0f} MiB, after {args.requests} requests "
          f"{marks[-1][1]:.0f} MiB ({ratio:.2f}x; target ≤ {TARGET_RATIO}; "
          f"{marks[-1][1] / scan_rss:.2f}x the RSS after the scan), peak {peak:.0f} MiB "
          f"({'index on disk' if args.persist else 'nothing on disk'})")
    for method, times in sorted(ms.items()):
        print(f"  {method:30s} n={len(times):6d} p50 {pct(times, 50):6.1f} ms "
              f"p95 {pct(times, 95):7.1f} ms")
    shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--methods", type=lambda s: s.split(","), default=METHODS,
                    help="comma-separated methods to mix (default: all seven)")
    ap.add_argument("--edit-every", type=int, default=10)
    ap.add_argument("--no-persist", dest="persist", action="store_false",
                    help="no cache on disk (the search index then lives in memory)")
    ap.add_argument("--open-files", type=int, default=8,
                    help="documents kept open at once (the oldest is closed)")
    args = ap.parse_args()
    unknown = sorted(set(args.methods) - set(METHODS))
    if unknown:
        ap.error(f"--methods: unknown {', '.join(unknown)} (known: {', '.join(METHODS)})")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
