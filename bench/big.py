"""A workspace of about 50,000 files: several large repositories side by side, one run.

Set up once into a folder ROOT of your choosing (each REPO is a git directory, e.g. what the
`fetch` tool brings, cloned beside the others with ``git clone --shared``; Django's sdist
comes from the package registry, ``pip download --no-binary :all: --no-deps
django==5.2.19``; the standard library from this interpreter):

    python bench/big.py ROOT --setup --repo BABEL_GIT_DIR --repo BEVY_GIT_DIR \\
        --repo RUST_ANALYZER_GIT_DIR --repo MYPY_GIT_DIR ... --sdist DJANGO_SDIST

Then measure:

    python bench/big.py ROOT --checkout babel:de007ea188

Printed, in one run and side by side (ratios against the baselines of the same run):
  1. the files: listed, and parsed per language;
  2. a bare tree-sitter parse of the parsed files (2 processes, workers and grammars loaded
     before the clock, warm page cache, best of two) and Universal Ctags over the same
     files (``ctags -L``, 2 processes, one per half);
  3. the cold scan through a real server (spawn -> ``ctx/status {wait}``, empty cache), its
     RSS and peak RSS (VmHWM), and the ratios against 2.;
  4. warm restarts (``--restarts``, 3; the first after a checkout hashes the files it
     changed), their median beside spawn -> ready on an empty workspace (``--restart-only``:
     the cold scan and these alone);
  5. ``ctx/construct`` on sampled declarations of every parsed language (or those named by
     ``--target PATH::QUALNAME:LINE``, each request printed), and ``ctx/references`` /
     ``textDocument/references`` on the same: p50 / p95 / max;
  6. ``git checkout`` of another commit in one repository (``--checkout NAME:COMMIT``): the
     seconds from the command's start until the server has indexed every changed file again
     (``ctx/status``: ``reindexed`` grown by the changed files, ``reindexing`` 0), a check
     that declarations only the new version has are found, then the checkout back.

Targets (issue 19) are printed beside the figures; nothing is asserted about time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bare_parse, hwm_mib, pct, rss_mib
from ctxls.index.walk import Ignores, walk
from ctxls.syntax import languages
from ctxls.syntax.outline import outline_source
from ctxls_client import CtxClient
from ctxls_client.client import RpcError

T_RSS_MIB, T_CONSTRUCT_P95, T_CHECKOUT_S, T_SCAN = 2048, 300.0, 5.0, 2.0


# ---- set-up ----------------------------------------------------------------------------------
def setup(dest: Path, repos: list[Path], sdist: Path | None) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for git_dir in repos:
        name = git_dir.parent.name.split("+")[-1] if git_dir.name == "repo" else git_dir.stem
        if (dest / name).exists():
            continue
        print(f"cloning {git_dir} -> {dest / name}", flush=True)
        subprocess.run(["git", "clone", "--quiet", "--shared", "--no-checkout", str(git_dir),
                        str(dest / name)], check=True)
        _checkout_present(dest / name)
    if sdist is not None and not any(dest.glob("django-*")):
        with tarfile.open(sdist) as tar:
            tar.extractall(dest, filter="data")
    stdlib = dest / "cpython-lib"
    if not stdlib.exists():
        shutil.copytree(sysconfig.get_paths()["stdlib"], stdlib,
                        ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc"))
    print(f"{dest}: {sum(1 for _ in walk(dest))} files listed")


def _checkout_present(repo: Path) -> None:
    """Check out HEAD's files whose blobs the git directory has (a mirror may leave its
    largest files out)."""
    tree = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "-z", "HEAD"],
                          capture_output=True, check=True).stdout.split(b"\0")
    entries = [(e.split(b"\t", 1)[0].split()[2], e.split(b"\t", 1)[1]) for e in tree if e]
    check = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch-check"],
                           input=b"\n".join(sha for sha, _ in entries) + b"\n",
                           capture_output=True, check=True).stdout.splitlines()
    present = [path for (_, path), line in zip(entries, check, strict=True)
               if not line.endswith(b"missing")]
    subprocess.run(["git", "-C", str(repo), "checkout", "HEAD", "--pathspec-from-file=-",
                    "--pathspec-file-nul"], input=b"\0".join(present), check=True)
    if len(present) < len(entries):
        print(f"  {len(entries) - len(present)} files left out: their blobs are not there")


# ---- baselines -------------------------------------------------------------------------------
def ctags(files: list[str]) -> float:
    """Universal Ctags over ``files``, two processes (one per half), as the parse has."""
    with tempfile.TemporaryDirectory() as tmp:
        lists = []
        for i in range(2):
            path = Path(tmp) / f"files{i}"
            path.write_text("\n".join(files[i::2]) + "\n")
            lists.append(path)
        began = time.perf_counter()
        procs = [subprocess.Popen(["ctags", "-L", str(lst), "-f", f"{tmp}/tags{i}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for i, lst in enumerate(lists)]
        for proc in procs:
            proc.wait()
        return time.perf_counter() - began


# ---- through the server ----------------------------------------------------------------------
async def start(root: Path, cache: str) -> tuple[CtxClient, float]:
    began = time.perf_counter()
    client = await CtxClient.start(root, options={"cacheDir": cache}, timeout=1800,
                                   command=[sys.executable, "-m", "ctxls", "serve",
                                            "--log-level", "info"])
    await client.status(wait=True, timeout=1800)
    return client, time.perf_counter() - began


def sample(root: Path, parsed: list[tuple[str, str]], n: int,
           seed: int) -> list[tuple[str, str, int]]:
    """(path, qualified name, 1-based line) of ``n`` declarations with bodies, spread over
    the parsed languages in proportion to their files, at least a few each."""
    rng = random.Random(seed)
    by_lang: dict[str, list[tuple[str, str]]] = {}
    for rel, abspath in parsed:
        by_lang.setdefault(languages.name_for(rel) or "", []).append((rel, abspath))
    out: list[tuple[str, str, int]] = []
    for _, files in sorted(by_lang.items()):
        want = max(3, round(n * len(files) / len(parsed)))
        spec = languages.for_path(files[0][0])
        if spec is None:
            continue
        rng.shuffle(files)
        got: list[tuple[str, str, int]] = []
        for rel, abspath in files[:200]:
            try:
                decls = outline_source(spec, Path(abspath).read_bytes()).decls
            except OSError:
                continue
            bodied = [d for d in decls if d.body is not None
                      and d.kind in ("function", "method", "class", "struct")]
            if bodied:
                d = rng.choice(bodied)
                got.append((rel, d.qualname, d.name_span.start_row + 1))
            if len(got) >= want:
                break
        out += got
    rng.shuffle(out)
    return out[:n] if len(out) > n else out


async def latencies(ctx: CtxClient, root: Path, picks: list[tuple[str, str, int]],
                    references: bool = True, shown_ms: float = 1000
                    ) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"construct": [], "ctx/references": [],
                                   "textDocument/references": []}
    slow: list[tuple[float, str]] = []
    for path, qual, line in picks:
        target = {"symbol": qual, "line": line}
        began = time.perf_counter()
        try:
            await ctx.request("ctx/construct", {"path": path, "target": target,
                                                "task": f"change {qual}", "ceiling": 16000},
                              timeout=300)
        except RpcError:
            continue
        ms = (time.perf_counter() - began) * 1000
        out["construct"].append(ms)
        if ms >= shown_ms:
            print(f"    slow construct {path}::{qual} {ms:.0f} ms", flush=True)
        slow.append((ms, f"{path}::{qual}"))
        if not references:
            continue
        began = time.perf_counter()
        try:
            r = await ctx.request("ctx/references", {"path": path, "name": qual, "line": line},
                                  timeout=300)
        except RpcError:
            r = None
        else:
            ms = (time.perf_counter() - began) * 1000
            out["ctx/references"].append(ms)
            if ms >= shown_ms:
                print(f"    slow ctx/references {path}::{qual} {ms:.0f} ms", flush=True)
        if r is None:
            continue
        name = qual.split(".")[-1].split(")")[-1]
        text = (root / path).read_text(errors="replace").splitlines()
        col = text[line - 1].find(name) if line - 1 < len(text) else -1
        if col >= 0:  # (the name's column; ASCII names, so bytes and UTF-16 agree)
            began = time.perf_counter()
            await ctx.request("textDocument/references", {
                "textDocument": {"uri": (root / path).as_uri()},
                "position": {"line": line - 1, "character": col},
                "context": {"includeDeclaration": False}}, timeout=300)
            ms = (time.perf_counter() - began) * 1000
            out["textDocument/references"].append(ms)
            if ms >= shown_ms:
                print(f"    slow textDocument/references {path}:{line} {name} {ms:.0f} ms",
                      flush=True)
    slow.sort(reverse=True)
    out["slowest"] = slow[:5]  # type: ignore[assignment]
    return out


def changed_files(repo: Path, commit: str, root: Path) -> tuple[list[str], list[str]]:
    """Paths (relative to ``root``) that differ between HEAD and ``commit`` and that the
    server's walk lists (.gitignore, excludes), and new names only ``commit`` declares."""
    names = subprocess.run(["git", "-C", str(repo), "diff", "--name-only", "HEAD", commit],
                           capture_output=True, text=True, check=True).stdout.split()
    ignores = Ignores(root)
    prefix = repo.relative_to(root).as_posix()
    listed = [f"{prefix}/{n}" for n in names if not ignores.ignored(f"{prefix}/{n}")]
    added = subprocess.run(["git", "-C", str(repo), "diff", "-U0", "HEAD", commit, "--",
                            "*.ts", "*.js", "*.rs", "*.py"],
                           capture_output=True, text=True, check=True).stdout
    fresh = []
    for line in added.splitlines():
        for word in ("function ", "fn ", "def ", "class "):
            if line.startswith("+") and word in line:
                tail = line.split(word, 1)[1]
                name = "".join(ch for ch in tail.split("(")[0].split("<")[0].split(":")[0]
                               if ch.isalnum() or ch == "_")
                if len(name) > 6:
                    fresh.append(name)
    return listed, fresh


