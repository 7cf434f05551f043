"""The engine without a transport: indexed tables, and text read again when shown."""

from __future__ import annotations

from pathlib import Path

from ctxls import protocol as p
from ctxls.engine import Engine
from ctxls.index.scan import index_batch


def test_indexed_files_keep_tables_not_text_and_notice_changes(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("def a():\n    return 1\n")
    engine = Engine([tmp_path])
    engine.add(index_batch([("m.py", str(src))], 1 << 20))
    entry = engine.entries[str(src)]
    assert entry.data is None and entry.outline is not None  # what a worker sends back
    r = engine.read_symbol(p.ReadSymbolParams(name="a", path="m.py"))
    assert "return 1" in r.text
    src.write_text("def a():\n    return 2\n\n\ndef b():\n    return 3\n")  # no notification
    r = engine.read_symbol(p.ReadSymbolParams(name="b", path="m.py"))
    assert "return 3" in r.text and "return 2" not in r.text
