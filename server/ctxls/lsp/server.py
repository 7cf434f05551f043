"""The ctxls language server: pygls wiring around ``ctxls.engine.Engine``.

Handlers stay thin: they structure params, call the engine, and turn ``CtxError`` into a
JSON-RPC error with a code and an actionable message. The one piece of orchestration here is
the background scan, because it talks to the client (work-done progress) while it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import multiprocessing
import multiprocessing.forkserver
import time
import traceback
import uuid
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import attrs
import cattrs
from lsprotocol import types as t
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcServerError,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

import ctxls
from ctxls import protocol as p
from ctxls.config import Options
from ctxls.engine import Engine, _file_path
from ctxls.errors import CtxError, InvalidParams
from ctxls.index.scan import FileEntry, index_batch
from ctxls.policy import POLICY_PATH
from ctxls.syntax.text import normalise_encoding

log = logging.getLogger("ctxls")
P = TypeVar("P")
BATCH = 48  # files per unit of scan work: small enough for smooth progress reports
# The search index is built after the scan in slices of this much work, each followed by
# a pause: a request waits at most one slice, and the build takes ~1.5x its bare time.
SEARCH_SLICE = 0.02
POOL_THRESHOLD = 300  # below this many files a process pool costs more than it saves


@attrs.define
class CtxRequestMessage:
    """Any ``ctx/*`` request: params stay raw so a bad one gets an error, not silence."""

    id: int | str
    params: Any
    method: str
    jsonrpc: str = "2.0"


class CtxProtocol(LanguageServerProtocol):
    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method.startswith("ctx/"):
            return CtxRequestMessage
        return super().get_message_type(method)


class CtxServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("ctxls", ctxls.__version__, protocol_cls=CtxProtocol)
        self.engine = Engine([])
        self.scan_done = asyncio.Event()
        self.scan_task: asyncio.Task[None] | None = None
        self.search_task: asyncio.Task[None] | None = None  # the search index's build

    def params(self, raw: Any, cls: type[P]) -> P:
        try:
            return self.protocol._converter.structure(raw or {}, cls)
        except Exception as exc:
            detail = "; ".join(cattrs.transform_error(exc)) if isinstance(
                exc, cattrs.BaseValidationError) else str(exc)
            raise JsonRpcInvalidParams(f"invalid params for {cls.__name__}: {detail}") from exc


server = CtxServer()


def answer(method: str, cls: type[P]) -> Callable[[Callable[[CtxServer, P], Any]], Any]:
    """Register a ``ctx/*`` request: structure params, map our errors to JSON-RPC errors."""

    def register(fn: Callable[[CtxServer, P], Any]) -> Any:
        @server.feature(method)
        @functools.wraps(fn)
        async def handler(ls: CtxServer, raw: Any) -> Any:
            return await _guard(lambda: fn(ls, ls.params(raw, cls)))

        return handler

    return register


async def _guard(call: Callable[[], Any]) -> Any:
    try:
        result = call()
        if asyncio.iscoroutine(result):
            result = await result
        return result
    except JsonRpcException:
        raise
    except InvalidParams as exc:
        raise JsonRpcInvalidParams(exc.message, data=exc.data) from exc
    except CtxError as exc:
        raise JsonRpcServerError(exc.message, exc.code, data=exc.data) from exc  # type: ignore[no-untyped-call]
    except Exception as exc:
        log.error("internal error: %s", traceback.format_exc())
        raise JsonRpcInternalError(f"internal error: {type(exc).__name__}: {exc}") from exc


# ---- lifecycle -------------------------------------------------------------------------
@server.feature(t.INITIALIZE)
def initialize(ls: CtxServer, params: t.InitializeParams) -> None:
    roots = [_file_path(f.uri) for f in params.workspace_folders or []]
    if not roots and params.root_uri:
        roots = [_file_path(params.root_uri)]
    if not roots and params.root_path:
        roots = [Path(params.root_path)]
    options = Options()
    if params.initialization_options:
        try:
            options = ls.protocol._converter.structure(params.initialization_options, Options)
        except Exception as exc:
            log.warning("invalid initializationOptions, using defaults: %s", exc)
            ls.window_show_message(t.ShowMessageParams(
                t.MessageType.Warning, f"ctxls: invalid initializationOptions ({exc}); "
                "using defaults"))
    encoding = normalise_encoding(str(ls.workspace.position_encoding or "utf-16"))
    ls.engine = Engine(roots, options, encoding)
    log.info("roots=%s encoding=%s", roots, encoding)


@server.feature(t.INITIALIZED)
async def initialized(ls: CtxServer, params: t.InitializedParams) -> None:
    ls.scan_task = asyncio.create_task(_scan(ls))
    caps = ls.client_capabilities.workspace
    watched = caps.did_change_watched_files if caps else None
    if watched is not None and watched.dynamic_registration:
        try:
            await ls.client_register_capability_async(t.RegistrationParams([t.Registration(
                id=str(uuid.uuid4()), method=t.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=t.DidChangeWatchedFilesRegistrationOptions(
                    [t.FileSystemWatcher(glob_pattern="**/*")]))]))
        except Exception as exc:  # the client said no: we still serve, just without watching
            log.warning("file watching not registered: %s", exc)


