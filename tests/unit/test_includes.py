"""C's includes as the reference index reads them: a name is sought through each include
once, and a qualified name only when some file declares its first part."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ctxls.index import refindex as refindex_mod
from ctxls.index.scan import index_batch
from ctxls.workspace import Workspace

FILES = {
    "main.c": """\
        #include "b.h"
        #include "a.h"

        int main(void) { return helper() + lonely(); }
        """,
    "a.h": '#include "b.h"\n',
    "b.h": "int helper(void);\nstruct point { int x; };\n",
    "c.h": "int lonely(void);\n",
    "times.c": "int next(void) { return now(); }\n",  # its header is its module's
    "times.h": "int now(void);\n",
}


@pytest.fixture()
def index(tmp_path: Path) -> refindex_mod.RefIndex:
    for rel, text in FILES.items():
        (tmp_path / rel).write_text(textwrap.dedent(text))
    ws = Workspace([tmp_path])
    ws.add(index_batch([(rel, str(tmp_path / rel)) for rel in FILES], 1 << 20))
    return ws.snapshot(refs=True).refs


def test_a_name_is_sought_through_each_include_once(
        index: refindex_mod.RefIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """b.h is included by main.c and again by a.h, one level deeper: a name it lacks is
    not sought there twice (it was, once per depth: protobuf's class `void`, 38,000
    lookups in one window); what b.h declares is still found, and a header's source
    sees its declarations."""
    main = index.files[str(tmp_path / "main.c")]
    asked: list[tuple[str, str]] = []
    real = refindex_mod.RefIndex._export

    def export(self: refindex_mod.RefIndex, info: refindex_mod.FileInfo, name: str,
               hops: int) -> object:
        asked.append((info.path, name))
        return real(self, info, name, hops)

    monkeypatch.setattr(refindex_mod.RefIndex, "_export", export)
    assert index.export(main, "lonely") is None  # c.h declares it; main.c reaches it not
    assert [p for p, n in asked if n == "lonely"] == ["main.c", "b.h", "a.h"]
    found = index.export(main, "helper")
    assert found is not None and found[0].path == "b.h"
    times = index.files[str(tmp_path / "times.c")]
    found = index.export(times, "now")
    assert found is not None and found[0].path == "times.h"


def test_a_qualified_name_no_file_begins_is_not_sought_through_the_includes(
        index: refindex_mod.RefIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A receiver's text (`this_._impl_.x`) is no declaration's qualified name unless some
    file declares its first part at its top; a struct's member is found through them."""
    main = index.files[str(tmp_path / "main.c")]
    asked: list[str] = []
    real = refindex_mod.RefIndex._export

    def export(self: refindex_mod.RefIndex, info: refindex_mod.FileInfo, name: str,
               hops: int) -> object:
        asked.append(info.path)
        return real(self, info, name, hops)

    monkeypatch.setattr(refindex_mod.RefIndex, "_export", export)
    assert index.export(main, "this_.impl_.x") is None
    assert asked == ["main.c"]
    found = index.export(main, "point.x")
    assert found is not None and found[0].path == "b.h"
