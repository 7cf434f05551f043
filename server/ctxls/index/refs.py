"""What a file refers to: its imports, its calls, and the names whose type is known.

Extracted by ``grammars/<lang>/references.scm`` into plain tables (no tree is kept), during
the scan and after each edit. Resolving them to declarations is ``index/resolve.py``'s job.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

import tree_sitter as ts

from ctxls.index import modules
from ctxls.syntax.languages import Language, Matches

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


EMPTY = Refs((), (), (), (), (), ())
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
    imports: list[Import] = []
    calls: list[Call] = []
    bindings: list[Binding] = []
    bases: dict[int, list[str]] = {}
    returns: list[tuple[int, str]] = []
    internal: list[str] = []
    system = modules.named(lang.module_system)
    for _, caps in found:
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
        elif "class.name" in caps:
            bases.setdefault(caps["class.name"][0].start_point.row, []).extend(
                _path(_text(n)) for n in caps.get("class.base", []))
    bindings.sort()
    # A pattern that cannot see what precedes a name (a call in a Rust macro's tokens) also
    # matches `x.f(`: the capture with its object is the call.
    placed = {(c.row, c.col) for c in calls if c.obj is not None}
    calls = [c for c in calls if c.obj is not None or (c.row, c.col) not in placed]
    return Refs(tuple(imports), tuple(calls), tuple(bindings),
                tuple((k, tuple(v)) for k, v in bases.items()), tuple(returns), tuple(internal))
