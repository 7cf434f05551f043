"""The server object: pygls's language server holding the workspace, and how a request
is answered from a snapshot of it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

import attrs
import cattrs
from lsprotocol import types as t
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

import ctxls
from ctxls.policy import POLICY_PATH
from ctxls.snapshot import Snapshot
from ctxls.workspace import Workspace

P = TypeVar("P")


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
        self.ws = Workspace([])
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

    def answer(self, call: Callable[[Snapshot], Any], path: str | None = None,
               uri: str | None = None, refs: bool = False) -> Any:
        """Take a snapshot, answer from it, and let the workspace keep what it read."""
        snap = self.ws.snapshot(path, uri, refs=refs)
        try:
            return call(snap)
        finally:
            self.ws.absorb(snap)

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


