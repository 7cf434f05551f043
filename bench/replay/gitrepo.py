"""Read-only access to a bare git directory: commits, file versions, diffs, trees.

Everything goes through ``git --git-dir=...`` so that a corpus needs no work tree; the only
thing written to disk is a parent tree materialised by ``archive_to`` into a temp dir.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Commit:
    sha: str
    parent: str
    message: str
    files: tuple[tuple[str, str], ...]  # (status letter, path) from --name-status


@dataclass(frozen=True)
class Hunk:
    """One ``-U0`` hunk: lines removed from the parent and lines added in the child (1-based).

    A pure insertion removes nothing; ``old_start`` is then the parent line it follows, which is
    how ``git diff`` reports it.
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int

    @property
    def removed(self) -> range:
        return range(self.old_start, self.old_start + self.old_count)

    @property
    def added(self) -> range:
        return range(self.new_start, self.new_start + self.new_count)


class GitRepo:
    def __init__(self, git_dir: str | Path) -> None:
        self.git_dir = str(git_dir)

    def _git(self, *args: str) -> str:
        out = subprocess.run(["git", f"--git-dir={self.git_dir}", *args], check=True,
                             capture_output=True)
        return out.stdout.decode("utf-8", errors="replace")

    def commits(self) -> list[Commit]:
        """Non-merge commits with one parent, newest first, with messages and changed files.

        One ``git log --name-status`` call for the whole history: checking candidates one
        ``git diff`` at a time would cost a process per commit.
        """
        raw = self._git("log", "--no-merges", "-M", "--name-status",
                        "--format=%x1e%H%x00%P%x00%B%x00", "HEAD")
        commits = []
        for record in raw.split("\x1e"):
            if not record.strip():
                continue
            sha, parents, message, rest = record.split("\x00", 3)
            parent_list = parents.split()
            if len(parent_list) != 1:
                continue
            files = []
            for line in rest.strip("\n").splitlines():
                parts = line.split("\t")
                if len(parts) >= 2:
                    files.append((parts[0][0], parts[-1]))
            commits.append(Commit(sha.strip(), parent_list[0], message.strip(), tuple(files)))
        return commits

    def hunks(self, commit: Commit, path: str) -> list[Hunk]:
        raw = self._git("diff", "-U0", "--no-color", commit.parent, commit.sha, "--", path)
        hunks = []
        for line in raw.splitlines():
            m = _HUNK.match(line)
            if m:
                old_count = 1 if m.group(2) is None else int(m.group(2))
                new_count = 1 if m.group(4) is None else int(m.group(4))
                hunks.append(Hunk(int(m.group(1)), old_count, int(m.group(3)), new_count))
        return hunks

    def show(self, rev: str, path: str) -> str:
        return self._git("show", f"{rev}:{path}")

    def tree_files(self, rev: str) -> list[str]:
        return self._git("ls-tree", "-r", "--name-only", rev).splitlines()

    def archive_to(self, rev: str, dest: str | Path) -> None:
        """Materialise the tree of ``rev`` into ``dest`` (what the constructor runs on)."""
        archive = subprocess.run(["git", f"--git-dir={self.git_dir}", "archive", rev],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


# Kept for an independent check (README, "Corpora"): every benchmark refuses them.
EXCLUDED = {"requests", "flask", "click", "httpx", "attrs", "werkzeug", "pydantic"}


def ctxls_version() -> str:
    """The ctxls commit the server runs from, flagged when server/ has uncommitted changes
    (the server is the editable install, so it runs whatever the work tree holds)."""
    top = Path(__file__).resolve().parents[2]
    try:
        rev = subprocess.run(["git", "-C", str(top), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(top), "status", "--porcelain", "server"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return rev + (" + uncommitted changes in server/" if dirty else "")


def repo_name(git_dir: str) -> str:
    """``.../encode+starlette/repo`` (a fetched mirror) -> ``starlette``; ``x/tomlkit.git``
    -> ``tomlkit``."""
    path = Path(git_dir).resolve()
    if path.name in ("repo", ".git"):
        path = path.parent
    return path.name.split("+")[-1].removesuffix(".git")
