"""JSON-RPC over the frames a peer sends: every request with an id gets a response.

A frame that cannot be read is answered with -32700 (id null). A message that is not a
JSON-RPC 2.0 request, notification or response (not an object, ``jsonrpc`` not "2.0", an
id that is neither an integer nor a string, a method that is not a string) is answered
with -32600 when it has an id (the id itself when it is a valid one, null otherwise), no
method (it is no notification), or is no object at all.
Params that do not fit the method's type, or hold a lone surrogate (JSON allows
``\ud800``; no path, name or text can be made of it), are answered with -32602. Only then does pygls
dispatch the message. Notifications that are malformed are logged in one line and dropped:
there is nothing to answer them with.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import threading
from typing import Any

from lsprotocol.types import CANCEL_REQUEST
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcMethodNotFound,
    JsonRpcParseError,
)
from pygls.io_ import StdoutWriter
from pygls.protocol import JsonRPCProtocol

from ctxls.lsp.framing import MAX_BYTES, Framer, Garbled, Message, read_frames

log = logging.getLogger("ctxls")
CHUNK = 1 << 16


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def problem(value: Any) -> str | None:
    """What makes a JSON value no JSON-RPC 2.0 message, or None when it is one."""
    if not isinstance(value, dict):
        return "a message is a JSON object (batches are not supported)"
    if value.get("jsonrpc") != "2.0":
        return 'a message needs "jsonrpc": "2.0"'
    if "id" in value and not _valid_id(value["id"]):
        return "an id is an integer or a string"
    if "method" in value and not isinstance(value["method"], str):
        return "a method is a string"
    if "method" not in value and "id" not in value:
        return "a message has a method (a request, a notification) or an id (a response)"
    if value.get("params") is not None and not isinstance(value["params"], dict | list):
        return "params are an object or an array"
    return None


def dispatch(protocol: JsonRPCProtocol, value: Any) -> None:
    """One parsed frame, checked, structured and handed to pygls."""
    wrong = problem(value)
    request_id = value.get("id") if isinstance(value, dict) else None
    is_request = isinstance(value, dict) and "method" in value and "id" in value
    if wrong is not None:
        if not isinstance(value, dict) or "id" in value or "method" not in value:
            _error(protocol, request_id if _valid_id(request_id) else None,
                   JsonRpcInvalidRequest(wrong))
        else:
            log.warning("dropped a malformed message: %s", wrong)
        return
    method = value.get("method")
    known = method is None or method == CANCEL_REQUEST or method in protocol.fm.features \
        or method in protocol.fm.builtin_features
    if not known:
        if is_request:
            _error(protocol, request_id, JsonRpcMethodNotFound(f"no method {method!r}"))
        elif not method.startswith("$/"):  # `$/` notifications may be ignored
            log.info("ignored the notification %s", method)
        return
    # (a document's own text may hold one: it is kept, as the bytes it stands for)
    where = surrogate(value.get("params"), "$", () if is_request else ("text",))
    if where is not None:
        wrong = f"{where} holds a lone surrogate; send valid Unicode"
        if is_request:
            _error(protocol, request_id, JsonRpcInvalidParams(
                f"invalid params for {method}: {wrong}"))
        else:
            log.warning("dropped a malformed %s: %s", method, wrong)
        return
    try:
        message = protocol.structure_message(value)
    except JsonRpcException as exc:
        if is_request:
            _error(protocol, request_id, JsonRpcInvalidParams(
                f"invalid params for {value['method']}: {exc.message}"))
        else:
            log.warning("dropped a malformed %s: %s", value.get("method", "response"),
                        exc.message)
        return
    protocol.handle_message(message)


def surrogate(value: Any, at: str, skip: tuple[str, ...] = ()) -> str | None:
    """Where in a JSON value a string holds a lone surrogate (the values of keys in
    ``skip`` aside), or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return at
    elif isinstance(value, dict):
        for k, v in value.items():
            found = surrogate(k, at) or (None if k in skip else
                                         surrogate(v, f"{at}.{k}", skip))
            if found:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = surrogate(v, f"{at}[{i}]", skip)
            if found:
                return found
    return None


