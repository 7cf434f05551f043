"""Answers given before the index is built say so, and the ones that depend on it wait.

The scan starts when the client sends ``initialized``; a request sent before that meets an
index with nothing in it, deterministically. Each test starts the real server over stdio
with the project's own client, sends ``initialize`` alone, asks, then lets the scan run.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxls_client import CtxClient
from tests.e2e.conftest import EXAMPLE
from tests.e2e.test_search import search_ready


async def half_started(root: Path, options: dict[str, Any]) -> CtxClient:
    """A server that has answered ``initialize`` and not yet been told ``initialized``."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ctxls", "serve", stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, limit=1 << 24)
    client = CtxClient(proc, root, 60.0)
    await client.request("initialize", {
        "processId": os.getpid(), "rootUri": root.as_uri(),
        "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
        "capabilities": {"window": {"workDoneProgress": True}},
        "initializationOptions": {"persist": False, **options}})
    return client


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "ws")
    return tmp_path / "ws"


CONSTRUCT = {"path": "billing/pricing.py", "target": {"symbol": "compute_line_total"},
             "task": "Bulk tiers should stack with coupons"}


async def test_a_window_asked_for_before_the_scan_says_it_is_partial(root: Path) -> None:
    client = await half_started(root, {"indexWait": 0.2})
    try:
        early = await client.request("ctx/construct", {**CONSTRUCT, "waitForIndex": False})
        assert early["complete"] is False
        assert any(n.startswith("incomplete: the scan is still listing") for n in
                   early["notes"])
        refs = await client.request("ctx/references", {"path": "billing/pricing.py",
                                                       "name": "compute_line_total"})
        assert refs["complete"] is False and refs["notes"]
        client.notify("initialized", {})
        await client.status(wait=True)
        late = await client.request("ctx/construct", {**CONSTRUCT, "waitForIndex": False})
        assert late["complete"] is True and not any(
            n.startswith("incomplete") for n in late["notes"])
        # what the early window lacked is what the index supplies: the tests and the
        # callers in other files (the target's own file is read for the request itself)
        def found(w: dict[str, Any], relation: str) -> int:
            return sum(1 for g in w["gateLog"] if g["reason"].startswith(relation)
                       and g["path"] != CONSTRUCT["path"])

        assert found(early, "PreserveObligation") == 0 < found(late, "PreserveObligation")
        assert found(early, "CalledBy") == 0 < found(late, "CalledBy")
    finally:
        await client.close()


async def test_a_window_waits_for_the_scan_by_default(root: Path) -> None:
    client = await half_started(root, {"indexWait": 30})
    try:
        pending = asyncio.ensure_future(client.request("ctx/construct", CONSTRUCT))
        await asyncio.sleep(0)  # the request is on the wire before the scan may start
        client.notify("initialized", {})
        window = await pending
        assert window["complete"] is True
        assert any(w["role"] == "tests" for w in window["window"])
    finally:
        await client.close()


async def test_the_wait_is_bounded_and_the_answer_then_says_why(root: Path) -> None:
    client = await half_started(root, {"indexWait": 0.3})
    try:
        began = asyncio.get_running_loop().time()
        window = await client.request("ctx/construct", CONSTRUCT)  # never `initialized`
        assert asyncio.get_running_loop().time() - began >= 0.3
        assert window["complete"] is False and window["notes"]
        uri = (root / "billing/pricing.py").as_uri()
        found = await client.request("textDocument/references", {  # def compute_line_total
            "textDocument": {"uri": uri}, "position": {"line": 74, "character": 6},
            "context": {"includeDeclaration": False}})
        # only the file itself is indexed; the log says the answer is partial
        assert {f["uri"] for f in found} == {uri}
        assert any(m == "window/logMessage" and "before the index was complete" in p["message"]
                   for m, p in client.notifications)
    finally:
        await client.close()


async def test_every_index_answer_says_whether_it_is_complete(root: Path) -> None:
    client = await half_started(root, {"indexWait": 0.1})
    try:
        asks = {
            "ctx/tests": {"path": "auth/tokens.py", "name": "refresh_token"},
            "ctx/dependencies": {"path": "auth/tokens.py", "name": "refresh_token"},
            "ctx/search": {"query": "refresh token"},
            "ctx/chunks": {"includeText": False},
        }
        for method, params in asks.items():
            early = await client.request(method, params)
            assert early["complete"] is False and early["notes"], method
        one_file = await client.request("ctx/chunks", {"path": "auth/tokens.py"})
        assert one_file["complete"] is True  # one file's chunks need no index
        client.notify("initialized", {})
        await client.status(wait=True)
        # the search index builds behind the ready signal, and stops for requests: until
        # it is done a search says so (a loaded full run got there first once)
        await search_ready(client)
        for method, params in asks.items():
            late = await client.request(method, params)
            assert late["complete"] is True and late["notes"] == [], method
    finally:
        await client.close()


async def test_the_status_lists_the_first_skipped_files_and_counts_them_all(root: Path) -> None:
    """A monorepo's fixtures can hold thousands of files that do not parse on purpose: the
    status lists the first 200 by path and counts every one."""
    broken = root / "fixtures"
    broken.mkdir()
    for i in range(230):
        (broken / f"bad_{i:03}.py").write_text("def broken(:\n")
    async with await CtxClient.start(root, options={"persist": False},
                                     wait_for_index=True) as ctx:
        status = await ctx.request("ctx/status", {})
    paths = [s["path"] for s in status["skipped"]]
    assert len(paths) == 200 and paths == sorted(paths)
    assert status["skippedCount"] >= 230  # (the example's own broken file too)
    assert paths[0] == "broken/syntax_error.py" or paths[0].startswith("fixtures/bad_000")
