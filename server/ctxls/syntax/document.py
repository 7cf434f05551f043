"""An open document: its bytes, its parse tree, re-parsed incrementally on every edit, and
its outline and reference tables, each brought up to date from the regions edits changed.

Each LSP change is replayed here, in order (pygls keeps no copy: ``lsp/host.py``), so the
old byte offsets that ``Tree.edit`` needs come from this text.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import tree_sitter as ts

from ctxls.index import refs as refs_mod
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import Edit, Outline, extract, update
from ctxls.syntax.text import Encoding, LineIndex, decode

if TYPE_CHECKING:
    from ctxls.index.tables import Tables


def _end_point(start: tuple[int, int], inserted: bytes) -> tuple[int, int]:
    rows = inserted.count(b"\n")
    if rows == 0:
        return start[0], start[1] + len(inserted)
    return start[0] + rows, len(inserted) - inserted.rfind(b"\n") - 1


def _common_ends(old: bytes, new: bytes) -> tuple[int, int]:
    """Lengths of the longest common head and then tail of two texts (the tail never
    overlapping the head in either), found by halving with slice compares, which run in C."""
    most = min(len(old), len(new))
    lo, hi = 0, most
    while lo < hi:  # the longest head: old[:lo] == new[:lo]
        mid = (lo + hi + 1) // 2
        if old[:mid] == new[:mid]:
            lo = mid
        else:
            hi = mid - 1
    head = lo
    lo, hi = 0, most - head
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[len(old) - mid:] == new[len(new) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return head, lo


class Document:
    def __init__(self, lang: Language | None, text: str, version: int | None) -> None:
        self.lang = lang
        self.version = version
        self.data, self.non_utf8 = decode(text.encode("utf-8", errors="surrogatepass"))
        self.lines = LineIndex(self.data)
        self.tree: ts.Tree | None = None  # (parsed when first read, or before a first edit)
        self._known: Tables | None = None  # the index's tables of this very text (``adopt``)
        self._stale = False
        self._outline: Outline | None = None
        self._last: Outline | None = None  # the latest outline, possibly of an older version
        self._edits: list[Edit] = []  # edits since _last
        self._changed: list[ts.Range] = []
        self._refs: tuple[refs_mod.Refs, refs_mod.Rows] | None = None
        self._refs_rows = 0  # the row count the reference tables were taken at
        # bytes of the current text edited (or re-parsed differently) since they were taken
        self._refs_cover: tuple[int, int] | None = None
        self.touched = time.monotonic()  # when last opened or changed

    def replace(self, text: str, version: int | None) -> None:
        """A whole-document change (a client without incremental sync): applied as the one
        edit between the common head and tail of the old and new text, so the tree is
        re-parsed incrementally and the outline updated as after a typed edit."""
        data, non_utf8 = decode(text.encode("utf-8", errors="surrogatepass"))
        if data == self.data:  # (a new version of the same text: nothing to do again)
            self.version = version
            return
        head, tail = _common_ends(self.data, data)
        self.non_utf8 = non_utf8
        self._splice(head, len(self.data) - tail, data[head:len(data) - tail], version)

    def edit(self, start: tuple[int, int], end: tuple[int, int], text: str,
             encoding: Encoding, version: int | None) -> None:
        """One incremental change, positions in the client's units."""
        srow, scol = self.lines.from_lsp(start[0], start[1], encoding)
        erow, ecol = self.lines.from_lsp(end[0], end[1], encoding)
        if (erow, ecol) < (srow, scol):
            srow, scol, erow, ecol = erow, ecol, srow, scol
        self._splice(self.lines.offset(srow, scol), self.lines.offset(erow, ecol),
                     text.encode("utf-8", errors="surrogatepass"), version)

    def adopt(self, tables: Tables) -> None:
        """The index's tables of this document's very text (a file opened as it is on
        disk): read instead of parsing and extracting, until the first edit."""
        self._known = tables

    def _splice(self, sb: int, eb: int, inserted: bytes, version: int | None) -> None:
        """Bytes [sb, eb) replaced by ``inserted``; the tree told so, parsed when next read."""
        if self.tree is None and self.lang is not None:  # (the text before the edit, so
            self.tree = self.lang.parser().parse(self.data)  # that the edit is one)
            self._stale, self._edits, self._changed = False, [], []
            self._last = self._outline or (self._known.outline if self._known else None)
        self._known = None
        start, old_end = self.lines.point(sb), self.lines.point(eb)
        ne = sb + len(inserted)
        if self._refs_cover is None:
            self._refs_cover = (sb, ne)
        else:  # the bytes edited before, where they are now, and these
            lo, hi = self._refs_cover
            hi = hi if hi <= sb else ne if hi < eb else hi + ne - eb
            self._refs_cover = (min(lo, sb), max(hi, ne))
        self.data = self.data[:sb] + inserted + self.data[eb:]
        self.lines = self.lines.edited(sb, eb, inserted, self.data)
        self.version = version
        self._outline = None
        self.touched = time.monotonic()
        if self.tree is not None:
            edit = Edit(sb, eb, ne, start, old_end, _end_point(start, inserted))
            self.tree.edit(
                start_byte=edit.start_byte, old_end_byte=edit.old_end_byte,
                new_end_byte=edit.new_end_byte, start_point=edit.start,
                old_end_point=edit.old_end, new_end_point=edit.new_end,
            )
            self._edits.append(edit)
            self._stale = True

    def release_tree(self) -> None:
        """Drop the syntax tree of a document nobody edits (the next edit parses the text
        again, a few milliseconds, then takes the edit as one): an editor keeps documents
        open for hours, each tree ten to twenty times its text. The current outline stays."""
        if self.tree is not None and not self._stale:
            self.tree, self._last = None, None
            self._edits, self._changed = [], []

    def parsed(self) -> ts.Tree | None:
        if self.tree is None and self.lang is not None:  # never read, or released
            self.tree, self._stale = self.lang.parser().parse(self.data), False
            self._edits, self._changed, self._last = [], [], self._outline
            if self._refs_cover is not None:  # (what the parse changed is not known)
                self._refs = None
        elif self._stale and self.tree is not None and self.lang is not None:
            new = self.lang.parser().parse(self.data, self.tree)
            changed = self.tree.changed_ranges(new)
            self._changed.extend(changed)
            if changed and self._refs_cover is not None:
                self._refs_cover = (min(self._refs_cover[0], *(r.start_byte for r in changed)),
                                    max(self._refs_cover[1], *(r.end_byte for r in changed)))
            self.tree = new
            self._stale = False
        return self.tree

    def outline(self) -> Outline | None:
        """Fresh for the current version; computed at most once per version."""
        if self._outline is None and self._known is not None:
            self._outline = self._last = self._known.outline
        if self._outline is None and self.lang is not None:
            tree = self.parsed()
            assert tree is not None
            if self._last is not None and len(self._edits) == 1:
                self._outline = update(self.lang, self._last, tree, self.lines,
                                       self._edits[0], self._changed)
            if self._outline is None:
                self._outline = extract(self.lang, tree, self.lines)
            self._last = self._outline
            self._edits, self._changed = [], []
        return self._outline

    def refs(self) -> refs_mod.Refs | None:
        """The reference tables of the current text: the first time extracted whole, after
        edits updated over the rows they touched."""
        if self.lang is None or self.lang.refs_query is None:
            return None
        if self._known is not None:
            return self._known.refs
        tree = self.parsed()
        assert tree is not None
        if self._refs is not None and self._refs_cover is not None:
            self._refs = refs_mod.update(self.lang, *self._refs, tree.root_node, self.lines,
                                         *self._refs_cover,
                                         self.lines.line_count - self._refs_rows)
        elif self._refs is None:
            self._refs = refs_mod.extract_rows(self.lang, tree.root_node)
        self._refs_cover, self._refs_rows = None, self.lines.line_count
        return self._refs[0]
