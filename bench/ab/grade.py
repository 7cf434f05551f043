"""Judging an answer: extract its patch, apply it to a copy of the parent tree, put the
commit's test files in (from the child), run them with the current interpreter.

Outcomes (``status``):

- ``solved``: the patch applied and the tests passed (pytest exit 0);
- ``failed``: the patch applied and the tests failed, errored or timed out;
- ``could_not_run``: pytest could not run the tests for a reason that is not the code
  under test: pytest missing, a module that is not part of the project missing
  (an uninstalled dependency), a usage or internal error (an unknown plugin option in the
  project's configuration, a conftest that does not import), no tests collected, or a
  crash before any test ran (a configuration this pytest refuses). When the oracle has
  seen the commit's own fix pass in the same place, none of that can be the environment's
  fault, so an answer's run that ends so counts as ``failed``;
- ``not_applied``: neither ``git apply`` nor ``patch`` accepted the patch;
- ``no_patch``: the answer holds no diff.

Nothing is installed. The temporary copy gets the child's version of every test path the
commit changed AFTER the patch is applied, so an answer cannot change the tests it is
judged by.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tasks import GitRepo, Task, show_bytes

_FENCE = re.compile(r"```[ \t]*(?:diff|patch)[^\n]*\n(.*?)(?:\n```|\Z)", re.S)
_MISSING = re.compile(r"ModuleNotFoundError: No module named '([^']+)'")
_SUMMARY = re.compile(r"\b\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected)\b"
                      r"|no tests ran")
TAIL = 3000  # characters of pytest output kept in the record


@dataclass
class Outcome:
    status: str
    detail: str = ""
    apply_method: str | None = None
    test_rc: int | None = None
    output: str = ""
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def extract_patch(answer: str) -> str:
    """The first ```diff (or ```patch) block, else the whole answer; '' when neither holds a
    diff header."""
    m = _FENCE.search(answer)
    text = m.group(1) if m else answer
    if not re.search(r"^(--- |\+\+\+ |@@ |diff --git )", text, re.M):
        return ""
    return text.rstrip("\n") + "\n"


def _run(cmd: list[str], cwd: Path, stdin: str | None = None, timeout: float = 60,
         env: dict[str, str] | None = None) -> tuple[int | None, str]:
    """(exit code or None on timeout, stdout+stderr); the whole process group is killed on a
    timeout, so a test that forks cannot outlive it."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        out, _ = proc.communicate(stdin.encode() if stdin is not None else None,
                                  timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out.decode("utf-8", errors="replace")
    return proc.returncode, out.decode("utf-8", errors="replace")


def _git_env(root: Path) -> dict[str, str]:
    # git apply must not find a repository above the temporary copy and apply there.
    return {**os.environ, "GIT_CEILING_DIRECTORIES": str(root.parent)}


def apply_patch(root: Path, patch: str) -> tuple[str | None, str]:
    """Apply ``patch`` in ``root``: ``git apply`` (hunk counts recounted, since models get
    them wrong), then GNU ``patch``, each with ``-p1`` then ``-p0``, checked before it is
    applied. (method, '') on success, (None, why) otherwise."""
    env = _git_env(root)
    errors = []
    for strip in ("1", "0"):
        rc, out = _run(["git", "apply", f"-p{strip}", "--recount", "--check", "-"], root,
                       patch, env=env)
        if rc == 0:
            rc, out = _run(["git", "apply", f"-p{strip}", "--recount", "-"], root, patch,
                           env=env)
            if rc == 0:
                return f"git apply -p{strip}", ""
        errors.append(f"git apply -p{strip}: {out.strip()[:300]}")
    for strip in ("1", "0"):
        base = ["patch", f"-p{strip}", "--batch", "--forward", "--no-backup-if-mismatch",
                "-r", "-"]
        rc, out = _run([*base, "--dry-run"], root, patch)
        if rc == 0:
            rc, out = _run(base, root, patch)
            if rc == 0:
                return f"patch -p{strip}", ""
        errors.append(f"patch -p{strip}: {out.strip()[:300]}")
    return None, " | ".join(errors)


def overlay_tests(repo: GitRepo, task: Task, root: Path) -> None:
    """The child's version of every test path the commit changed (deleted ones removed)."""
    for status, path in task.test_changes:
        dest = root / path
        if status == "D":
            dest.unlink(missing_ok=True)
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(show_bytes(repo, task.edit.sha, path))


def project_tops(root: Path) -> set[str]:
    """Top-level importable names the tree itself provides (root and ``src/``)."""
    tops = set()
    for base in (root, root / "src"):
        if not base.is_dir():
            continue
        for entry in base.iterdir():
            if entry.is_dir() or entry.suffix == ".py":
                tops.add(entry.stem if entry.suffix == ".py" else entry.name)
    return tops


