"""The server object: pygls's language server holding the workspace, and how a request
is answered from a snapshot of it."""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, override
from lsprotocol import types as t
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcRequestCancelled,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

import ctxls
from ctxls.errors import NotInitialized
from ctxls.policy import POLICY_PATH
from ctxls.snapshot import Snapshot
from ctxls.workspace import Workspace

P = TypeVar("P")
log = logging.getLogger("ctxls")
REQUEST_THREADS = 4


class _NoUserErrors(logging.Filter):
    """pygls logs a traceback for every message whose params do not fit: a user's error,
    answered with -32602, is no fault to print (and a peer could fill stderr with them)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Unable to deserialize message")


logging.getLogger("pygls.protocol.json_rpc").addFilter(_NoUserErrors())


@attrs.define
class CtxRequestMessage:
    """Any ``ctx/*`` request: params stay raw so a bad one gets an error, not silence."""

    id: int | str
    params: Any
    method: str
    jsonrpc: str = "2.0"


class CtxProtocol(LanguageServerProtocol):
    """pygls's protocol, quieter and stricter: a user's error is one log line and no popup,
    an internal error carries no traceback to the client, and a message that does not fit
    its type raises a clean error for ``rpc.dispatch`` to answer."""

    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method.startswith("ctx/"):
            return CtxRequestMessage
        return super().get_message_type(method)

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            cause = exc.__cause__
            detail = "; ".join(cattrs.transform_error(cause)) if isinstance(
                cause, cattrs.BaseValidationError) else type(cause).__name__
            raise JsonRpcInvalidParams(detail) from None

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        self._request_futures.pop(msg_id, None)
        if future.cancelled():
            error: JsonRpcException = JsonRpcRequestCancelled(
                f"request {msg_id} was cancelled")
        elif (exc := future.exception()) is None:
            self._send_response(msg_id, result=future.result())
            return
        elif isinstance(exc, JsonRpcException):
            log.info("request %s: %s %s", msg_id, exc.code, exc.message)
            error = exc
        else:  # a bug in ctxls: the log gets the traceback, the client a sentence
            log.error("request %s failed", msg_id, exc_info=exc)
            error = JsonRpcInternalError(f"internal error: {type(exc).__name__}: {exc}")
        self._send_response(msg_id, error=error.to_response_error())

    # Document sync goes to the workspace's documents only: pygls's copy of each open
    # document was never read, doubled the memory, and raised KeyError on a change to a
    # document that was not open.
    @lsp_method(t.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: t.DidOpenTextDocumentParams) -> Any:
        yield from self._user(t.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(t.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: t.DidChangeTextDocumentParams) -> Any:
        yield from self._user(t.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(t.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: t.DidCloseTextDocumentParams) -> Any:
        yield from self._user(t.TEXT_DOCUMENT_DID_CLOSE, params)

    def _user(self, method: str, params: Any) -> Any:
        handler = self.fm.features.get(method)
        if handler is not None:
            yield handler, (params,), None

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        """pygls forgets a cancelled request and lets it run; this cancels it: the client
        gets -32800 at once, and the request's work stops at its next check."""
        future = self._request_futures.get(msg_id)
        if future is not None and not future.done():
            future.cancel()

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        if error is not None and error.code == JsonRpcInternalError.CODE:
            error = attrs.evolve(error, data=None)  # pygls puts a traceback there
        super()._send_response(msg_id, result, error)


class CtxServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("ctxls", ctxls.__version__, protocol_cls=CtxProtocol)
        self.ws = Workspace([])
        self.scan_done = asyncio.Event()
        self.scan_task: asyncio.Task[None] | None = None
        self.search_task: asyncio.Task[None] | None = None  # the search index's build
        self.ready = False  # `initialize` has named the workspace
        self.watch_task: asyncio.Task[None] | None = None
        self.stop_watching = asyncio.Event()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Out-of-band errors go to the log, not to the user's screen as a popup."""
        log.warning("%s: %s", getattr(source, "__name__", source), error)

    def params(self, raw: Any, cls: type[P]) -> P:
        """Params of a ``ctx/*`` request, strictly: JSON types as declared (a list is not a
        path, "5" is not a number). (``rpc.dispatch`` has refused lone surrogates.)"""
        if raw is not None and not isinstance(raw, dict):
            raise JsonRpcInvalidParams(f"params of {cls.__name__} must be an object")
        try:
            return self.strict.structure(raw or {}, cls)
        except Exception as exc:
            detail = "; ".join(cattrs.transform_error(exc)) if isinstance(
                exc, cattrs.BaseValidationError) else str(exc)
            detail = re.sub(r"\.([a-z]+(?:_[a-z0-9]+)+)", lambda m: "." + _camel(m[1]), detail)
            raise JsonRpcInvalidParams(f"invalid params for {cls.__name__}: {detail}") from exc

    @functools.cached_property
    def strict(self) -> cattrs.Converter:
        """camelCase on the wire, as lsprotocol's converter, but no coercion of types (which
        lsprotocol's, built for messages already typed, does: a list becomes a str)."""
        converter = cattrs.Converter()
        for kind, ok in _JSON_TYPES.items():
            converter.register_structure_hook(kind, _exactly(kind, ok))

        def camel_case(cls: type[Any]) -> Callable[[Any, Any], Any]:
            renamed: dict[str, Any] = {a.name: override(rename=_camel(a.name))
                                       for a in attrs.fields(cls)}
            return make_dict_structure_fn(cls, converter, **renamed)

        converter.register_structure_hook_factory(attrs.has, camel_case)
        return converter

    def snapshot(self) -> Snapshot:
        if not self.ready:
            raise NotInitialized("the server is not initialized: send `initialize` first")
        return self.ws.snapshot()

    async def answer(self, call: Callable[[Snapshot], Any], path: str | None = None,
                     uri: str | None = None, refs: bool = False) -> Any:
        """Take a snapshot here, on the event loop, answer from it on a worker thread (so
        the loop goes on reading messages, edits and cancellations meanwhile), and let the
        workspace keep what the request read, back on the loop."""
        if not self.ready:
            raise NotInitialized("the server is not initialized: send `initialize` first")
        snap = self.ws.snapshot(path, uri, refs=refs)
        work = asyncio.get_running_loop().run_in_executor(self.requests, call, snap)
        work.add_done_callback(lambda _: self.ws.absorb(snap))
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:  # $/cancelRequest: the work stops at its next check
            snap.cancel.set()
            raise

    @functools.cached_property
    def requests(self) -> ThreadPoolExecutor:
        """Where requests run: reads stay answered while a long one runs (the GIL is
        handed between them every few milliseconds)."""
        return ThreadPoolExecutor(REQUEST_THREADS, thread_name_prefix="ctxls-request")

    def publish_policy(self) -> None:
        """Problems with each root's policy file, as diagnostics on it (an empty list
        clears them), like a linter's."""
        severity = {"error": t.DiagnosticSeverity.Error,
                    "warning": t.DiagnosticSeverity.Warning}
        for root in self.ws.roots:
            policy = self.ws.policy(root)
            if not policy.found and not (root / POLICY_PATH).exists():
                continue
            self.text_document_publish_diagnostics(t.PublishDiagnosticsParams(
                uri=(root / POLICY_PATH).as_uri(),
                diagnostics=[t.Diagnostic(
                    range=t.Range(t.Position(x.line, 0), t.Position(x.line + 1, 0)),
                    message=x.message, severity=severity[x.severity], source="ctxls policy")
                    for x in policy.problems]))


_JSON_TYPES: dict[type, Callable[[Any], bool]] = {
    str: lambda v: isinstance(v, str),
    int: lambda v: isinstance(v, int) and not isinstance(v, bool),
    float: lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    bool: lambda v: isinstance(v, bool),
}


def _exactly(kind: type, ok: Callable[[Any], bool]) -> Callable[[Any, Any], Any]:
    def structure(value: Any, _: Any) -> Any:
        if not ok(value):
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return kind(value)

    return structure


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
