"""The persistent index: which rows a warm start trusts, and what it leaves pickled."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

from ctxls.index.scan import index_file
from ctxls.index.store import RACY_NS, Store, warm
from ctxls.index.tables import Tables, index_names

SRC = b"import os\n\ndef area(w, h):\n    return os.path.join(w, h)\n"


def _saved(tmp_path: Path, age_ns: int) -> tuple[Store, Path, list[tuple[str, str]]]:
    """A one-file workspace whose file was last modified ``age_ns`` before it was saved."""
    root = tmp_path / "ws"
    root.mkdir()
    f = root / "geo.py"
    f.write_bytes(SRC)
    store = Store(tmp_path / "cache", root)
    entry = index_file("geo.py", str(f), 1 << 20)
    store.save([entry])
    written = store.db.execute("SELECT written_ns FROM files").fetchone()[0]
    os.utime(f, ns=(written - age_ns, written - age_ns))
    store.db.execute("UPDATE files SET mtime_ns = ?", (written - age_ns,))
    store.db.commit()
    return store, f, [("geo.py", str(f))]


def test_an_old_unchanged_stat_is_trusted_without_reading(tmp_path: Path) -> None:
    store, f, plan = _saved(tmp_path, 10 * RACY_NS)
    st = f.stat()
    f.write_bytes(SRC.replace(b"area", b"zone"))  # same size...
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # ...and the recorded mtime, as git
    hits, misses = warm(plan, store.load(), 1 << 20)
    assert misses == []
    assert [d.name for d in hits[0].outline.decls if d.kind == "function"] == ["area"]


def test_a_racy_row_is_checked_by_hash(tmp_path: Path) -> None:
    store, f, plan = _saved(tmp_path, RACY_NS // 2)
    st = f.stat()
    f.write_bytes(SRC.replace(b"area", b"zone"))
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    hits, misses = warm(plan, store.load(), 1 << 20)
    assert hits == [] and misses == plan


def test_a_changed_stat_is_checked_by_hash(tmp_path: Path) -> None:
    store, f, plan = _saved(tmp_path, 10 * RACY_NS)
    os.utime(f)  # touched, same bytes: still a hit
    hits, misses = warm(plan, store.load(), 1 << 20)
    assert misses == [] and hits[0].digest == index_file("geo.py", str(f), 1 << 20).digest
    f.write_bytes(SRC + b"\n")  # edited: a miss
    hits, misses = warm(plan, store.load(), 1 << 20)
    assert hits == [] and misses == plan


def test_a_file_too_large_to_parse_is_no_miss_at_a_warm_start(tmp_path: Path) -> None:
    """Such a file is never cached (it has no tables); a warm start that counted it a miss
    sent it to be indexed, compiling its language's queries, at every start."""
    f = tmp_path / "bundle.js"
    f.write_bytes(b"var x = 1;\n" * 200)
    hits, misses = warm([("bundle.js", str(f))], {}, 1000)
    assert misses == []
    assert [(e.status, e.language, e.tables) for e in hits] == [("too-large", "javascript", None)]


def test_a_binary_file_of_a_language_is_restored_as_binary(tmp_path: Path) -> None:
    """A parser's test fixture named ``.js`` with a NUL in it has no tables to cache; with
    no row, every warm start read it and sent it to be indexed again (on 57,000 files, the
    two such files took 0.07-0.2 s of every restart)."""
    root = tmp_path / "ws"
    root.mkdir()
    f = root / "input.js"
    f.write_bytes(b"'\0';\n")
    plan = [("input.js", str(f))]
    store = Store(tmp_path / "cache", root)
    store.save([index_file("input.js", str(f), 1 << 20)])
    hits, misses = warm(plan, store.load(), 1 << 20)
    assert misses == []
    assert [(e.status, e.language, e.tables) for e in hits] == [("binary", "javascript", None)]
    f.write_bytes(b"let a = 1;\n")  # text now: indexed again
    hits, misses = warm(plan, store.load(), 1 << 20)
    assert hits == [] and misses == plan


