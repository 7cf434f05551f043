"""Shared helpers for benchmarks: percentiles, RSS, and the standard library as a corpus."""

from __future__ import annotations

import statistics
import sysconfig
from pathlib import Path

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
