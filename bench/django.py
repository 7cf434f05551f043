"""Reference-index benchmarks on Django's source release (issue 4, "Speed").

Prints, in one run, on the sdist from the package registry (unpacked on first use):
  1. cold index through a real server: spawn -> ``ctx/status {wait}`` returning, files
     listed / indexed, server RSS and peak RSS (VmHWM) after the scan;
  2. warm restart: a second server on the same unchanged tree with the same ``cacheDir``,
     the same measurement, and the ratio warm / cold (plus whether both servers give the
     same call sites);
  3. a bare tree-sitter parse of the same files (every file of a language the scan
     parses) with 2 processes, and cold / parse;
  4. ``ctx/references`` and ``textDocument/references`` latency p50/p95 through the server,
     for a deterministic sample of module-level functions, classes and methods of django/;
  5. jedi's ``Script.get_references`` on the same symbols (first call per symbol, one fresh
     ``jedi.Project`` for the run), p50/p95, and the ratio ctxls / jedi.

Targets (issue 4) are printed beside the figures; nothing is asserted about time.
Raw figures go to bench/out/django.json. ``--profile`` adds a cProfile of the in-process
scan (index_file) and of ``requests.refs.references`` over the sample, written to bench/out/.

Usage: python bench/django.py [ROOT] [--symbols N] [--skip-jedi] [--profile]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import contextlib
import cProfile
import importlib
import json
import multiprocessing
import os
import pickle
import pstats
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bare_parse, hwm_mib, pct, rss_mib, summary
from ctxls.index.walk import walk
from ctxls.syntax import languages
from ctxls_client import CtxClient
from ctxls_client.client import RpcError

DEFAULT_ROOT = Path("/tmp/corpora/py/django-5.2.19")
DEFAULT_SDIST = Path("/tmp/corpora/py/django-5.2.19.tar.gz")
OUT = Path(__file__).resolve().parent / "out"

# issue 4, "Speed"
T_REF_P50 = 40.0  # ms
T_REF_P95 = 150.0  # ms
T_COLD = 2.5  # s, 2 cores
T_WARM_RATIO = 0.10  # of cold
T_PEAK_RSS = 300.0  # MiB


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


# ---- corpus -------------------------------------------------------------------------------
def ensure_corpus(root: Path, sdist: Path) -> None:
    if root.is_dir():
        return
    if not sdist.is_file():
        sys.exit(f"{root} is missing and so is the sdist {sdist}")
    print(f"unpacking {sdist} into {root.parent} ...", flush=True)
    with tarfile.open(sdist) as tar:
        tar.extractall(root.parent, filter="data")
    if not root.is_dir():
        sys.exit(f"unpacking {sdist} did not create {root}")


def ensure_jedi() -> Any:
    try:
        return importlib.import_module("jedi")
    except ImportError:
        print("jedi missing: installing it into this interpreter's environment ...", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "jedi"], check=True)
        importlib.invalidate_caches()
        return importlib.import_module("jedi")


# ---- sample -------------------------------------------------------------------------------
class Symbol(NamedTuple):
    kind: str  # function | class | method
    path: str  # relative to the root, POSIX
    qualname: str
    line: int  # 0-based row of the name
    col: int  # code points (jedi)
    col16: int  # UTF-16 units (LSP)


def _name_at(lines: list[str], lineno: int, keyword: str, name: str) -> tuple[int, int, int]:
    row = lineno - 1
    m = re.search(rf"\b{keyword}\s+({re.escape(name)})\b", lines[row])
    if m is None:
        raise ValueError(f"no `{keyword} {name}` on line {lineno}")
    col = m.start(1)
    return row, col, len(lines[row][:col].encode("utf-16-le")) // 2


def candidates(root: Path) -> dict[str, list[Symbol]]:
    """Module-level functions and classes, and methods of module-level classes, under
    django/ (dunder methods left out: their references are not call sites by name)."""
    out: dict[str, list[Symbol]] = {"function": [], "class": [], "method": []}
    for path in sorted((root / "django").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        lines = text.splitlines()

        def add(kind: str, node: ast.AST, qual: str, rel: str = rel,
                lines: list[str] = lines) -> None:
            assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            keyword = "class" if isinstance(node, ast.ClassDef) else "def"
            try:
                row, col, col16 = _name_at(lines, node.lineno, keyword, node.name)
            except (ValueError, IndexError):
                return
            out[kind].append(Symbol(kind, rel, qual, row, col, col16))

        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                add("function", node, node.name)
            elif isinstance(node, ast.ClassDef):
                add("class", node, node.name)
                for sub in node.body:
                    if (isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef)
                            and not (sub.name.startswith("__") and sub.name.endswith("__"))):
                        add("method", sub, f"{node.name}.{sub.name}")
    return out


def sample(root: Path, n: int, seed: int) -> list[Symbol]:
    pools = candidates(root)
    rng = random.Random(seed)
    per = -(-n // 3)
    picked: list[Symbol] = []
    for kind in ("function", "class", "method"):
        picked.extend(sorted(rng.sample(pools[kind], min(per, len(pools[kind])))))
    print(f"sample: {len(picked)} symbols (seed {seed}) from "
          f"{sum(len(v) for v in pools.values())} candidates in django/ "
          f"({', '.join(f'{k} {len(v)}' for k, v in pools.items())}); "
          f"{', '.join(f'{k} {sum(s.kind == k for s in picked)}' for k in pools)} sampled")
    return picked


# ---- bare parse ---------------------------------------------------------------------------
def children_rss_mib(pid: int) -> float:
    total = 0.0
    todo = [pid]
    seen = set()
    while todo:
        p = todo.pop()
        try:
            kids = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        for k in map(int, kids):
            if k not in seen:
                seen.add(k)
                todo.append(k)
                with contextlib.suppress(OSError):
                    mib = rss_mib(k)
                    total += 0.0 if mib != mib else mib  # nan: a zombie has no VmRSS
    return total


def dir_mib(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / (1 << 20)


async def start_server(root: Path, cache: Path, label: str) -> tuple[CtxClient, dict[str, Any]]:
    t0 = time.perf_counter()
    # The search index's background build is off: these figures are the reference index
    # alone (bench/chunks.py measures requests while that build runs).
    client = await CtxClient.start(root, options={"cacheDir": str(cache), "searchPrebuild": False},
                                   wait_for_index=True, timeout=600,
                                   command=[sys.executable, "-m", "ctxls", "serve",
                                            "--log-level", "info"])  # (its scan's log line)
    ready = time.perf_counter() - t0
    pid = client.proc.pid
    rss, hwm, kids = rss_mib(pid), hwm_mib(pid), children_rss_mib(pid)
    status = await client.status()
    await asyncio.sleep(0.1)  # let the client drain the server's log line about the scan
    logged = [float(m.group(1)) for line in client.stderr
              if (m := re.search(r"indexed \d+ files .* in ([\d.]+) s", line))]
    index_s = logged[-1] if logged else float("nan")
    warnings = [m.get("message", "") for name, m in client.notifications
                if name == "window/showMessage" and isinstance(m, dict)]
    print(f"{label}: spawn -> index ready {ready:.2f} s; {status.files} files listed, "
          f"{status.indexed} indexed, {len(status.skipped)} skipped; "
          f"server RSS {rss:.0f} MiB, peak (VmHWM) {hwm:.0f} MiB"
          + (f"; child processes still alive {kids:.0f} MiB" if kids else "")
          + f"; the server's own index phase (its log): {index_s:.2f} s")
    for w in warnings:
        print(f"  server said: {w}")
    return client, {"seconds": ready, "index_seconds": index_s, "files": status.files,
                    "indexed": status.indexed,
                    "skipped": len(status.skipped), "rss_mib": rss, "hwm_mib": hwm,
                    "children_rss_mib": kids, "messages": warnings}


def site_key(r: dict[str, Any]) -> tuple[str, int, int]:
    s = r["range"]["start"]
    return r["path"], s["line"], s["character"]


async def ctx_refs(client: CtxClient, symbols: list[Symbol]
                   ) -> tuple[list[float], dict[Symbol, Any], list[str]]:
    lat: list[float] = []
    found: dict[Symbol, Any] = {}
    errors: list[str] = []
    for s in symbols:
        t0 = time.perf_counter()
        try:
            r = await client.request("ctx/references",
                                     {"path": s.path, "name": s.qualname, "line": s.line + 1})
        except RpcError as exc:
            errors.append(f"{s.path}::{s.qualname}: {exc}")
            continue
        lat.append((time.perf_counter() - t0) * 1000)
        found[s] = r
    return lat, found, errors


async def lsp_refs(client: CtxClient, root: Path, symbols: list[Symbol]
                   ) -> tuple[list[float], dict[Symbol, int], list[str]]:
    lat: list[float] = []
    counts: dict[Symbol, int] = {}
    errors: list[str] = []
    for s in symbols:
        params = {"textDocument": {"uri": (root / s.path).as_uri()},
                  "position": {"line": s.line, "character": s.col16},
                  "context": {"includeDeclaration": True}}
        t0 = time.perf_counter()
        try:
            r = await client.request("textDocument/references", params)
        except RpcError as exc:
            errors.append(f"{s.path}::{s.qualname}: {exc}")
            continue
        lat.append((time.perf_counter() - t0) * 1000)
        counts[s] = len(r or [])
    return lat, counts, errors


def print_errors(label: str, errors: list[str]) -> None:
    if errors:
        print(f"  {label}: {len(errors)} error(s); first: " + " || ".join(errors[:3]))


def ref_line(label: str, ms: list[float]) -> str:
    if not ms:
        return f"{label}: no answers"
    p50, p95 = pct(ms, 50), pct(ms, 95)
    return (summary(label, ms) + f"  [target p50 <= {T_REF_P50:.0f} ms "
            f"{verdict(p50 <= T_REF_P50)}, p95 <= {T_REF_P95:.0f} ms {verdict(p95 <= T_REF_P95)}]")


async def through_server(root: Path, symbols: list[Symbol], parse2: float) -> dict[str, Any]:
    cache = Path(tempfile.mkdtemp(prefix="ctxls-bench-cache-"))
    res: dict[str, Any] = {"cache_dir": str(cache)}
    try:
        client, cold = await start_server(root, cache, "cold index (empty cacheDir)")
        res["cold"] = cold
        print(f"  [target cold <= {T_COLD} s {verdict(cold['seconds'] <= T_COLD)}; "
              f"peak RSS <= {T_PEAK_RSS:.0f} MiB {verdict(cold['hwm_mib'] <= T_PEAK_RSS)}]")
        print(f"ratio cold index / bare parse (2 proc): {cold['seconds'] / parse2:.2f}x")

        ctx_lat, ctx_found, ctx_err = await ctx_refs(client, symbols)
        print(ref_line("ctx/references, through the server", ctx_lat))
        print_errors("ctx/references", ctx_err)
        by_kind = {k: [ctx_lat[i] for i, s in enumerate(ctx_found) if s.kind == k]
                   for k in ("function", "class", "method")}
        for k, ms in by_kind.items():
            if ms:
                print("  " + summary({"class": "classes"}.get(k, k + "s"), ms))
        nref = [len(r["references"]) for r in ctx_found.values()]
        ncand = [len(r["candidates"]) for r in ctx_found.values()]
        if nref:
            print(f"  answers: mean {sum(nref) / len(nref):.1f} references, max {max(nref)}; "
                  f"mean {sum(ncand) / len(ncand):.1f} candidates, max {max(ncand)}; "
                  f"{sum(1 for r in ctx_found.values() if r['truncated'])} truncated, "
                  f"{sum(1 for r in ctx_found.values() if not r['complete'])} not complete")
            slow = sorted(zip(ctx_lat, ctx_found, strict=True), key=lambda x: -x[0])[:5]
            print("  slowest: " + "; ".join(
                f"{s.path}::{s.qualname} {ms:.0f} ms ({len(ctx_found[s]['references'])} refs, "
                f"{len(ctx_found[s]['candidates'])} cands)" for ms, s in slow))

        lsp_lat, lsp_counts, lsp_err = await lsp_refs(client, root, symbols)
        print(ref_line("textDocument/references at the definition's name, through the server",
                       lsp_lat))
        print_errors("textDocument/references", lsp_err)
        if lsp_counts:
            c = list(lsp_counts.values())
            print(f"  answers: mean {sum(c) / len(c):.1f} locations, max {max(c)}")
        print(f"server RSS after the queries {rss_mib(client.proc.pid):.0f} MiB, "
              f"peak {hwm_mib(client.proc.pid):.0f} MiB; child processes "
              f"{children_rss_mib(client.proc.pid):.0f} MiB "
              "(the resource tracker and the file watcher)")
        await client.close()
        res["ctx_references_ms"] = {f"{s.path}::{s.qualname}": ms
                                    for ms, s in zip(ctx_lat, ctx_found, strict=True)}
        res["lsp_references_ms"] = {f"{s.path}::{s.qualname}": ms
                                    for ms, s in zip(lsp_lat, lsp_counts, strict=True)}
        res["ctx_errors"], res["lsp_errors"] = ctx_err, lsp_err
        res["lsp_counts"] = {f"{s.path}::{s.qualname}": n for s, n in lsp_counts.items()}
        res["ctx_counts"] = {f"{s.path}::{s.qualname}": [len(r["references"]),
                                                           len(r["candidates"])]
                             for s, r in ctx_found.items()}
        print(f"cacheDir after the cold server exited: {dir_mib(cache):.1f} MiB in "
              f"{sum(1 for f in cache.rglob('*') if f.is_file())} file(s)")

        client, warm = await start_server(root, cache, "warm restart (same cacheDir)")
        res["warm"] = warm
        ratio = warm["seconds"] / cold["seconds"]
        print(f"ratio warm / cold: {ratio:.2f}  [target <= {T_WARM_RATIO:.2f} "
              f"{verdict(ratio <= T_WARM_RATIO)}]; peak RSS "
              f"[<= {T_PEAK_RSS:.0f} MiB {verdict(warm['hwm_mib'] <= T_PEAK_RSS)}]")
        phase = warm["index_seconds"] / cold["index_seconds"]
        print(f"ratio warm / cold of the index phase alone (no interpreter start, imports or "
              f"handshake): {phase:.2f}  [target <= {T_WARM_RATIO:.2f} "
              f"{verdict(phase <= T_WARM_RATIO)}]")
        empty = Path(tempfile.mkdtemp(prefix="ctxls-bench-empty-"))
        t0 = time.perf_counter()
        probe = await CtxClient.start(empty, options={"persist": False}, wait_for_index=True)
        spawn = time.perf_counter() - t0
        await probe.close()
        shutil.rmtree(empty, ignore_errors=True)
        res["empty_workspace_seconds"] = spawn
        print(f"  for scale: spawn -> ready on an empty workspace {spawn:.2f} s (interpreter, "
              f"pygls/lsprotocol imports, handshake)")
        warm_lat, warm_found, warm_err = await ctx_refs(client, symbols)
        differ = [f"{s.path}::{s.qualname}" for s in ctx_found
                  if s in warm_found and (
                      sorted(map(site_key, ctx_found[s]["references"]))
                      != sorted(map(site_key, warm_found[s]["references"]))
                      or sorted(map(site_key, ctx_found[s]["candidates"]))
                      != sorted(map(site_key, warm_found[s]["candidates"])))]
        print(summary("ctx/references on the warm server", warm_lat) if warm_lat
              else "ctx/references on the warm server: no answers")
        print_errors("ctx/references (warm)", warm_err)
        print(f"  warm vs cold answers: {len(warm_found)} compared, {len(differ)} differ"
              + (f" (e.g. {', '.join(differ[:3])})" if differ else ""))
        res["warm_differ"] = differ
        await client.close()
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return res


# ---- jedi ---------------------------------------------------------------------------------
def jedi_refs(root: Path, symbols: list[Symbol]) -> tuple[list[float], dict[Symbol, int],
                                                          list[str]]:
    jedi = ensure_jedi()
    project = jedi.Project(str(root))
    lat: list[float] = []
    counts: dict[Symbol, int] = {}
    errors: list[str] = []
    t_all = time.perf_counter()
    for i, s in enumerate(symbols):
        t0 = time.perf_counter()
        try:
            script = jedi.Script(path=str(root / s.path), project=project)
            refs = script.get_references(s.line + 1, s.col)
        except Exception as exc:  # jedi's internal errors: count and go on
            errors.append(f"{s.path}::{s.qualname}: {type(exc).__name__}: {exc}")
            continue
        lat.append((time.perf_counter() - t0) * 1000)
        counts[s] = len(refs)
        if (i + 1) % 20 == 0:
            print(f"  jedi: {i + 1}/{len(symbols)} symbols, "
                  f"{time.perf_counter() - t_all:.0f} s so far", flush=True)
    print(f"  jedi {jedi.__version__}: {time.perf_counter() - t_all:.0f} s in all")
    return lat, counts, errors


# ---- profile ------------------------------------------------------------------------------
def _timed_profile(label: str, fn: Any, *args: Any) -> Any:
    prof = cProfile.Profile()
    prof.enable()
    try:
        return fn(*args)
    finally:
        prof.disable()
        print(f"  cProfile of {label}, by own time:")
        pstats.Stats(prof).sort_stats("tottime").print_stats(8)


def profile_phases(root: Path) -> None:
    """The server's start-up phases, one after another in-process (in the server the walk,
    warm start and persist run in a thread, which cProfile of its main thread cannot see)."""
    from ctxls.config import Options
    from ctxls.index.scan import index_batch
    from ctxls.workspace import Workspace

    cache = Path(tempfile.mkdtemp(prefix="ctxls-bench-cache-"))
    try:
        for label in ("cold", "warm"):
            print(f"\nprofile: {label} start-up phases in-process (same steps as "
                  "engine.py scan)")
            opts = Options()
            if hasattr(opts, "cache_dir"):
                opts.cache_dir = str(cache)
            ws = Workspace([root], opts)
            t: dict[str, float] = {}
            t0 = time.perf_counter()
            plan = ws.scan_plan()
            t["walk (scan_plan)"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            if hasattr(ws, "warm_start"):
                hits, misses = (_timed_profile("warm_start", ws.warm_start, plan)
                                if label == "warm" else ws.warm_start(plan))
            else:
                hits, misses = [], plan
            t["warm_start (read, hash, unpickle)"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            ws.add(hits)
            t["workspace.add(cache hits)"] = time.perf_counter() - t0
            coded = sum(1 for rel, _ in misses if languages.for_path(rel) is not None)
            t0 = time.perf_counter()
            fresh = []
            batches = [misses[i: i + 48] for i in range(0, len(misses), 48)]
            if len(misses) >= 300:
                ctx = multiprocessing.get_context("forkserver")
                ctx.set_forkserver_preload(["ctxls.index.scan"])
                with ProcessPoolExecutor(2, mp_context=ctx) as pool:
                    for r in pool.map(index_batch, batches, [1 << 20] * len(batches)):
                        fresh.extend(r)
            else:
                for b in batches:
                    fresh.extend(index_batch(b, 1 << 20))
            t[f"index misses, 2 processes ({len(misses)} files, {coded} with a grammar)"] = \
                time.perf_counter() - t0
            if label == "cold":
                t0 = time.perf_counter()
                blob = pickle.dumps(fresh, protocol=pickle.HIGHEST_PROTOCOL)
                t1 = time.perf_counter()
                pickle.loads(blob)
                print(f"  (the scan results cross from workers to the server as pickles: "
                      f"{len(blob) / (1 << 20):.1f} MiB, dumps {t1 - t0:.2f} s + loads "
                      f"{time.perf_counter() - t1:.2f} s in one process, inside the figure "
                      "below)")
                del blob
            t0 = time.perf_counter()
            ws.add(fresh)
            t["workspace.add(fresh)"] = time.perf_counter() - t0
            if fresh and hasattr(ws, "persist"):
                t0 = time.perf_counter()
                if label == "cold":
                    _timed_profile("persist", ws.persist, fresh)
                else:
                    ws.persist(fresh)
                t["persist (pickle + SQLite)"] = time.perf_counter() - t0
            print(f"  {len(plan)} files listed, {len(hits)} cache hits, {len(misses)} misses")
            for k, v in t.items():
                print(f"  {k}: {v:.2f} s")
            print(f"  sum: {sum(t.values()):.2f} s")
            for store in getattr(ws, "stores", {}).values():
                store.close()
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def profile(root: Path, symbols: list[Symbol]) -> None:
    """Start-up phases, cProfile of the in-process scan (one process) and of
    ctx/references answered in-process."""
    OUT.mkdir(exist_ok=True)
    profile_phases(root)
    from ctxls import protocol as p
    from ctxls.config import Options
    from ctxls.index.scan import index_batch
    from ctxls.requests.refs import references
    from ctxls.workspace import Workspace

    OUT.mkdir(exist_ok=True)
    ws = Workspace([root], Options(persist=False))
    plan = ws.scan_plan()
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    entries = index_batch(plan, ws.options.max_file_bytes)
    prof.disable()
    t_scan = time.perf_counter() - t0
    t0 = time.perf_counter()
    ws.add(entries)
    t_add = time.perf_counter() - t0
    print(f"\nprofile: in-process scan of {len(plan)} files, 1 process: index_batch "
          f"{t_scan:.2f} s (under cProfile), workspace.add {t_add:.2f} s")
    prof.dump_stats(OUT / "django-scan.prof")
    pstats.Stats(prof).sort_stats("tottime").print_stats(15)

    prof = cProfile.Profile()
    lat = []
    for s in symbols:
        params = p.ReferencesParams(path=s.path, name=s.qualname, line=s.line + 1)
        t0 = time.perf_counter()
        prof.enable()
        with contextlib.suppress(Exception):
            references(ws.snapshot(s.path, refs=True), params)
        prof.disable()
        lat.append((time.perf_counter() - t0) * 1000)
    print(summary("profile: ctx/references in-process (under cProfile)", lat))
    prof.dump_stats(OUT / "django-references.prof")
    st = pstats.Stats(prof)
    st.sort_stats("cumulative").print_stats(25)
    st.sort_stats("tottime").print_stats(15)


# ---- main ---------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", nargs="?", type=Path, default=DEFAULT_ROOT,
                    help=f"unpacked Django source (default {DEFAULT_ROOT})")
    ap.add_argument("--sdist", type=Path, default=DEFAULT_SDIST,
                    help="tarball unpacked next to ROOT when ROOT is missing")
    ap.add_argument("--symbols", type=int, default=120, help="symbols sampled (>= 100)")
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--skip-jedi", action="store_true")
    ap.add_argument("--profile", action="store_true",
                    help="also cProfile the in-process scan and Engine.references")
    args = ap.parse_args()
    root = args.root.resolve()
    ensure_corpus(root, args.sdist)

    # The baseline parses what the scan parses: every file of a language, not only the
    # .py files (Django's admin ships 112 JavaScript files, 7% of the bytes).
    files = [p for rel, p in walk(root) if languages.name_for(rel) is not None
             and Path(p).stat().st_size <= 1 << 20]
    py = sum(1 for f in files if f.endswith(".py"))
    size = sum(Path(f).stat().st_size for f in files)
    print(f"corpus: {root} — {py} .py files ({len(files)} of any language), "
          f"{size / 1e6:.1f} MB; "
          f"{multiprocessing.cpu_count()} CPUs; Python {sys.version.split()[0]}; "
          f"load average {load()}")
    symbols = sample(root, args.symbols, args.seed)

    parse2 = bare_parse(files, 2)  # also warms the page cache for the cold index
    print(f"bare tree-sitter parse of the same files, 2 processes: {parse2:.2f} s")

    res = asyncio.run(through_server(root, symbols, parse2))
    res["bare_parse_2proc_s"] = parse2
    res["py_files"] = py
    res["parsed_files"] = len(files)

    if not args.skip_jedi:
        print(f"jedi Script.get_references on the same {len(symbols)} symbols "
              "(first call per symbol, one fresh Project):", flush=True)
        j_lat, j_counts, j_err = jedi_refs(root, symbols)
        print(summary("jedi get_references", j_lat) if j_lat else "jedi: no answers")
        print_errors("jedi", j_err)
        if j_counts:
            c = list(j_counts.values())
            print(f"  answers: mean {sum(c) / len(c):.1f} locations, max {max(c)}")
        res["jedi_ms"] = {f"{s.path}::{s.qualname}": ms
                          for ms, s in zip(j_lat, j_counts, strict=True)}
        res["jedi_counts"] = {f"{s.path}::{s.qualname}": n for s, n in j_counts.items()}
        res["jedi_errors"] = j_err
        ctx_ms = list(res["ctx_references_ms"].values())
        lsp_ms = list(res["lsp_references_ms"].values())
        if j_lat and ctx_ms and lsp_ms:
            for label, ms in (("ctx/references", ctx_ms), ("textDocument/references", lsp_ms)):
                print(f"ratio {label} / jedi: p50 {pct(ms, 50) / pct(j_lat, 50):.4f} "
                      f"({pct(j_lat, 50) / pct(ms, 50):.0f}x faster), p95 "
                      f"{pct(ms, 95) / pct(j_lat, 95):.4f} "
                      f"({pct(j_lat, 95) / pct(ms, 95):.0f}x faster)")

    OUT.mkdir(exist_ok=True)
    (OUT / "django.json").write_text(json.dumps(res, indent=1))
    print(f"raw figures: {OUT / 'django.json'}")

    print(f"load average at the end {load()} (other work on this machine skews every time)")
    if args.profile:
        profile(root, symbols)


if __name__ == "__main__":
    main()
