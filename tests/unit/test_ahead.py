"""Reading ahead (``index/ahead.py``): the most named files' shared tables built before a
request asks, and no others."""

from __future__ import annotations

from pathlib import Path

from ctxls.index.ahead import most_named, read_ahead, rehearsals
from ctxls.index.scan import index_batch
from ctxls.workspace import Workspace


def _workspace(root: Path) -> Workspace:
    ws = Workspace([root])
    ws.add(index_batch(ws.scan_plan(), 1 << 20))  # (packed, as a scan's workers send them)
    ws.refs.settle()
    return ws


def _shop(root: Path) -> None:
    pkg = root / "src" / "main" / "java" / "org" / "shop"
    pkg.mkdir(parents=True)
    (pkg / "Money.java").write_text(
        "package org.shop;\n\npublic class Money {\n  public int cents() { return 1; }\n}\n")
    (pkg / "Tax.java").write_text(
        "package org.shop;\n\npublic class Tax {\n"
        "  public Money of(Money m) { return new Money(); }\n}\n")
    (pkg / "Cart.java").write_text(
        "package org.shop;\n\nimport java.util.List;\n\npublic class Cart {\n"
        "  Money total() { Money m = new Money(); return new Tax().of(m); }\n}\n")
    (pkg / "Lonely.java").write_text(
        "package org.shop;\n\npublic class Lonely {\n  void f() {}\n}\n")


def test_files_named_by_most_files_come_first_then_path_order(tmp_path: Path) -> None:
    _shop(tmp_path)
    ws = _workspace(tmp_path)
    named = {name: len(ws.refs.by_name.get(name, ()))
             for name in ("Money", "Tax", "Cart", "Lonely")}
    assert named["Money"] > named["Tax"] > 0 == named["Cart"] == named["Lonely"]
    assert [Path(i.path).stem for i in most_named(ws.refs)] == ["Money", "Tax", "Cart",
                                                                 "Lonely"]


def test_read_ahead_builds_the_chosen_files_tables_and_leaves_the_rest(tmp_path: Path) -> None:
    _shop(tmp_path)
    ws = _workspace(tmp_path)
    files = {Path(i.path).stem: i for i in ws.refs.files.values()}
    assert not any(i.tables.decoded for i in files.values())  # (as a scan leaves them)
    pauses = []
    snap = ws.snapshot()
    assert "basenames" not in ws._listing._memo
    assert read_ahead(snap, limit=2, pause=lambda: not pauses.append(1)) == 2
    assert len(pauses) == 3 + 3 * 2  # (a request may go first: before each step)
    # the listing's facts a window asks are worked out for the workspace's entries
    assert ws._listing._memo["basenames"][0] is ws.entries
    assert ws._listing._memo["unindexed"][0] is ws.entries
    assert snap.named("Money.java") == [files["Money"].key]
    assert sorted(s for s, i in files.items() if i.tables.decoded) == ["Money", "Tax"]
    # their imported modules and their package's name map are kept for the requests
    assert set(ws.refs._imported) == {files["Money"].key, files["Tax"].key}
    tops = ws.refs.tops(files["Money"])
    assert tops is snap.refs.tops(files["Money"])  # (the view's is the index's: one version)
    assert tops._heads is not None  # (read from every member's payload head)
    # what a lookup then finds is what it finds without reading ahead
    fresh = _workspace(tmp_path)
    again = {Path(i.path).stem: i for i in fresh.refs.files.values()}
    for name in ("Money", "Tax", "Cart", "cents"):
        assert [(Path(m.key).name, d.qualname) for m, d in tops.get(name, ())] == [
            (Path(m.key).name, d.qualname) for m, d in fresh.refs.tops(again["Money"]).get(
                name, ())]


