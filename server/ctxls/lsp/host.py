"""The server object: pygls's language server holding the workspace, and how a request
is answered from a snapshot of it."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import typing
import uuid
from collections.abc import Callable
from typing import Any

import attrs
import cattrs
from lsprotocol import types as t
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcRequestCancelled,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCResponseMessage, LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

import ctxls
from ctxls import protocol as p
from ctxls import wire
from ctxls.engine import REQUESTS, Engine, Listener
from ctxls.policy import POLICY_PATH
from ctxls.workspace import Workspace

log = logging.getLogger("ctxls")


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

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any,
                         args: Any = None, kwargs: Any = None) -> None:
        """pygls files the future of every handler it runs under a message id, and takes
        out only a request's, when it is answered: each notification's (a didChange with
        its whole text) and each step of a generator handler stayed for good (a long
        session with an edit every tenth request grew by 8 MiB every 10,000 requests)."""
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            def forget(done: Any) -> None:  # (after the callbacks that answer it)
                if self._request_futures.get(msg_id) is done:
                    del self._request_futures[msg_id]

            future.add_done_callback(forget)

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
        self.engine = Engine(_Progress(self))

    @property
    def ws(self) -> Workspace:
        return self.engine.ws

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Out-of-band errors go to the log, not to the user's screen as a popup."""
        log.warning("%s: %s", getattr(source, "__name__", source), error)

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


class _Progress(Listener):
    """The scan as work-done progress, for clients that show it; policy problems as
    diagnostics. The scan never waits for the client: the progress token is asked for on
    the side, and reports start once the client has accepted it (a client that answers
    late, or never, saw a scan that stood still until it did)."""

    def __init__(self, ls: CtxServer) -> None:
        self.ls = ls
        self.token: str | None = None  # accepted by the client and begun
        self.done = (0, 0)  # the latest (done, planned), for a late start
        self.finished = False
        self.asking: asyncio.Task[None] | None = None

    def warm_up(self) -> list[Callable[[], object]]:
        """Each ``ctx/*`` result's converter (cattrs builds one per class on first use)."""
        converter = self.ls.protocol._converter
        kinds = [typing.get_type_hints(row.answer).get("return") for row in REQUESTS]
        return [functools.partial(_result_hook, converter, kind)
                for kind in (*kinds, p.StatusResult)]

    def rehearse(self, result: object) -> None:
        protocol = self.ls.protocol  # (as ``_send_data`` writes a response)
        json.dumps(JsonRPCResponseMessage(id=0, result=result, jsonrpc="2.0"),
                   default=protocol._serialize_message)

    async def scan_started(self, planned: int) -> None:
        self.done, self.finished = (0, planned), False
        window = self.ls.client_capabilities.window
        if window is None or not window.work_done_progress:
            return
        self.asking = asyncio.ensure_future(self._begin(f"ctxls-scan-{uuid.uuid4()}"))

    async def _begin(self, token: str) -> None:
        try:
            await self.ls.work_done_progress.create_async(token)
        except Exception as exc:  # refused: the client shows no progress, the scan goes on
            log.info("work-done progress refused: %s", exc)
            return
        if self.finished:
            return
        done, planned = self.done
        self.ls.work_done_progress.begin(token, t.WorkDoneProgressBegin(
            title="ctxls: indexing", message=f"{done}/{planned} files",
            percentage=int(100 * done / max(1, planned))))
        self.token = token

    def scan_progress(self, done: int, planned: int) -> None:
        self.done = (done, planned)
        if self.token is not None:
            self.ls.work_done_progress.report(self.token, t.WorkDoneProgressReport(
                message=f"{done}/{planned} files", percentage=int(100 * done / max(1, planned))))

    def scan_finished(self, indexed: int) -> None:
        self.finished = True
        if self.token is not None:
            self.ls.work_done_progress.end(self.token, t.WorkDoneProgressEnd(
                message=f"{indexed} files indexed"))
            self.token = None

    def policy_changed(self) -> None:
        self.ls.publish_policy()


def _result_hook(converter: cattrs.Converter, kind: Any) -> None:
    for cls, hook in wire.hooks(converter.get_unstructure_hook, kind).items():
        converter.register_unstructure_hook(cls, hook)