async def checkout(ctx: CtxClient, root: Path, name: str, commit: str) -> None:
    repo = root / name
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    for label, to in ((f"{head[:10]} -> {commit}", commit), (f"back to {head[:10]}", head)):
        listed, fresh = changed_files(repo, to, root)
        before = (await ctx.status()).reindexed
        began = time.perf_counter()
        subprocess.run(["git", "-C", str(repo), "checkout", "--quiet", to], check=True)
        done_git = time.perf_counter() - began
        while True:
            st = await ctx.status()
            if st.reindexed - before >= len(listed) and st.reindexing == 0:
                break
            if time.perf_counter() - began > 300:
                print(f"  checkout {label}: not reflected after 300 s "
                      f"(reindexed {st.reindexed - before} of {len(listed)})")
                return
            await asyncio.sleep(0.05)
        seconds = time.perf_counter() - began
        found = 0
        probes = sorted(set(fresh))[:10]
        for word in probes:
            hits = await ctx.request("workspace/symbol", {"query": word}) or []
            found += any(h["name"].endswith(word) for h in hits)
        print(f"  checkout {label}: {len(listed)} files changed; git itself {done_git:.2f} s; "
              f"indexed again {seconds:.2f} s after the checkout began "
              f"[target <= {T_CHECKOUT_S:.0f} s {'met' if seconds <= T_CHECKOUT_S else 'MISSED'}]"
              f"; new declarations found by workspace/symbol {found}/{len(probes)}",
              flush=True)