def test_read_ahead_reads_what_every_test_file_imports(tmp_path: Path) -> None:
    """Every window looks for its target's tests by what the test files import: those are
    read ahead however few files name them, from their payloads' heads (not decoded), and
    match what a request works out without reading ahead."""
    _shop(tmp_path)
    tests = tmp_path / "src" / "test" / "java" / "org" / "shop"
    tests.mkdir(parents=True)
    (tests / "MoneyTest.java").write_text(
        "package org.shop;\n\nimport org.shop.Money;\n\n"
        "class MoneyTest {\n  void t() { new Money().cents(); }\n}\n")
    ws = _workspace(tmp_path)
    test = next(i for i in ws.refs.files.values() if i.path.endswith("MoneyTest.java"))
    assert test.key not in ws.refs._imported
    assert read_ahead(ws.snapshot(), limit=0) == 0  # (no most-named file at all)
    assert test.key in ws.refs._imported and not test.tables.decoded
    fresh = _workspace(tmp_path)
    again = next(i for i in fresh.refs.files.values() if i.path.endswith("MoneyTest.java"))
    assert ws.refs._imported[test.key][1] == fresh.refs.imported_modules(again)
    assert "org.shop.Money" in ws.refs._imported[test.key][1]


def test_read_ahead_of_more_files_than_the_index_holds_reads_them_all(tmp_path: Path) -> None:
    _shop(tmp_path)
    ws = _workspace(tmp_path)
    assert read_ahead(ws.snapshot(), limit=500) == 4
    assert all(i.tables.decoded for i in ws.refs.files.values())


def test_a_server_reads_ahead_once_its_index_is_ready(tmp_path: Path) -> None:
    """The engine reads ahead behind the ready signal, on its own (no request asks)."""
    import asyncio
    import time

    from ctxls import engine as engine_mod

    _shop(tmp_path)

    async def run() -> list[bool]:
        eng = engine_mod.Engine()
        eng.open([tmp_path])
        eng.start(watch=False)
        assert await eng.index_ready(timeout=60)
        files = list(eng.ws.refs.files.values())
        deadline = time.monotonic() + 30
        while not all(i.tables.decoded for i in files) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        decoded = [i.tables.decoded for i in files]
        await eng.stop()
        return decoded

    decoded = asyncio.run(run())
    assert len(decoded) == 4 and all(decoded)


def test_a_name_many_files_share_shares_its_importers(tmp_path: Path) -> None:
    """Three `helpers.py` share the three files that import some `helpers`; `money.py`,
    imported by two, alone: it comes first (thousands of `index.js` files in a JavaScript
    tree each counted every importer of any `index`)."""
    for pkg in ("a", "b", "c"):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
        (tmp_path / pkg / "helpers.py").write_text("def h():\n    return 1\n")
    (tmp_path / "money.py").write_text("def cents():\n    return 1\n")
    (tmp_path / "m1.py").write_text("import money\nfrom a import helpers\n")
    (tmp_path / "m2.py").write_text("import money\nfrom b import helpers\n")
    (tmp_path / "m3.py").write_text("from c import helpers\n")
    ws = _workspace(tmp_path)
    assert len(ws.refs.by_name["helpers"]) == 3 and len(ws.refs.by_name["money"]) == 2
    order = [i.path for i in most_named(ws.refs)]
    assert order[:4] == ["money.py", "a/helpers.py", "b/helpers.py", "c/helpers.py"]


def test_read_ahead_stops_when_told(tmp_path: Path) -> None:
    """A stopping server ends it at its next step."""
    _shop(tmp_path)
    ws = _workspace(tmp_path)
    steps = []
    assert read_ahead(ws.snapshot(), 500,
                      pause=lambda: len(steps) < 5 and not steps.append(1)) is None
    assert len(steps) == 5 and not any(i.tables.decoded for i in ws.refs.files.values())


