"""The A/B task set: single-function edits whose commit also changes a test that names
the target, so that a returned patch can be judged by the repository's own tests.

Edits come from the replay's miner (``bench/replay/mining.py``'s ``sample``: the same
seeded order, the same single-function rule). An edit is kept when the commit adds or
modifies at least one test module (``test_*.py`` or ``*_test.py``, by the replay's
``is_test_path``) whose CHILD version names the target as a word: the function's name, or
for a dunder method its class's name. Those modules are the tests a task runs; every test
path the commit adds, modifies or deletes (conftest files, data under ``tests/``) is
carried over from the child so the new tests find what they need.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPLAY = Path(__file__).resolve().parent.parent / "replay"
if str(REPLAY) not in sys.path:
    sys.path.insert(0, str(REPLAY))

from gitrepo import Commit, GitRepo  # noqa: E402
from mining import Edit, sample  # noqa: E402
from pyindex import is_test_path  # noqa: E402


@dataclass
class Task:
    repo: str
    edit: Edit
    tests: list[str]  # test modules to run: changed by the commit, naming the target
    test_changes: list[tuple[str, str]]  # (status, path) of every test path it changed
    oracle: dict[str, object] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.repo}@{self.edit.sha[:10]}:{self.edit.symbol}"


def show_bytes(repo: GitRepo, rev: str, path: str) -> bytes:
    """A file's bytes at ``rev`` (``GitRepo.show`` decodes, which a data file may not take)."""
    return subprocess.run(["git", f"--git-dir={repo.git_dir}", "show", f"{rev}:{path}"],
                          check=True, capture_output=True).stdout


def target_names(symbol: str) -> list[str]:
    parts = symbol.split(".")
    names = [parts[-1]]
    if parts[-1].startswith("__") and len(parts) > 1:
        names.append(parts[-2])
    return names


def is_test_module(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return is_test_path(path) and name.endswith(".py") and (
        name.startswith("test_") or name.endswith("_test.py"))


def test_changes(commit: Commit) -> list[tuple[str, str]]:
    return [(status, path) for status, path in commit.files if is_test_path(path)]


def naming_tests(repo: GitRepo, commit: Commit, symbol: str) -> list[str]:
    """The test modules the commit added or modified whose child version names ``symbol``."""
    words = [re.compile(rf"\b{re.escape(n)}\b") for n in target_names(symbol)]
    out = []
    for status, path in test_changes(commit):
        if status not in "AMRC" or not is_test_module(path):
            continue
        try:
            text = repo.show(commit.sha, path)
        except Exception:
            continue
        if any(w.search(text) for w in words):
            out.append(path)
    return out


def tasks(repo: GitRepo, name: str, seed: int, max_lines: int, stats: dict[str, int]
          ) -> Iterator[Task]:
    """Tasks in the miner's seeded order; ``stats`` counts what was looked at and why it was
    left out. The caller stops when it has enough."""
    commits = {c.sha: c for c in repo.commits()}
    for edit in sample(repo, name, seed, max_lines):
        stats["edits"] = stats.get("edits", 0) + 1
        commit = commits[edit.sha]
        tests = naming_tests(repo, commit, edit.symbol)
        if not tests:
            stats["no_test"] = stats.get("no_test", 0) + 1
            continue
        yield Task(name, edit, tests, test_changes(commit))
