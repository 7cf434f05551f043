"""The shared index on a real corpus (issue 20), side by side.

On Django's sdist (unpacked from the registry's tarball, made a git repository with one
commit in a scratch folder), with a PostgreSQL server of its own (Debian's 15, started in
a temporary folder, as bench/../tests/pgserver.py does for the tests):

  1. build: ``ctxls index build`` with a local Ray (2 CPUs) and with ``--engine local``,
     each into an empty database, beside the local cold scan (``ctxls serve`` spawn ->
     ``ctx/status {wait}``, empty cache);
  2. start-up: a sidecar on the clean checkout from the store, a warm local restart (same
     cacheDir) and a cold scan, each spawn -> ``ctx/status {wait}`` answered, best of
     ``--runs``; the ratios against the targets (store <= 1.5x warm, <= 0.2x cold);
  3. store size (pg_total_relation_size per table);
  4. ten sidecars starting at once on one store: time to ready each, and the database's
     load over that start (pg_stat_database: transactions, blocks read/hit, tuples
     returned; the sidecars' queries' total time from pg_stat_statements when present);
  5. search: ``ctx/search`` p50/p95 from the store and from a local sidecar, and whether
     the top hit agrees, on 30 queries made from function names.

Any other tree can be ROOT (a larger one: every .py file of a virtualenv's site-packages,
copied with its folders). Nothing is asserted about time.
Usage: python bench/shared_store.py [ROOT] [--runs N] [--fleet N] [--skip-ray]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.pgserver import Postgres

from common import pct
from ctxls_client import CtxClient

SDIST = Path("/tmp/corpora/py/django-5.2.19.tar.gz")
SOURCE = Path("/tmp/corpora/py/django-5.2.19")
CTXLS = [sys.executable, "-m", "ctxls"]
T_WARM = 1.5
T_COLD = 0.2


def corpus(source: Path, scratch: Path) -> Path:
    """The tree as a git repository with one commit (the sdist has no history)."""
    if not source.is_dir():
        if not SDIST.is_file():
            sys.exit(f"{source} is missing; pip download --no-binary :all: --no-deps "
                     f"django==5.2.19 -d {SDIST.parent}")
        with tarfile.open(SDIST) as tar:
            tar.extractall(source.parent, filter="data")
    root = scratch / source.name
    shutil.copytree(source, root)
    git = ["git", "-c", "user.email=b@example.com", "-c", "user.name=bench"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "sdist"], cwd=root, check=True)
    subprocess.run(["git", "status", "--porcelain"], cwd=root, check=True,
                   capture_output=True)  # (the index's stat data settled)
    return root


async def ready(root: Path, options: dict[str, Any]) -> tuple[float, CtxClient]:
    t0 = time.perf_counter()
    client = await CtxClient.start(root, options={"searchPrebuild": False, **options},
                                   wait_for_index=True, timeout=900)
    return time.perf_counter() - t0, client


async def timed(root: Path, options: dict[str, Any]) -> tuple[float, Any]:
    seconds, client = await ready(root, options)
    status = await client.status()
    await client.close()
    return seconds, status


def build(root: Path, dsn: str, engine: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run([*CTXLS, "index", "build", str(root), "--store", dsn, "--engine",
                          engine, "--processes", "2", "--repo", "django"], check=True,
                         capture_output=True, text=True).stdout
    return time.perf_counter() - t0, out


def stat_db(dsn: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT xact_commit, blks_read, blks_hit, tup_returned, tup_fetched "
            "FROM pg_stat_database WHERE datname = current_database()").fetchone()
    assert row is not None
    return dict(zip(("xact_commit", "blks_read", "blks_hit", "tup_returned", "tup_fetched"),
                    map(int, row), strict=True))


def queries(root: Path, n: int, seed: int) -> list[str]:
    src = root / "django" if (root / "django").is_dir() else root
    names = sorted({m.group(1) for f in src.rglob("*.py")
                    for m in re.finditer(r"^def ([a-z]\w{6,})\(", f.read_text(
                        errors="replace"), re.M)})
    return random.Random(seed).sample(names, n)


async def search_side_by_side(root: Path, dsn: str, cache: Path, qs: list[str]) -> None:
    _, shared = await ready(root, {"store": dsn, "storeRepo": "django",
                                          "cacheDir": str(cache / "s")})
    _, local = await ready(root, {"cacheDir": str(cache / "warm")})
    try:
        await local.search("warm up")  # builds the local index (cold) before the clock
        lat: dict[str, list[float]] = {"store": [], "local": []}
        agree = 0
        for q in qs:
            q = q.replace("_", " ")
            tops = []
            for label, c in (("store", shared), ("local", local)):
                t0 = time.perf_counter()
                r = await c.search(q, 10)
                lat[label].append((time.perf_counter() - t0) * 1000)
                tops.append(r.hits[0].chunk_id if r.hits else None)
            agree += tops[0] == tops[1]
        for label, ms in lat.items():
            print(f"  ctx/search {label:5}: p50 {pct(ms, 50):.1f} ms, p95 {pct(ms, 95):.1f} ms")
        print(f"  the same top hit on {agree}/{len(qs)} queries (ties may order differently)")
    finally:
        await shared.close()
        await local.close()


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", type=Path, default=SOURCE)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--fleet", type=int, default=10)
    ap.add_argument("--skip-ray", action="store_true")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="ctxls-bench-shared-"))
    pg = Postgres()
    try:
        root = corpus(args.root, scratch)
        files = sum(1 for _ in root.rglob("*.py"))
        print(f"corpus {root.name}: {files} .py files, one commit; load {os.getloadavg()[0]:.2f}")

        print("\n1. build")
        cold, status = await timed(root, {"cacheDir": str(scratch / "cold0")})
        print(f"  local cold scan (spawn -> ready, empty cache): {cold:.2f} s, "
              f"{status.indexed} files indexed")
        dsn = pg.create_db("bench")
        figures: dict[str, float] = {}
        for engine in ([] if args.skip_ray else ["ray"]) + ["local"]:
            target = dsn if engine == ("local" if args.skip_ray else "ray") else \
                pg.create_db(f"bench_{engine}")
            seconds, out = build(root, target, engine)
            figures[engine] = seconds
            line = next((x for x in out.splitlines() if x.startswith("built")), out)
            print(f"  ctxls index build --engine {engine}: {seconds:.2f} s wall (process "
                  f"start included)\n    {line}")
            size = next((x for x in out.splitlines() if x.startswith("store size")), "")
            if target == dsn:
                print(f"    {size}")
        for engine, seconds in figures.items():
            print(f"  build {engine} / local cold scan: {seconds / cold:.2f}x")

        print(f"\n2. start-up (spawn -> ctx/status {{wait}}), best of {args.runs}")
        opts_store = {"store": dsn, "storeRepo": "django"}
        warm_cache = scratch / "warm"
        await timed(root, {"cacheDir": str(warm_cache)})  # fills the local cache
        rows: dict[str, list[float]] = {"store": [], "warm": [], "cold": []}
        last: dict[str, Any] = {}
        for i in range(args.runs):
            s, last["store"] = await timed(root, {**opts_store,
                                                  "cacheDir": str(scratch / f"s{i}")})
            rows["store"].append(s)
            s, last["warm"] = await timed(root, {"cacheDir": str(warm_cache)})
            rows["warm"].append(s)
            s, last["cold"] = await timed(root, {"cacheDir": str(scratch / f"c{i}")})
            rows["cold"].append(s)
        best = {k: min(v) for k, v in rows.items()}
        for k, v in rows.items():
            st = last[k]
            print(f"  {k:5}: best {best[k]:.2f} s (runs {', '.join(f'{x:.2f}' for x in v)}); "
                  f"fromStore {st.from_store}, fromCache {st.from_cache}, "
                  f"indexedLocally {st.indexed_locally}")
        print(f"  store / warm restart: {best['store'] / best['warm']:.2f}x "
              f"[target <= {T_WARM}x]; store / cold scan: {best['store'] / best['cold']:.2f}x "
              f"[target <= {T_COLD}x]")

        print(f"\n3. {args.fleet} sidecars starting at once on one store")
        before = stat_db(dsn)
        t0 = time.perf_counter()

        async def one(i: int) -> tuple[float, Any]:
            return await timed(root, {**opts_store, "cacheDir": str(scratch / f"f{i}")})

        fleet = await asyncio.gather(*(one(i) for i in range(args.fleet)))
        times = [t for t, _ in fleet]
        states = [f"{st.store.state}/{st.from_store}" for _, st in fleet]
        print(f"  state/fromStore of each: {', '.join(states)}")
        wall = time.perf_counter() - t0
        after = stat_db(dsn)
        print(f"  ready after: min {min(times):.2f} s, p50 {pct(times, 50):.2f} s, max "
              f"{max(times):.2f} s; all ready in {wall:.2f} s (2 cores shared by all)")
        print("  database over that start: " + ", ".join(
            f"{k} +{after[k] - before[k]:,}" for k in before))

        print("\n4. search, 30 queries from function names")
        await search_side_by_side(root, dsn, scratch / "search", queries(root, 30, 7))
    finally:
        pg.close()
        with contextlib.suppress(Exception):
            shutil.rmtree(scratch)


if __name__ == "__main__":
    asyncio.run(main())
