"""The workspace walk: ignore files as git reads them, a bad line included."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxls.index import walk as walk_module
from ctxls.index.walk import Walked, walk


def test_a_line_git_would_not_take_is_skipped_not_fatal(tmp_path: Path) -> None:
    """black's test data has a .gitignore holding a lone `!`: git skips that line; a walk
    that raised on it indexed nothing at all."""
    (tmp_path / "keep.py").write_text("x = 1\n")
    (tmp_path / "skip.log").write_text("log\n")
    data = tmp_path / "data"
    data.mkdir()
    (data / ".gitignore").write_text("!\n*.tmp\n")
    (data / "a.py").write_text("y = 2\n")
    (data / "b.tmp").write_text("tmp\n")
    (tmp_path / ".gitignore").write_text("*.log\n")
    found = sorted(rel for rel, _ in walk(tmp_path))
    assert found == [".gitignore", "data/.gitignore", "data/a.py", "keep.py"]


def test_the_walk_lists_what_git_lists(tmp_path: Path) -> None:
    """Nested ignore files with negation, anchoring, folder-only and ``**`` patterns: the
    walk (and the watcher's one-path check) agree with git itself, whichever regular
    expression engine pathspec picks (re2 when it is installed)."""
    import subprocess

    from ctxls.index.walk import Ignores

    files = ["a.py", "a.log", "keep.log", "build.txt", "docs/build/x.md", "docs/a.log",
             "src/gen/x.py", "src/gen/keep.py", "src/x.pyc", "src/deep/er/gen/y.py",
             "src/deep/note.tmp", "lib/anchored.txt", "lib/sub/anchored.txt",
             "out/a.js", "out2/a.js", "data/x.csv", "data/sub/y.csv", "data/sub/keep.csv",
             "weird name [1].py", "dir.only/f.py", "dir.only2"]
    ignores = {".gitignore": "*.log\n!keep.log\n/build.txt\n*.pyc\nout/\ndir.only/\n"
                             "dir.only2/\n",
               "src/.gitignore": "gen/\n!gen/keep.py\n**/deep/**/gen/\n*.tmp\n",
               "lib/.gitignore": "/anchored.txt\n",
               "data/.gitignore": "**/*.csv\n!sub/keep.csv\n",
               "docs/.gitignore": "build/\n!a.log\n"}
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    for rel, text in ignores.items():
        (tmp_path / rel).write_text(text)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    git = subprocess.run(["git", "-C", str(tmp_path), "ls-files", "--others",
                          "--exclude-standard", "-z"], capture_output=True, check=True)
    truth = sorted(p.decode() for p in git.stdout.split(b"\0") if p)
    assert sorted(rel for rel, _ in walk(tmp_path)) == truth
    one_by_one = Ignores(tmp_path)
    assert sorted(r for r in [*files, *ignores] if not one_by_one.ignored(r)) == truth
    # the `exclude` option is over every ignore file: a folder's `!a.log` does not undo it
    excluded = sorted(rel for rel, _ in walk(tmp_path, ["*.log"]))
    assert excluded == [r for r in truth if not r.endswith(".log")]
    assert Ignores(tmp_path, ["*.log"]).ignored("docs/a.log")


def test_a_virtualenv_and_ignored_folders_are_not_entered(tmp_path: Path) -> None:
    """A folder holding ``pyvenv.cfg`` is a virtualenv whatever its name; a folder's own
    ``.gitignore`` applies below it; the walk's order is sorted, folders in place."""
    for rel in ("b.py", "a/z.py", "a/skip.tmp", "env2/pyvenv.cfg", "env2/lib/x.py",
                "a/deeper/y.py", "c/pyvenv.cfg.bak"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    (tmp_path / "a" / ".gitignore").write_text("*.tmp\n")
    found = [rel for rel, _ in walk(tmp_path)]
    assert found == ["a/.gitignore", "a/deeper/y.py", "a/z.py", "b.py", "c/pyvenv.cfg.bak"]


# ---- a walk from the record of an earlier one ------------------------------------------

def _age(root: Path, seconds: int = 100) -> None:
    """Every folder's times set in the past: the record of a walk trusts only folders not
    modified around it."""
    past = time.time_ns() - seconds * 1_000_000_000
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
        os.utime(folder, ns=(past, past))


def _listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders the walks list (the others are taken from the record)."""
    listed: list[str] = []
    real = os.scandir

    def counting(path: str) -> object:
        listed.append(path)
        return real(path)

    monkeypatch.setattr(walk_module.os, "scandir", counting)
    return listed


def test_a_walk_from_a_record_lists_only_the_folders_that_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for rel in ("a/x.py", "a/b/y.py", "a/b/c/z.py", "d/w.py", "top.py", "e/skip.log"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    (tmp_path / ".gitignore").write_text("*.log\n")
    _age(tmp_path)
    first = Walked()
    fresh = list(walk(tmp_path, None, None, first))
    before = Walked.loads(first.dumps())
    assert before is not None and before.folders == first.folders
    listed = _listings(monkeypatch)
    assert list(walk(tmp_path, None, before)) == fresh
    assert listed == []  # nothing changed: a stat per folder, no listing
    (tmp_path / "a" / "b" / "new.py").write_text("y = 2\n")
    (tmp_path / "d" / "w.py").unlink()
    (tmp_path / "a" / "b" / "c" / "z.py").write_text("changed = 3\n")  # (its folder: same)
    again = Walked()
    found = list(walk(tmp_path, None, before, again))
    monkeypatch.undo()
    assert found == list(walk(tmp_path))
    assert sorted(listed) == sorted(str(tmp_path / p) for p in ("a/b", "d"))
    assert "a/b/new.py" in [rel for rel, _ in found]
    # other excludes: everything is listed again
    truth = list(walk(tmp_path, ["*.py"]))
    listed = _listings(monkeypatch)
    assert list(walk(tmp_path, ["*.py"], again)) == truth
    assert len(listed) == 6


def test_an_ignore_file_changed_in_place_decides_again_below_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rewriting a .gitignore keeps its folder's times: the record checks the file's own,
    and every folder below it is listed again."""
    for rel in ("a/x.py", "a/x.log", "a/sub/y.log", "a/sub/deeper/z.log", "b/q.log"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    (tmp_path / "a" / ".gitignore").write_text("*.log\n")
    _age(tmp_path)
    record = Walked()
    assert [rel for rel, _ in walk(tmp_path, None, None, record)] == [
        "a/.gitignore", "a/x.py", "b/q.log"]
    with open(tmp_path / "a" / ".gitignore", "w") as f:  # (same file, same folder times)
        f.write("*.py\n")
    listed = _listings(monkeypatch)
    found = [rel for rel, _ in walk(tmp_path, None, record)]
    monkeypatch.undo()
    assert found == [rel for rel, _ in walk(tmp_path)] == [
        "a/.gitignore", "a/sub/deeper/z.log", "a/sub/y.log", "a/x.log", "b/q.log"]
    assert sorted(listed) == sorted(str(tmp_path / p) for p in ("a", "a/sub", "a/sub/deeper"))


def test_a_folder_changed_around_the_recorded_walk_is_listed_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file added within the same tick of the clock as the walk can leave its folder's
    times as recorded: a folder modified shortly before the walk began is not trusted."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.py").write_text("x = 1\n")
    monkeypatch.setattr(walk_module, "_ident", lambda st: (st.st_dev, st.st_ino))  # (blind)
    record = Walked()
    list(walk(tmp_path, None, None, record))
    (tmp_path / "a" / "y.py").write_text("y = 2\n")
    assert [rel for rel, _ in walk(tmp_path, None, record)] == ["a/x.py", "a/y.py"]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["add", "remove", "mkdir", "rmdir", "ignore",
                                           "venv", "rename"]),
                          st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=12))
