"""Foundation benchmarks on the CPython standard library of this machine.

Prints, in one run:
  1. cold scan + outline of every stdlib .py file (the server's own code path: the same
     walk and process pool), beside a bare tree-sitter parse of the same files with 1 and
     2 processes, and the ratios;
  2. ctx/skeleton latency p50/p95 through a real server over stdio, one request per file;
  3. edit-to-fresh-outline latency for one-character edits in a 5,000+ line file (p50 over
     200 edits), in-process (Document) and through the server (didChange + documentSymbol);
  4. server RSS after the scan.

Usage: python bench/stdlib.py [--files N] [--edits N]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import STDLIB, bare_parse, hwm_mib, rss_mib, summary
from ctxls.index.scan import index_batch
from ctxls.index.walk import walk
from ctxls.syntax import languages
from ctxls.syntax.document import Document
from ctxls_client import CtxClient


def scan(root: Path, procs: int) -> tuple[float, int, int]:
    """The server's cold-scan path: walk + index_batch over a pool (batches of 48)."""
    start = time.perf_counter()
    plan = list(walk(root))
    batches = [plan[i : i + 48] for i in range(0, len(plan), 48)]
    entries = []
    if procs == 1:
        for b in batches:
            entries.extend(index_batch(b, 1 << 20))
    else:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["ctxls.index.scan"])
        with ProcessPoolExecutor(procs, mp_context=ctx) as pool:
            for result in pool.map(index_batch, batches, [1 << 20] * len(batches)):
                entries.extend(result)
    elapsed = time.perf_counter() - start
    outlined = sum(1 for e in entries if e.outline is not None)
    return elapsed, len(plan), outlined


def edit_in_process(path: Path, edits: int) -> list[float]:
    lang = languages.registry()["python"]
    text = path.read_text()
    doc = Document(lang, text, 0)
    doc.outline()
    rng = random.Random(1)
    lines = text.splitlines()
    out = []
    prev = (0, 0)
    for i in range(edits):
        row = rng.randrange(len(lines))
        col = rng.randint(0, len(lines[row]))
        t0 = time.perf_counter()
        if i % 2 == 0:
            doc.edit((row, col), (row, col), "x", "utf-16", i + 1)
            prev = (row, col)
        else:  # undo the previous insertion, so the file stays itself
            doc.edit(prev, (prev[0], prev[1] + 1), "", "utf-16", i + 1)
        doc.outline()
        out.append((time.perf_counter() - t0) * 1000)
    return out


async def through_server(root: Path, files: list[Path], big: Path, edits: int) -> None:
    cache = tempfile.mkdtemp(prefix="ctxls-bench-cache-")  # a cold start, every run
    t0 = time.perf_counter()
    client = await CtxClient.start(root, options={"cacheDir": cache}, timeout=600)
    status = await client.status(wait=True)
    ready = time.perf_counter() - t0
    pid = client.proc.pid
    print(f"server: initialize -> index ready {ready:.2f} s, {status.files} files, "
          f"{status.indexed} outlined; RSS after scan {rss_mib(pid):.0f} MiB "
          f"(peak {hwm_mib(pid):.0f} MiB)")
    lat = []
    modes: dict[str, int] = {}
    for f in files:
        t1 = time.perf_counter()
        r = await client.skeleton(str(f))
        lat.append((time.perf_counter() - t1) * 1000)
        modes[r.mode] = modes.get(r.mode, 0) + 1
    print(summary("ctx/skeleton (no target), through the server", lat) + f" modes={modes}")
    lat = []
    for f in files:
        outline = await client.document_symbols(f.relative_to(root))
        names = [s["name"] for s in outline or [] if s["kind"] in (12, 5)]
        if not names:
            continue
        t1 = time.perf_counter()
        try:
            await client.skeleton(str(f), names[len(names) // 2])
        except Exception:
            continue  # ambiguous bare names: skip, the latency is what we measure
        lat.append((time.perf_counter() - t1) * 1000)
    print(summary("ctx/skeleton (middle declaration as target), through the server", lat))

    uri = big.resolve().as_uri()
    text = big.read_text()
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": 0, "text": text}})
    rng = random.Random(2)
    lines = text.splitlines()
    probe = "getcontext"
    lat = []
    prev = (0, 0)
    for i in range(edits):
        row = rng.randrange(len(lines))
        col = rng.randint(0, len(lines[row]))
        if i % 2 == 0:
            change = {"range": {"start": {"line": row, "character": col},
                                "end": {"line": row, "character": col}}, "text": "x"}
            prev = (row, col)
        else:
            change = {"range": {"start": {"line": prev[0], "character": prev[1]},
                                "end": {"line": prev[0], "character": prev[1] + 1}}, "text": ""}
        t1 = time.perf_counter()
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": i + 1}, "contentChanges": [change]})
        # any ctx request needs the fresh outline; a small symbol keeps the reply small
        await client.read_symbol(str(big), probe, include_header=False)
        lat.append((time.perf_counter() - t1) * 1000)
    print(summary(f"didChange + ctx/readSymbol round trip (fresh outline), {big.name} "
                  f"({len(lines)} lines), through the server", lat))
    print(f"server RSS at end {rss_mib(pid):.0f} MiB")
    await client.close()
    shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=Path, default=STDLIB)
    ap.add_argument("--files", type=int, default=0, help="limit skeleton requests (0 = all)")
    ap.add_argument("--edits", type=int, default=200)
    args = ap.parse_args()
    root = args.root.resolve()
    files = [p for _, p in walk(root) if p.endswith(".py")]
    size = sum(Path(f).stat().st_size for f in files)
    print(f"corpus: {root} — {len(files)} .py files, {size / 1e6:.1f} MB")

    b1 = bare_parse(files, 1)
    b2 = bare_parse(files, 2)
    s2, planned, outlined = scan(root, 2)
    s1, _, _ = scan(root, 1)
    print(f"bare tree-sitter parse: 1 process {b1:.2f} s, 2 processes {b2:.2f} s")
    print(f"cold scan + outline ({planned} files listed, {outlined} outlined): "
          f"1 process {s1:.2f} s ({outlined / s1:.0f} files/s), "
          f"2 processes {s2:.2f} s ({outlined / s2:.0f} files/s)")
    print(f"ratio scan/parse: 2 proc vs 1-proc parse {s2 / b1:.2f}x; "
          f"same process count: 1 proc {s1 / b1:.2f}x, 2 proc {s2 / b2:.2f}x")

    big = max((Path(f) for f in files), key=lambda p: p.stat().st_size
              if p.name == "_pydecimal.py" else 0)
    nlines = len(big.read_text().splitlines())
    print(summary(f"edit -> fresh outline in-process, {big.name} ({nlines} lines)",
                  edit_in_process(big, args.edits)))

    sample = [Path(f) for f in files]
    if args.files:
        sample = sample[:: max(1, len(sample) // args.files)][: args.files]
    asyncio.run(through_server(root, sample, big, args.edits))


if __name__ == "__main__":
    main()
