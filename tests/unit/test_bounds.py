"""What a long session keeps stays bounded: decoded tables and tables derived per file."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

import pytest

from ctxls.index import tables as tables_mod
from ctxls.index.memo import Recent
from ctxls.index.tables import Tables
from ctxls.syntax import languages
from ctxls.syntax.outline import outline_source


def _packed(i: int) -> Tables:
    lang = languages.for_path("m.py")
    assert lang is not None
    src = f"def f{i}(x):\n    return x + {i}\n".encode()
    return Tables.of(outline_source(lang, src), None).packed()


def test_decoded_tables_past_the_limit_go_back_to_their_payload(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables_mod, "DECODED_LIMIT", 10)
    monkeypatch.setattr(tables_mod, "_decoded", tables_mod.deque())
    all_tables = [_packed(i) for i in range(40)]
    hot = all_tables[0]
    for i, t in enumerate(all_tables):
        assert [d.name for d in t.outline.decls] == [f"f{i}"]
        assert hot.outline.decls  # read again each time: it keeps its second chance
    assert sum(t.decoded for t in all_tables) <= 11
    assert hot.decoded
    assert [d.name for d in all_tables[5].outline.decls] == ["f5"]  # decodes again


def test_tables_derived_from_decoded_ones_go_when_they_are_released(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A derived table (row -> declaration) is computed once while its tables stay decoded,
    and goes back with them: it holds their declarations, which must not outlive them."""
    monkeypatch.setattr(tables_mod, "DECODED_LIMIT", 10)
    monkeypatch.setattr(tables_mod, "_decoded", tables_mod.deque())
    computed: list[str] = []

    class Names(list[str]):  # (a list that can be referred to weakly)
        pass

    def names(outline: Any, refs: Any) -> list[str]:
        computed.append(outline.decls[0].name)
        return Names(d.name for d in outline.decls)

    first, *rest = [_packed(i) for i in range(40)]
    assert first.derived("names", names) == ["f0"] == first.derived("names", names)
    assert computed == ["f0"]
    held = weakref.ref(first.derived("names", names))
    for t in rest:  # first's turn comes: released, with what was derived from it
        t.derived("names", names)
        t.derived("names", names)
    gc.collect()
    assert not first.decoded and held() is None
    assert first.derived("names", names) == ["f0"] and computed.count("f0") == 2


