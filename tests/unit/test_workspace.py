"""The workspace without a transport: indexed tables, text read again when shown, and a
snapshot that reads what the workspace held when it was taken."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxls import protocol as p
from ctxls.index import refs as refs_mod
from ctxls.index import scan
from ctxls.index.scan import index_batch, index_file
from ctxls.requests.chunks import stats
from ctxls.requests.read import read_symbol
from ctxls.requests.search import build, open_index, plan, search
from ctxls.syntax import document
from ctxls.workspace import Workspace


def test_indexed_files_keep_tables_not_text_and_notice_changes(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("def a():\n    return 1\n")
    ws = Workspace([tmp_path])
    ws.add(index_batch([("m.py", str(src))], 1 << 20))
    entry = ws.entries[str(src)]
    assert entry.data is None and entry.outline is not None  # what a worker sends back
    r = read_symbol(ws.snapshot("m.py"), p.ReadSymbolParams(name="a", path="m.py"))
    assert "return 1" in r.text
    src.write_text("def a():\n    return 2\n\n\ndef b():\n    return 3\n")  # no notification
    r = read_symbol(ws.snapshot("m.py"), p.ReadSymbolParams(name="b", path="m.py"))
    assert "return 3" in r.text and "return 2" not in r.text
    assert [d.name for d in ws.refs.files[str(src)].outline.decls] == ["a", "b"]  # re-indexed


def test_a_file_first_read_by_a_request_joins_the_workspace_after_it(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def a():\n    return 1\n")
    (tmp_path / "n.py").write_text("def b():\n    return 2\n")
    ws = Workspace([tmp_path])
    snap = ws.snapshot("m.py")  # m.py is the request's own file: indexed before it begins
    assert str(tmp_path / "m.py") in ws.entries
    snap.view_at("n.py")  # read during the request: kept by the snapshot alone
    key = str(tmp_path / "n.py")
    assert key in snap.fresh and key not in ws.entries and key not in ws.refs.files
    ws.absorb(snap)
    assert key in ws.entries and key in ws.refs.files
    # neither a file read on demand nor one indexed again (an editor closed it) keeps its
    # text in the index: a long session would keep every file it read
    assert ws.entries[key].data is None
    ws.open((tmp_path / "n.py").as_uri(), "def b():\n    return 3\n", 1)
    ws.close((tmp_path / "n.py").as_uri())
    ws.refresh((tmp_path / "m.py").as_uri())
    assert all(e.data is None for e in ws.entries.values())
    assert snap.view_at("n.py").data.startswith(b"def b()")  # read again when shown


def test_open_documents_are_frozen_at_their_version_in_a_snapshot(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def a():\n    return 1\n")
    ws = Workspace([tmp_path])
    uri = (tmp_path / "m.py").as_uri()
    ws.open(uri, "def a():\n    return 1\n", 1)
    before = ws.snapshot()
    ws.change(uri, 2, ["def a():\n    return 1\n\n\ndef c():\n    return 3\n"])
    after = ws.snapshot()
    assert [d.name for d in before.view_at("m.py").outline.decls] == ["a"]  # type: ignore[union-attr]
    assert [d.name for d in after.view_at("m.py").outline.decls] == ["a", "c"]  # type: ignore[union-attr]
    assert (before.view_at("m.py").version, after.view_at("m.py").version) == (1, 2)


def test_idle_documents_drop_their_trees_and_still_answer(tmp_path: Path) -> None:
    """Open documents unchanged for a while keep no syntax tree; snapshots still show
    their outlines, and a later change parses them whole."""
    (tmp_path / "m.py").write_text("def a():\n    return 1\n")
    (tmp_path / "n.py").write_text("def b():\n    return 2\n")
    ws = Workspace([tmp_path])
    m, n = (tmp_path / "m.py").as_uri(), (tmp_path / "n.py").as_uri()
    ws.open(m, "def a():\n    return 1\n", 1)
    ws.open(n, "def b():\n    return 2\n", 1)
    ws.snapshot(refs=True)  # (the documents' tables filed: their trees read)
    ws.release_idle_trees(3600)
    assert all(d.tree is not None for d in ws.docs.values())
    ws.docs[str((tmp_path / "n.py").resolve())].touched -= 7200
    ws.release_idle_trees(3600)
    assert [k.rsplit("/", 1)[1] for k, d in ws.docs.items() if d.tree is None] == ["n.py"]
    assert [d.name for d in ws.snapshot().view_at("n.py").outline.decls] == ["b"]  # type: ignore[union-attr]
    ws.change(n, 2, [((2, 0), (2, 0), "\n\ndef c():\n    return 3\n")])  # an edit, no tree
    view = ws.snapshot(refs=True).view_at("n.py")
    assert [d.name for d in view.outline.decls] == ["b", "c"]  # type: ignore[union-attr]


def test_a_pass_over_every_file_leaves_the_tables_compact(tmp_path: Path) -> None:
    files = []
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
        files.append((f"m{i}.py", str(tmp_path / f"m{i}.py")))
    ws = Workspace([tmp_path])
    ws.add(index_batch(files, 1 << 20))
    tables = [ws.entries[path].tables for _, path in files]
    assert all(t is not None and not t.decoded for t in tables)  # as the scan sends them
    read_symbol(ws.snapshot(), p.ReadSymbolParams(name="f0", path="m0.py"))
    assert tables[0] is not None and tables[0].decoded  # a request decodes what it reads
    todo, _ = plan(ws)  # what the engine's background build does, in one go
    snap = ws.snapshot()
    assert build(snap, open_index(ws), todo, None) == 3
    ws.absorb(snap)
    ws.search_ready = True
    found = search(ws.snapshot(), p.SearchParams("f2", 3)).hits
    assert found and found[0].symbol == "f2"
    assert [t is not None and t.decoded for t in tables] == [True, False, False]
    stats(ws.snapshot(), p.StatsParams())
    assert [t is not None and t.decoded for t in tables] == [True, False, False]
    assert [d.name for d in tables[1].outline.decls] == ["f1"]  # decodes again on demand


def test_drift_finds_what_changed_between_the_listing_and_the_watches(tmp_path: Path) -> None:
    import os
    import time

    import attrs

    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.py").write_text(f"def {name}():\n    return 1\n")
    (tmp_path / ".gitignore").write_text("ignored.py\n")
    (tmp_path / "notes.md").write_text("# notes\n")
    hour_ago = time.time_ns() - 3600 * 10**9
    for name in ("a.py", "b.py", "c.py", ".gitignore", ""):  # written before the scan began
        os.utime(tmp_path / name, ns=(hour_ago, hour_ago))
    ws = Workspace([tmp_path])
    ws.add(index_batch(ws.scan_plan(), 1 << 20))
    ws.keep_walks()  # (the listing's record, kept as bytes: the drift listing walks from it)
    assert isinstance(ws._walked[tmp_path.resolve()], bytes)
    began = time.time_ns() - 2_000_000_000
    # nothing changed: nothing to index again, but a file of no language (listed without
    # its size or time) written since the scan began, which is listed again
    assert ws.drift(began) == [(tmp_path / "notes.md").as_uri()]
    os.utime(tmp_path / "notes.md", ns=(hour_ago, hour_ago))
    assert ws.drift(began) == []
    vouched = ws.entries[str(tmp_path / "c.py")]  # as the shared index gives it: no time
    ws.entries[str(tmp_path / "c.py")] = attrs.evolve(vouched, mtime_ns=0)
    assert ws.drift(began) == []  # not written since the scan began: not looked at again
    (tmp_path / "a.py").write_text("def a():\n    return 22\n")  # another size
    os.utime(tmp_path / "b.py", ns=(time.time_ns(), time.time_ns()))  # same size, touched
    (tmp_path / "c.py").unlink()
    (tmp_path / "d.py").write_text("def d():\n    return 4\n")
    (tmp_path / "ignored.py").write_text("x = 1\n")  # the walk's rules apply
    assert sorted(ws.drift(began)) == sorted((tmp_path / f"{n}.py").as_uri() for n in "abcd")
    # while requests are answered the listing waits (it holds the GIL for seconds on a
    # large tree), then gives the same answer
    asked: list[float] = []

    def busy() -> bool:
        asked.append(time.monotonic())
        return len(asked) <= 3
    started = time.monotonic()
    assert sorted(ws.drift(began, busy)) == sorted(
        (tmp_path / f"{n}.py").as_uri() for n in "abcd")
    assert len(asked) == 4 and asked[-1] - started >= 0.015


def test_what_the_index_remembers_outlives_a_request_until_the_index_changes(
        tmp_path: Path) -> None:
    """Each request reads a view of the index: an answer remembered on the view alone
    was worked out again by every request."""
    src = tmp_path / "m.py"
    src.write_text("def a():\n    return 1\n")
    ws = Workspace([tmp_path])
    ws.add(index_batch([("m.py", str(src))], 1 << 20))
    computed: list[int] = []

    def ask() -> int:
        view = ws.snapshot(refs=True).refs
        return view.remembered("t", "k", lambda: computed.append(1) or len(computed))

    assert ask() == 1 and ask() == 1  # a second request, same index: remembered
    old = ws.snapshot(refs=True).refs  # a request that began before the change below
    src.write_text("def b():\n    return 2\n")
    ws.put_entry(str(src), index_batch([("m.py", str(src))], 1 << 20)[0])
    assert ask() == 2 and ask() == 2  # the index changed: worked out once again
    assert old.remembered("t", "k", lambda: -1) == -1  # never the newer version's answer


def test_counts_over_every_file_follow_the_files_a_request_read_fresh(
        tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def a():\n    return 1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "test_m.py").write_text("def test_a():\n    assert 1\n")
    ws = Workspace([tmp_path])
    ws.add(index_batch([("m.py", str(tmp_path / "m.py"))], 1 << 20))
    first = ws.snapshot()
    assert first.unindexed("python") == 0 and first.named("test_m.py") == []
    (tmp_path / "test_m.py").write_text("def test_b():\n    assert 2\n")
    snap = ws.snapshot()
    snap.view_at("test_m.py")  # read by this request first: in its fresh entries alone
    snap.view_at("pkg/test_m.py")
    assert snap.named("test_m.py") == sorted([str(tmp_path / "test_m.py"),
                                              str(tmp_path / "pkg" / "test_m.py")])
    assert snap.unindexed("python") == 0
    ws.absorb(snap)
    (tmp_path / "m.py").write_bytes(b"\xff" * 10 + b"\0")  # binary now: no tables
    ws.put_entry(str(tmp_path / "m.py"),
                 index_batch([("m.py", str(tmp_path / "m.py"))], 1 << 20)[0])
    again = ws.snapshot()
    assert again.unindexed("python") == 1 and len(again.named("test_m.py")) == 2


def test_files_added_in_bulk_are_filed_as_one_by_one_before_any_view_reads_them(
        tmp_path: Path) -> None:
    """A start adds thousands of restored files and files their names only when a request
    takes a view (or the server is idle): the index it settles into must be the one filing
    each file on its own gives, and ``ctx/status``'s view must not wait for it."""
    files = {"pkg/__init__.py": "from .core import run\n",
             "pkg/core.py": "import os\n\ndef run(x):\n    return helper(x)\n\n"
                            "def helper(x):\n    return os.path.join(x, 'y')\n",
             "pkg/cli.py": "from pkg.core import run, helper\n\nrun(helper('a'))\n",
             "web/app.ts": "import { b } from './b';\nexport function a() { return b(); }\n",
             "web/b.ts": "export function b() { return 1; }\n",
             "notes.txt": "not parsed\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    entries = index_batch([(rel, str(tmp_path / rel)) for rel in sorted(files)], 1 << 20)
    bulk = Workspace([tmp_path])
    bulk.add(entries)
    assert len(bulk.refs.pending) == 5 and not bulk.refs.by_name  # added, not filed yet
    assert not bulk.snapshot(names=False).refs.files  # ctx/status's view does not settle
    assert bulk.refs.pending
    settled = bulk.snapshot().refs
    assert not bulk.refs.pending
    one = Workspace([tmp_path])
    for e in entries:
        one.put_entry(e.abspath, e)
    assert not one.refs.pending
    for table in ("files", "by_name", "modules", "rooted"):
        assert getattr(settled, table) == getattr(one.refs, table), table
    assert settled.by_name["helper"] == {str(tmp_path / "pkg/core.py"),
                                         str(tmp_path / "pkg/cli.py")}
    # a change before any view settles first: the file is filed once, at its new version
    (tmp_path / "web/b.ts").write_text("export function b2() { return 2; }\n")
    again = Workspace([tmp_path])
    again.add(entries)
    again.refresh((tmp_path / "web/b.ts").as_uri())
    assert not again.refs.pending
    assert "b2" in {d.name for d in again.refs.files[str(tmp_path / "web/b.ts")].outline.decls}
    assert set(again.refs.files) == set(one.refs.files)


def test_a_saved_or_closed_document_is_filed_from_its_own_tables(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A save and a close read the file again. When it holds the document's text, the
    document's outline and reference tables are filed (nothing is parsed again), equal to
    the file's indexed from scratch; when a closed document's text is not the file's, the
    document is brought to the file's text as after an edit, and its tables are the
    file's, again equal to the file's indexed from scratch."""
    src = tmp_path / "m.py"
    src.write_text("import os\n\n\ndef a():\n    return os.sep\n")
    ws = Workspace([tmp_path])
    ws.add(index_batch([("m.py", str(src))], 1 << 20))
    uri, key = src.as_uri(), str(src)
    ws.open(uri, src.read_text(), 1)
    ws.change(uri, 2, [((5, 0), (5, 0), "\n\ndef b():\n    return a()\n")])
    src.write_bytes(ws.docs[key].data)  # saved
    fresh = index_file("m.py", key, 1 << 20)
    assert fresh.tables is not None and fresh.tables.refs is not None
    with monkeypatch.context() as m:
        m.setattr(scan, "extract", None)  # (a parse would fail here)
        ws.refresh(uri)
    assert ws.entries[key].tables.outline == fresh.tables.outline  # type: ignore[union-attr]
    ws.change(uri, 3, [((0, 0), (0, 0), "X = 1\n")])
    src.write_bytes(ws.docs[key].data)  # saved again, then closed
    fresh = index_file("m.py", key, 1 << 20)
    assert fresh.tables is not None
    with monkeypatch.context() as m:
        m.setattr(scan, "extract", None)
        ws.close(uri)
    info = ws.refs.files[key]
    assert (info.outline, info.tables.refs) == (fresh.tables.outline, fresh.tables.refs)
    assert [d.name for d in info.outline.decls] == ["X", "a", "b"]
    ws.open(uri, src.read_text(), 4)
    ws.change(uri, 5, [((0, 0), (1, 0), "")])
    ws.snapshot(refs=True)  # (the edit filed: the index holds the unsaved text's tables)
    assert [d.name for d in ws.refs.files[key].outline.decls] == ["a", "b"]
    with monkeypatch.context() as m:
        m.setattr(scan, "extract", None)
        ws.close(uri)  # closed unsaved: the file's tables, the edit undone incrementally
    info = ws.refs.files[key]
    assert (info.outline, info.tables.refs) == (fresh.tables.outline, fresh.tables.refs)


def test_a_file_opened_as_the_index_holds_it_is_read_from_the_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening a file whose text is what the index holds parses and extracts nothing and
    files nothing (what the index remembered stays); the first edit is taken as one, and
    gives the tables of the edited text indexed from scratch."""
    src = tmp_path / "m.py"
    src.write_text("import os\n\n\ndef a():\n    return os.sep\n")
    ws = Workspace([tmp_path])
    ws.add(index_batch([("m.py", str(src))], 1 << 20))
    uri, key = src.as_uri(), str(src)
    ws.snapshot(refs=True)  # (the scan's files filed)
    assert ws.refs.remembered("t", 1, lambda: "before") == "before"
    with monkeypatch.context() as m:
        m.setattr(document, "extract", None)  # (an extraction would fail here)
        m.setattr(refs_mod, "extract_rows", None)
        ws.open(uri, src.read_text(), 1)
        snap = ws.snapshot(refs=True)
        assert snap.view_at("m.py").outline == ws.entries[key].outline  # type: ignore[union-attr]
        assert ws.docs[key].tree is None
    assert ws.refs.remembered("t", 1, lambda: "again") == "before"
    ws.change(uri, 2, [((5, 0), (5, 0), "\n\ndef b():\n    return a()\n")])
    ws.snapshot(refs=True)
    src.write_bytes(ws.docs[key].data)
    fresh = index_file("m.py", key, 1 << 20)
    assert fresh.tables is not None
    info = ws.refs.files[key]
    assert (info.outline, info.tables.refs) == (fresh.tables.outline, fresh.tables.refs)
    assert [d.name for d in info.outline.decls] == ["a", "b"]


def test_a_document_opened_again_with_another_text_is_filed_anew(tmp_path: Path) -> None:
    """A client that opens a document twice (no close between), both times as version 1,
    gets the second text's names filed, not the first's kept for the same version."""
    src = tmp_path / "m.py"
    src.write_text("def a():\n    return 1\n")
    ws = Workspace([tmp_path])
    ws.add(index_batch([("m.py", str(src))], 1 << 20))
    uri, key = src.as_uri(), str(src)
    ws.open(uri, "def b():\n    return 2\n", 1)
    ws.snapshot(refs=True)
    ws.open(uri, "def c():\n    return 3\n", 1)
    ws.snapshot(refs=True)
    assert [d.name for d in ws.refs.files[key].outline.decls] == ["c"]
