"""ctx/construct's tail: every declaration of a sample of files, per corpus, through a
real server with its index built.

For each LANG:CORPUS pair a fresh server scans the corpus (no cache), then answers
ctx/construct for every function, method and class (with a body) of a seeded sample of the
language's files, in file order. Printed per corpus: p50 / p95 / p99 / max, the first
request after the scan beside the tenth target's (its first request too, asked eleventh:
what is built once per server shows as a first-request cliff) and beside the first's made
again as the tenth request (what is built per target as well: its file's parse, its
neighbours' decoded tables), and the slowest ten with their cause: the stage of the
server's own `timings` that took longest.

A second server on the same corpus then answers nine other targets before the first
target: that tenth request asks what the first did, cold for its own files, but after the
server's once-per-process work was done. The first request beside it is the fair
comparison (beside the tenth target's own first request, which compares two targets).

``--first-only N`` measures only the first request against the tenth, each on N fresh
servers, and prints their medians: the tenth after nine targets of the sample (mostly in
the first's own file, so its file and neighbours are warm: what is per target), and after
nine targets of nine other files (what a server builds once and every window shares).
``--pause S`` asks each server's first request S seconds after the ready signal (what is
read ahead behind it is then in place), in both, and the measured tenth S seconds after the
ninth: a request after an idle second is itself slower (the caches and the threads it wakes
are cold: black's tenth 7.7 ms right after the ninth, 9.1-9.9 ms a second after it), so
the first is compared with a tenth asked after the same pause.

Usage: python bench/tail.py LANG:CORPUS [LANG:CORPUS ...] [--files 20] [--seed 19]
       [--ceiling 16000] [--limit 400] [--first-only N [--pause S]]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
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
TARGET_P95, TARGET_MAX = 200.0, 1000.0  # ms (issue 19)


def targets(root: Path, lang_name: str, files: int, seed: int,
            limit: int) -> list[tuple[str, str, int]]:
    """(path, qualname, 1-based line) of every bodied declaration of the sampled files."""
    lang = languages.registry()[lang_name]
    paths = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in lang.extensions
                   and not any(part in SKIP for part in p.relative_to(root).parts)
                   and p.stat().st_size <= 1 << 20)
    random.Random(seed).shuffle(paths)
    out: list[tuple[str, str, int]] = []
    for path in sorted(paths[:files]):
        rel = path.relative_to(root).as_posix()
        for d in outline_source(lang, path.read_bytes()).decls:
            if d.body is not None and d.kind in ("function", "method", "class", "struct"):
                out.append((rel, d.qualname, d.name_span.start_row + 1))
    return out[:limit]


def cause(result: dict[str, Any]) -> str:
    stages = {k: v for k, v in (result.get("timings") or {}).items() if k != "total"}
    if not stages:
        return "?"
    stage, ms = max(stages.items(), key=lambda kv: kv[1])
    return f"{stage} {ms:.0f} ms"


def _construct(pick: tuple[str, str, int], ceiling: int) -> dict[str, Any]:
    path, qual, line = pick
    return {"path": path, "target": {"symbol": qual, "line": line}, "task": f"change {qual}",
            "ceiling": ceiling}


async def first_as_tenth(corpus: Path, picks: list[tuple[str, str, int]],
                         args: argparse.Namespace, before: list[tuple[str, str, int]] | None = None
                         ) -> float:
    """The first target asked as the tenth request of a fresh server (ms), after nine
    others (``before``, else the next nine of ``picks``)."""
    before = picks[1:10] if before is None else before
    if len(before) < 9:
        return float("nan")
    with tempfile.TemporaryDirectory() as cache:
        async with await CtxClient.start(corpus, options={"cacheDir": cache, "persist": False},
                                         wait_for_index=True, timeout=900) as ctx:
            await asyncio.sleep(args.pause)
            for pick in [*before, picks[0]]:
                if pick is picks[0]:
                    await asyncio.sleep(args.pause)  # (as long idle as the first was)
                t = time.perf_counter()
                await ctx.request("ctx/construct", _construct(pick, args.ceiling), timeout=120)
                took = (time.perf_counter() - t) * 1000
    return took


async def first_alone(corpus: Path, pick: tuple[str, str, int], args: argparse.Namespace
                      ) -> float:
    """The first target as a fresh server's first request (ms)."""
    with tempfile.TemporaryDirectory() as cache:
        async with await CtxClient.start(corpus, options={"cacheDir": cache, "persist": False},
                                         wait_for_index=True, timeout=900) as ctx:
            await asyncio.sleep(args.pause)
            t = time.perf_counter()
            await ctx.request("ctx/construct", _construct(pick, args.ceiling), timeout=120)
            return (time.perf_counter() - t) * 1000


