"""Finding a declaration by name or by position in an outline."""

from __future__ import annotations

import re

from ctxls.errors import AmbiguousSymbol, UnknownSymbol
from ctxls.syntax.outline import Decl, Outline

SCOPE_KINDS = frozenset({"impl"})  # containers that scope members but define nothing

PROTOTYPE = re.compile(r"\.prototype\.")


def _describe(d: Decl) -> str:
    return f"{d.qualname} ({d.kind}, line {d.span.start_row + 1})"


def spellings(name: str) -> list[str]:
    """A name as the language writes it, then as outlines qualify it: Ruby's
    ``Rack::Auth::Basic#call``, JavaScript's ``View.prototype.resolve``, and a Go or Java
    name led by its package (``pkg.Type.Method``)."""
    dotted = PROTOTYPE.sub(".", name.replace("::", ".").replace("#", "."))
    out = [name, dotted]
    parts = dotted.split(".")
    out += [".".join(parts[i:]) for i in range(1, len(parts) - 1)]  # leading packages dropped
    return list(dict.fromkeys(out))


def resolve(outline: Outline, name: str, path: str, line: int | None = None) -> Decl:
    """The one declaration ``name`` means: a qualified name, or a bare name when unique.

    ``line`` (1-based) picks among declarations that share a name (a property's getter and
    setter, a function defined per platform, a method named like a top-level function).
    """
    name = name.strip()
    exact: list[Decl] = []
    named: list[Decl] = []
    for spelling in spellings(name):
        exact = [d for d in outline.decls if d.qualname == spelling]
        named = [d for d in outline.decls
                 if d.name == spelling or d.qualname.endswith("." + spelling)]
        if exact or named:
            break
    found = exact or named
    if line is not None:  # the line decides among every declaration the name can mean
        around = [d for d in dict.fromkeys(exact + named)
                  if d.span.start_row <= line - 1 <= d.span.last_row]
        starting = [d for d in around if d.span.start_row == line - 1]
        innermost = sorted(around, key=lambda d: d.span.last_row - d.span.start_row)[:1]
        found = starting or innermost or found
    if len(found) > 1:  # a type and its impl block share a name: the name means the type
        types = [d for d in found if d.kind not in SCOPE_KINDS]
        found = types if len(types) == 1 else found
    if len(found) > 1 and len({d.qualname for d in found}) == 1:
        bodies = [d for d in found if d.body is not None]  # overloads and their implementation
        found = bodies if len(bodies) == 1 else found
    if len(found) == 1:
        return found[0]
    if found:
        raise AmbiguousSymbol(
            f"`{name}` is ambiguous in {path}: "
            + "; ".join(_describe(d) for d in found[:10])
            + ". Pass a qualified name, or `line` to pick one.",
            {"candidates": [{"symbol": d.qualname, "kind": d.kind, "line": d.span.start_row + 1}
                            for d in found]},
        )
    pool = sorted({d.qualname for d in outline.decls} | {d.name for d in outline.decls})
    import difflib  # (only for an unknown name's suggestions)

    close = difflib.get_close_matches(name, pool, n=5, cutoff=0.6)
    if not close:
        lowered = name.lower()
        close = [p for p in pool if lowered in p.lower()][:5]
    hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
    raise UnknownSymbol(f"no symbol `{name}` in {path}{hint}", {"suggestions": close})


def at_row(outline: Outline, row: int) -> Decl | None:
    """The innermost declaration whose lines include ``row``."""
    best: Decl | None = None
    for d in outline.decls:
        if d.span.start_row <= row <= d.span.last_row and (
            best is None
            or d.span.last_row - d.span.start_row <= best.span.last_row - best.span.start_row
        ):
            best = d
    return best


def tops(outline: Outline) -> list[Decl]:
    """The declarations at the top of the file's module: those inside nothing but
    namespaces (C#'s ``namespace A { class C }`` declares ``C`` at its top), the namespaces
    themselves included."""
    spaces = {d.qualname for d in outline.decls if d.kind == "namespace"}
    return [d for d in outline.decls if all(p in spaces for p in d.parents)]


def enclosing(outline: Outline, decl: Decl) -> list[Decl]:
    """The declarations around ``decl``, outermost first.

    A parent name can stand for several declarations (a Rust struct and its ``impl``, a Go
    type and the receiver of its methods): all of them, in file order.
    """
    return [d for p in decl.parents for d in outline.decls
            if d.qualname == p and (d.body is not None or d.keep_whole)]


def first_mention(lines: list[str], name: str) -> int | None:
    """The first row that names ``name`` (its last dotted part) as a whole word."""
    word = re.compile(rf"\b{re.escape(name.rsplit('.', 1)[-1])}\b")
    return next((i for i, line in enumerate(lines) if word.search(line)), None)