def _stop_workers(pool: Executor) -> None:
    """Wait for the scan's worker processes to exit, then stop the forkserver they were
    forked from (about 40 MiB that would otherwise live as long as the server). The
    forkserver has no public stop; without this private one it is left running. The
    resource tracker (about 12 MiB) stays: it unlinks the pool's semaphores when they go."""
    pool.shutdown(wait=True, cancel_futures=True)
    server = getattr(multiprocessing.forkserver, "_forkserver", None)
    with contextlib.suppress(Exception):
        server._stop()  # type: ignore[union-attr]


async def _scan(ls: CtxServer) -> None:
    """Cold scan in the background; requests are answered meanwhile (files read on demand)."""
    engine = ls.engine
    engine.scanning = True
    gc.disable()  # a bulk load of tables: collections would only rescan them, nothing is garbage
    loop = asyncio.get_running_loop()
    token: str | None = None
    fresh: list[FileEntry] = []
    started = time.perf_counter()
    try:
        plan = await loop.run_in_executor(None, engine.scan_plan)
        listed = time.perf_counter()
        window = ls.client_capabilities.window
        if window is not None and window.work_done_progress:
            token = f"ctxls-scan-{uuid.uuid4()}"
            await ls.work_done_progress.create_async(token)
            ls.work_done_progress.begin(token, t.WorkDoneProgressBegin(
                title="ctxls: indexing", message=f"0/{len(plan)} files", percentage=0))
        hits, misses = await loop.run_in_executor(None, engine.warm_start, plan)
        engine.add(hits)
        restored = time.perf_counter()
        done = len(hits)
        batches = [misses[i : i + BATCH] for i in range(0, len(misses), BATCH)]
        pool: Executor | None = None
        if len(misses) >= POOL_THRESHOLD and engine.options.scan_processes > 1:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["ctxls.index.scan"])
            pool = ProcessPoolExecutor(engine.options.scan_processes, mp_context=ctx)
        try:  # (a scan that used workers stops them, and their forkserver, when it is done)
            futures = [loop.run_in_executor(pool, index_batch, b, engine.options.max_file_bytes)
                       for b in batches]
            for fut in asyncio.as_completed(futures):
                entries = await fut
                engine.add(entries)
                fresh.extend(entries)
                done += len(entries)
                if token is not None:
                    ls.work_done_progress.report(token, t.WorkDoneProgressReport(
                        message=f"{done}/{len(plan)} files",
                        percentage=int(100 * done / max(1, len(plan)))))
        finally:
            if pool is not None:
                loop.run_in_executor(None, _stop_workers, pool)
        log.info("indexed %d files (%d from the cache) in %.2f s: listing %.2f s, cache %.2f s, "
                 "parsing %.2f s", done, len(hits), time.perf_counter() - started,
                 listed - started, restored - listed, time.perf_counter() - restored)
    except Exception:
        log.error("scan failed: %s", traceback.format_exc())
    finally:
        gc.enable()
        gc.freeze()  # the index lives as long as the server: keep it out of future collections
        engine.scanning = False
        ls.scan_done.set()
        _publish_policy(ls)
        if token is not None:
            ls.work_done_progress.end(token, t.WorkDoneProgressEnd(
                message=f"{len(engine.entries)} files indexed"))
    if fresh:  # the index is ready; writing the cache must not delay the answers
        try:
            await loop.run_in_executor(None, engine.persist, fresh)
        except Exception:
            log.error("index cache not written: %s", traceback.format_exc())
    if engine.options.search_prebuild:
        ls.search_task = asyncio.create_task(_build_search(ls))


async def _build_search(ls: CtxServer) -> None:
    """The search index, built on the event loop in slices: requests are answered between
    slices, and nothing else touches the engine meanwhile (handlers run on this thread)."""
    began = time.perf_counter()
    try:
        done = False
        while not done:
            end = time.perf_counter() + SEARCH_SLICE
            while not done and time.perf_counter() < end:
                done = ls.engine.search_step(1)
            await asyncio.sleep(SEARCH_SLICE / 2)
        log.info("search index built in %.2f s", time.perf_counter() - began)
    except Exception:
        log.error("search index not built: %s", traceback.format_exc())


@server.feature(t.SHUTDOWN)
async def shutdown(ls: CtxServer, params: None) -> None:
    """Let a running scan finish writing the index cache (bounded), then stop; the search
    index's build just stops."""
    if ls.search_task is not None:
        ls.search_task.cancel()
    if ls.scan_task is not None and not ls.scan_task.done():
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(ls.scan_task), 30)


