"""Tables derived from one file's outline and references, kept while its tables stay
decoded (``Tables.derived``): what a search asks of a file again and again, row by row."""

from __future__ import annotations

from ctxls.index.refs import Binding, Call, Import, Refs
from ctxls.syntax.outline import Decl, Outline

# Kinds of a name that make it a type of its own: a receiver spelled so is not another
# type's instance (a type alias or a trait of that name may stand for the class).
CONCRETE = frozenset({"struct", "enum", "class", "object", "impl"})


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


def by_row(outline: Outline, refs: Refs | None
           ) -> tuple[dict[int, list[Decl]], dict[int, list[Call]]]:
    """The declarations whose name starts on each row, and the calls on each row, in file
    order: what the name at a position means is asked of every call of a window's body
    (a 3,000-line Kotlin test class: each found by scanning the whole file, 0.5 s)."""
    names: dict[int, list[Decl]] = {}
    for d in outline.decls:
        names.setdefault(d.name_span.start_row, []).append(d)
    calls: dict[int, list[Call]] = {}
    for c in refs.calls if refs is not None else ():
        calls.setdefault(c.row, []).append(c)
    return names, calls


def by_qualname(outline: Outline, refs: Refs | None) -> dict[str, list[Decl]]:
    """Declarations by qualname, in source order (a C++ window judged thousands of calls
    in one file, each searching its declarations for the class around it)."""
    out: dict[str, list[Decl]] = {}
    for d in outline.decls:
        out.setdefault(d.qualname, []).append(d)
    return out


def bindings_by_name(outline: Outline, refs: Refs | None) -> dict[str, list[Binding]]:
    table: dict[str, list[Binding]] = {}
    for b in refs.bindings if refs is not None else ():
        table.setdefault(b.name, []).append(b)
    return table


def imports_by_local(outline: Outline, refs: Refs | None) -> dict[str, list[Import]]:
    """The imports by the name each binds in the file, in file order."""
    table: dict[str, list[Import]] = {}
    for i in refs.imports if refs is not None else ():
        table.setdefault(i.local, []).append(i)
    return table


def kinds_by_name(outline: Outline, refs: Refs | None) -> dict[str, frozenset[str]]:
    """The kinds of the declarations of each name the file declares."""
    table: dict[str, set[str]] = {}
    for d in outline.decls:
        table.setdefault(d.name, set()).add(d.kind)
    return {name: frozenset(kinds) for name, kinds in table.items()}


def type_spelling(obj: str) -> str | None:
    """The type a receiver is spelled as, by its capital (``typed_by_case``): ``Vec3``,
    the last type of a path (``syn::Error``) or of a turbofish (``Query::<T>``); None for
    anything else (a value, a one-letter generic parameter)."""
    name = obj.split("<", 1)[0].rstrip(".")
    if "." in name:
        parts = name.split(".")
        if not all(p.isidentifier() for p in parts):
            return None
        name = parts[-1]
    return name if len(name) > 1 and name.isidentifier() and name[0].isupper() else None


def typed_calls(outline: Outline, refs: Refs | None) -> tuple[str, ...]:
    """``name\tType\t...`` for each name every call of which has a receiver spelled as a
    type the file declares as nothing but a concrete type (or not at all), with those
    types, sorted: which of its calls of a name are another type's, asked without
    decoding the file (bevy's `new`: 2,400 files decoded to find each one's calls all
    `Vec3::new`, `Transform::new`, ...)."""
    if refs is None:
        return ()
    kinds = kinds_by_name(outline, refs)
    spelled: dict[str, set[str]] = {}
    untyped: set[str] = set()
    for call in refs.calls:
        if call.name in untyped:
            continue
        found = type_spelling(call.obj) if call.obj is not None else None
        if found is None or not kinds.get(found, CONCRETE) <= CONCRETE:
            untyped.add(call.name)
            spelled.pop(call.name, None)
        else:
            spelled.setdefault(call.name, set()).add(found)
    return tuple(sorted("\t".join((name, *sorted(types))) for name, types in spelled.items()))