def run_tests(root: Path, tests: list[str], timeout: float, autoload: bool = True
              ) -> Outcome:
    """``python -m pytest -x -q`` on ``tests`` in ``root``; ``autoload=False`` sets
    ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` (faster, for projects that need no plugin)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    if not autoload:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in (root, root / "src") if p.is_dir())
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    start = time.perf_counter()
    rc, out = _run(cmd, root, timeout=timeout, env=env)
    seconds = round(time.perf_counter() - start, 2)
    tail = out[-TAIL:]
    if rc is None:
        return Outcome("failed", f"timed out after {timeout:g} s", output=tail,
                       seconds=seconds)
    if rc == 0:
        return Outcome("solved", "tests passed", test_rc=rc, output=tail, seconds=seconds)
    if "No module named pytest" in out:
        return Outcome("could_not_run", "pytest is not installed", test_rc=rc, output=tail,
                       seconds=seconds)
    # Before the exit code: a conftest that cannot import exits 4, like a usage error.
    tops = project_tops(root)
    missing = [m for m in _MISSING.findall(out) if m.split(".")[0] not in tops]
    if missing:
        return Outcome("could_not_run", f"missing dependency {missing[0]}", test_rc=rc,
                       output=tail, seconds=seconds)
    if rc in (3, 4, 5):
        why = {3: "pytest internal error", 4: "pytest usage error",
               5: "no tests collected"}[rc]
        return Outcome("could_not_run", _with_first_error(why, out), test_rc=rc,
                       output=tail, seconds=seconds)
    if not _SUMMARY.search(out):  # a crash before any test ran (a config pytest refuses)
        last = next((ln for ln in reversed(out.splitlines()) if ln.strip()), "")
        return Outcome("could_not_run", f"pytest did not run the tests: {last.strip()[:200]}",
                       test_rc=rc, output=tail, seconds=seconds)
    return Outcome("failed", _with_first_error("tests failed", out), test_rc=rc,
                   output=tail, seconds=seconds)


def _with_first_error(why: str, out: str) -> str:
    """``why: <the first FAILED/ERROR line of pytest's summary, or its first E line>``."""
    lines = out.splitlines()
    first = next((ln for ln in lines if ln.startswith(("FAILED ", "ERROR "))), None)
    first = first or next((ln for ln in lines if ln.startswith("E ")), None)
    return f"{why}: {first.strip()[:200]}" if first else why


def grade(repo: GitRepo, task: Task, parent_tree: Path, work: Path, answer: str,
          timeout: float, autoload: bool = True, runs_here: bool = False) -> Outcome:
    """Judge one answer in a fresh copy of ``parent_tree`` made at ``work``. ``runs_here``:
    the commit's own fix was seen to pass here (the oracle), so whatever keeps the tests
    from running after this patch (a syntax error a conftest trips on, an import of a module
    that is not installed) is the patch's doing, and counts as ``failed``."""
    patch = extract_patch(answer)
    if not patch:
        return Outcome("no_patch", "the answer holds no diff")
    shutil.copytree(parent_tree, work, symlinks=True)
    method, why = apply_patch(work, patch)
    if method is None:
        return Outcome("not_applied", why)
    overlay_tests(repo, task, work)
    outcome = run_tests(work, task.tests, timeout, autoload)
    outcome.apply_method = method
    if runs_here and outcome.status == "could_not_run":
        outcome.status = "failed"
        outcome.detail += " (the commit's own fix runs here: the patch broke the run)"
    return outcome


def oracle(repo: GitRepo, task: Task, parent_tree: Path, scratch: Path, timeout: float,
           autoload: bool = True) -> dict[str, Any]:
    """The tests on the parent as it was (``parent``) and with the commit's own version of
    the edited file (``reference``): whether the task can be solved here at all."""
    out: dict[str, Any] = {}
    for label, fixed in (("parent", False), ("reference", True)):
        work = scratch / f"oracle-{label}"
        shutil.copytree(parent_tree, work, symlinks=True)
        if fixed:
            (work / task.edit.path).write_bytes(show_bytes(repo, task.edit.sha,
                                                                task.edit.path))
        overlay_tests(repo, task, work)
        result = run_tests(work, task.tests, timeout, autoload)
        status = "passed" if result.status == "solved" else result.status
        out[label] = {"status": status, "detail": result.detail, "seconds": result.seconds}
        if label == "reference" and status != "passed":
            out[label]["output"] = result.output
        shutil.rmtree(work, ignore_errors=True)
    return out
