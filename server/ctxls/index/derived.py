"""Tables derived from one file's outline and references, kept while its tables stay
decoded (``Tables.derived``): what a search asks of a file again and again, row by row."""

from __future__ import annotations

from ctxls.index.refs import Binding, Refs
from ctxls.syntax.outline import Decl, Outline


def scopes(outline: Outline, refs: Refs | None) -> list[str | None]:
    """The innermost function around each row (its qualname), None at module level."""
    rows: list[str | None] = [None] * (outline.line_count + 1)
    functions = sorted((d for d in outline.decls
                        if d.body is not None and d.kind in ("function", "method")),
                       key=lambda d: d.span.start_row)
    for d in functions:  # later starts are nested deeper: they overwrite their parents
        for r in range(d.span.start_row, min(d.span.last_row, len(rows) - 1) + 1):
            rows[r] = d.qualname
    return rows


def rows(outline: Outline, refs: Refs | None) -> list[Decl | None]:
    """The innermost declaration of each row (the later of equal ones)."""
    rows: list[Decl | None] = [None] * (outline.line_count + 1)
    # larger first, so the innermost (and of equal ones the later) is written last
    for d in sorted(outline.decls, key=lambda d: d.span.start_row - d.span.last_row):
        for r in range(d.span.start_row, min(d.span.last_row, len(rows) - 1) + 1):
            rows[r] = d
    return rows


def bindings_by_name(outline: Outline, refs: Refs | None) -> dict[str, list[Binding]]:
    table: dict[str, list[Binding]] = {}
    for b in refs.bindings if refs is not None else ():
        table.setdefault(b.name, []).append(b)
    return table


def kinds_by_name(outline: Outline, refs: Refs | None) -> dict[str, frozenset[str]]:
    """The kinds of the declarations of each name the file declares."""
    table: dict[str, set[str]] = {}
    for d in outline.decls:
        table.setdefault(d.name, set()).add(d.kind)
    return {name: frozenset(kinds) for name, kinds in table.items()}
