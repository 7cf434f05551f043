"""The start-up cache of attrs' generated methods: a second start compiles almost nothing, and
the classes it makes behave as attrs' own; a damaged cache is ignored."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = r"""
import builtins, json, sys
from ctxls.startup import compiled_once, _cache_file
compiled = 0
real = builtins.compile
def counting(*args, **kwargs):
    global compiled
    if str(args[1] if len(args) > 1 else kwargs.get("filename", "")).startswith("<attrs"):
        compiled += 1
    return real(*args, **kwargs)
builtins.compile = counting
with compiled_once():
    from lsprotocol import types as t
    import attrs
    @attrs.frozen
    class Point:  # hashable: its __hash__ is salted per process
        x: int
builtins.compile = real
a, b = t.Position(line=1, character=2), t.Position(1, 2)
edit = t.TextEdit(t.Range(a, b), "x")
print(json.dumps({"compiled": compiled, "equal": a == b, "repr": repr(edit),
                  "hash_differs": t.Position(1, 3) != a,
                  "frozen": hash(Point(1)) == hash(Point(1)) and Point(1) != Point(2),
                  "cache": str(_cache_file())}))
"""


def probe(cache_home: Path) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         env={"XDG_CACHE_HOME": str(cache_home), "PATH": "/usr/bin:/bin"},
                         check=True, timeout=120)
    found: dict[str, object] = json.loads(out.stdout)
    return found


def test_a_second_start_compiles_almost_nothing_and_classes_behave_alike(
        tmp_path: Path) -> None:
    first = probe(tmp_path)
    assert first["compiled"] > 500  # lsprotocol's classes, compiled and kept
    assert Path(str(first["cache"])).is_file()
    size = Path(str(first["cache"])).stat().st_size
    second = probe(tmp_path)
    assert second["compiled"] < 40  # only frozen classes' __hash__ (salted per process)
    assert Path(str(first["cache"])).stat().st_size == size  # nothing added
    probe(tmp_path)
    assert Path(str(first["cache"])).stat().st_size == size  # salted code is never kept
    for got in (first, second):
        assert got["equal"] is True and got["hash_differs"] is True and got["frozen"] is True
        assert got["repr"] == "TextEdit(range=1:2-1:2, new_text='x')"


def test_a_damaged_cache_is_compiled_past_and_replaced(tmp_path: Path) -> None:
    cache = Path(str(probe(tmp_path)["cache"]))
    cache.write_bytes(b"\x00not marshal at all")
    again = probe(tmp_path)
    assert again["compiled"] > 500 and again["equal"] is True
    assert probe(tmp_path)["compiled"] < 40  # written back whole


def test_another_attrs_cache_is_removed_when_this_one_is_written(tmp_path: Path) -> None:
    """The file is named after attrs' own module file (its version, without reading the
    package metadata); an upgraded attrs' cache would otherwise stay forever."""
    folder = tmp_path / "ctxls"
    folder.mkdir()
    tag = sys.implementation.cache_tag
    stale = folder / f"generated-code-{tag}-attrs25.0.0.marshal"
    other_python = folder / "generated-code-cpython-399-attrs1.marshal"
    stale.write_bytes(b"old")
    other_python.write_bytes(b"another interpreter's")
    cache = Path(str(probe(tmp_path)["cache"]))
    assert cache.is_file() and cache.parent == folder
    assert not stale.exists() and other_python.exists()


def test_the_cache_folder_without_a_home(monkeypatch: pytest.MonkeyPatch) -> None:
    """No XDG_CACHE_HOME and no home folder to be found: a folder under the system's
    temporary one (a start must not fail for want of a cache)."""
    import tempfile

    from ctxls import startup

    def homeless() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", staticmethod(homeless))
    folder = startup.cache_folder()
    assert folder.name == "ctxls" and folder.is_relative_to(tempfile.gettempdir())
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere")
    assert startup.cache_folder() == Path("/somewhere/ctxls")