async def measure(root: Path, args: argparse.Namespace) -> None:
    plan = list(walk(root))
    parsed = [(rel, a) for rel, a in plan if languages.name_for(rel) is not None
              and os.path.getsize(a) <= 1 << 20]
    langs = Counter(languages.name_for(rel) for rel, _ in parsed)
    print(f"workspace {root}: {len(plan):,} files listed, {len(parsed):,} parsed "
          f"({', '.join(f'{k} {v:,}' for k, v in langs.most_common())}); "
          f"{os.cpu_count()} CPUs; load {os.getloadavg()[0]:.2f}", flush=True)
    files = [a for _, a in parsed]
    parse2 = bare_parse(files, 2)
    tags = ctags(files)
    print(f"bare tree-sitter parse, 2 processes (best of two, warm cache): {parse2:.2f} s; "
          f"Universal Ctags, 2 processes: {tags:.2f} s", flush=True)

    with tempfile.TemporaryDirectory() as cache:
        ctx, cold = await start(root, cache)
        pid = ctx.proc.pid
        st = await ctx.status()
        phase = next((line for line in ctx.stderr if "indexed " in line and " files (" in line),
                     "")
        print(f"cold scan, spawn -> ready: {cold:.2f} s ({st.indexed:,} indexed); "
              f"{cold / parse2:.2f}x the bare parse [target <= {T_SCAN:.0f}x "
              f"{'met' if cold / parse2 <= T_SCAN else 'MISSED'}], {cold / tags:.2f}x ctags; "
              f"RSS {rss_mib(pid):.0f} MiB, peak {hwm_mib(pid):.0f} MiB", flush=True)
        print(f"  the server's log: {phase.split(' INFO ')[-1]}")
        picks = [] if args.restart_only else sample(root, parsed, args.targets, args.seed)
        if args.target:  # named declarations instead of a sample, each request printed
            picks = [(path, qual, int(line)) for t in args.target
                     for path, _, rest in [t.partition("::")]
                     for qual, _, line in [rest.rpartition(":")]]
        lat = await latencies(ctx, root, picks, not args.construct_only,
                              0 if args.target else 1000)
        for name in ("construct", "ctx/references", "textDocument/references"):
            ms = lat[name]
            if not ms:
                continue
            extra = (f" [target p95 <= {T_CONSTRUCT_P95:.0f} ms "
                     f"{'met' if pct(ms, 95) <= T_CONSTRUCT_P95 else 'MISSED'}]"
                     if name == "construct" else "")
            print(f"{name}: n={len(ms)} p50 {pct(ms, 50):.0f} p95 {pct(ms, 95):.0f} "
                  f"max {max(ms, default=float('nan')):.0f} ms{extra}", flush=True)
        print("  slowest constructs: " + "; ".join(f"{sym} {ms:.0f} ms"
                                                   for ms, sym in lat["slowest"]))  # type: ignore[misc]
        print(f"RSS after the requests {rss_mib(pid):.0f} MiB, peak {hwm_mib(pid):.0f} MiB "
              f"[target peak <= {T_RSS_MIB} MiB "
              f"{'met' if hwm_mib(pid) <= T_RSS_MIB else 'MISSED'}]", flush=True)
        if args.construct_only:
            await ctx.close()
            return
        if args.checkout and not args.restart_only:
            name, _, commit = args.checkout.partition(":")
            await checkout(ctx, root, name, commit)
        print(f"RSS at the end {rss_mib(pid):.0f} MiB, peak {hwm_mib(pid):.0f} MiB")
        await ctx.close()

        warms = []
        for n in range(1, args.restarts + 1):  # the first after a checkout hashes its files
            ctx, t = await start(root, cache)
            phase = next((line for line in ctx.stderr if "indexed " in line), "")
            print(f"warm restart {n}, spawn -> ready: {t:.2f} s; RSS "
                  f"{rss_mib(ctx.proc.pid):.0f} MiB; the server's log: "
                  f"{phase.split(' INFO ')[-1]}", flush=True)
            warms.append(t)
            await ctx.close()
        warm = sorted(warms)[len(warms) // 2]
    with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as cache:
        floors = []
        for _ in range(3):
            ctx, t = await start(Path(empty), cache)
            floors.append(t)
            await ctx.close()
    floor = sorted(floors)[1]
    print(f"empty workspace, spawn -> ready (median of 3): {floor:.2f} s; "
          f"warm restart (median of {len(warms)}) / that: {warm / floor:.2f}x; "
          f"cold / warm: {cold / warm:.1f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--setup", action="store_true", help="build ROOT from --repo and --sdist")
    ap.add_argument("--repo", type=Path, action="append", default=[])
    ap.add_argument("--sdist", type=Path)
    ap.add_argument("--checkout", help="NAME:COMMIT, a repository under ROOT and a commit")
    ap.add_argument("--targets", type=int, default=120)
    ap.add_argument("--construct-only", action="store_true",
                    help="after the cold scan, only the constructs (no references, checkout "
                         "or restarts)")
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--restarts", type=int, default=3, help="warm restarts measured")
    ap.add_argument("--target", action="append", default=[], metavar="PATH::QUALNAME:LINE",
                    help="measure these declarations (1-based line) instead of a sample")
    ap.add_argument("--restart-only", action="store_true",
                    help="the cold scan, then the warm restarts (no requests, no checkout)")
    args = ap.parse_args()
    if args.setup:
        setup(args.root.resolve(), args.repo, args.sdist)
        return
    asyncio.run(measure(args.root.resolve(), args))


if __name__ == "__main__":
    main()