async def first_only(args: argparse.Namespace) -> None:
    """``--first-only N``: the first target asked first and as the tenth request, each on
    N fresh servers; their medians (one server's first request is too noisy to compare)."""
    for pair in args.pairs:
        lang, _, name = pair.partition(":")
        corpus = Path(name).resolve()
        picks = targets(corpus, lang, args.files, args.seed, args.limit)
        elsewhere = list({pk[0]: pk for pk in reversed(picks)}.values())  # (each file's first)
        elsewhere = [pk for pk in reversed(elsewhere) if pk[0] != picks[0][0]][:9]
        first = [await first_alone(corpus, picks[0], args) for _ in range(args.first_only)]
        tenth = [await first_as_tenth(corpus, picks, args) for _ in range(args.first_only)]
        other = [await first_as_tenth(corpus, picks, args, elsewhere)
                 for _ in range(args.first_only)]
        def show(ms: list[float]) -> str:  # (nan: the sample has too few targets)
            return f"{statistics.median(ms):.1f} ms {[f'{x:.0f}' for x in ms]}"
        print(f"{lang}: {corpus.name}, {picks[0][0]}::{picks[0][1]}"
              f"{f' (asked {args.pause:g} s after ready)' if args.pause else ''}: first, "
              f"median of {args.first_only}, {show(first)}; as the tenth {show(tenth)}; as "
              f"the tenth after nine other files' {show(other)}", flush=True)


async def one(lang: str, corpus: Path, args: argparse.Namespace) -> dict[str, Any]:
    picks = targets(corpus, lang, args.files, args.seed, args.limit)
    with tempfile.TemporaryDirectory() as cache:
        start = time.perf_counter()
        async with await CtxClient.start(corpus, options={"cacheDir": cache, "persist": False},
                                         wait_for_index=True, timeout=900) as ctx:
            scan = time.perf_counter() - start
            rows: list[tuple[float, str, str]] = []
            errors = 0
            again = float("nan")  # the first target asked again as the tenth request
            order = [*range(min(9, len(picks))), 0, *range(9, len(picks))] if picks else []
            for n, i in enumerate(order):
                path, qual, _ = picks[i]
                t = time.perf_counter()
                try:
                    r = await ctx.request("ctx/construct", _construct(picks[i], args.ceiling),
                                          timeout=120)
                except RpcError:
                    errors += 1
                    continue
                took = (time.perf_counter() - t) * 1000
                if n == 9 and i == 0:
                    again = took
                    continue
                rows.append((took, f"{path}::{qual}", cause(r)))
    ms = [r[0] for r in rows]  # (in the order asked; the repeat left out)
    as_tenth = await first_as_tenth(corpus, picks, args)
    return {"lang": lang, "corpus": corpus.name, "scan": scan, "n": len(rows), "errors": errors,
            "as_tenth": as_tenth,
            "ms": ms, "first": ms[0] if ms else float("nan"), "again": again,
            "tenth": ms[9] if len(ms) > 9 else float("nan"),
            "slowest": sorted(rows, reverse=True)[:10]}


async def run(args: argparse.Namespace) -> None:
    results = []
    for pair in args.pairs:
        lang, _, corpus = pair.partition(":")
        res = await one(lang, Path(corpus).resolve(), args)
        results.append(res)
        ms = res["ms"]
        print(f"{lang}: {res['corpus']}, {res['n']} constructs ({res['errors']} errors), "
              f"scan {res['scan']:.1f} s; p50 {pct(ms, 50):.0f} p95 {pct(ms, 95):.0f} "
              f"p99 {pct(ms, 99):.0f} max {max(ms, default=float('nan')):.0f} ms; "
              f"first {res['first']:.0f}, its target as a fresh server's tenth request "
              f"{res['as_tenth']:.0f}, the tenth target's {res['tenth']:.0f}, the "
              f"first's target again as the tenth {res['again']:.0f} ms",
              flush=True)
        for t, sym, why in res["slowest"]:
            print(f"   {t:7.0f} ms  {sym}  [{why}]")
    print(f"\n| language | corpus | n | p50 | p95 | p99 | max | first | first as tenth | "
          f"tenth target | first again | p95 ≤ {TARGET_P95:.0f} and max ≤ {TARGET_MAX:.0f} |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for res in results:
        ms = res["ms"]
        ok = pct(ms, 95) <= TARGET_P95 and max(ms, default=0) <= TARGET_MAX
        print(f"| {res['lang']} | {res['corpus']} | {res['n']} | {pct(ms, 50):.0f} | "
              f"{pct(ms, 95):.0f} | {pct(ms, 99):.0f} | {max(ms, default=float('nan')):.0f} | "
              f"{res['first']:.0f} | {res['as_tenth']:.0f} | {res['tenth']:.0f} | "
              f"{res['again']:.0f} | "
              f"{'yes' if ok else 'no'} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pairs", nargs="+", help="LANG:CORPUS")
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--ceiling", type=int, default=16000)
    ap.add_argument("--limit", type=int, default=400, help="constructs per corpus at most")
    ap.add_argument("--first-only", type=int, default=0, metavar="N",
                    help="only the first request against the tenth, medians over N servers")
    ap.add_argument("--pause", type=float, default=0.0, metavar="S",
                    help="with --first-only: the first request S seconds after ready")
    args = ap.parse_args()
    asyncio.run(first_only(args) if args.first_only else run(args))


if __name__ == "__main__":
    main()
