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


def test_a_pass_over_every_file_leaves_the_tables_compact(tmp_path: Path) -> None:
    files = []
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
        files.append((f"m{i}.py", str(tmp_path / f"m{i}.py")))
    engine = Engine([tmp_path])
    engine.add(index_batch(files, 1 << 20))
    tables = [engine.entries[path].tables for _, path in files]
    assert all(t is not None and not t.decoded for t in tables)  # as the scan sends them
    engine.read_symbol(p.ReadSymbolParams(name="f0", path="m0.py"))
    assert tables[0] is not None and tables[0].decoded  # a request decodes what it reads
    assert engine.search_step(None)
    found = engine.search(p.SearchParams("f2", 3)).hits
    assert found and found[0].symbol == "f2"
    assert [t is not None and t.decoded for t in tables] == [True, False, False]
    engine.stats(p.StatsParams())
    assert [t is not None and t.decoded for t in tables] == [True, False, False]
    assert [d.name for d in tables[1].outline.decls] == ["f1"]  # decodes again on demand
