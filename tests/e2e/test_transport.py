"""The wire, as a careless or hostile peer writes it: every request with an id gets a
response, a frame that cannot be read gets a parse error, and the server keeps serving.

The peer here is raw bytes on the server's real stdin; responses are read from its stdout
with the same framer the server uses.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from ctxls.lsp.framing import Framer, Message
from tests.e2e.conftest import EXAMPLE


class Peer:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.framer = Framer()
        self.inbox: list[dict[str, Any]] = []
        self.answer_requests = True  # a peer that never answers the server's requests
        self.stderr = bytearray()  # drained all along, as an editor does: a full pipe blocks
        self.drain = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        assert self.proc.stderr is not None
        while data := await self.proc.stderr.read(1 << 16):
            self.stderr += data

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    def frame(self, obj: Any) -> None:
        body = json.dumps(obj).encode()
        self.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def reply(self, request_id: Any, timeout: float = 20) -> dict[str, Any]:
        """The response with this id (notifications and other replies are kept aside)."""
        assert self.proc.stdout is not None
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for m in self.inbox:
                if "method" not in m and m.get("id") == request_id:
                    self.inbox.remove(m)
                    return m
            left = deadline - asyncio.get_running_loop().time()
            data = await asyncio.wait_for(self.proc.stdout.read(1 << 16), max(left, 0.01))
            assert data, "the server closed its output"
            for f in self.framer.feed(data):
                assert isinstance(f, Message)
                if "method" in f.value and "id" in f.value and self.answer_requests:
                    self.frame({"jsonrpc": "2.0", "id": f.value["id"], "result": None})
                else:
                    self.inbox.append(f.value)

    async def ask(self, request_id: Any, method: str, params: Any) -> dict[str, Any]:
        self.frame({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return await self.reply(request_id)


@pytest.fixture
async def peer(tmp_path: Path) -> AsyncIterator[Peer]:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ctxls", "serve", stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    p = Peer(proc)
    init = await p.ask(0, "initialize", {"processId": os.getpid(), "rootUri": root.as_uri(),
                                        "capabilities": {},
                                        "initializationOptions": {"persist": False}})
    assert "result" in init
    p.frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    p.root = root  # type: ignore[attr-defined]
    yield p
    if proc.returncode is None:
        proc.kill()
        await proc.wait()


async def alive(peer: Peer, n: int) -> None:
    ok = await peer.ask(n, "ctx/skeleton", {"path": "auth/tokens.py"})
    assert ok["result"]["path"] == "auth/tokens.py"


BODY = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ctx/status", "params": {}}).encode()


@pytest.mark.parametrize(("name", "data", "answered"), [
    ("lowercase header", b"content-length: %d\r\n\r\n" % len(BODY) + BODY, True),
    ("LF-only line ends", b"Content-Length: %d\n\n" % len(BODY) + BODY, True),
    ("a length too long, alone", b"Content-Length: %d\r\n\r\n" % (len(BODY) + 40) + BODY,
     True),
    ("a length too short", b"Content-Length: 10\r\n\r\n" + BODY, False),
    ("no header", b"Content-Type: application/json\r\n\r\n" + BODY, False),
    ("a negative length", b"Content-Length: -4\r\n\r\n" + BODY, False),
    ("a length that is no number", b"Content-Length: abc\r\n\r\n" + BODY, False),
    ("an enormous length", b"Content-Length: 100000000000000\r\n\r\n" + BODY, False),
])
async def test_framing_mistakes_are_survived(peer: Peer, name: str, data: bytes,
                                             answered: bool) -> None:
    peer.send(data + b"\r\n")
    got = await peer.reply(7 if answered else None)
    if answered:
        assert "result" in got, name
    else:  # a parse error, id null; the server keeps its memory and its wits
        assert got["error"]["code"] == -32700, name
    await alive(peer, 100)


@pytest.mark.parametrize(("message", "code", "echo"), [
    ({"jsonrpc": "2.0", "id": None, "method": "ctx/status"}, -32600, None),
    ({"jsonrpc": "2.0", "id": True, "method": "ctx/status"}, -32600, None),
    ({"jsonrpc": "2.0", "id": 1.5, "method": "ctx/status"}, -32600, None),
    ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ctx/status"}, -32600, None),
    ({"jsonrpc": "1.0", "id": 11, "method": "ctx/status"}, -32600, 11),
    ({"id": 12, "method": "ctx/status"}, -32600, 12),
    ({"jsonrpc": "2.0", "id": 13, "method": 5}, -32600, 13),
    ({"jsonrpc": "2.0", "id": 14, "method": "textDocument/definition",
      "params": {"bad": 1}}, -32602, 14),
    ({"jsonrpc": "2.0", "id": 15, "method": "textDocument/documentSymbol",
      "params": None}, -32602, 15),
    ({"jsonrpc": "2.0", "id": 16, "method": "workspace/symbol", "params": {}}, -32602, 16),
    ({"jsonrpc": "2.0", "id": "s", "method": "no/such/method"}, -32601, "s"),
])
async def test_every_request_with_an_id_gets_an_answer(peer: Peer, message: dict[str, Any],
                                                       code: int, echo: Any) -> None:
    peer.frame(message)
    got = await peer.reply(echo)
    assert got["error"]["code"] == code
    assert "Traceback" not in json.dumps(got)
    await alive(peer, 101)


async def test_a_batch_and_a_non_object_are_invalid_requests(peer: Peer) -> None:
    for value in ([{"jsonrpc": "2.0", "id": 1, "method": "ctx/status"}], 42, "x"):
        peer.frame(value)
        got = await peer.reply(None)
        assert got["error"]["code"] == -32600
    await alive(peer, 102)


async def test_user_errors_are_one_line_on_stderr_and_no_popup(peer: Peer) -> None:
    got = await peer.ask(20, "ctx/readSymbol", {"path": "auth/tokens.py", "name": "nope"})
    assert got["error"]["code"] == -32001
    await alive(peer, 103)
    assert not any(m.get("method") == "window/showMessage" for m in peer.inbox)
    peer.frame({"jsonrpc": "2.0", "id": 21, "method": "shutdown"})
    await peer.reply(21)
    peer.frame({"jsonrpc": "2.0", "method": "exit"})
    assert await asyncio.wait_for(peer.proc.wait(), 20) == 0
    await asyncio.wait_for(peer.drain, 20)
    err = peer.stderr.decode()
    assert "Traceback" not in err and "nope" not in err  # nothing logged at warning


async def test_a_log_file_at_info_gets_user_errors_as_one_line(tmp_path: Path) -> None:
    root, log = tmp_path / "ws", tmp_path / "ctxls.log"
    shutil.copytree(EXAMPLE, root)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ctxls", "serve", "--log-file", str(log), "--log-level", "info",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    p = Peer(proc)
    try:
        await p.ask(0, "initialize", {"processId": os.getpid(), "rootUri": root.as_uri(),
                                     "capabilities": {},
                                     "initializationOptions": {"persist": False}})
        p.frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        got = await p.ask(1, "ctx/readSymbol", {"path": "auth/tokens.py", "name": "nope_x"})
        assert got["error"]["code"] == -32001
        await p.ask(2, "shutdown", None)
        p.frame({"jsonrpc": "2.0", "method": "exit"})
        assert await asyncio.wait_for(proc.wait(), 20) == 0
        await asyncio.wait_for(p.drain, 20)
    finally:
        if proc.returncode is None:
            proc.kill()
    lines = [line for line in log.read_text().splitlines() if "nope_x" in line]
    assert len(lines) == 1 and " INFO " in lines[0], lines  # one line, at info
    assert "Traceback" not in log.read_text()
    assert not p.stderr  # the log went to the file, not to stderr


async def test_a_client_that_never_accepts_a_progress_token_does_not_stall_the_scan(
        tmp_path: Path) -> None:
    """An editor may declare work-done progress and answer the server's create request
    late, or never: the scan must not wait for it."""
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ctxls", "serve", stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    p = Peer(proc)
    p.answer_requests = False
    try:
        await p.ask(0, "initialize", {"processId": os.getpid(), "rootUri": root.as_uri(),
                                     "capabilities": {"window": {"workDoneProgress": True}},
                                     "initializationOptions": {"persist": False}})
        p.frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        status = await p.ask(1, "ctx/status", {"wait": True, "timeout": 15})
        assert status["result"]["scanning"] is False and status["result"]["indexed"] > 10
        asked = [m for m in p.inbox if m.get("method") == "window/workDoneProgress/create"]
        assert len(asked) == 1  # it was asked, and left unanswered
        begun = [m for m in p.inbox if m.get("method") == "$/progress"]
        assert not begun  # no progress on a token the client never accepted
    finally:
        proc.kill()
        await proc.wait()
