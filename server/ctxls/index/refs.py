"""What a file refers to: its imports, its calls, and the names whose type is known.

Extracted by ``grammars/<lang>/references.scm`` into plain tables (no tree is kept), during
the scan and after each edit. Resolving them to declarations is ``index/resolve.py``'s job.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import tree_sitter as ts

from ctxls.index import modules
from ctxls.syntax.languages import Language, Matches
from ctxls.syntax.text import LineIndex

DEFAULT = "default"  # the name a module's default export goes by (ECMAScript)


class Import(NamedTuple):
    local: str  # the name the file uses ("" for a star import)
    module: str  # dotted module path as written, without leading dots
    name: str | None  # imported member (from m import name), None for `import m`
    level: int  # leading dots of a relative import
    row: int


class Call(NamedTuple):
    row: int
    col: int  # byte column of the called name
    end_col: int
    name: str
    obj: str | None  # text of the object for `obj.name(...)`, else None


class Binding(NamedTuple):
    row: int
    name: str  # a local name, or "self.x" for an instance attribute
    type: str  # annotation or callee of the assigned call, as written; "" when unknown


class Refs(NamedTuple):
    imports: tuple[Import, ...]
    calls: tuple[Call, ...]
    bindings: tuple[Binding, ...]
    bases: tuple[tuple[int, tuple[str, ...]], ...]  # (row of the class name, bases)
    returns: tuple[tuple[int, str], ...] = ()  # (row of a function's name, return annotation)
    internal: tuple[str, ...] = ()  # top-level names no other file can call (C's `static`)
    # (row, dotted name) of each namespace statement: the classes after it are that
    # namespace's (PHP's `namespace A\B;`)
    namespaces: tuple[tuple[int, str], ...] = ()


class Rows(NamedTuple):
    """What updating a file's tables after an edit needs beside them: the rows of
    ``internal``'s names (which carry none), and the (first, last) rows of every match whose
    captures lie on more than one row (`class A` above `extends B`), so that an edit on any
    of its rows takes the whole match again."""

    internal: tuple[int, ...]
    spans: tuple[tuple[int, int], ...]


EMPTY = Refs((), (), (), (), (), (), ())
# A NamedTuple's own constructor is a Python function; a cold scan makes a call or a binding
# for most of its query's matches.
_call = functools.partial(tuple.__new__, Call)
_binding = functools.partial(tuple.__new__, Binding)


def _text(node: ts.Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def _path(text: str) -> str:
    """A path as dotted: Rust's and Ruby's ``a::b``, PHP's and C's ``a->b``, PHP's
    namespace ``A\\B``."""
    return text.replace("::", ".").replace("->", ".").replace("\\", ".")


# In a macro's replacement text (opaque to the grammar): a bare name before `(`, with
# strings and comments blanked first so that byte offsets still point into the line.
_MACRO_CALL = re.compile(rb"(?<![\w.>$])([A-Za-z_]\w*)\s*\(")
_MACRO_NOISE = re.compile(rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*',
                          re.S)


def _macro_calls(node: ts.Node) -> list[Call]:
    """Calls a C macro's body makes (``#define LOG(x) log_line(x)``): each is a use of the
    function at the macro's definition, as a language server reports it."""
    text = _MACRO_NOISE.sub(lambda m: re.sub(rb"[^\n]", b" ", m.group()), node.text or b"")
    out = []
    for m in _MACRO_CALL.finditer(text):
        before = text[: m.start(1)]
        line = before.rfind(b"\n")
        row = node.start_point.row + before.count(b"\n")
        col = node.start_point.column + len(before) if line < 0 else len(before) - line - 1
        out.append(Call(row, col, col + m.end(1) - m.start(1), m.group(1).decode(), None))
    return out


def extract(lang: Language, root: ts.Node, found: Matches | None = None) -> Refs:
    """``found``: the references query's matches over the tree, if already run (the scan's
    workers never compile the references query alone)."""
    if found is None:
        if lang.refs_query is None:
            return EMPTY
        found = ts.QueryCursor(lang.refs_query).matches(root)
    return _tables(lang, found, None)[0]


