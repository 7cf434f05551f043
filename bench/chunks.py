"""Symbol chunks, index metrics and lexical search on real corpora (issue 6, "Measure").

For each corpus (Django's sdist and the CPython standard library by default), through a
real server with its index ready:
  1. ``ctx/stats``: chunk count, size distribution, symbols split and parts, parse success
     by language and top directories, generated files, fallbacks; the time it takes is the
     time to chunk (and count the tokens of) the whole corpus;
  2. ``ctx/chunks`` of everything, written as JSONL: its size on disk, and the size of an
     FTS5 database of the same chunks; storage of fine+coarse against fine alone;
  3. ``ctx/search`` over 50 queries made from real function names and docstrings: the
     first call (which builds the search index) apart, then latency p50/p95, and how often
     the function the query was made from is among the top 10 hits;
  4. the search index built in the background after the scan (the default; 1-3 run with
     ``searchPrebuild: false`` so that nothing else runs while they are timed), on a cold
     then a warm cache folder: how long after "index ready" it is ready, the server's RSS,
     and ``ctx/references`` latency while it builds against after, on the same names.

Usage: python bench/chunks.py [CORPUS ...] [--queries N]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import STDLIB, pct
from ctxls.index.chunks import Chunk
from ctxls.index.search import SearchIndex
from ctxls_client import CtxClient

DJANGO = Path("/tmp/corpora/py/django-5.2.19")
OUT = Path(__file__).resolve().parent / "out"


def queries(root: Path, n: int, seed: int = 6) -> list[tuple[str, str, str]]:
    """(query, path, qualified name) from functions that have a docstring."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if "/test" in f"/{rel}" or "site-packages" in rel:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and (doc := ast.get_docstring(node)):
                first = doc.strip().split("\n", 1)[0][:120]
                found.append((f"{node.name.replace('_', ' ')} {first}", rel, node.name))
    random.Random(seed).shuffle(found)
    return found[:n]


async def measure(root: Path, n_queries: int) -> dict[str, object]:
    print(f"== {root}")
    cache = tempfile.mkdtemp(prefix="ctxls-bench-cache-")
    t0 = time.perf_counter()
    async with await CtxClient.start(root, options={"cacheDir": cache, "searchPrebuild": False},
                                     wait_for_index=True, timeout=900) as client:
        print(f"index ready in {time.perf_counter() - t0:.2f} s")
        t0 = time.perf_counter()
        stats = await client.stats()
        chunk_s = time.perf_counter() - t0
        print(f"ctx/stats (chunk and count every file): {chunk_s:.2f} s")
        for key in ("files", "chunks", "fineChunks", "coarseChunks", "chunkChars",
                    "chunkTokens", "symbolsOverCap", "splitParts", "generatedFiles",
                    "windowFallbackFiles", "filesByLanguage", "parseSuccessByLanguage"):
            print(f"  {key}: {stats[key]}")
        dirs = dict(list(stats["parseSuccessByDirectory"].items())[:8])  # type: ignore[union-attr]
        print(f"  parseSuccessByDirectory (largest 8): {dirs}")
        stored = stats["storedChars"]
        ratio = stored["all"] / max(1, stored["fine"])  # type: ignore[index]
        print(f"  stored characters fine+coarse / fine alone: {ratio:.2f}x")
        t0 = time.perf_counter()
        everything = await client.request("ctx/chunks", {}, timeout=900)
        print(f"ctx/chunks of everything: {len(everything['chunks'])} chunks in "
              f"{time.perf_counter() - t0:.2f} s")
        OUT.mkdir(exist_ok=True)
        jsonl = OUT / f"chunks-{root.name}.jsonl"
        with jsonl.open("w", encoding="utf-8") as fh:
            for c in everything["chunks"]:
                fh.write(json.dumps(c, ensure_ascii=False) + "\n")
        index = SearchIndex()
        for path in sorted({c["path"] for c in everything["chunks"]}):
            index.put(path, "x", [Chunk(c["chunkId"], c["path"], c["symbol"], c["kind"],
                                        tuple(c["parents"]), c["startByte"], c["endByte"],
                                        c["language"], c["headerBytes"], c["granularity"],
                                        c["part"], c["parts"], c["tokens"], c["contentHash"],
                                        c["strategy"], c["text"])
                                  for c in everything["chunks"] if c["path"] == path])
        fts = OUT / f"fts-{root.name}.sqlite"
        fts.unlink(missing_ok=True)
        with sqlite3.connect(fts) as disk:
            index.db.backup(disk)
        print(f"on disk: chunks JSONL {jsonl.stat().st_size / 2**20:.1f} MiB, FTS5 database "
              f"{fts.stat().st_size / 2**20:.1f} MiB")
        asked = queries(root, n_queries)
        t0 = time.perf_counter()
        await client.request("ctx/search", {"query": asked[0][0], "limit": 10}, timeout=900)
        print(f"first ctx/search (builds the search index): {time.perf_counter() - t0:.2f} s")
        ms, hit = [], 0
        for q, path, name in asked:
            t0 = time.perf_counter()
            r = await client.request("ctx/search", {"query": q, "limit": 10})
            ms.append((time.perf_counter() - t0) * 1000)
            hit += any(h["path"] == path and h["symbol"] == name for h in r["hits"])
        print(f"ctx/search, {len(ms)} queries from function names and docstrings: p50 "
              f"{pct(ms, 50):.2f} ms, p95 {pct(ms, 95):.2f} ms, mean {statistics.fmean(ms):.2f}"
              f" ms; the function itself in the top 10: {hit}/{len(ms)}")
    fresh = tempfile.mkdtemp(prefix="ctxls-bench-cache-")
    await prebuild(root, fresh, asked, "cold cache")
    await prebuild(root, fresh, asked, "warm cache")
    return {"stats": stats, "chunk_s": chunk_s, "ratio": ratio}