def test_a_walk_from_a_record_finds_what_a_fresh_walk_finds(
        tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int, int]]) -> None:
    """Random changes between walks, each walk from the record of the one before: the same
    files in the same order as a walk with no record."""
    root = tmp_path_factory.mktemp("tree")
    folders = ["", "a", "a/b", "c", "c/d/e", "f"]
    for folder in folders[1:]:
        (root / folder).mkdir(parents=True, exist_ok=True)
    for i, folder in enumerate(folders):
        (root / folder / f"f{i}.py").write_text("x = 1\n")
        (root / folder / f"g{i}.log").write_text("log\n")
    record: Walked | None = None
    for kind, i, j in steps:
        _age(root)
        walked = Walked()
        assert list(walk(root, None, record, walked)) == list(walk(root))
        record = Walked.loads(walked.dumps())
        here, there = root / folders[i], root / folders[j]
        if not here.is_dir():
            continue
        if kind == "add":
            (here / f"n{j}.py").write_text("n = 1\n")
        elif kind == "remove":
            for p in sorted(here.glob("*.py"))[:1]:
                p.unlink()
        elif kind == "mkdir":
            (here / f"new{j}" / "deep").mkdir(parents=True, exist_ok=True)
            (here / f"new{j}" / "deep" / "m.py").write_text("m = 1\n")
        elif kind == "rmdir" and folders[i]:
            shutil.rmtree(here)
        elif kind == "ignore":
            with open(here / ".gitignore", "w") as f:  # (in place when it exists)
                f.write(["*.log\n", "*.py\n!f0.py\n", "b/\n", ""][j % 4])
        elif kind == "venv" and folders[i]:
            (here / "pyvenv.cfg").write_text("home = /usr\n")
        elif kind == "rename" and folders[i] and there.is_dir() and not there.is_relative_to(
                here):
            here.rename(there / f"moved{i}")
    assert list(walk(root, None, record)) == list(walk(root))


def test_a_record_another_walk_wrote_or_garbage_is_not_trusted(tmp_path: Path) -> None:
    import marshal

    (tmp_path / "a.py").write_text("x = 1\n")
    record = Walked()
    list(walk(tmp_path, None, None, record))
    assert Walked.loads(record.dumps()) is not None
    code = marshal.loads(record.dumps())[0]
    for blob in (b"", b"garbage", marshal.dumps(("other code", (), 0, {})),
                 marshal.dumps((code, (), 0, ["not", "a", "dict"])),
                 marshal.dumps((code, (), 0))):
        assert Walked.loads(blob) is None