def test_a_server_told_to_read_nothing_ahead_decodes_nothing(tmp_path: Path) -> None:
    """`readAhead: 0`: what the scan left as payloads stays so (a second after ready, with
    no request asked)."""
    import asyncio

    from ctxls import engine as engine_mod
    from ctxls.config import Options

    _shop(tmp_path)

    async def run() -> list[bool]:
        eng = engine_mod.Engine()
        eng.open([tmp_path], Options(read_ahead=0))
        eng.start(watch=False)
        assert await eng.index_ready(timeout=60)
        await asyncio.sleep(1.0)
        decoded = [i.tables.decoded for i in eng.ws.refs.files.values()]
        await eng.stop()
        return decoded

    decoded = asyncio.run(run())
    assert len(decoded) == 4 and not any(decoded)


def _modules(root: Path) -> None:
    (root / "consts.py").write_text("RATE = 5\nNAME = 'shop'\n")
    (root / "money.py").write_text(  # (a one-line function has no body to elide)
        "import consts\n\n\ndef zero(): return 0\n\n\ndef cents():\n    return 1\n")
    (root / "helpers.py").write_text(
        "import consts\nimport money\n\n\nclass H:\n    X = 1\n\n"
        "    def go(self):\n        return money.cents()\n")
    (root / "main.py").write_text("import consts\nimport money\nimport helpers\n\n\n"
                                  "def run():\n    return helpers.H().go()\n")


def test_rehearsals_are_the_first_bodied_function_of_the_most_named_files(
        tmp_path: Path) -> None:
    """A module of constants, named most, has no function to rehearse: passed over; so
    are a one-line function and a class, which come first in their files."""
    _modules(tmp_path)
    ws = _workspace(tmp_path)
    assert [i.path for i in most_named(ws.refs)][:3] == ["consts.py", "money.py", "helpers.py"]
    got = [(Path(path).name, qualname, line)
           for path, qualname, line in rehearsals(ws.refs, 2)]
    assert got == [("money.py", "cents", 7), ("helpers.py", "H.go", 8)]
    assert all(Path(path).is_absolute() for path, _, _ in rehearsals(ws.refs, 3))
    assert len(rehearsals(ws.refs, 9)) == 3 and rehearsals(ws.refs, 0) == []


def test_a_server_rehearses_windows_behind_ready_and_a_request_cancels_one(
        tmp_path: Path) -> None:
    import asyncio

    from ctxls import engine as engine_mod
    from ctxls import warmup

    _modules(tmp_path)

    class Heard(engine_mod.Listener):
        def __init__(self) -> None:
            self.rehearsed: list[object] = []

        def rehearse(self, result: object) -> None:
            self.rehearsed.append(result)

    async def run() -> tuple[list[object], bool, list[object]]:
        heard = Heard()
        eng = engine_mod.Engine(heard)
        eng.open([tmp_path])
        eng.start(watch=False)
        assert await eng.index_ready(timeout=60)
        while eng.ahead_task is None:  # (set once the warm-up behind ready is done)
            await asyncio.sleep(0.01)
        await asyncio.wait_for(eng.ahead_task, 30)
        behind_ready = list(heard.rehearsed)
        # a request that comes while a window is rehearsed cancels it
        targets = rehearsals(eng.ws.refs, 1) * 50
        assert targets
        task = asyncio.create_task(warmup.rehearse(eng, targets))
        while eng.rehearsal is None and not task.done():
            await asyncio.sleep(0)
        held = eng.rehearsal
        assert await eng.answer(lambda snap: "answered") == "answered"
        cancelled = held.cancel.is_set()
        await asyncio.wait_for(task, 60)
        await eng.stop()
        return behind_ready, cancelled, heard.rehearsed

    behind_ready, cancelled, everything = asyncio.run(run())
    assert [r.target for r in behind_ready] == ["money.py::cents", "helpers.py::H.go"]
    assert all(r.window for r in behind_ready)
    # (the window under way when the request came was told to stop: whether it stopped
    # before its end depends on where it was; the rest were rehearsed after the answer)
    assert cancelled and len(everything) >= 2 + 49


