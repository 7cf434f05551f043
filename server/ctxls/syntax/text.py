"""Text as the server sees it: UTF-8 bytes, rows split on ``\\n``, and LSP positions.

Tree-sitter speaks bytes and rows; LSP speaks lines and characters in the negotiated position
encoding (UTF-16 for VS Code, UTF-8 when Neovim 0.11 asks for it). Everything converts here,
from the document's own bytes, never from a hard-coded encoding.
"""

from __future__ import annotations

import bisect
import codecs
import operator
from array import array
from itertools import accumulate, repeat
from typing import Literal

Encoding = Literal["utf-8", "utf-16", "utf-32"]

codecs.lookup("utf-16-le")  # (its module is imported at first use: inside a first request)


def decode(data: bytes) -> tuple[bytes, bool]:
    """UTF-8 bytes safe to parse, and whether the original was not valid UTF-8.

    Invalid bytes become U+FFFD so that every later offset refers to the same text.
    """
    try:
        data.decode("utf-8")
        return data, False
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace").encode("utf-8"), True


class LineIndex:
    """Row starts of a byte string; rows are split on ``\\n`` as tree-sitter counts them."""

    __slots__ = ("data", "starts")

    def __init__(self, data: bytes) -> None:
        self.data = data
        # map and accumulate run in C: a file of a million lines is indexed in a blink. An
        # array, not a list: 8 bytes a row rather than 36 (an open document keeps one)
        lengths = map(operator.add, map(len, data.split(b"\n")[:-1]), repeat(1))
        self.starts: array[int] = array("q", [0, *accumulate(lengths)])

    def edited(self, start: int, old_end: int, inserted: bytes, data: bytes) -> LineIndex:
        """The index of ``data``, which is this text with [start, old_end) replaced."""
        srow, erow = self.point(start)[0], self.point(old_end)[0]
        delta = len(inserted) - (old_end - start)
        new = LineIndex.__new__(LineIndex)
        new.data = data
        new.starts = self.starts[: srow + 1]
        new.starts.extend(start + i + 1 for i, ch in enumerate(inserted) if ch == 10)
        new.starts.extend(s + delta for s in self.starts[erow + 1 :])
        return new

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line(self, row: int) -> bytes:
        """The row's bytes without its line break."""
        start = self.starts[row]
        end = self.starts[row + 1] - 1 if row + 1 < len(self.starts) else len(self.data)
        return self.data[start:end].rstrip(b"\r") if end > start else b""

    def offset(self, row: int, col: int) -> int:
        return self.starts[row] + col

    def point(self, offset: int) -> tuple[int, int]:
        """(row, byte column) of a byte offset."""
        row = max(0, bisect.bisect_right(self.starts, offset) - 1)
        return row, offset - self.starts[row]

    def to_lsp(self, row: int, col: int, encoding: Encoding) -> tuple[int, int]:
        """(line, character) in the client's units for a (row, byte column)."""
        if row >= len(self.starts):
            row, col = len(self.starts) - 1, len(self.line(len(self.starts) - 1))
        if encoding == "utf-8":
            return row, col
        prefix = self.line(row)[:col].decode("utf-8", errors="replace")
        if encoding == "utf-16":
            return row, len(prefix.encode("utf-16-le")) // 2
        return row, len(prefix)

    def from_lsp(self, line: int, character: int, encoding: Encoding) -> tuple[int, int]:
        """(row, byte column) for an LSP position; out-of-range values clamp as LSP says."""
        if line >= len(self.starts):
            last = len(self.starts) - 1
            return last, len(self.line(last))
        raw = self.line(line)
        if encoding == "utf-8":
            return line, min(character, len(raw))
        text = raw.decode("utf-8", errors="replace")
        units = 0
        for i, ch in enumerate(text):
            width = (2 if ord(ch) > 0xFFFF else 1) if encoding == "utf-16" else 1
            if units + width > character:
                return line, len(text[:i].encode("utf-8"))
            units += width
        return line, len(raw)


def normalise_encoding(name: str | None) -> Encoding:
    if name == "utf-8":
        return "utf-8"
    if name == "utf-32":
        return "utf-32"
    return "utf-16"
