"""Cutting an item's renderings out of a file: numbered excerpts, signatures, name lines.

Every rendering of a window item is prepared when the item is gathered, as the original
rows it shows and their numbered text, so the later stages only choose among them.
"""

from __future__ import annotations

from ctxls.context.model import Evidence, Text
from ctxls.errors import CtxError
from ctxls.snapshot import Snapshot, View
from ctxls.syntax.outline import Decl
from ctxls.syntax.skeleton import excerpt
from ctxls.syntax.symbols import resolve

GAP = "..."  # a gap inside a window item: its line numbers already say how many lines


class Collected:
    """What gathering found: the pool's candidates and what the pipeline needs beside."""

    def __init__(self) -> None:
        self.items: list[Evidence] = []
        self.exemplars: set[str] = set()  # keys of the one test shown whole for its style
        self.notes: list[str] = []
        self.target = ""
        self.complete = False  # every call site and test of the target could be found
        self.timings: dict[str, float] = {}  # stage -> ms, for the slow request's cause


def cut(snap: Snapshot, v: View, rows: list[tuple[int, int]]) -> Text:
    """The rows, numbered, with a bare gap marker between runs and none at the edges."""
    r = excerpt(v.lines, rows, GAP, snap.options.skeleton(True), edges=False)
    return Text(r.text, r.shown)


def sig_rows(d: Decl) -> list[tuple[int, int]]:
    """A declaration's signature rows and the first row of its docstring; a kept-whole
    declaration or one without a body: its first six rows."""
    rows = [(d.span.start_row, max(d.span.start_row, d.signature.end_row))]
    if d.body is not None and d.body.doc is not None:
        rows.append((d.body.doc[0], d.body.doc[0]))
    if d.keep_whole or d.body is None:
        rows = [(d.span.start_row, min(d.span.last_row, d.span.start_row + 5))]
    return rows


def name_line(v: View, d: Decl, extra: str = "") -> Text:
    return Text(f"{v.loc.path}:{d.span.start_row + 1} {d.kind} {d.qualname}{extra}\n")


def imports_rows(v: View) -> list[tuple[int, int]]:
    return [(h.span.start_row, h.span.last_row) for h in (v.outline.header if v.outline else ())
            if h.kind == "import"]


def symbol_view(snap: Snapshot, name: str, home: View) -> tuple[View, Decl] | None:
    """A symbol named by an obligation or a test list: `path::Qualified.name`, or a bare
    name looked up in the home file, then across the workspace's outlines."""
    path, _, sym = name.rpartition("::")
    if path:
        v = snap.view_at(path)
        return (v, resolve(v.outline, sym, v.loc.path)) if v.outline else None
    if home.outline is not None:
        try:
            return home, resolve(home.outline, name, home.loc.path)
        except CtxError:
            pass
    bare = name.rsplit(".", 1)[-1]
    for key, entry in sorted(snap.entries()):
        if entry.tables is None or entry.language != (home.lang.name if home.lang else None) \
                or bare not in entry.tables.head_names().declared:
            continue  # (its payload's head: a file that does not declare it is not decoded)
        v = snap.view_at(key)
        if v.outline is None:
            continue
        try:
            return v, resolve(v.outline, name, v.loc.path)
        except CtxError:
            continue
    return None
