"""The engine every front end serves from: the workspace, its background work, and the
threads requests are answered on.

The LSP server and the MCP server each hold one. The engine scans the workspace in the
background (restoring what the persistent index still holds, parsing the rest in worker
processes, adding each batch between requests), then builds the search index in short slices,
and watches files on disk for clients that do not. A request takes a snapshot on the event
loop and is answered from it on a worker thread. What a front end wants to hear of this work
(progress, policy problems) it hears through a ``Listener``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import multiprocessing
import multiprocessing.forkserver
import threading
import time
import traceback
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import attrs

from ctxls import memory, warmup, wire
from ctxls import protocol as p
from ctxls.config import Options
from ctxls.context import window
from ctxls.errors import NotInitialized
from ctxls.index import lifeline
from ctxls.index.scan import FileEntry, index_batch
from ctxls.index.search import SearchIndex
from ctxls.paths import target_file
from ctxls.requests import chunks, read, refs, search, status
from ctxls.snapshot import Snapshot
from ctxls.syntax import languages
from ctxls.syntax.text import Encoding
from ctxls.tokens import tokenizer
from ctxls.watch import Watcher
from ctxls.workspace import Workspace

log = logging.getLogger("ctxls")
REQUEST_THREADS = 4
BATCH = 48  # files per unit of scan work: small enough for smooth progress reports
# The search index is built after the scan in slices of this much work, each followed by
# a pause: a request waits at most one slice, and the build takes ~1.5x its bare time.
SEARCH_SLICE = 0.02
SEARCH_LOOK = 0.25  # a search waiting for the index's build looks at its pace this often
QUIET_S = 0.1  # background work resumes this long after the last answer
MAX_YIELD_S = 1.0  # and takes a step at least this often, however busy the requests keep it
TRIM_EVERY_S = 2.0  # free memory is handed back at most this often, after an answer
IDLE_TREE_S = 60.0  # an open document unchanged this long keeps no syntax tree
POOL_THRESHOLD = 300  # below this many files a process pool costs more than it saves
TICK_NS = 2_000_000_000  # a file system's coarsest timestamp tick, as the warm start allows
FEW_CHANGES = 16  # files changed on disk at once that are indexed again on the spot


@attrs.frozen
class Request:
    method: str
    params: type[Any]
    answer: Callable[[Snapshot, Any], Any]
    refs: bool = False  # reads the reference index: open documents are synced into it first
    # before the snapshot: brings what the request reads up to date; gives the params to use
    prepare: Callable[[Workspace, Any], Any] | None = None
    # Whether this request waits for the initial scan (bounded by `indexWait`) first
    wait: Callable[[Any], bool] | None = None
    # Whether it reads the search index, so waits for its build (bounded the same way)
    searches: Callable[[Any], bool] | None = None


REQUESTS = [
    Request(p.SKELETON, p.SkeletonParams, read.skeleton),
    Request(p.READ_SYMBOL, p.ReadSymbolParams, read.read_symbol),
    Request(p.READ_RANGE, p.ReadRangeParams, read.read_range),
    Request(p.REFERENCES, p.ReferencesParams, refs.references, refs=True),
    Request(p.TESTS, p.SymbolParams, refs.tests, refs=True),
    Request(p.DEPENDENCIES, p.SymbolParams, refs.dependencies, refs=True),
    Request(p.CONSTRUCT, p.ConstructParams, window.construct, refs=True,
            prepare=window.prepare, wait=lambda params: bool(params.wait_for_index),
            searches=window.searches),
    Request(p.PAGE, p.ConstructParams, window.page, refs=True,
            prepare=window.prepare, wait=lambda params: bool(params.wait_for_index),
            searches=window.searches),
    Request(p.CHUNKS, p.ChunksParams, chunks.chunks),
    Request(p.STATS, p.StatsParams, chunks.stats),
    Request(p.SEARCH, p.SearchParams, search.search, prepare=search.prepare,
            wait=lambda params: True, searches=lambda params: True),
    Request(p.RECORD_OUTCOME, p.OutcomeParams, status.record_outcome),
]


BY_METHOD = {row.method: row for row in REQUESTS}


class Listener:
    """What a front end hears of the background work; this one hears nothing."""

    async def scan_started(self, planned: int) -> None:
        """The scan has listed ``planned`` files."""

    def scan_progress(self, done: int, planned: int) -> None:
        """``done`` of ``planned`` files are indexed."""

    def scan_finished(self, indexed: int) -> None:
        """The scan is over (finished or failed): ``indexed`` files are in the index."""

    def policy_changed(self) -> None:
        """A policy file may have changed (and after the scan)."""

    def warm_up(self) -> list[Callable[[], object]]:
        """What the front end builds on a request's first answer, as steps the warm-up after
        ready takes instead (each while no request is answered)."""
        return []

    def rehearse(self, result: object) -> None:
        """Turn a rehearsed answer into what would be sent (``warmup.rehearse``), and
        drop it."""


class Engine:
    def __init__(self, listener: Listener | None = None) -> None:
        self.ws = Workspace([])
        self.listener = listener or Listener()
        self.ready = False  # a workspace has been named
        self.scan_done = asyncio.Event()
        self.scan_task: asyncio.Task[None] | None = None
        self.search_task: asyncio.Task[None] | None = None  # the search index's build
        self.search_done = asyncio.Event()  # ... has ended
        # [when it began, its files' bytes, those done] for its pace (by bytes: a tree's
        # thousands of small fixtures, first in path order, are no pace for the rest)
        self.search_progress: list[float] | None = None
        self.ahead_task: asyncio.Task[None] | None = None  # reading ahead (index/ahead.py)
        self.rehearsal: Snapshot | None = None  # the window being rehearsed (``warmup.rehearse``)
        self.watching = False
        self.waiting = 0  # requests waiting for the scan
        self.scan_began_ns = 0
        self.stop_watching = threading.Event()
        self.watcher: Watcher | None = None
        self.answering = 0  # requests being answered now: background builds wait for them
        self.answered_at = 0.0  # (time.monotonic()) when the last answer was ready
        self.idle_at = time.monotonic()  # when background work was last let go on
        # files changed on disk (watcher, client), waiting to be indexed again, in order
        self.changes: dict[str, None] = {}
        self.reindexing = 0  # of those, taken by the running re-index
        self.reindex_task: asyncio.Task[None] | None = None
        self.trimmed_at = 0.0  # (time.monotonic()) when free memory was last handed back

    def open(self, roots: list[Path], options: Options | None = None,
             encoding: Encoding = "utf-16") -> None:
        """Name the workspace; nothing is indexed until ``start``."""
        self.ws = Workspace(roots, options, encoding)
        self.ws.scanning = True  # until the scan has finished: nothing indexed
        self.ready = True

    def start(self, watch: bool) -> None:
        """Start the scan (on the running loop) and, if ``watch``, the file watcher."""
        self.watching = watch and self.ws.options.watch_files and bool(self.ws.roots)
        self.scan_task = asyncio.create_task(self._scan())

    async def stop(self) -> None:
        """Let a running scan finish writing the index cache (bounded), then stop; the
        search index's build just stops."""
        for task in (self.search_task, self.ahead_task):
            if task is not None:
                task.cancel()
        self.stop_watching.set()  # (the read-ahead's thread ends at its next step)
        if self.watcher is not None:
            self.watcher.close()
        if self.scan_task is not None and not self.scan_task.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self.scan_task), 30)
        if self.ws.shared is not None:
            self.ws.shared.close()

    # ---- answering -----------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """``ctx/status``'s, which reads nothing of the reference index."""
        if not self.ready:
            raise NotInitialized("the server is not initialized: send `initialize` first")
        return self.ws.snapshot(names=False)

    async def answer(self, call: Callable[[Snapshot], Any], path: str | None = None,
                     uri: str | None = None, refs: bool = False) -> Any:
        """Take a snapshot here, on the event loop, answer from it on a worker thread (so
        the loop goes on reading messages, edits and cancellations meanwhile), and let the
        workspace keep what the request read, back on the loop."""
        if not self.ready:
            raise NotInitialized("the server is not initialized: send `initialize` first")
        self.answering += 1  # (from the snapshot on: taking it reads the request's file)
        if self.rehearsal is not None:  # (a rehearsal gives way to the first request)
            self.rehearsal.cancel.set()
        try:
            snap = self.ws.snapshot(path, uri, refs=refs)
        except BaseException:
            self.answering -= 1
            raise
        work = asyncio.get_running_loop().run_in_executor(self.requests, call, snap)

        def done(_: object) -> None:
            self.answering -= 1
            self.answered_at = time.monotonic()
            self.ws.absorb(snap)
            if self.answered_at - self.trimmed_at >= TRIM_EVERY_S:
                self.trimmed_at = self.answered_at
                self.ws.release_idle_trees(IDLE_TREE_S)
                asyncio.get_running_loop().run_in_executor(None, memory.trim)

        work.add_done_callback(done)
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:  # a cancelled request stops at its next check
            snap.cancel.set()
            raise

    def busy(self, strict: bool = False) -> bool:
        """Whether background work (the warm-up, the drift listing, the search index's
        build) should wait: a request is being answered, or one was a moment ago (its
        response is still being written, and an agent's next request is on its way). Each
        holds the GIL in stretches that a request's threads would wait for. Once a second
        it may take a step however busy requests keep the server (a client polling every
        50 ms would otherwise hold it back for good); ``strict``, never (a nicety such as
        reading ahead must not slow an answer)."""
        now = time.monotonic()
        quiet = self.answering == 0 and now - self.answered_at >= QUIET_S
        if quiet or (not strict and now - self.idle_at > MAX_YIELD_S):
            self.idle_at = now
            return False
        return True

    async def index_ready(self, timeout: float | None = None) -> bool:
        """Wait for the initial scan, at most ``timeout`` seconds (default `indexWait`);
        whether it has finished."""
        if self.ws.scanning or self.scan_task is None:
            self.waiting += 1
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.scan_done.wait(), self.ws.options.index_wait
                                           if timeout is None else timeout)
            finally:
                self.waiting -= 1
        return self.scan_done.is_set()

    async def request(self, row: Request, params: Any) -> Any:
        """One ``ctx/*`` request, structured: waits for the scan if the request does
        (bounded), brings what it reads up to date, and answers it from a snapshot."""
        if row.wait is not None and row.wait(params):
            await self.index_ready()
        if row.searches is not None and row.searches(params):
            await self.search_built()
        if row.prepare is not None:
            params = row.prepare(self.ws, params)
        path, uri = target_file(params)  # read (and indexed again if changed) first
        return await self.answer(lambda snap: row.answer(snap, params), path, uri, row.refs)

    @functools.cached_property
    def requests(self) -> ThreadPoolExecutor:
        """Where requests run: reads stay answered while a long one runs (the GIL is
        handed between them every few milliseconds)."""
        return ThreadPoolExecutor(REQUEST_THREADS, thread_name_prefix="ctxls-request")

    # ---- background work -----------------------------------------------------------------
    async def _scan(self) -> None:
        """Cold scan in the background; requests are answered meanwhile (files read on
        demand)."""
        ws = self.ws
        ws.scanning = True
        gc.disable()  # a bulk load of tables: collections would only rescan them
        loop = asyncio.get_running_loop()
        fresh: list[FileEntry] = []
        started = time.perf_counter()
        self.scan_began_ns = time.time_ns()
        counting: asyncio.Future[object] | None = None
        compiling: asyncio.Future[None] | None = None
        plan: list[tuple[str, str]] = []
        pooled = False
        try:
            if ws.shared is not None:  # (beside the listing)
                ws.shared.prefetching = True
                loop.run_in_executor(None, ws.shared.prefetch, ws.roots)
            plan = await loop.run_in_executor(None, ws.scan_plan)
            listed = time.perf_counter()
            await self.listener.scan_started(len(plan))
            hits, misses = await loop.run_in_executor(None, ws.warm_start, plan)
            if ws.shared is not None:
                log.info("shared index %s: %d files from it, %d to parse here",
                         ws.shared.state, ws.from_store, len(misses))
            ws.add(hits)
            restored = time.perf_counter()
            # Every window counts tokens: load the tokenizer (0.2 s, 38 MiB) beside the
            # parse, not in the first request that needs it; and compile the queries of
            # each language the plan has (0.2 s for Python) and read the module systems'
            # manifests, which this process needs when a request first reads a file of
            # it. Only while worker processes parse: beside the listing, the cache's load
            # or a parse on this process they hold up the GIL (a warm start of 57,000
            # files with 5 to parse took 3.4 s rather than 0.9 s to file what it
            # restored); otherwise once the index is ready. The tokenizer alone loads
            # beside a parse on this process too: the first window after a cold scan of
            # 250 files waited 0.3 s for it, against 0.2 s more before ready; and so do
            # the requests' converters (a first window built its own: 11 of jsoup's 68 ms).
            # The scan's combined query, which only a change on disk indexed on this
            # process reads, waits for ready: compiled beside the workers it held the GIL
            # the pool's feeder thread needed to hand them their next batch, and took a
            # core from them (TypeScript's 0.11 s, TSX's as much). What an edit reads is
            # compiled now: later, an edit in the first second after ready waited for it
            # (zod's first edit and window at once 17 -> 165 ms).
            pooled = self._pooled(misses)
            if pooled:
                counting, compiling = self._warm_up(plan, later=warmup.EDIT_NEEDS)
            elif misses:
                steps: list[Callable[[], object]] = [
                    *self._converters(), *warmup.globs(plan),
                    functools.partial(tokenizer, ws.options.encoding)]
                counting = loop.run_in_executor(None, warmup.run, steps)
            done = len(hits)
            # A scan that parses most of its files files their names as the batches come
            # (beside the worker processes' parse), so the request that waited for the
            # index does not file them (libuv: 6 of its first window's 15 ms). A warm
            # start files what it restored after ready, which ctx/status need not wait for.
            file_now = sum(1 for e in hits if e.tables is not None) <= len(misses)
            async for entries in self._index(misses):
                ws.add(entries)
                if file_now:
                    ws.refs.settle()
                fresh.extend(entries)
                done += len(entries)
                self.listener.scan_progress(done, len(plan))
            log.info("indexed %d files (%d from the cache) in %.2f s: listing %.2f s, "
                     "cache %.2f s, parsing %.2f s", done, len(hits),
                     time.perf_counter() - started, listed - started, restored - listed,
                     time.perf_counter() - restored)
        except Exception:
            log.error("scan failed: %s", traceback.format_exc())
        finally:
            memory.serving()  # (the collector: off for the scan's bulk load)
            ws.scanning = False
            # Ready when the index is: a request that counts tokens, or reads a language
            # whose queries are still compiling, waits for them (their loaders are locked).
            self.scan_done.set()
            self.listener.policy_changed()
            self.listener.scan_finished(len(ws.entries))
        # The requests that waited for the index are answered first: what follows takes
        # the GIL in long stretches (compiling queries, setting a tree's watches).
        for _ in range(100):
            await asyncio.sleep(0.01)
            if not self.waiting and not self.answering:
                break
        ws.refs.settle()  # (unless a request's snapshot did already)
        if self.watching:
            self._watch()
        if counting is None or compiling is None:
            counting, compiling = self._warm_up(plan, counting)
        for work in (counting, compiling):
            with contextlib.suppress(Exception):  # (a bad encoding is the requests' to report)
                await work
        # (its own task: the cache's write and the search index's build do not wait for it)
        self.ahead_task = asyncio.create_task(self._behind_ready(plan if pooled else None))
        try:  # the index is ready; writing the cache must not delay the answers
            if fresh:
                await loop.run_in_executor(None, ws.persist, fresh)
            await loop.run_in_executor(None, ws.keep_walks)
        except Exception:
            log.error("index cache not written: %s", traceback.format_exc())
        # (unless a search request started the build already: two builds opened the
        # same file at once, and one took the other's lock for a corrupt file)
        if ws.options.search_prebuild and (self.search_task is None or (
                self.search_task.done() and not self.search_done.is_set())):
            self.search_task = asyncio.create_task(self._build_search())

    async def _behind_ready(self, later: list[tuple[str, str]] | None) -> None:
        """The read-ahead, then the queries the warm-up left for later (``later``: the
        plan of a scan that parsed in worker processes)."""
        await warmup.read_ahead(self)
        if later is not None:
            await warmup.compile_later(self, later)

    def _warm_up(self, plan: list[tuple[str, str]], counting: asyncio.Future[object] | None = None,
                 later: tuple[str, ...] = warmup.EDITS_READ
                 ) -> tuple[asyncio.Future[object], asyncio.Future[None]]:
        loop, ws = asyncio.get_running_loop(), self.ws
        return (counting or loop.run_in_executor(None, tokenizer, ws.options.encoding),
                loop.run_in_executor(None, warmup.load_languages, plan,
                                     [str(r) for r in ws.roots], self.busy, self._converters(),
                                     later))

    def _converters(self) -> list[Callable[[], object]]:
        """Steps that build each request's params and result converters (cattrs writes one
        per class on first use, 1-2 ms each); a second build finds them built."""
        return [*(functools.partial(wire.prepare, row.params) for row in REQUESTS),
                *self.listener.warm_up()]

    def _pooled(self, files: list[tuple[str, str]]) -> bool:
        """Whether ``files`` are indexed in worker processes rather than on a thread."""
        return len(files) >= POOL_THRESHOLD and self.ws.options.scan_processes > 1

    async def _index(self, files: list[tuple[str, str]]) -> AsyncIterator[list[FileEntry]]:
        """Index ``files`` in batches, as each batch is done: in worker processes when there
        are many (parsing holds the GIL), else on a thread."""
        ws, loop = self.ws, asyncio.get_running_loop()
        pooled = self._pooled(files)
        batches = scan_batches(files, by_language=pooled)
        pool: Executor | None = None
        if pooled:
            ctx = multiprocessing.get_context("forkserver")
            # the forkserver runs lifeline's bind at import: it dies with the server
            ctx.set_forkserver_preload(["ctxls.index.scan", "ctxls.index.lifeline_server"])
            pool = ProcessPoolExecutor(ws.options.scan_processes, mp_context=ctx,
                                       initializer=lifeline.bind)
        try:  # (workers, and their forkserver, are stopped when done)
            futures = [loop.run_in_executor(pool, index_batch, b, ws.options.max_file_bytes)
                       for b in batches]
            for fut in asyncio.as_completed(futures):
                yield await fut
        finally:
            if pool is not None:
                loop.run_in_executor(None, _stop_workers, pool)

    def changed(self, uris: list[str]) -> None:
        """Files changed, created or deleted on disk. A few are indexed again at once, as
        an editor's save is; files gone leave the index at once; many (a `git checkout`
        changes thousands) are indexed again in the background, in worker processes, and
        until they are, answers that depend on the index say so."""
        ws = self.ws
        if self.scan_done.is_set() and not self.changes and len(uris) <= FEW_CHANGES:
            for uri in uris:
                ws.refresh(uri)
            ws.reindexed += len(uris)
            return
        found = ws.changed_files(uris)
        if found is None:
            return
        todo, gone = found
        if gone:
            ws.apply([], gone)
            ws.reindexed += len(gone)
        self.changes.update(dict.fromkeys(Path(key).as_uri() for _, key in todo))
        ws.pending = len(self.changes) + self.reindexing
        if self.changes and (self.reindex_task is None or self.reindex_task.done()):
            self.reindex_task = asyncio.create_task(self._reindex())

    async def _reindex(self) -> None:
        ws = self.ws
        try:
            await self.scan_done.wait()  # the scan reads the disk as it is now anyway
            while self.changes:
                uris = list(self.changes)
                self.changes.clear()  # a file changed again meanwhile is queued again
                self.reindexing = len(uris)
                found = ws.changed_files(uris)
                todo, gone = found if found is not None else ([], [])
                began = time.perf_counter()
                entries: list[FileEntry] = []
                async for batch in self._index(todo):
                    entries += batch
                ws.apply(entries, gone)
                ws.reindexed += len(entries) + len(gone)
                self.reindexing = 0
                ws.pending = len(self.changes)
                log.info("indexed %d changed files again, %d gone, in %.2f s", len(entries),
                         len(gone), time.perf_counter() - began)
        except Exception:
            log.error("changed files not indexed: %s", traceback.format_exc())
            self.changes.clear()
            self.reindexing = ws.pending = 0

    async def _build_search(self) -> None:
        """The search index, built on a worker thread a few files at a time (each slice
        from a snapshot taken on the loop, what it read absorbed back on the loop); no
        slice starts while a request is being answered."""
        ws, loop = self.ws, asyncio.get_running_loop()
        began = time.perf_counter()
        try:
            if ws.search is None:  # (opening reads every file's digest: not on the loop)
                opened = await loop.run_in_executor(None, search.open_new, ws)
                if ws.search is None:
                    ws.search = opened
            todo, gone = search.plan(ws)
            index = search.open_index(ws)
            if gone:
                await loop.run_in_executor(None, _forget, index, gone)
            size = {k: e.size for k, e in ws.entries.items()}
            progress = self.search_progress = [time.monotonic(),
                                               float(sum(size.get(k, 0) for k in todo)), 0.0]
            while todo:
                while self.busy():  # a request's threads would share the GIL with it
                    await asyncio.sleep(SEARCH_SLICE / 4)
                snap = ws.snapshot()
                done = await loop.run_in_executor(None, search.build, snap, index, todo,
                                                  SEARCH_SLICE, self.busy)
                ws.absorb(snap)
                progress[2] += sum(size.get(k, 0) for k in todo[:done])
                del todo[:done]
                await asyncio.sleep(SEARCH_SLICE / 2)
            ws.search_ready = not ws.scanning
            log.info("search index built in %.2f s", time.perf_counter() - began)
        except Exception:
            log.error("search index not built: %s", traceback.format_exc())
        finally:
            self.search_done.set()

    async def search_built(self) -> bool:
        """Wait for the search index's build (started here when it is not built in the
        background), at most `indexWait`, and only while its pace says it may end by then
        (within twice the time left: its first files go slower): a build of minutes
        (57,000 files) made every search wait the whole `indexWait` for an answer as
        incomplete as at once. Whether it is built."""
        if not self.search_done.is_set() and self.scan_done.is_set() and (
                self.search_task is None or self.search_task.done()):
            self.search_done.clear()
            self.search_task = asyncio.create_task(self._build_search())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.ws.options.index_wait
        while not self.search_done.is_set() and (left := deadline - loop.time()) > 0:
            if self._search_eta() > 2 * left:
                break  # (far from done: answered from what is built, and said so)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.search_done.wait(), min(left, SEARCH_LOOK))
        return self.search_done.is_set()

    def _search_eta(self) -> float:
        """Seconds the search index's build should still take, from its pace in bytes so
        far (pauses for requests included); 0 before it has planned its work or while its
        first files are on their way, and endless once a look has passed with none in (a
        file that takes that long is a slow build)."""
        if self.search_progress is None:
            return 0.0
        began, total, done = self.search_progress
        elapsed = time.monotonic() - began
        if not done:
            return 0.0 if elapsed < SEARCH_LOOK else float("inf")
        return (total - done) * elapsed / done

    def _watch(self) -> None:
        """Files created, changed or deleted on disk join the index within a second or so
        (``watch.Watcher``: a child process sets the watches and applies the walk's rules;
        the policy file is watched too, for its diagnostics). Started once the index is
        ready; what changed before the watches were set is found by one more listing."""
        ws, loop = self.ws, asyncio.get_running_loop()

        def drift() -> None:  # (the listing waits for requests)
            missed = ws.drift(self.scan_began_ns - TICK_NS, busy=self.busy)
            if missed:
                loop.call_soon_threadsafe(self._watched, missed, False)

        def watching() -> None:  # (not on the thread that reads the watcher's reports)
            threading.Thread(target=drift, name="ctxls-drift", daemon=True).start()

        def changed(uris: list[str], policy: bool) -> None:
            loop.call_soon_threadsafe(self._watched, uris, policy)

        self.watcher = Watcher(ws.roots, ws.options.exclude, watching, changed)

    def _watched(self, uris: list[str], policy: bool) -> None:
        if self.stop_watching.is_set():
            return
        self.changed(uris)
        log.info("watched %d changes on disk", len(uris))
        if policy:
            self.listener.policy_changed()