def test_tables_stay_pickled_until_read(tmp_path: Path) -> None:
    store, _, plan = _saved(tmp_path, 10 * RACY_NS)
    tables = warm(plan, store.load(), 1 << 20)[0][0].tables
    assert tables is not None and tables._value is None
    fresh = index_file("geo.py", plan[0][1], 1 << 20).tables
    assert fresh is not None and fresh.refs is not None
    assert tables.name_set() == index_names(fresh.refs) >= {"join", "os"}
    assert tables.errors == 0 and tables._value is None  # the index needs no unpickling
    assert tables.outline == fresh.outline and tables.refs == fresh.refs


def test_tables_cross_a_process_boundary_as_one_payload() -> None:
    from ctxls.index.scan import index_bytes

    tables = index_bytes("geo.py", "/x/geo.py", SRC, 0, 1 << 20).tables
    assert isinstance(tables, Tables)
    copy = pickle.loads(pickle.dumps(tables))
    assert copy._value is None and copy.names == tables.names
    assert copy.outline == tables.outline


def test_the_payload_codec_round_trips_every_fixture() -> None:
    """Every outline and reference table of the bundled example and the per-language
    fixtures decodes to what was encoded (field by field, types included)."""
    from ctxls.index.tables import Tables as T
    from ctxls.index.tables import pack, unpack

    repo = Path(__file__).resolve().parents[2]
    files = [*(repo / "examples").rglob("*"), *(repo / "tests" / "fixtures").rglob("*")]
    seen = 0
    for f in sorted(files):
        if not f.is_file():
            continue
        tables = index_file(f.name, str(f), 1 << 20).tables
        if tables is None:
            continue
        outline, refs = tables.outline, tables.refs
        back_outline, back_refs = unpack(pack(outline, refs))
        assert T(pack(outline, refs), None, 0).imports() == (refs.imports if refs else ())
        assert back_outline == outline and back_refs == refs, f
        assert (back_outline.bodied_types, back_outline.def_types) == (
            outline.bodied_types, outline.def_types)
        assert [type(d.span) for d in back_outline.decls] == [type(d.span) for d in outline.decls]
        assert [type(d.body) for d in back_outline.decls] == [type(d.body) for d in outline.decls]
        seen += bool(outline.decls) and bool(refs and refs.calls)
    assert seen >= 20


def test_a_files_equal_strings_decode_as_one_object(tmp_path: Path) -> None:
    """Names a file repeats (calls, parents, kinds, indents) are written once in its
    payload and decode as one object each; the tables stay equal to what was encoded."""
    from ctxls.index.tables import pack, unpack

    src = "class Ledger:\n" + "".join(
        f"    def m{i}(self):\n        log(self.total)\n        log(x)\n" for i in range(30))
    (tmp_path / "ledger.py").write_text(src)
    tables = index_file("ledger.py", str(tmp_path / "ledger.py"), 1 << 20).tables
    assert tables is not None and tables.refs is not None
    outline, refs = tables.outline, tables.refs
    # (fresh from the parse, each is its own object)
    assert len({id(c.name) for c in refs.calls}) == len(refs.calls) == 60
    back_outline, back_refs = unpack(pack(outline, refs))
    assert (back_outline, back_refs) == (outline, refs)
    assert back_refs is not None
    assert len({id(c.name) for c in back_refs.calls}) == 1  # every call is to `log`
    methods = [d for d in back_outline.decls if d.kind == "method"]
    assert len(methods) == 30
    assert len({id(d.parents) for d in methods}) == 1
    assert len({id(d.kind) for d in methods}) == 1
    assert len({id(d.body.indent) for d in methods if d.body}) == 1
    assert methods[0].parents[0] is back_outline.decls[0].qualname
    assert pack(outline, refs).count(b"log") == 1  # written once, for sixty calls