def _error(protocol: JsonRPCProtocol, request_id: Any, exc: JsonRpcException) -> None:
    if request_id is None:  # pygls's converter would drop `"id": null`, which is required
        protocol._send_data({"jsonrpc": "2.0", "id": None,
                             "error": {"code": exc.code, "message": exc.message}})
        return
    protocol._send_response(request_id, error=exc.to_response_error())


async def serve_stdio(protocol: JsonRPCProtocol, max_bytes: int = MAX_BYTES) -> None:
    """Serve stdin/stdout until the stream ends (or ``exit`` ends the process)."""
    protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[bytes] = asyncio.Queue()
    fd = sys.stdin.buffer.fileno()

    def pump() -> None:  # a daemon thread: a read blocked on stdin never holds up exit
        while True:
            try:
                data = os.read(fd, CHUNK)
            except OSError:
                data = b""
            loop.call_soon_threadsafe(chunks.put_nowait, data)
            if not data:
                return

    threading.Thread(target=pump, name="ctxls-stdin", daemon=True).start()
    async for frame in read_frames(chunks.get, max_bytes):
        _handle(protocol, frame)


def _handle(protocol: JsonRPCProtocol, frame: Garbled | Message) -> None:
    if isinstance(frame, Garbled):
        log.warning("unreadable frame: %s", frame.reason)
        _error(protocol, None, JsonRpcParseError(frame.reason))
    else:
        dispatch(protocol, frame.value)


BUSY = -32007  # another client holds the TCP session
HELLO_WAIT = 5.0  # seconds a refused client has to send the request its refusal answers


async def serve_tcp(protocol: JsonRPCProtocol, host: str, port: int,
                    max_bytes: int = MAX_BYTES) -> None:
    """Serve one client over TCP, read with the same framer as stdio. The workspace, the
    open documents and the `initialize` state are one session's, so a second connection
    while one is served is refused, not let re-initialise the first client's server: it
    gets a showMessage saying why, an error for its first request, and is closed. When the
    client disconnects the session is over and the server exits, as on stdio."""
    over = asyncio.Event()
    busy = False

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal busy
        if busy:
            await _refuse(reader, writer)
            return
        busy = True
        protocol.set_writer(writer)
        try:
            async for frame in read_frames(lambda: reader.read(CHUNK), max_bytes):
                _handle(protocol, frame)
        except ConnectionError:
            pass
        finally:
            over.set()

    server = await asyncio.start_server(connection, host, port)
    bound = ", ".join(f"{a[0]}:{a[1]}" for a in (s.getsockname() for s in server.sockets))
    print(f"ctxls: listening on {bound}", file=sys.stderr, flush=True)  # (port 0: which one)
    async with server:
        await over.wait()


async def _refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    why = ("ctxls serves one client at a time on this port, and another is connected; "
           "start another server (`ctxls serve --tcp HOST:PORT`) for this client")
    log.warning("refused a second TCP client: another is connected")

    def send(message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    send({"jsonrpc": "2.0", "method": "window/showMessage",
          "params": {"type": 1, "message": why}})
    framer = Framer(MAX_BYTES)
    try:
        deadline = asyncio.get_running_loop().time() + HELLO_WAIT
        answered = False
        while not answered:
            left = deadline - asyncio.get_running_loop().time()
            data = await asyncio.wait_for(reader.read(CHUNK), max(left, 0.01))
            if not data:
                break
            for frame in framer.feed(data):
                if isinstance(frame, Message) and isinstance(frame.value, dict) \
                        and _valid_id(frame.value.get("id")) and "method" in frame.value:
                    send({"jsonrpc": "2.0", "id": frame.value["id"],
                          "error": {"code": BUSY, "message": why}})
                    answered = True
                    break
        await writer.drain()
    except (TimeoutError, ConnectionError):
        pass
    finally:
        writer.close()