def _forget(index: SearchIndex, paths: list[str]) -> None:
    for path in paths:
        index.forget(path)


def scan_batches(files: list[tuple[str, str]], by_language: bool
                 ) -> list[list[tuple[str, str]]]:
    """``files`` in batches of ``BATCH``; ``by_language``, each language's files in batches
    of their own, in path order: a worker process compiles the scan query of every
    language it meets (TypeScript's and TSX's 0.11 s each), so a language of few files is
    compiled by one worker rather than by each (zod and vuejs/core: 0.1-0.2 s of a 2 s
    scan)."""
    groups = [files]
    if by_language:
        by_name: dict[str | None, list[tuple[str, str]]] = {}
        for f in files:
            by_name.setdefault(languages.name_for(f[0]), []).append(f)
        groups = list(by_name.values())
    return [group[i : i + BATCH] for group in groups for i in range(0, len(group), BATCH)]


def _stop_workers(pool: Executor) -> None:
    """Wait for the scan's worker processes to exit, then stop the forkserver they were
    forked from (about 40 MiB that would otherwise live as long as the server). The
    forkserver has no public stop; without this private one it is left running. The
    resource tracker (about 12 MiB) stays: it unlinks the pool's semaphores when they go."""
    pool.shutdown(wait=True, cancel_futures=True)
    server = getattr(multiprocessing.forkserver, "_forkserver", None)
    with contextlib.suppress(Exception):
        server._stop()  # type: ignore[union-attr]
