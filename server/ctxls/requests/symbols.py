"""Editors' symbol lists: ``textDocument/documentSymbol`` and ``workspace/symbol``."""

from __future__ import annotations

import re

from lsprotocol.types import DocumentSymbol, Location, Range, SymbolKind, WorkspaceSymbol

from ctxls.snapshot import Snapshot, View
from ctxls.syntax.outline import Decl, Outline

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
    v = snap.view(snap.locate(uri=uri))
    if v.outline is None:
        return []
    by_name: dict[str, DocumentSymbol] = {}
    kids: dict[str, list[DocumentSymbol]] = {}
    top: list[DocumentSymbol] = []
    for d in v.outline.decls:
        sym = DocumentSymbol(
            name=d.name, kind=_kind(d), detail=_signature(v, d),
            range=Range(v.position(d.span.start_row, d.span.start_col),
                        v.position(d.span.end_row, d.span.end_col)),
            selection_range=Range(v.position(d.name_span.start_row, d.name_span.start_col),
                                  v.position(d.name_span.end_row, d.name_span.end_col)),
            children=kids.setdefault(d.qualname, []),
        )
        parent = d.parents[-1] if d.parents else None
        (kids[parent] if parent in by_name else top).append(sym)
        by_name.setdefault(d.qualname, sym)
    return top


def workspace_symbols(snap: Snapshot, query: str, limit: int = 200) -> list[WorkspaceSymbol]:
    q = query.lower()
    out: list[WorkspaceSymbol] = []
    files: dict[str, Outline | None] = {k: e.outline for k, e in snap.entries()}
    for k, doc in snap.docs.items():
        files[k] = doc.outline
    for key in sorted(files):
        outline = files[key]
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
