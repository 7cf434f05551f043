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