def extract_rows(lang: Language, root: ts.Node) -> tuple[Refs, Rows]:
    """The tables and what ``update`` will need of them (an open document's first extraction)."""
    if lang.refs_query is None:
        return EMPTY, Rows((), ())
    spans: list[tuple[int, int]] = []
    refs, internal_rows = _tables(lang, ts.QueryCursor(lang.refs_query).matches(root), spans)
    return refs, Rows(internal_rows, tuple(spans))


def update(lang: Language, prev: Refs, rows: Rows, root: ts.Node, lines: LineIndex,
           lo: int, hi: int, delta: int) -> tuple[Refs, Rows]:
    """The tables after edits confined to bytes [lo, hi) of the new text, which has ``delta``
    more rows than the old: the rows around the edits (widened until no match reaches out
    of them, in the old tables or the new) are queried again, the others kept and moved.
    A large file's whole query is milliseconds; a few rows of it, a tenth of one."""
    assert lang.refs_query is not None
    first, last = lines.point(lo)[0], lines.point(min(hi, len(lines.data)))[0]
    while True:
        first, last = _widen(rows.spans, first, last, delta)
        cursor = ts.QueryCursor(lang.refs_query)
        cursor.set_byte_range(lines.starts[first], lines.starts[last + 1]
                              if last + 1 < lines.line_count else len(lines.data))
        spans: list[tuple[int, int]] = []
        new, internal_rows = _tables(lang, cursor.matches(root), spans)
        wider = _widen(spans, first, last, 0)
        if wider == (first, last):
            break
        first, last = wider
    old_last = last - delta

    def merge(old: tuple[Any, ...], fresh: tuple[Any, ...], move: Callable[[Any], Any],
              at: int = 0) -> tuple[Any, ...]:
        return (*[x for x in old if x[at] < first],
                *[x for x in fresh if first <= x[at] <= last],
                *[move(x) for x in old if x[at] > old_last])

    def down(x: tuple[Any, ...]) -> tuple[Any, ...]:
        return (x[0] + delta, *x[1:])

    internal = merge(tuple(zip(rows.internal, prev.internal, strict=True)),
                     tuple(zip(internal_rows, new.internal, strict=True)), down)
    return Refs(
        merge(prev.imports, new.imports, lambda i: i._replace(row=i.row + delta), 4),
        merge(prev.calls, new.calls, lambda c: _call(down(c))),
        merge(prev.bindings, new.bindings, lambda b: _binding(down(b))),
        merge(prev.bases, new.bases, down),
        merge(prev.returns, new.returns, down),
        tuple(name for _, name in internal),
        merge(prev.namespaces, new.namespaces, down),
    ), Rows(tuple(row for row, _ in internal),
            (*[x for x in rows.spans if x[1] < first],
             *[x for x in spans if first <= x[0] and x[1] <= last],
             *[(a + delta, b + delta) for a, b in rows.spans if a > old_last]))


def _widen(spans: Sequence[tuple[int, int]], first: int, last: int,
           delta: int) -> tuple[int, int]:
    """Rows [first, last] of the new text (``delta`` more rows than the text ``spans`` were
    taken from) widened to every span that reaches into them."""
    grown = True
    while grown:
        grown = False
        for a, b in spans:
            if b >= first and a <= last - delta and (a < first or b > last - delta):
                first, last, grown = min(first, a), max(last, b + delta), True
    return first, last


