"""What git says about a workspace root: its repository's name, its commit, and which
files differ from that commit.

A shared index (``index/pgstore.py``) lists each commit's files by path and content hash.
A sidecar takes a file's tables from that list without reading the file only when git says
the file is the commit's: tracked, unmodified, not untracked. Git already knows that from its
own index (stat data, with its racy-timestamp rules), so asking it costs one
``git status`` instead of a read and a hash per file. Nothing here writes: ``status`` runs
with optional locks off, so it never refreshes ``.git/index`` behind the user's back.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import attrs

TIMEOUT = 20.0  # seconds for one git command (status on a very large tree)


@attrs.frozen
class Checkout:
    """A root inside a git work tree, at one commit."""

    top: str  # the work tree's top folder
    prefix: str  # the root relative to ``top``, with a trailing "/" ("" at the top)
    commit: str  # HEAD
    remote: str | None  # the normalised URL of its remote, if it has one
    dirty: frozenset[str]  # paths relative to ``top`` that are not the commit's


def _git(cwd: str, *args: str) -> bytes:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    return subprocess.run(["git", "--no-optional-locks", *args], cwd=cwd, env=env,
                          capture_output=True, check=True, timeout=TIMEOUT).stdout


def checkout(root: Path) -> Checkout | None:
    """The git facts of ``root``, or None when it is no git work tree (or git is missing,
    or HEAD has no commit yet)."""
    try:
        out = _git(str(root), "rev-parse", "--show-toplevel", "HEAD").decode().split("\n")
        top, commit = out[0], out[1]
        dirty = porcelain(_git(str(root), "status", "--porcelain", "-z",
                               "--untracked-files=all", "--ignore-submodules=none"))
        remote = remote_url(root)
    except (OSError, subprocess.SubprocessError, IndexError, UnicodeDecodeError):
        return None
    rel = os.path.relpath(root.resolve(), Path(top).resolve())
    prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
    return Checkout(top, prefix, commit, remote, dirty)


def tracked(root: Path) -> frozenset[str] | None:
    """Paths (relative to the work tree's top) that git tracks, or None outside git."""
    try:
        out = _git(str(root), "ls-files", "-z", "--full-name")
    except (OSError, subprocess.SubprocessError):
        return None
    return frozenset(p for p in out.decode("utf-8", "surrogateescape").split("\0") if p)


def porcelain(raw: bytes) -> frozenset[str]:
    """Every path ``git status --porcelain -z`` names: changed, added, deleted, untracked,
    unmerged, and both sides of a rename or copy (its source follows as a field of its own)."""
    fields = raw.decode("utf-8", "surrogateescape").split("\0")
    out: set[str] = set()
    i = 0
    while i < len(fields):
        entry = fields[i]
        i += 1
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        out.add(path.rstrip("/"))
        if "R" in code or "C" in code:  # the rename's source
            if i < len(fields) and fields[i]:
                out.add(fields[i])
            i += 1
    return frozenset(out)


def remote_url(root: Path) -> str | None:
    """The normalised URL of ``origin`` (else of the first remote), or None."""
    try:
        names = _git(str(root), "remote").decode().split()
        if not names:
            return None
        name = "origin" if "origin" in names else names[0]
        url = _git(str(root), "remote", "get-url", name).decode().strip()
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        return None
    return normalise_url(url) or None


SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")  # git@host:org/repo.git


def normalise_url(url: str) -> str:
    """One name for every way of spelling a remote: scheme, user and password, port of ssh
    and a trailing ``.git`` or ``/`` dropped, the host lower-cased.
    ``git@GitHub.com:org/Repo.git`` and ``https://user:pw@github.com/org/Repo`` are both
    ``github.com/org/Repo``; a local path stays a path."""
    url = url.strip()
    m = re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://(?:[^@/]*@)?([^/]*)(/.*)?$", url)
    if m:
        host, path = m.group(1), m.group(2) or ""
        if url.startswith("file://"):
            return path.rstrip("/").removesuffix(".git")
        host = host.lower()
        if url.lower().startswith("ssh://"):
            host = host.split(":")[0]
        return (host + path).rstrip("/").removesuffix(".git").rstrip("/")
    m = SCP.match(url)
    if m and not url.startswith("/"):
        return (m.group(1).lower() + "/" + m.group(2).lstrip("/")).rstrip("/") \
            .removesuffix(".git")
    return url.rstrip("/").removesuffix(".git")


def repository(root: Path, given: str | None, found: Checkout | None) -> str:
    """The repository's name in the shared index: the one given (``--repo``), else its
    remote's normalised URL, else the work tree's (or the root's) folder name."""
    if given:
        return given
    if found is not None and found.remote:
        return found.remote
    return Path(found.top).name if found is not None else root.name
