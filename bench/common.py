"""Shared helpers for benchmarks: percentiles, RSS, and the standard library as a corpus."""

from __future__ import annotations

import multiprocessing
import statistics
import sysconfig
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ctxls.syntax import languages

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
def _parse_only(paths: list[str]) -> int:
    parser = languages.registry()["python"].parser()
    n = 0
    for p in paths:
        parser.parse(Path(p).read_bytes())
        n += 1
    return n


def _chunks(items: list[str], n: int) -> list[list[str]]:
    return [items[i::n] for i in range(n)]


def bare_parse(files: list[str], procs: int) -> float:
    start = time.perf_counter()
    if procs == 1:
        _parse_only(files)
    else:
        ctx = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(procs, mp_context=ctx) as pool:
            list(pool.map(_parse_only, _chunks(files, procs)))
    return time.perf_counter() - start