def test_one_scan_pass_equals_the_two_separate_queries() -> None:
    """The scan runs outline.scm and references.scm as one query; its tables must be the
    ones each query gives alone (the path edits and open documents take)."""
    from ctxls.index import refs as refs_mod
    from ctxls.syntax import languages
    from ctxls.syntax.outline import extract
    from ctxls.syntax.text import LineIndex

    repo = Path(__file__).resolve().parents[2]
    checked = 0
    for f in sorted([*(repo / "examples").rglob("*"), *(repo / "tests" / "fixtures").rglob("*"),
                     *(repo / "server").rglob("*.py")]):
        lang = languages.for_path(f.name)
        if not f.is_file() or lang is None or lang.refs_query is None:
            continue
        data = f.read_bytes()
        tables = index_file(f.name, str(f), 1 << 20).tables
        assert tables is not None
        tree = lang.parser().parse(data)
        assert tables.outline == extract(lang, tree, LineIndex(data)), f
        assert tables.refs == refs_mod.extract(lang, tree.root_node), f
        checked += 1
    assert checked >= 40


def test_a_restored_files_payload_is_read_when_first_needed(tmp_path: Path) -> None:
    """A warm start reads no payload; a request's first read of the tables fetches the row's,
    and when the row has gone since (the cache removed), the file as it is now is indexed."""
    store, f, plan = _saved(tmp_path, 10 * RACY_NS)
    fresh = index_file("geo.py", plan[0][1], 1 << 20).tables
    assert fresh is not None
    hits, misses = store.restore(tmp_path / "ws", plan, 1 << 20)
    tables = hits[0].tables
    assert misses == [] and tables is not None
    assert tables._payload is None and tables._value is None  # nothing read yet
    assert tables.name_set() == fresh.name_set()  # (filed from the row's names alone)
    assert tables.outline == fresh.outline and tables.refs == fresh.refs
    assert tables.payload() == fresh.payload()
    # the row gone under a restored file: its tables come from the file on disk
    hits, _ = store.restore(tmp_path / "ws", plan, 1 << 20)
    store.db.execute("DELETE FROM files")
    store.db.commit()
    f.write_bytes(SRC.replace(b"def area", b"def zone"))
    later = hits[0].tables
    assert later is not None
    assert [d.name for d in later.outline.decls if d.kind == "function"] == ["zone"]
    store.save([index_file("geo.py", str(f), 1 << 20)])
    hits, _ = store.restore(tmp_path / "ws", plan, 1 << 20)
    store.db.execute("DELETE FROM files")
    store.db.commit()
    f.unlink()  # and a file gone too: the tables of no text, until it is listed again
    gone = hits[0].tables
    assert gone is not None and gone.outline.decls == ()


def test_restored_payloads_are_read_together(tmp_path: Path) -> None:
    """A warm start reads no payload; ``prefetch`` reads many in a query per 500 files,
    each equal to what reading it alone gives, and a row changed since (another digest)
    or gone is read as a single read would read it: from disk."""
    from ctxls.index.store import MANY
    from ctxls.index.tables import prefetch

    root = tmp_path / "ws"
    root.mkdir()
    n = MANY + 40
    for i in range(n):
        (root / f"m{i}.py").write_text(f"import os\n\ndef f{i}(x):\n    return os.sep + x\n")
    plan = [(f"m{i}.py", str(root / f"m{i}.py")) for i in range(n)]
    store = Store(tmp_path / "cache", root)
    store.save([index_file(rel, a, 1 << 20) for rel, a in plan])
    alone = [t.payload() for t in (e.tables for e in warm(plan, store.load(False), 1 << 20,
                                                            store)[0]) if t is not None]
    hits, _ = warm(plan, store.load(False), 1 << 20, store)
    store.db.execute("UPDATE files SET digest = 'other', payload = x'00' WHERE path = 'm3.py'")
    store.db.execute("DELETE FROM files WHERE path = 'm4.py'")
    store.db.commit()
    selects: list[str] = []
    store.db.set_trace_callback(lambda sql: selects.append(sql) if "IN (" in sql else None)
    tables = [e.tables for e in hits if e.tables is not None]
    prefetch(tables)
    assert len(selects) == 2  # (540 files: two queries)
    assert [t._source for t in tables] == [None] * n  # every payload read
    assert [t.payload() for t in tables] == alone
    assert [d.name for d in tables[3].outline.decls] == ["f3"]
    prefetch(tables)  # (nothing left to read)
    assert len(selects) == 2
