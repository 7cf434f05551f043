"""Errors a request can end in. Each carries a JSON-RPC code and a message a model can act on.

Codes -32001.. are ours (JSON-RPC leaves -32000..-32099 to implementations; LSP takes -32002
for "server not initialized", so an ambiguous symbol is -32006); -32602 is JSON-RPC's invalid
params. ``lsp/`` turns these into JSON-RPC errors.
"""

from __future__ import annotations

from typing import Any


class CtxError(Exception):
    code = -32000

    def __init__(self, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data


class InvalidParams(CtxError):
    code = -32602


class UnknownSymbol(CtxError):
    code = -32001


class AmbiguousSymbol(CtxError):
    code = -32006


class Cancelled(CtxError):
    """The client cancelled the request (``$/cancelRequest``) while it ran."""

    code = -32800


class NotInitialized(CtxError):
    """A request before ``initialize``: there is no workspace to answer from yet."""

    code = -32002


class OutsideWorkspace(CtxError):
    code = -32003


class FileMissing(CtxError):
    code = -32004


class Unreadable(CtxError):
    """Binary files and other content that has no text to show."""

    code = -32005