def test_a_scan_in_worker_processes_leaves_the_queries_edits_read_for_after_ready(
        tmp_path: Path) -> None:
    """While worker processes parse, the server compiles what the first requests and edits
    read, not the scan's combined query (only a change on disk indexed on this process
    reads it): it would hold the GIL the pool's feeder needs and take a core from the
    workers. It is compiled once the read-ahead is done."""
    import asyncio

    from ctxls import engine as engine_mod
    from ctxls.config import Options
    from ctxls.syntax import languages

    for i in range(engine_mod.POOL_THRESHOLD + 20):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}(x):\n    return g(x)\n")

    async def run() -> tuple[set[str], set[str]]:
        languages.reload()
        eng = engine_mod.Engine()
        eng.open([tmp_path], Options(scan_processes=2, persist=False))
        eng.start(watch=False)
        assert await eng.index_ready(timeout=120)
        python = languages.for_path("x.py")
        assert python is not None
        at_ready = {name for name, q in python._compiled.items() if q is not None}
        while eng.ahead_task is None:
            await asyncio.sleep(0.01)
        await asyncio.wait_for(eng.ahead_task, 60)
        after = {name for name, q in python._compiled.items() if q is not None}
        await eng.stop()
        return at_ready, after

    at_ready, after = asyncio.run(run())
    assert "scan" not in at_ready
    assert {"top", "refs", "scan", "outline"} <= after


def test_the_queries_left_for_later_wait_for_quiet_and_end_with_the_server() -> None:
    """``compile_later`` compiles nothing while requests are answered, and nothing once the
    server is stopping."""
    import asyncio
    import threading
    import time

    from ctxls import warmup
    from ctxls.syntax import languages

    class Server:
        def __init__(self) -> None:
            self.stop_watching = threading.Event()
            self.answering_until = time.monotonic() + 0.3

        def busy(self, strict: bool = False) -> bool:
            return time.monotonic() < self.answering_until

    plan = [("a.py", "/a.py"), ("b.go", "/b.go")]
    languages.reload()
    stopped = Server()
    stopped.stop_watching.set()
    asyncio.run(warmup.compile_later(stopped, plan))  # type: ignore[arg-type]
    assert languages._loaded and all(not lang._compiled for lang in languages._loaded.values()
                                     if lang is not None)

    languages.reload()
    server = Server()
    began = time.monotonic()
    asyncio.run(warmup.compile_later(server, plan))  # type: ignore[arg-type]
    python, go = languages.for_path("x.py"), languages.for_path("x.go")
    assert python is not None and go is not None
    assert set(python._compiled) == set(go._compiled) == set(warmup.EDITS_READ)
    assert time.monotonic() - began >= 0.3  # (it waited for the requests)


def test_a_pooled_scan_batches_each_language_apart_in_path_order() -> None:
    """A worker compiles the scan query of every language it meets: a language of few
    files gets batches of its own (so one worker compiles it), each in path order; a scan
    on this process keeps the listing's order."""
    from ctxls import engine as engine_mod
    from ctxls.syntax import languages

    names = [f"src/m{i:03}.{'tsx' if i % 9 == 0 else 'js' if i % 31 == 0 else 'ts'}"
             for i in range(200)]
    files = [(n, f"/w/{n}") for n in names]
    batches = engine_mod.scan_batches(files, by_language=True)
    assert sorted(f for b in batches for f in b) == sorted(files)
    assert all(len(b) <= engine_mod.BATCH for b in batches)
    assert all(len({languages.name_for(rel) for rel, _ in b}) == 1 for b in batches)
    for lang in ("typescript", "tsx", "javascript"):  # each in the listing's order
        mine = [f for b in batches for f in b if languages.name_for(f[0]) == lang]
        assert mine == [f for f in files if languages.name_for(f[0]) == lang]
    tsx = [b for b in batches if languages.name_for(b[0][0]) == "tsx"]
    assert len(tsx) == 1 and len(tsx[0]) == 23  # (one batch: one worker compiles TSX)
    assert engine_mod.scan_batches(files, by_language=False) == [
        files[i : i + engine_mod.BATCH] for i in range(0, len(files), engine_mod.BATCH)]
