"""What loads behind the ready signal: each language's queries and module-system facts,
the globs the first windows ask, the requests' converters; a step at a time, each while
no request is answered. Then what the first requests would build: the most read files'
tables (``index/ahead.py``) and a few windows nobody asked for (``rehearse``)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import time
import traceback
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from ctxls import protocol as p
from ctxls.context import window
from ctxls.errors import CtxError
from ctxls.index import ahead, modules
from ctxls.syntax import languages

if TYPE_CHECKING:
    import threading
    from concurrent.futures import Executor

    from ctxls.snapshot import Snapshot
    from ctxls.workspace import Workspace

log = logging.getLogger("ctxls")
REHEARSALS = 2  # windows built and dropped behind the ready signal (``rehearse``)


class Engine(Protocol):
    """What the read-ahead and the rehearsals read of the server's engine."""

    ws: Workspace
    stop_watching: threading.Event
    rehearsal: Snapshot | None

    def busy(self, strict: bool = False) -> bool: ...

    @property
    def requests(self) -> Executor: ...

    @property
    def listener(self) -> Rehearsing: ...


class Rehearsing(Protocol):
    def rehearse(self, result: object) -> None: ...


EDITS_READ = ("refs", "scan", "outline")  # the queries only a change or an edit reads
EDIT_NEEDS = ("refs", "outline")  # an open document's edit (the rest: a change on disk)


def load_languages(plan: list[tuple[str, str]], roots: list[str],
                   busy: Callable[[], bool] = lambda: False,
                   then: list[Callable[[], object]] | None = None,
                   later: tuple[str, ...] = EDITS_READ) -> None:
    """Compile the queries of every language the plan has a file of, and let their module
    systems read what they read once per root (a monorepo's package.json files). The
    languages with most files first; the queries requests read before ``later``, those
    only a change or an edit reads (while worker processes parse, only an edit's: the
    scan's own query would hold the GIL their feeder needs); one at a time, none while a
    request is answered (a query compiles in C, holding the GIL up to 0.2 s; a request
    compiles what it needs itself). Then the steps ``then`` (the requests' converters)."""
    langs = _languages(plan, busy)
    systems = {s for s in map(languages.module_system_named, langs) if s is not None}
    steps: list[Callable[[], object]] = [functools.partial(lang.compiled, "top")
                                         for lang in langs.values()]
    steps += [functools.partial(modules.named(system).prepare, f"{root}/")
              for system in sorted(systems) for root in roots]
    steps += [functools.partial(lang.compiled, name)
              for lang in langs.values() for name in later]
    steps += globs(plan)
    steps += then or []
    for step in steps:
        pause(busy)
        with contextlib.suppress(Exception):  # (a request meets the same error later)
            step()


async def compile_later(eng: Engine, plan: list[tuple[str, str]]) -> None:
    """The queries ``load_languages`` left for later (a change on disk indexed on this
    process compiles what it needs itself meanwhile), each only while no request is being
    answered or was a moment ago (a compile holds the GIL up to 0.15 s, and a request
    that arrives during one waits for it); a stopping server ends it at its next step."""
    quiet = functools.partial(pause, functools.partial(eng.busy, strict=True))

    def go() -> bool:
        return quiet() and not eng.stop_watching.is_set()

    def steps() -> None:
        for lang in _languages(plan, lambda: False).values():
            for name in EDITS_READ:
                if not go():
                    return
                with contextlib.suppress(Exception):  # (a change meets the same error)
                    lang.compiled(name)

    await asyncio.get_running_loop().run_in_executor(None, steps)


def _languages(plan: list[tuple[str, str]], busy: Callable[[], bool]
               ) -> dict[str, languages.Language]:
    """The plan's languages, those with most files first."""
    counts: Counter[str] = Counter(map(languages.suffix, (rel for rel, _ in plan)))
    langs: dict[str, languages.Language] = {}
    for ext, _ in counts.most_common():
        pause(busy)
        lang = languages.for_path(f"x{ext}")
        if lang is not None:
            langs.setdefault(lang.name, lang)
    return langs


def globs(plan: list[tuple[str, str]]) -> list[Callable[[], object]]:
    """Steps that compile each language's test and generated-file globs (the first window
    asks them of hundreds of files)."""
    exts = {languages.suffix(rel) for rel, _ in plan}
    return [functools.partial(languages.warm_globs, f"x{ext}") for ext in sorted(exts)]


def run(steps: list[Callable[[], object]]) -> object:
    for step in steps:
        with contextlib.suppress(Exception):  # (a request meets the same error later)
            step()
    return None


def pause(busy: Callable[[], bool]) -> bool:
    """Wait while ``busy``; True (go on)."""
    while busy():
        time.sleep(0.01)
    return True


async def read_ahead(eng: Engine) -> None:
    """The shared tables of the most-read files (``index/ahead.py``), on a snapshot,
    only while no request is answered (``busy(strict=True)``); a stopping server ends
    it at its next step."""
    if not eng.ws.refs.files or eng.ws.options.read_ahead <= 0:
        return
    began, snap = time.perf_counter(), eng.ws.snapshot()
    quiet = functools.partial(pause, functools.partial(eng.busy, strict=True))
    try:
        done = await asyncio.get_running_loop().run_in_executor(
            None, ahead.read_ahead, snap, eng.ws.options.read_ahead,
            lambda: quiet() and not eng.stop_watching.is_set())
        log.info("read ahead %s files in %.2f s", done, time.perf_counter() - began)
    except Exception:  # (what a request then builds itself)
        log.error("read-ahead failed: %s", traceback.format_exc())
        return
    if done is not None:  # (the choice sorts every file of the index: off the loop)
        await rehearse(eng, await asyncio.get_running_loop().run_in_executor(
            None, ahead.rehearsals, snap.refs, REHEARSALS))


async def rehearse(eng: Engine, targets: list[tuple[str, str, int]]) -> None:
    """Build a window for each of ``targets`` and drop it, while no request is
    answered: the first window in a process runs its code for the first time and
    builds what every later window reads (black's first window a second after ready:
    12.4 ms without, 11.3 with, 9.3 as the tenth after nine on other files). A request
    that comes meanwhile cancels the window being built. (No retriever's hits: the
    ranking call never fires.)"""
    loop, began = asyncio.get_running_loop(), time.perf_counter()
    for path, qualname, line in targets:
        while eng.busy(strict=True):
            await asyncio.sleep(0.01)
        if eng.stop_watching.is_set():
            return
        params = p.ConstructParams(path=path, target=p.Target(symbol=qualname, line=line))
        snap = eng.rehearsal = eng.ws.snapshot(path, refs=True)
        try:
            await loop.run_in_executor(eng.requests, _rehearsed, eng, snap, params)
        except CtxError as exc:  # (cancelled by a request, or a file gone meanwhile)
            log.info("rehearsal of %s stopped: %s", qualname, exc.message)
        except Exception:  # (a request for it would meet the same fault: say where)
            log.error("rehearsal of %s failed: %s", qualname, traceback.format_exc())
        finally:
            eng.rehearsal = None
        eng.ws.absorb(snap)
        gc.freeze()  # (what it built lives on: kept out of the collector's passes)
    log.info("rehearsed %d windows in %.2f s", len(targets), time.perf_counter() - began)


def _rehearsed(eng: Engine, snap: Snapshot, params: p.ConstructParams) -> None:
    eng.listener.rehearse(window.construct(snap, params))
