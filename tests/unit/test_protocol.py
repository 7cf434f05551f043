"""The server's protocol, in process: pygls files the future of every handler it runs
under a message id and takes out only a request's, when it is answered; the server's
protocol forgets each notification's, and each step of a generator handler's, once done
(each didChange kept its whole text for the rest of the session)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types as t


def test_notifications_leave_no_futures_behind(tmp_path: Path) -> None:
    from ctxls.lsp.server import server

    proto = server.protocol
    uri = (tmp_path / "m.py").as_uri()

    async def run() -> tuple[int, int]:
        before = len(proto._request_futures)
        for version in range(1, 21):
            proto._handle_notification(t.TEXT_DOCUMENT_DID_OPEN, t.DidOpenTextDocumentParams(
                t.TextDocumentItem(uri, "python", version, "x = 1\n" * 1000)))
            proto._handle_notification(t.TEXT_DOCUMENT_DID_CLOSE, t.DidCloseTextDocumentParams(
                t.TextDocumentIdentifier(uri)))
            proto._handle_notification(t.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                       t.DidChangeWatchedFilesParams([]))
        for _ in range(50):
            await asyncio.sleep(0)
        return before, len(proto._request_futures)

    before, after = asyncio.run(run())
    assert after == before


def test_the_warm_up_builds_each_results_hooks_once() -> None:
    """The warm-up builds a result class's unstructure hooks (and its fields' classes') so
    that its first answer builds none: cattrs clears its cache whenever it builds a hook
    for a list type, after which every class's hook was built again at its next use."""
    from lsprotocol.converters import get_converter

    from ctxls import protocol as p
    from ctxls.lsp.host import _result_hook

    converter = get_converter()
    _result_hook(converter, p.DecisionContext)
    hooks = {cls: converter.get_unstructure_hook(cls)
             for cls in (p.DecisionContext, p.Obligation, p.RankingInfo)}
    # a hook built for a list type (as a later answer's would be) clears the cache
    converter.get_unstructure_hook(list[t.Location])
    assert all(converter.get_unstructure_hook(cls) is hook for cls, hook in hooks.items())
    made = converter.get_unstructure_hook(list[t.Position])
    assert converter.get_unstructure_hook(list[t.Position]) is made  # (the cache works)