def _tables(lang: Language, found: Matches,
            spans: list[tuple[int, int]] | None) -> tuple[Refs, tuple[int, ...]]:
    """The tables of a query's matches, and the rows of ``internal``'s names; with ``spans``,
    the rows of every match over more than one row are added to it."""
    imports: list[Import] = []
    calls: list[Call] = []
    bindings: list[Binding] = []
    bases: dict[int, list[str]] = {}
    returns: list[tuple[int, str]] = []
    namespaces: list[tuple[int, str]] = []
    internal: list[str] = []
    internal_rows: list[int] = []
    system = modules.named(lang.module_system)
    for _, caps in found:
        if spans is not None:
            # (not the captures whose presence alone is read: the class body that makes a
            # binding a member, a predicate's operand; an edit deep in a class body changes
            # no binding at its top, and what changes the tree around one, the re-parse's
            # changed ranges bring into the region)
            read = [n for c, ns in caps.items() if c[0] != "_" and c != "bind.member"
                    for n in ns]
            top = min((n.start_point.row for n in read), default=0)
            bottom = max((n.end_point.row for n in read), default=0)
            if top != bottom:
                spans.append((top, bottom))
        # Calls and bindings first: most matches are one or the other, and no pattern
        # captures either beside another kind's first capture.
        if "call.name" in caps:
            node = caps["call.name"][0]
            obj = caps.get("call.object")
            row, col = node.start_point
            calls.append(_call((row, col, node.end_point.column, _text(node),
                                _path(_text(obj[0])) if obj else None)))
        elif "bind.name" in caps:
            node = caps["bind.name"][0]
            typed = caps.get("bind.type")
            name = _text(node)
            if "bind.self" in caps:
                name = f"{_text(caps['bind.self'][0])}.{name}"
            elif "bind.member" in caps and lang.self_names:
                name = f"{lang.self_names[0]}.{name}"
            bindings.append(_binding((node.start_point.row, name,
                                      _path(_text(typed[0])) if typed else "")))
        elif "import.module" in caps:
            node = caps["import.module"][0]
            dotted = ".".join(_path(_text(n)) for n in (*caps.get("import.prefix", ()), node))
            alias = caps.get("import.alias")
            if alias:
                local = _text(alias[0])
            elif "import.self" in caps:  # Rust `use a::b::{self}` binds b
                local = dotted.rsplit(".", 1)[-1]
            else:
                local = system.plain_local(dotted)
            imports.append(Import(local, dotted, None, 0, node.start_point.row))
        elif "import.path" in caps:  # `import a.b.C [as D]` (Kotlin): module and name at once
            node = caps["import.path"][0]
            module, _, name = _text(node).rpartition(".")
            alias = caps.get("import.alias")
            imports.append(Import(_text(alias[0]) if alias else name, module, name, 0,
                                  node.start_point.row))
        elif "import.default" in caps:  # the module's default export, under a local name
            node = caps["import.default"][0]
            src = _path(_text(caps["import.from"][0]))
            imports.append(Import(_text(node), src, DEFAULT, 0, node.start_point.row))
        elif "export.default" in caps:  # what the module's default export names
            node = caps["export.default"][0]
            bindings.append(Binding(node.start_point.row, DEFAULT, _text(node)))
        elif "import.from" in caps:
            # enclosing lists' paths first (Rust's `use a::{b::{c::D}}`)
            src = ".".join(_path(_text(n)) for n in
                           (*caps.get("import.prefix", ()), caps["import.from"][0]))
            level = system.relative_level(src)
            module = src[level:]
            row = caps["import.from"][0].start_point.row
            if "import.star" in caps:
                imports.append(Import("", module, "*", level, row))
                continue
            name = _text(caps["import.name"][0])
            alias = caps.get("import.alias")
            imports.append(Import(_text(alias[0]) if alias else name, module, name, level, row))
        elif "returns.name" in caps:
            returns.append((caps["returns.name"][0].start_point.row,
                            _text(caps["returns.type"][0])))
        elif "macro.body" in caps:
            calls.extend(_macro_calls(caps["macro.body"][0]))
        elif "internal.name" in caps:
            internal.append(_text(caps["internal.name"][0]))
            internal_rows.append(caps["internal.name"][0].start_point.row)
        elif "class.name" in caps:
            bases.setdefault(caps["class.name"][0].start_point.row, []).extend(
                _path(_text(n)) for n in caps.get("class.base", []))
        elif "namespace.name" in caps:
            node = caps["namespace.name"][0]
            namespaces.append((node.start_point.row, _path(_text(node))))
    bindings.sort()
    # A pattern that cannot see what precedes a name (a call in a Rust macro's tokens) also
    # matches `x.f(`: the capture with its object is the call.
    placed = {(c.row, c.col) for c in calls if c.obj is not None}
    calls = [c for c in calls if c.obj is not None or (c.row, c.col) not in placed]
    return Refs(tuple(imports), tuple(calls), tuple(bindings),
                tuple((k, tuple(v)) for k, v in bases.items()), tuple(returns),
                tuple(internal), tuple(sorted(namespaces))), tuple(internal_rows)
