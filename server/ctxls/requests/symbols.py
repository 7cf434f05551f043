"""Editors' symbol lists: ``textDocument/documentSymbol`` and ``workspace/symbol``."""

from __future__ import annotations

import re

from lsprotocol.types import DocumentSymbol, Location, Range, SymbolKind, WorkspaceSymbol

from ctxls.snapshot import Snapshot, View
from ctxls.syntax import languages
from ctxls.syntax.outline import Decl, Outline, Span

KIND = {
    "class": SymbolKind.Class, "function": SymbolKind.Function, "method": SymbolKind.Method,
    "interface": SymbolKind.Interface, "enum": SymbolKind.Enum, "struct": SymbolKind.Struct,
    "module": SymbolKind.Module, "namespace": SymbolKind.Namespace, "type": SymbolKind.Class,
    "trait": SymbolKind.Interface, "impl": SymbolKind.Class, "field": SymbolKind.Field,
    "attribute": SymbolKind.Field, "constant": SymbolKind.Constant,
    "variable": SymbolKind.Variable, "object": SymbolKind.Object,
}
UPPER = re.compile(r"^[A-Z][A-Z0-9_]*$")




def document_symbols(snap: Snapshot, uri: str) -> list[DocumentSymbol]:
    """The tree LSP asks for: each declaration once, inside the declaration whose range
    holds it (by position, not by name: a Rust method sits in its ``impl`` block, a
    reopened Ruby module's members in that block). A member declared outside its type (a
    Go method) is listed where it stands, under its type's name (``(*Cache).Get``)."""
    v = snap.view(snap.locate(uri=uri))
    if v.outline is None:
        return []
    top: list[DocumentSymbol] = []
    stack: list[tuple[Decl, DocumentSymbol]] = []
    for d in sorted(v.outline.decls, key=lambda d: (d.span.start_row, d.span.start_col,
                                                     -d.span.end_row, -d.span.end_col)):
        while stack and not _inside(d.span, stack[-1][0].span):
            stack.pop()
        holder = stack[-1] if stack else None
        sym = DocumentSymbol(
            name=_name(v, d, holder[0] if holder else None), kind=_kind(d),
            detail=_signature(v, d),
            range=Range(v.position(d.span.start_row, d.span.start_col),
                        v.position(d.span.end_row, d.span.end_col)),
            selection_range=Range(v.position(d.name_span.start_row, d.name_span.start_col),
                                  v.position(d.name_span.end_row, d.name_span.end_col)),
            children=[])
        (holder[1].children if holder else top).append(sym)  # type: ignore[union-attr]
        stack.append((d, sym))
    return top


def _inside(inner: Span, outer: Span) -> bool:
    return inner != outer and (outer.start_row, outer.start_col) <= (
        inner.start_row, inner.start_col) and (inner.end_row, inner.end_col) <= (
        outer.end_row, outer.end_col)


def _name(v: View, d: Decl, holder: Decl | None) -> str:
    """An ``impl`` block by its header (``impl Display for Cache``); a member outside the
    declaration it belongs to by its owner's name too."""
    if d.kind == "impl":
        return _signature(v, d).rstrip("{ ").strip() or d.name
    if not d.parents or (holder is not None and holder.qualname == d.parents[-1]):
        return d.name
    spec = languages.spec_for(v.loc.path)
    for label in spec.owner_labels if spec is not None else ():
        pattern, _, shown = label.partition(" => ")
        m = re.match(pattern, _signature(v, d))
        if m:  # the language's own spelling of the owner (Go's `(*Cache)`)
            return f"{shown.format(**m.groupdict())}.{d.name}"
    return f"{d.parents[-1]}.{d.name}"


def workspace_symbols(snap: Snapshot, query: str, limit: int = 200) -> list[WorkspaceSymbol]:
    """Declarations whose name holds the query's characters in order, in path order. A
    file is decoded only when a name its payload's head lists matches: decoding every
    file's outline for each query took 6 s on 57,000 files."""
    q = query.lower()
    out: list[WorkspaceSymbol] = []
    entries = dict(snap.entries())
    for key in sorted({*entries, *snap.docs}):
        doc = snap.docs.get(key)
        outline: Outline | None
        if doc is not None:
            outline = doc.outline
        else:
            tables = entries[key].tables
            if tables is None or not any(_fuzzy(q, n.lower())
                                         for n in tables.head_names().declared):
                continue
            outline = tables.outline
        if outline is None:
            continue
        hits = [d for d in outline.decls if _fuzzy(q, d.name.lower())]
        if not hits:
            continue
        try:
            v = snap.view_at(key)
        except Exception:
            continue
        for d in hits:
            out.append(WorkspaceSymbol(
                name=d.name, kind=_kind(d),
                container_name=d.parents[-1] if d.parents else None,
                location=Location(v.loc.uri, Range(
                    v.position(d.name_span.start_row, d.name_span.start_col),
                    v.position(d.name_span.end_row, d.name_span.end_col)))))
            if len(out) >= limit:
                return out
    return out


def _kind(d: Decl) -> SymbolKind:
    if d.kind in ("variable", "attribute") and UPPER.match(d.name):
        return SymbolKind.Constant
    return KIND.get(d.kind, SymbolKind.Variable)


def _signature(v: View, d: Decl) -> str:
    s = d.signature
    rows = [v.index.line(r) for r in range(s.start_row, min(s.end_row, s.start_row + 8) + 1)]
    if len(rows) == 1:
        rows[0] = rows[0][s.start_col : s.end_col]
    else:
        rows[0], rows[-1] = rows[0][s.start_col :], rows[-1][: s.end_col]
    return " ".join(b" ".join(rows).decode("utf-8", errors="replace").split())[:200]


def _fuzzy(query: str, name: str) -> bool:
    """Every query character in order (what editors' symbol pickers do)."""
    it = iter(name)
    return all(ch in it for ch in query)