def test_tables_made_here_count_among_the_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file indexed on this process (read on demand, saved, closed) has its tables
    decoded from the start: they are bounded with the rest, encoded when their turn comes."""
    monkeypatch.setattr(tables_mod, "DECODED_LIMIT", 10)
    monkeypatch.setattr(tables_mod, "_decoded", tables_mod.deque())
    lang = languages.for_path("m.py")
    assert lang is not None
    made = [Tables.of(outline_source(lang, f"def g{i}():\n    pass\n".encode()), None)
            for i in range(40)]
    assert sum(t.decoded for t in made) <= 11 and made[-1].decoded
    assert not made[0].decoded and [d.name for d in made[0].outline.decls] == ["g0"]


def test_a_recent_table_forgets_its_oldest_quarter() -> None:
    table = Recent(8)
    for i in range(20):
        table[f"k{i}"] = i
    assert len(table) <= 8 and "k19" in table and "k0" not in table
    table["k19"] = 99  # replacing a key forgets nothing
    assert table["k19"] == 99 and len(table) <= 8


def test_tables_no_file_holds_any_more_are_freed_though_decoded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import gc
    import weakref

    monkeypatch.setattr(tables_mod, "_decoded", tables_mod.deque())
    old = _packed(1)
    assert old.outline.decls  # decoded, and counted among the decoded tables
    gone = weakref.ref(old)
    del old  # the file changed: the index holds new tables
    gc.collect()
    assert gone() is None


def test_a_text_is_encoded_once_and_not_kept() -> None:
    """A window counts its renderings (a 9,000-line file's skeleton) two or three
    times: each is encoded once, remembered by length and hash rather than by its text,
    and the count is the tokenizer's own."""
    from ctxls.tokens import Tokenizer

    tok = Tokenizer()
    encoded: list[int] = []
    real = tok._enc.encode_ordinary

    def counting(text: str) -> list[int]:
        encoded.append(len(text))
        return real(text)

    tok._enc.encode_ordinary = counting  # type: ignore[method-assign]
    text = "def f(x):\n    return x + 1\n" * 400
    first, second = tok.count(text), tok.count(text)
    assert first == second == len(real(text))
    assert encoded == [len(text)]
    short = "x = 1"
    assert tok.count(short) == tok.count(short) == len(real(short)) and len(encoded) == 2
    assert not any(isinstance(part, str) for k in tok._counts for part in k)
    assert tok.count(text + "y") != 0 and len(encoded) == 3  # another text: encoded anew


def test_the_tokenizer_is_built_once_when_asked_for_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The load behind the ready signal and a first request ask together: one is built
    (each build holds the GIL for 0.2 s), and both get it."""
    import threading

    from ctxls import tokens

    built: list[str] = []
    real = tokens.Tokenizer.__init__

    def init(self: tokens.Tokenizer, encoding: str = tokens.DEFAULT_ENCODING) -> None:
        built.append(encoding)
        real(self, encoding)

    monkeypatch.setattr(tokens, "_loaded", {})
    monkeypatch.setattr(tokens.Tokenizer, "__init__", init)
    got: list[tokens.Tokenizer] = []
    workers = [threading.Thread(target=lambda: got.append(tokens.tokenizer())) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(built) == 1 and len(got) == 4 and all(t is got[0] for t in got)
    assert got[0].count("hello world") == 2


def test_background_work_waits_for_requests_but_not_for_ever() -> None:
    """While a request is answered, and for a moment after its answer, background work
    waits; a client that never stops asking still lets it take a step each second."""
    import time

    from ctxls import engine as engine_mod

    eng = engine_mod.Engine()
    eng.answered_at = eng.idle_at = time.monotonic() - 10
    assert not eng.busy()  # nothing answered lately
    eng.answering = 1
    assert eng.busy()
    eng.answering, eng.answered_at = 0, time.monotonic()
    assert eng.busy()  # its response is still being written
    eng.answering = 1
    eng.idle_at = time.monotonic() - engine_mod.MAX_YIELD_S - 0.01
    assert eng.busy(strict=True)  # (reading ahead takes no step while a request runs)
    assert not eng.busy() and eng.busy()  # one step, then waiting again
    eng.answering, eng.answered_at = 0, time.monotonic() - 10
    assert not eng.busy(strict=True)  # nothing answered lately: it goes on


def test_a_cold_scan_on_this_process_builds_the_converters_before_ready(tmp_path: Path) -> None:
    """A workspace small enough to parse on this process (no worker processes, so no
    warm-up beside them): the requests' converters are built beside the parse, before the
    index is ready, not by the first request that arrives right after it."""
    import asyncio
    import time
    from collections.abc import Callable

    from ctxls import engine as engine_mod

    for i in range(3):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    events: list[str] = []

    class Recording(engine_mod.Listener):
        def scan_finished(self, indexed: int) -> None:
            events.append("ready")

        def warm_up(self) -> list[Callable[[], object]]:
            return [lambda: events.append("result converter")]

    real = engine_mod.index_batch

    def parsing(*args: Any) -> Any:  # (a parse long enough to build them beside)
        time.sleep(0.3)
        return real(*args)

    async def run() -> None:
        eng = engine_mod.Engine(Recording())
        eng.open([tmp_path])
        assert not eng._pooled(eng.ws.scan_plan())  # (what this test is about)
        eng.start(watch=False)
        assert await eng.index_ready(timeout=60)
        await eng.stop()

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine_mod, "index_batch", parsing)
        asyncio.run(run())
    assert events[0] == "result converter" and "ready" in events
    assert events.index("ready") > events.index("result converter")


def test_a_cold_scan_files_its_names_before_ready_and_a_warm_start_after(
        tmp_path: Path) -> None:
    """A scan that parsed its files files their names in the reference index before it
    says ready (the first request would otherwise wait for the filing); a start restored
    from the cache says ready first and files them after, as ``ctx/status`` need not wait."""
    import asyncio

    from ctxls import engine as engine_mod
    from ctxls.config import Options

    root, cache = tmp_path / "ws", tmp_path / "cache"
    root.mkdir()
    for i in range(40):
        (root / f"m{i}.py").write_text(f"def f{i}():\n    return g{i}()\n")
    pending: list[int] = []

    class Recording(engine_mod.Listener):
        eng: engine_mod.Engine

        def scan_finished(self, indexed: int) -> None:
            pending.append(len(self.eng.ws.refs.pending))

    async def start() -> None:
        listener = Recording()
        eng = listener.eng = engine_mod.Engine(listener)
        eng.open([root], Options(cache_dir=str(cache)))
        eng.start(watch=False)
        assert await eng.index_ready(timeout=60)
        await asyncio.sleep(0.3)  # (the cache is written after ready)
        await eng.stop()

    asyncio.run(start())
    asyncio.run(start())
    assert pending == [0, 40]


def test_a_search_index_builds_pace_says_how_long_it_still_takes() -> None:
    """A search waits for the search index's build only while its pace (bytes so far over
    time so far) puts its end in time: unknown until it has planned its work or while its
    first files are on their way (a just-planned build is no reason to give up), endless
    when a look has passed with none in."""
    import time

    from ctxls import engine as engine_mod

    eng = engine_mod.Engine()
    assert eng._search_eta() == 0.0  # nothing planned yet
    now = time.monotonic()
    eng.search_progress = [now, 1e6, 0.0]
    assert eng._search_eta() == 0.0  # just begun, nothing in yet
    eng.search_progress = [now - 2 * engine_mod.SEARCH_LOOK, 1e6, 0.0]
    assert eng._search_eta() == float("inf")  # a look has passed with nothing in
    eng.search_progress = [now - 2.0, 1e6, 2.5e5]  # a quarter in 2 s: 6 s to go
    assert 5.9 < eng._search_eta() < 6.2
    eng.search_progress = [now - 2.0, 1e6, 1e6]
    assert eng._search_eta() == 0.0  # done
