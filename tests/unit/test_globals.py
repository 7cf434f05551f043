"""Names any file may mean (``Globals``): the same answers as a build of every key from
every file, decoding only the files that declare the name, and kept current as files
change."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxls.index.globals import CLASS_KINDS, Kind
from ctxls.index.refindex import FileInfo, RefIndex, _system
from ctxls.index.scan import index_batch
from ctxls.syntax.outline import Decl
from ctxls.workspace import Workspace
from tests.unit.test_tops import FIXTURES, _workspace


def _every_key(index: RefIndex) -> dict[tuple[Kind, str, str], list[tuple[str, Decl]]]:
    """Every (kind, name, system) at once, from every file's decoded outline."""
    found: dict[tuple[Kind, str, str], list[tuple[str, Decl]]] = {}
    for f in index.files.values():
        system = _system(f.path)
        for d in f.outline.decls:
            if system.global_functions and not d.parents and d.kind == "function" and \
                    d.name not in index.internal(f):
                found.setdefault(("decl", d.name, system.name), []).append((f.key, d))
                if d.body is not None:
                    found.setdefault(("fn", d.name, system.name), []).append((f.key, d))
            if system.global_classes and d.kind in ("function", "method"):
                found.setdefault(("def", d.name, ""), []).append((f.key, d))
            if system.global_classes and d.kind in ("module", *CLASS_KINDS):
                found.setdefault(("class", d.name, ""), []).append((f.key, d))
                if d.qualname != d.name:
                    found.setdefault(("class", d.qualname, ""), []).append((f.key, d))
    return found


def _keys(found: list[tuple[FileInfo, Decl]]) -> list[tuple[str, Decl]]:
    return [(f.key, d) for f, d in found]


def test_every_key_of_every_fixture_means_what_a_full_build_says() -> None:
    checked = 0
    for lang_dir in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        index = _workspace(lang_dir).refs
        truth = _every_key(index)
        found = index._globals()
        for key, want in truth.items():
            assert _keys(found.get(*key)) == want, (lang_dir.name, key)
            checked += 1
        for missing in (("fn", "no_such", "c"), ("class", "Nope", ""),
                        ("def", "nothing_here", ""), ("class", "A.Nope", "")):
            assert found.get(*missing) == []
    assert checked > 60  # (C, C++, C#, PHP and Ruby fixtures were read)


def test_a_lookup_decodes_only_the_declaring_files_and_follows_changes(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"m{i}.rb").write_text(f"class Other{i}\n  def run\n  end\nend\n")
    (tmp_path / "ledger.rb").write_text("class Ledger\n  def post\n  end\nend\n")
    ws = _workspace(tmp_path)
    index = ws.refs
    for info in index.files.values():
        info.tables.release(encode_first=True)
    (found,) = index._globals().get("class", "Ledger")
    assert found[0].path == "ledger.rb" and found[1].name == "Ledger"
    assert [f.path for f in index.files.values() if f.tables.decoded] == ["ledger.rb"]
    assert len(index._globals().get("def", "run")) == 30
    # a file changed: the next version's lookups see it, the old declaration is gone
    old = index.files[str(tmp_path / "ledger.rb")]
    (tmp_path / "ledger.rb").write_text("class Journal\n  def post\n  end\nend\n")
    ws2 = Workspace([tmp_path])
    (entry,) = [e for e in index_batch(ws2.scan_plan(), 1 << 20) if e.path == "ledger.rb"]
    index.put(FileInfo(old.key, old.path, entry.tables))
    assert index._globals().get("class", "Ledger") == []
    assert [f.path for f, _ in index._globals().get("class", "Journal")] == ["ledger.rb"]
    index.remove(old.key)
    assert index._globals().get("class", "Journal") == []
    assert "Journal" not in index.declared_by


def test_a_removal_takes_out_what_was_filed_though_the_old_payload_now_reads_otherwise(
        tmp_path: Path) -> None:
    """A restored file's payload is read lazily; by the time its file changes, that read may
    give the new text's tables. The names filed for it are taken out all the same, so a
    name filed again later is filed once (a duplicate made `global_function` see two)."""
    (tmp_path / "a.rb").write_text("class Old\nend\n")
    ws = _workspace(tmp_path)
    index = ws.refs
    old = index.files[str(tmp_path / "a.rb")]
    (tmp_path / "a.rb").write_text("class New\nend\n")
    (new_entry,) = index_batch(Workspace([tmp_path]).scan_plan(), 1 << 20)
    old.tables.release(encode_first=True)
    old.tables._payload = new_entry.tables.payload()  # (what a lazy read finds now)
    index.put(FileInfo(old.key, old.path, new_entry.tables))
    assert "Old" not in index.declared_by
    (tmp_path / "a.rb").write_text("class Old\nend\n")
    (again,) = index_batch(Workspace([tmp_path]).scan_plan(), 1 << 20)
    index.put(FileInfo(old.key, old.path, again.tables))
    assert index.declared_by["Old"] == [old.key]
    assert len(index._globals().get("class", "Old")) == 1


def _thirty_values(tmp_path: Path) -> RefIndex:
    """Thirty C# files declaring a property `Value`, and the class `Value`, indexed."""
    for i in range(30):
        (tmp_path / f"M{i}.cs").write_text(
            f"namespace App;\n\npublic class Holder{i} {{ public int Value {{ get; set; }} }}\n")
    (tmp_path / "Value.cs").write_text("namespace App;\n\npublic class Value { }\n")
    return _workspace(tmp_path).refs


def test_a_class_lookup_decodes_only_the_files_declaring_a_class_of_that_name(
        tmp_path: Path) -> None:
    """Where class names are global, thirty C# files declaring a property `Value` are
    passed over from their payload's head when `Value` is sought as a class: only the
    class's own file is decoded (AutoMapper: 109 files decoded for it)."""
    index = _thirty_values(tmp_path)
    for info in index.files.values():
        info.tables.release(encode_first=True)
    assert len(index.declared_by["Value"]) == 31
    (found,) = index._globals().get("class", "Value")
    assert found[0].path == "Value.cs" and found[1].kind == "class"
    assert [f.path for f in index.files.values() if f.tables.decoded] == ["Value.cs"]
    assert len(index._globals().get("def", "Value")) == 0  # (a property is no method)


def test_a_class_lookup_searches_only_decoded_files_declaring_a_class_of_that_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoded, the thirty files declaring a property `Value` are passed over by a table of
    their classes kept while decoded, not searched declaration by declaration (orleans'
    every use of a `ToString` override: 0.35 s of such searches)."""
    from ctxls.index.tables import Tables

    index = _thirty_values(tmp_path)
    for info in index.files.values():
        assert info.outline.decls  # (decoded)
    assert all(info.tables.decoded for info in index.files.values())
    searched: list[int] = []
    outline = Tables.outline

    def reading(self: Tables) -> object:
        searched.append(id(self))
        return outline.fget(self)  # type: ignore[attr-defined]

    monkeypatch.setattr(Tables, "outline", property(reading))
    (found,) = index._globals().get("class", "Value")
    assert found[0].path == "Value.cs" and found[1].kind == "class"
    assert searched == [id(index.files[str(tmp_path / "Value.cs")].tables)]
