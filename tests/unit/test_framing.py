"""LSP frames read from bytes a peer may get wrong: every frame is answered or skipped, and
the next good frame is always read."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxls.lsp.framing import Framer, Garbled, Message


def frame(obj: object, header: str = "Content-Length", sep: str = "\r\n",
          length: int | None = None, extra: str = "") -> bytes:
    body = json.dumps(obj).encode()
    n = len(body) if length is None else length
    return f"{extra}{header}: {n}{sep}{sep}".encode() + body


def read(data: bytes, chunk: int = 0, max_bytes: int = 1 << 20) -> list[object]:
    framer = Framer(max_bytes)
    out: list[object] = []
    parts = [data] if not chunk else [data[i : i + chunk] for i in range(0, len(data), chunk)]
    for part in parts:
        out += [f.value if isinstance(f, Message) else f for f in framer.feed(part)]
    out += [f.value for f in framer.flush()]
    return out


A, B = {"id": 1, "method": "a"}, {"id": 2, "method": "b"}


def test_frames_one_after_another_whole_or_byte_by_byte() -> None:
    data = frame(A) + frame(B)
    assert read(data) == [A, B]
    assert read(data, chunk=1) == [A, B]


def test_header_names_are_case_insensitive_and_line_ends_may_be_bare() -> None:
    assert read(frame(A, header="content-length") + frame(B, sep="\n")) == [A, B]
    typed = frame(A, extra="Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n")
    assert read(typed.replace(b"Content-Type", b"content-type")) == [A]


def test_a_bad_length_is_a_parse_error_and_the_next_frame_is_read() -> None:
    for bad in (b"Content-Length: -5\r\n\r\n{}", b"Content-Length: ten\r\n\r\n{}",
                b"Content-Type: x\r\n\r\n{}"):
        got = read(bad + frame(B))
        assert isinstance(got[0], Garbled) and got[1:] == [B]


def test_a_frame_over_the_limit_is_refused_without_being_kept() -> None:
    framer = Framer(max_bytes=100)
    got = framer.feed(b"Content-Length: 100000000000000\r\n\r\n" + b"x" * 5000)
    assert isinstance(got[0], Garbled) and "over the limit" in got[0].reason
    assert len(framer.buf) <= 64  # the body is discarded as it comes
    assert [f.value for f in framer.feed(b"yyy\r\n" + frame(B))
            if isinstance(f, Message)] == [B]


def test_a_length_too_short_costs_that_frame_and_too_long_costs_nothing() -> None:
    short = frame(A, length=5)
    got = read(short + frame(B))
    assert isinstance(got[0], Garbled) and got[-1] == B
    long = frame(A, length=len(json.dumps(A)) + 10)  # swallows the start of B's header
    assert read(long + frame(B) + frame(A)) == [A, B, A]


def test_a_lone_body_shorter_than_its_length_is_taken_when_the_peer_falls_silent() -> None:
    framer = Framer()
    assert framer.feed(frame(A, length=200)) == []  # waiting for 200 bytes
    assert [f.value for f in framer.flush()] == [A]  # the reader calls this after silence
    assert framer.feed(frame(B)) == [Message(B)]


def test_garbage_between_frames_is_skipped() -> None:
    got = read(b"\x00\xffnot a header\r\n" + frame(A) + b"trailing}" + frame(B))
    assert got == [A, B]


def test_deep_nesting_is_a_parse_error_not_a_crash() -> None:
    body = b"[" * 100_000 + b"]" * 100_000
    got = read(b"Content-Length: %d\r\n\r\n" % len(body) + body + frame(B), max_bytes=1 << 21)
    assert isinstance(got[0], Garbled) and got[1:] == [B]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.integers(min_value=1, max_value=64))
def test_after_any_bytes_a_good_frame_on_a_new_line_is_read(junk: bytes, chunk: int) -> None:
    got = read(junk + b"\r\n" + frame(A) + frame(B), chunk=chunk)
    assert got[-2:] == [A, B] or got[-1:] == [B]  # A may be eaten by a junk header
    assert B in got
