"""The workspace walk: ignore files as git reads them, a bad line included."""

from __future__ import annotations

from pathlib import Path

from ctxls.index.scan import walk


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

    from ctxls.index.scan import Ignores

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
