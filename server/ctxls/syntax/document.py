"""An open document: its bytes, its parse tree, re-parsed incrementally on every edit.

pygls applies edits to its own copy before our handler runs, so the old byte offsets that
``Tree.edit`` needs come from this mirror: each LSP change is replayed here, in order.
"""

from __future__ import annotations

import tree_sitter as ts

from ctxls.syntax.languages import Language
from ctxls.syntax.outline import Outline, extract
from ctxls.syntax.text import Encoding, LineIndex, decode


def _end_point(start: tuple[int, int], inserted: bytes) -> tuple[int, int]:
    rows = inserted.count(b"\n")
    if rows == 0:
        return start[0], start[1] + len(inserted)
    return start[0] + rows, len(inserted) - inserted.rfind(b"\n") - 1


class Document:
    def __init__(self, lang: Language | None, text: str, version: int | None) -> None:
        self.lang = lang
        self.version = version
        self.data, self.non_utf8 = decode(text.encode("utf-8", errors="surrogatepass"))
        self.lines = LineIndex(self.data)
        self.tree: ts.Tree | None = lang.parser().parse(self.data) if lang else None
        self._stale = False
        self._outline: Outline | None = None

    def replace(self, text: str, version: int | None) -> None:
        """A whole-document change: parse from scratch."""
        self.data, self.non_utf8 = decode(text.encode("utf-8", errors="surrogatepass"))
        self.lines = LineIndex(self.data)
        self.version = version
        self.tree = self.lang.parser().parse(self.data) if self.lang else None
        self._stale = False
        self._outline = None

    def edit(self, start: tuple[int, int], end: tuple[int, int], text: str,
             encoding: Encoding, version: int | None) -> None:
        """One incremental change, positions in the client's units."""
        srow, scol = self.lines.from_lsp(start[0], start[1], encoding)
        erow, ecol = self.lines.from_lsp(end[0], end[1], encoding)
        if (erow, ecol) < (srow, scol):
            srow, scol, erow, ecol = erow, ecol, srow, scol
        sb, eb = self.lines.offset(srow, scol), self.lines.offset(erow, ecol)
        inserted = text.encode("utf-8", errors="surrogatepass")
        self.data = self.data[:sb] + inserted + self.data[eb:]
        self.lines = LineIndex(self.data)
        self.version = version
        self._outline = None
        if self.tree is not None:
            self.tree.edit(
                start_byte=sb, old_end_byte=eb, new_end_byte=sb + len(inserted),
                start_point=(srow, scol), old_end_point=(erow, ecol),
                new_end_point=_end_point((srow, scol), inserted),
            )
            self._stale = True

    def parsed(self) -> ts.Tree | None:
        if self._stale and self.tree is not None and self.lang is not None:
            self.tree = self.lang.parser().parse(self.data, self.tree)
            self._stale = False
        return self.tree

    def outline(self) -> Outline | None:
        """Fresh for the current version; computed at most once per version."""
        if self._outline is None and self.lang is not None:
            tree = self.parsed()
            assert tree is not None
            self._outline = extract(self.lang, tree, self.lines)
        return self._outline
