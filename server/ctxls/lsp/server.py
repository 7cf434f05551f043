"""The ctxls language server: pygls wiring around the workspace and the request modules.

Handlers stay thin. A ``ctx/*`` request is one row of ``engine.REQUESTS``: its params class, the
function of (snapshot, params) that answers it, whether it reads the reference index, and
what must be brought up to date before its snapshot is taken. The wiring structures the
params, takes the snapshot, calls the function, and turns ``CtxError`` into a JSON-RPC error
with a code and an actionable message.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types as t
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcServerError,
)

from ctxls import protocol as p
from ctxls.config import Options
from ctxls.engine import REQUESTS, Request
from ctxls.errors import CtxError, InvalidParams
from ctxls.lsp import rpc
from ctxls.lsp.host import CtxServer
from ctxls.paths import file_path
from ctxls.policy import POLICY_PATH
from ctxls.requests import refs, status, symbols
from ctxls.syntax.text import normalise_encoding
from ctxls.wire import structure

log = logging.getLogger("ctxls")
P = TypeVar("P")


server = CtxServer()
# Options given on the command line (`ctxls serve --store ...`): initializationOptions
# override them.
DEFAULTS: dict[str, Any] = {}


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


async def _answer_indexed(ls: CtxServer, method: str, call: Callable[[], Any]) -> Any:
    """A standard request that depends on the index: it waits for the scan (bounded); LSP
    results have nowhere to say they are partial, so the log says it."""
    if not await ls.engine.index_ready():
        ls.window_log_message(t.LogMessageParams(t.MessageType.Warning, (
            f"ctxls: {method} answered before the index was complete: "
            f"{len(ls.ws.entries):,} of {ls.ws.planned:,} files indexed")))
    return await _guard(call)


def _register(row: Request) -> None:
    @server.feature(row.method)
    async def handler(ls: CtxServer, raw: Any) -> Any:
        params = await _guard(lambda: structure(raw, row.params))
        return await _guard(lambda: ls.engine.request(row, params))

    handler.__name__ = row.answer.__name__


for _row in REQUESTS:
    _register(_row)


@server.feature(p.STATUS)
async def ctx_status(ls: CtxServer, raw: Any) -> Any:
    async def respond() -> p.StatusResult:
        params = structure(raw, p.StatusParams)
        if params.wait:
            await ls.engine.index_ready(params.timeout)
        # on the loop itself: cheap, and answered even while every worker thread is busy
        return status.status(ls.engine.snapshot(), params)

    return await _guard(respond)


# ---- lifecycle -------------------------------------------------------------------------
@server.feature(t.INITIALIZE)
def initialize(ls: CtxServer, params: t.InitializeParams) -> None:
    roots = [file_path(f.uri) for f in params.workspace_folders or []]
    if not roots and params.root_uri:
        roots = [file_path(params.root_uri)]
    if not roots and params.root_path:
        roots = [Path(params.root_path)]
    options = Options()
    sent = params.initialization_options
    given = {**DEFAULTS, **sent} if isinstance(sent, dict) else sent or dict(DEFAULTS)
    if given:
        try:
            options = ls.protocol._converter.structure(given, Options)
        except Exception as exc:
            log.warning("invalid initializationOptions, using defaults: %s", exc)
            ls.window_show_message(t.ShowMessageParams(
                t.MessageType.Warning, f"ctxls: invalid initializationOptions ({exc}); "
                "using defaults"))
    encoding = normalise_encoding(str(ls.workspace.position_encoding or "utf-16"))
    ls.engine.open(roots, options, encoding)
    log.info("roots=%s encoding=%s", roots, encoding)


@server.feature(t.INITIALIZED)
async def initialized(ls: CtxServer, params: t.InitializedParams) -> None:
    caps = ls.client_capabilities.workspace
    watched = caps.did_change_watched_files if caps else None
    client_watches = False
    if watched is not None and watched.dynamic_registration:
        try:
            await ls.client_register_capability_async(t.RegistrationParams([t.Registration(
                id=str(uuid.uuid4()), method=t.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=t.DidChangeWatchedFilesRegistrationOptions(
                    [t.FileSystemWatcher(glob_pattern="**/*")]))]))
            client_watches = True
        except Exception as exc:  # the client said no: we watch ourselves
            log.warning("file watching not registered: %s", exc)
    ls.engine.start(watch=not client_watches)


@server.feature(t.SHUTDOWN)
async def shutdown(ls: CtxServer, params: None) -> None:
    await ls.engine.stop()


# ---- documents -------------------------------------------------------------------------
@server.feature(t.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: CtxServer, params: t.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    ls.ws.open(doc.uri, doc.text, doc.version)


@server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: CtxServer, params: t.DidChangeTextDocumentParams) -> None:
    changes: list[tuple[tuple[int, int], tuple[int, int], str] | str] = []
    for c in params.content_changes:
        if isinstance(c, t.TextDocumentContentChangePartial):
            changes.append(((c.range.start.line, c.range.start.character),
                            (c.range.end.line, c.range.end.character), c.text))
        else:
            changes.append(c.text)
    ls.ws.change(params.text_document.uri, params.text_document.version, changes)


@server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: CtxServer, params: t.DidCloseTextDocumentParams) -> None:
    ls.ws.close(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: CtxServer, params: t.DidSaveTextDocumentParams) -> None:
    ls.ws.refresh(params.text_document.uri)
    if params.text_document.uri.endswith(POLICY_PATH):
        ls.publish_policy()


@server.feature(t.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched(ls: CtxServer, params: t.DidChangeWatchedFilesParams) -> None:
    ls.engine.changed([change.uri for change in params.changes])
    if any(c.uri.endswith(POLICY_PATH) for c in params.changes):
        ls.publish_policy()


# ---- standard requests -----------------------------------------------------------------
@server.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def document_symbol(ls: CtxServer, params: t.DocumentSymbolParams) -> Any:
    uri = params.text_document.uri
    return await _guard(lambda: ls.engine.answer(
        lambda snap: symbols.document_symbols(snap, uri), uri=uri))


@server.feature(t.TEXT_DOCUMENT_DEFINITION)
async def definition(ls: CtxServer, params: t.DefinitionParams) -> Any:
    uri = params.text_document.uri
    return await _answer_indexed(ls, "definition", lambda: ls.engine.answer(
        lambda snap: refs.definition_at(snap, uri, params.position), uri=uri, refs=True))


@server.feature(t.TEXT_DOCUMENT_REFERENCES)
async def references(ls: CtxServer, params: t.ReferenceParams) -> Any:
    uri = params.text_document.uri
    return await _answer_indexed(ls, "references", lambda: ls.engine.answer(
        lambda snap: refs.references_at(snap, uri, params.position,
                                        params.context.include_declaration),
        uri=uri, refs=True))


@server.feature(t.WORKSPACE_SYMBOL)
async def workspace_symbol(ls: CtxServer, params: t.WorkspaceSymbolParams) -> Any:
    return await _answer_indexed(ls, "workspace/symbol", lambda: ls.engine.answer(
        lambda snap: symbols.workspace_symbols(snap, params.query)))


def serve(tcp: str | None = None, defaults: dict[str, Any] | None = None) -> None:
    """Serve on stdio (or TCP)."""
    DEFAULTS.update(defaults or {})
    logging.getLogger("pygls").setLevel(logging.WARNING)  # it logs every message at INFO
    if tcp:
        host, _, port = tcp.rpartition(":")
        session = rpc.serve_tcp(server.protocol, host or "127.0.0.1", int(port))
    else:
        session = rpc.serve_stdio(server.protocol)
    try:
        asyncio.run(session)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]
