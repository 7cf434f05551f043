"""Reading LSP frames from a byte stream, without trusting the peer.

A frame is header lines (``Name: value``, names case-insensitive, ``\\r\\n`` or bare
``\\n`` line ends), a blank line, then ``Content-Length`` bytes of JSON. What a peer can get
wrong is answered, not fatal: a missing, negative or non-numeric length, or a frame over
``max_bytes`` (refused before anything is allocated for it), is a parse error, and the
reader resynchronises on the next ``Content-Length`` header it finds; a body that is not
JSON is a parse error, and a header found inside it is read as the next frame (the length
was too short, or too long and swallowed the next frame's header); a body that stops
short of its length is taken as it is once the peer falls silent, if it parses.

The parser is a pure state machine over bytes (``Framer.feed``); ``read_frames`` drives it
from any source of byte chunks.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import attrs

MAX_BYTES = 64 << 20  # a frame larger than this is refused
HEADER = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
LINE_HEADER = re.compile(rb"(?:^|\n)(content-length[ \t]*:)", re.IGNORECASE)
BLANK = re.compile(rb"\r?\n\r?\n")
OTHER_HEADERS = re.compile(rb"^(?:[A-Za-z][\w-]*[ \t]*:[^\n]*\n)+\r?\n")
SILENCE = 0.5  # seconds without bytes after which a short body is taken as it is


@attrs.frozen
class Message:
    """A parsed JSON value, one per frame."""

    value: Any


@attrs.frozen
class Garbled:
    """A frame that could not be read, and why (answered with -32700)."""

    reason: str


Frame = Message | Garbled


class Framer:
    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self.buf = bytearray()
        self.length: int | None = None  # the body length being waited for
        self.skipping = False  # in a refused frame: discard up to the next header line

    def feed(self, data: bytes) -> list[Frame]:
        """Frames completed by ``data`` (empty at the end of a frame's headers)."""
        self.buf += data
        out: list[Frame] = []
        while True:
            if self.skipping:  # JSON never holds a raw newline followed by a header
                found = LINE_HEADER.search(self.buf)
                if found is None:
                    del self.buf[: max(0, len(self.buf) - 64)]
                    return out
                del self.buf[: found.start(1)]
                self.skipping = False
            if self.length is None:
                got = self._headers()
                if got is None:
                    return out
                if isinstance(got, Garbled):
                    out.append(got)
                    continue
                self.length = got
            if len(self.buf) < self.length:
                return out
            body = bytes(self.buf[: self.length])
            del self.buf[: self.length]
            self.length = None
            out.append(self._parse(body))

    def flush(self) -> list[Frame]:
        """The peer has gone quiet mid-body: a body that parses as it is, is taken."""
        if self.length is None or not self.buf:
            return []
        try:
            value = json.loads(self.buf)
        except ValueError:
            return []
        self.buf.clear()
        self.length = None
        return [Message(value)]

    def _headers(self) -> int | Garbled | None:
        """The next frame's body length, consuming its headers; None: not all here yet."""
        block = OTHER_HEADERS.match(self.buf)
        if block is not None and not HEADER.search(self.buf, 0, block.end()):
            del self.buf[: block.end()]  # a header block that names no length
            return Garbled("the frame has no Content-Length header")
        found = HEADER.search(self.buf)
        if found is None:
            # keep a tail that may be the start of a header split across chunks
            del self.buf[: max(0, len(self.buf) - 64)]
            return None
        start = self.buf.rfind(b"\n", 0, found.start()) + 1
        if start:  # bytes before the header's line: the rest of a garbled frame
            del self.buf[:start]
            found = HEADER.search(self.buf)
            assert found is not None
        end = BLANK.search(self.buf, found.end())
        if end is None:
            if len(self.buf) > 8192:  # no blank line after 8 KiB of "headers"
                del self.buf[: found.end()]
                return Garbled("the header block does not end with a blank line")
            return None
        headers = bytes(self.buf[: end.start()])
        del self.buf[: end.end()]
        value = HEADER.split(headers, maxsplit=1)[1].split(b"\n", 1)[0].strip()
        if not value.isdigit():
            return Garbled(f"Content-Length is not a length: {value[:40]!r}")
        length = int(value)
        if length > self.max_bytes:
            self.skipping = True
            return Garbled(f"a frame of {length:,} bytes is over the limit of "
                           f"{self.max_bytes:,}; refused")
        return length

    def _parse(self, body: bytes) -> Frame:
        try:
            return Message(json.loads(body))
        except (ValueError, RecursionError):
            pass
        try:  # a length too long: one JSON value, then the start of the next frame
            text = body.decode("utf-8")
            value, end = json.JSONDecoder().raw_decode(text, len(text) - len(text.lstrip()))
            self.buf[:0] = text[end:].encode("utf-8")
            return Message(value)
        except (ValueError, RecursionError):
            pass
        inner = HEADER.search(body)
        if inner is not None:  # the length swallowed the next frame: read it from its header
            self.buf[:0] = body[body.rfind(b"\n", 0, inner.start()) + 1 :]
        return Garbled("the body is not JSON (or its Content-Length is wrong)")


async def read_frames(read: Callable[[], Awaitable[bytes]],
                      max_bytes: int = MAX_BYTES) -> AsyncIterator[Frame]:
    """Frames from ``read`` (the next chunk of bytes, empty at the end of the stream)."""
    framer = Framer(max_bytes)
    pending: asyncio.Future[bytes] | None = None
    while True:
        if pending is None:
            pending = asyncio.ensure_future(read())
        waiting_body = framer.length is not None and bool(framer.buf)
        done, _ = await asyncio.wait({pending}, timeout=SILENCE if waiting_body else None)
        if not done:  # silence in the middle of a body
            for frame in framer.flush():
                yield frame
            continue
        data = pending.result()
        pending = None
        if not data:
            return
        for frame in framer.feed(data):
            yield frame