async def prebuild(root: Path, cache: str, asked: list[tuple[str, str, str]], label: str
                   ) -> None:
    """Section 4: the default, a search index built between requests after the scan."""
    async with await CtxClient.start(root, options={"cacheDir": cache}, wait_for_index=True,
                                     timeout=900) as client:
        ready = time.perf_counter()
        during: list[float] = []
        i = 0
        while not (await client.request("ctx/status", {}))["searchReady"]:
            path, name = asked[i % len(asked)][1:]
            t0 = time.perf_counter()
            await client.request("ctx/references", {"path": path, "name": name})
            during.append((time.perf_counter() - t0) * 1000)
            i += 1
        built = time.perf_counter() - ready
        after: list[float] = []
        for _, path, name in asked[: max(1, len(during))]:
            t0 = time.perf_counter()
            await client.request("ctx/references", {"path": path, "name": name})
            after.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        await client.request("ctx/search", {"query": asked[0][0], "limit": 10})
        first = (time.perf_counter() - t0) * 1000
        status = Path(f"/proc/{client.proc.pid}/status")
        rss = next((line.split(":", 1)[1].strip() for line in status.read_text().splitlines()
                    if line.startswith("VmRSS")), "?") if status.exists() else "?"
    print(f"search index built in the background ({label}): ready {built:.2f} s after the "
          f"index; first ctx/search then {first:.1f} ms; server RSS {rss}")
    if during:
        print(f"ctx/references while it builds: n={len(during)} p50 {pct(during, 50):.2f} ms, "
              f"p95 {pct(during, 95):.2f} ms; after: p50 {pct(after, 50):.2f} ms, "
              f"p95 {pct(after, 95):.2f} ms")


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpora", nargs="*", type=Path, default=[DJANGO, STDLIB])
    ap.add_argument("--queries", type=int, default=50)
    args = ap.parse_args()
    for root in args.corpora:
        if root.is_dir():
            await measure(root, args.queries)
        else:
            print(f"{root} missing (Django: see bench/django.py); skipped")


if __name__ == "__main__":
    asyncio.run(main())
