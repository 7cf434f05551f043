"""Shared helpers for benchmarks: percentiles, RSS, and the standard library as a corpus."""

from __future__ import annotations

import multiprocessing
import os
import statistics
import sysconfig
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ctxls.syntax import languages

# This machine sets PYTHONDONTWRITEBYTECODE=1, so every server a benchmark starts would
# compile ctxls's sources again (0.3-0.8 s of each start); users' installs have bytecode.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def summary(name: str, ms: list[float]) -> str:
    return (f"{name}: n={len(ms)} p50={pct(ms, 50):.2f} ms p95={pct(ms, 95):.2f} ms "
            f"mean={statistics.fmean(ms):.2f} ms max={max(ms):.2f} ms")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def hwm_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# ---- the baseline every scan figure is compared with: a bare tree-sitter parse ------------
# The parse itself: workers started, grammars loaded and the files in the page cache before
# the clock starts, best of `repeats`. A baseline that also starts a forkserver and imports
# the grammar registry in each worker (what this once timed) flattered every ratio.
_PARSERS: dict[str, object] = {}


def _parse_files(paths: list[str]) -> int:
    """Parse each file with its language's bare parser (no queries): the floor."""
    n = 0
    for p in paths:
        name = languages.name_for(p)
        if name is None:
            continue
        parser = _PARSERS.get(name)
        if parser is None:
            lang = languages.for_path(p)
            if lang is None:
                continue
            parser = _PARSERS[name] = lang.parser()
        parser.parse(Path(p).read_bytes())  # type: ignore[attr-defined]
        n += 1
    return n


def _chunks(items: list[str], n: int) -> list[list[str]]:
    return [items[i::n] for i in range(n)]


def bare_parse(files: list[str], procs: int, repeats: int = 2) -> float:
    """Seconds to parse ``files`` on ``procs`` processes, best of ``repeats``, after a
    warm-up run that starts the workers, loads their grammars and reads every file."""
    best = float("inf")
    if procs == 1:
        _parse_files(files)
        for _ in range(repeats):
            start = time.perf_counter()
            _parse_files(files)
            best = min(best, time.perf_counter() - start)
        return best
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(procs, mp_context=ctx) as pool:
        parts = _chunks(files, procs)
        list(pool.map(_parse_files, parts))
        for _ in range(repeats):
            start = time.perf_counter()
            list(pool.map(_parse_files, parts))
            best = min(best, time.perf_counter() - start)
    return best