# ---- documents -------------------------------------------------------------------------
@server.feature(t.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: CtxServer, params: t.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    ls.engine.open(doc.uri, doc.text, doc.version)


@server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: CtxServer, params: t.DidChangeTextDocumentParams) -> None:
    changes: list[tuple[tuple[int, int], tuple[int, int], str] | str] = []
    for c in params.content_changes:
        if isinstance(c, t.TextDocumentContentChangePartial):
            changes.append(((c.range.start.line, c.range.start.character),
                            (c.range.end.line, c.range.end.character), c.text))
        else:
            changes.append(c.text)
    ls.engine.change(params.text_document.uri, params.text_document.version, changes)


@server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: CtxServer, params: t.DidCloseTextDocumentParams) -> None:
    ls.engine.close(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: CtxServer, params: t.DidSaveTextDocumentParams) -> None:
    ls.engine.refresh(params.text_document.uri)
    if params.text_document.uri.endswith(POLICY_PATH):
        _publish_policy(ls)


@server.feature(t.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched(ls: CtxServer, params: t.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        ls.engine.refresh(change.uri)
    if any(c.uri.endswith(POLICY_PATH) for c in params.changes):
        _publish_policy(ls)


def _publish_policy(ls: CtxServer) -> None:
    """Problems with each root's policy file, as diagnostics on it (an empty list clears
    them), like a linter's."""
    severity = {"error": t.DiagnosticSeverity.Error, "warning": t.DiagnosticSeverity.Warning}
    for root in ls.engine.roots:
        policy = ls.engine.policy(root)
        if not policy.found and not (root / POLICY_PATH).exists():
            continue
        ls.text_document_publish_diagnostics(t.PublishDiagnosticsParams(
            uri=(root / POLICY_PATH).as_uri(),
            diagnostics=[t.Diagnostic(
                range=t.Range(t.Position(x.line, 0), t.Position(x.line + 1, 0)),
                message=x.message, severity=severity[x.severity], source="ctxls policy")
                for x in policy.problems]))


# ---- standard requests -----------------------------------------------------------------
@server.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def document_symbol(ls: CtxServer, params: t.DocumentSymbolParams) -> Any:
    return await _guard(lambda: ls.engine.document_symbols(params.text_document.uri))


@server.feature(t.TEXT_DOCUMENT_DEFINITION)
async def definition(ls: CtxServer, params: t.DefinitionParams) -> Any:
    pos = params.position
    return await _guard(lambda: ls.engine.definition_at(params.text_document.uri, pos.line,
                                                        pos.character))


@server.feature(t.TEXT_DOCUMENT_REFERENCES)
async def references(ls: CtxServer, params: t.ReferenceParams) -> Any:
    pos = params.position
    return await _guard(lambda: ls.engine.references_at(
        params.text_document.uri, pos.line, pos.character, params.context.include_declaration))


@server.feature(t.WORKSPACE_SYMBOL)
async def workspace_symbol(ls: CtxServer, params: t.WorkspaceSymbolParams) -> Any:
    return await _guard(lambda: ls.engine.workspace_symbols(params.query))


# ---- ctx/* -----------------------------------------------------------------------------
def _forward(call: Callable[..., Any]) -> Callable[[CtxServer, Any], Any]:
    def handler(ls: CtxServer, params: Any) -> Any:
        return call(ls.engine, params)

    handler.__name__ = call.__name__
    return handler


# Requests the engine answers as they come: (method, params class, engine method).
ENGINE_REQUESTS: list[tuple[str, type[Any], Callable[..., Any]]] = [
    (p.SKELETON, p.SkeletonParams, Engine.skeleton),
    (p.READ_SYMBOL, p.ReadSymbolParams, Engine.read_symbol),
    (p.READ_RANGE, p.ReadRangeParams, Engine.read_range),
    (p.REFERENCES, p.ReferencesParams, Engine.references),
    (p.TESTS, p.SymbolParams, Engine.tests),
    (p.RECORD_OUTCOME, p.OutcomeParams, Engine.record_outcome),
    (p.STATS, p.StatsParams, Engine.stats),
    (p.SEARCH, p.SearchParams, Engine.search),
    (p.CHUNKS, p.ChunksParams, Engine.chunks),
    (p.CONSTRUCT, p.ConstructParams, Engine.construct),
    (p.DEPENDENCIES, p.SymbolParams, Engine.dependencies),
]
for _method, _params, _call in ENGINE_REQUESTS:
    answer(_method, _params)(_forward(_call))


@answer(p.STATUS, p.StatusParams)
async def status(ls: CtxServer, params: p.StatusParams) -> p.StatusResult:
    if (params.wait and ls.engine.scanning) or (params.wait and ls.scan_task is None):
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ls.scan_done.wait(), params.timeout)
    return ls.engine.status()


def serve(tcp: str | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="ctxls %(levelname)s %(message)s")
    logging.getLogger("pygls").setLevel(logging.WARNING)  # it logs every message at INFO
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
