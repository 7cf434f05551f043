"""Every use of a declaration, for ``textDocument/references``: its calls (the reference
index's), and the uses the tables do not record — annotations, base classes, ``isinstance``
arguments, imports, attribute reads, a function passed as a value.

A use is a whole-word match of the name (or an alias an import gives it) in a file that can
reach the declaration (its own file, the files filed under the name, the files importing
its module or its class), in code rather than a string or comment, that binds no new name
(a parameter, a keyword argument's name, another declaration), in a function that has no
local of that name; it is then judged like a call (``index/resolve.judge``): only proven
uses are returned. A language's ``[uses]`` table (grammars/) says what binds a name; a
language without one gets its calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

import tree_sitter as ts

from ctxls.index.globals import CLASS_KINDS
from ctxls.index.includes import includers
from ctxls.index.reach import aliases, imports_of, may_use
from ctxls.index.refs import DEFAULT, Call, Import
from ctxls.index.resolve import FileInfo, Reference, RefIndex, judge
from ctxls.index.resolve import references as call_sites
from ctxls.index.tables import module_words
from ctxls.requests.overloads import (
    IMPORTED,
    VALUE_KINDS,
    constructor,
    delegations,
    own_uses,
)
from ctxls.snapshot import Snapshot
from ctxls.syntax import languages
from ctxls.syntax.outline import Decl, Outline, Span
from ctxls.syntax.spec import UsesSpec
from ctxls.syntax.text import LineIndex

_ANNOTATION = re.compile(r"[:=]")  # (compiled at import: a first request compiled it)

RECEIVER = re.compile(rb"(\$?[A-Za-z_]\w*(?:\s*\.\s*\$?[A-Za-z_]\w*)*)\s*\.\s*$")


def uses(snap: Snapshot, key: str, decl: Decl) -> list[Reference]:
    """Proven uses of ``decl`` (defined in the file ``key``), calls first."""
    index = snap.refs
    home = index.files.get(key)
    spec = languages.spec_for(home.path) if home is not None else None
    # (a private `name` field: 1,300 files of kafka named it)
    private = spec is not None and spec.uses is not None and bool(spec.uses.private) and \
        bool(decl.parents) and _private(snap, key, decl, spec.uses.private)
    resolved, _ = call_sites(index, key, decl, proven=True, within={key} if private else None)
    if home is None or spec is None or spec.uses is None:
        return resolved
    if spec.uses.overloads and constructor(decl, spec):  # `new Outer.Inner(a)`: the class's
        cls = next((d for d in home.outline.decls if d.qualname == decl.parents[-1]), None)
        if cls is not None:  # uses, the calls among them that it can take
            return own_uses(snap, home, decl, uses(snap, key, cls)
                            + delegations(snap, home, cls, decl, spec), spec)
    if decl.name in spec.constructors and decl.parents:  # `Cls(...)` runs Cls.__init__
        cls = next((d for d in home.outline.decls if d.qualname == decl.parents[-1]), None)
        if cls is not None:
            resolved += [r for r in call_sites(index, key, cls, proven=True)[0]
                         if (r.key, r.call.row) != (key, cls.name_span.start_row)]
    names = aliases(index, home, decl)
    if not names:  # an anonymous default export, imported by no file
        return resolved
    files = set().union(*(index.by_name.get(n, ()) for n in names)) | {key}
    # A Go or Java package's other files (where methods are apart, a member's only where
    # they name its class or it: reading every file of a package cost kafka's p50 25 ms)
    if not (spec.uses.overloads and decl.parents and decl.kind not in CLASS_KINDS):
        files |= {m.key for m in index.package(home)}
    # C: every file a declaration of it is in scope in (through headers, transitively)
    declaring = index.declaring(home, decl.name) if index.global_functions(home) \
        and not decl.parents else [home]
    files |= includers(index, declaring)
    members = index.module_system(home).module_members  # (`module.name` reaches it)
    # in a file importing its module (where modules do not reach members, a class's: a
    # Java file importing its package with `import a.b.*;`)
    for module in index.module_names_of(home) if members or not decl.parents else ():
        if words := module_words(module):
            files |= index.by_name.get(words[-1], set())
    if decl.parents:  # `instance.member` in a file that imports the class
        files |= index.by_name.get(decl.parents[0], set())
    for other in list(files) if not decl.parents and members else ():  # `pkg.name` where
        info = index.files.get(other)  # a package re-exports it (a method no import binds)
        if info is not None and other != key and _imports_it(index, info, key, decl):
            for module in index.module_names_of(info):
                if words := module_words(module):
                    files |= index.by_name.get(words[-1], set())
    if private:  # used in its own file only
        files = {key}
    found = list(resolved)
    seen = {(r.key, r.call.row, r.call.col) for r in found}
    owner = index.owner(home, decl)
    either = b"|".join(re.escape(n.encode()) for n in names)
    # whole names: `$` and `#` (JavaScript's `$el`, `#private`) are name characters too
    word = re.compile(rb"(?<![\w$#])(?:" + either + rb")(?![\w$])")
    # (the rows to read: the name not followed by a name character, a search that skips
    # ahead by the literal; a bare literal matched every `i` inside a word: a C field
    # `i`, 475,000 matches in git's 770 files naming it)
    literal = re.compile(b"(?:" + either + rb")(?![\w$])")
    needles = [n.encode() for n in names]
    if spec.uses.overloads and decl.kind in ("function", "method") and \
            not constructor(decl, spec):
        # Methods apart from fields (Java): a method's every use but its calls (judged
        # above) is a reference, `Type::name`, or a static import's `a.B.name;`: only those
        # are read (kafka's `name`: 1,300 files read, 6,700 matches judged)
        word = re.compile(rb"(?:(?<=::)|(?<=\.)(?=(?:" + either + rb")\s*;))(?:" + either
                          + rb")(?![\w$])")
        literal = re.compile(rb"(?:::|\.)(?:" + either + rb")(?![\w$])")
        needles = [b"::" + n.encode() for n in names] + [b"." + n.encode() + b";"
                                                         for n in names]
    elif spec.uses.overloads and decl.kind in VALUE_KINDS:  # a field's: never `name(`
        word = re.compile(rb"(?<![\w$#])(?:" + either + rb")(?![\w$])(?!\s*\()")
    # (whether a function binds the name itself, per function: a test file's every bare
    # `t` asked it of its function again, 14,000 searches of prometheus's test bodies)
    bound: dict[tuple[str, Span, str], bool] = {}
    judged: dict[tuple[str, Call], tuple[bool, str, str] | None] = {}

    def verdict(info: FileInfo, call: Call, around: Decl | None
                ) -> tuple[bool, str, str] | None:
        """``judge``'s, asked once per match (before a file is parsed, and after)."""
        k = (info.key, call)
        if k not in judged:
            judged[k] = judge(index, info, call, around, home, decl, owner)
        return judged[k]

    for other in sorted(files):
        info = index.files.get(other)
        if info is None or languages.spec_for(info.path) is not spec or not may_use(
                index, info, home, decl, names) or not snap.mentions(other, needles):
            continue
        try:
            v = snap.view_at(other)
        except Exception:  # gone, unreadable, or outside the workspace now: not searched
            continue
        if not any(n in v.data for n in needles):
            continue
        # Other declarations are no uses, but those of the declaration itself are (a
        # property's setter, an overload, `self.x = ...` of a property x); not in C, where
        # a prototype beside its definition is one more declaration, as clangd counts it.
        linked = index.global_functions(info)
        declared = {(d.name_span.start_row, d.name_span.start_col) for d in info.outline.decls
                    if linked or not (other == key and d.qualname == decl.qualname)}
        declared.add((decl.name_span.start_row, decl.name_span.start_col) if other == key
                     else (-1, -1))
        twins = {(d.name_span.start_row, d.name_span.start_col) for d in info.outline.decls
                 if other == key and d.qualname == decl.qualname and d is not decl
                 and d.kind in ("function", "method") and not linked
                 and not spec.uses.overloads}
        # The file's calls of the name were judged above (with their receivers as parsed,
        # which the text of one line cannot always give): a file whose every match is
        # one needs no parse (django's `quote_name`: 200 files, each called, none read).
        called = {(c.row, c.col) for c in info.refs.calls if c.name in names}
        # only the rows that hold the name: one search of the file for the bare text (a
        # pattern that starts with a lookbehind is tried at every byte), not one per line
        pending: list[tuple[int, bytes, re.Match[bytes]]] = []  # matches read in the tree
        for row in sorted({v.index.point(m.start())[0] for m in literal.finditer(v.data)}):
            line = v.index.line(row)
            for m in word.finditer(line):
                col = m.start()
                if (other, row, col) in seen or (row, col) in declared or (row, col) in called:
                    continue
                if other == key and (row, col) in twins:  # a setter, an overload
                    found.append(Reference(other, info.path, Call(row, col, m.end(),
                                                                  decl.name, None),
                                           decl.qualname, "another declaration of it"))
                    seen.add((other, row, col))
                    continue
                pending.append((row, line, m))
        if not pending:
            continue
        # A tree tells only which matches are code that names something: a file none of
        # whose matches the tables could take for a use (judged as a call or a doc
        # comment's type, an import of this declaration, an export list's string) is not
        # parsed (symfony's 403 files that import another `LogicException`, each parsed to
        # learn that its `use` line and its `catch` name that one).
        if not (any(_may_be_use(verdict, info, row, index.at_row(info, row), line, m,
                                spec.uses) for row, line, m in pending)
                or _may_list_it(index, info, key, decl, spec.uses)
                or any(_imports_as(index, info, spelled, key, decl)
                       for spelled in {m.group().decode() for _, _, m in pending})):
            continue
        assert v.lang is not None
        items = _items(v.outline, v.index, [(r, m.start(), m.end()) for r, _, m in pending],
                       _preamble(v.data, spec.uses.items_after)
                       ) if spec.uses.items_alone and v.outline is not None else None
        tree = (ts.Parser(v.lang.ts_language, included_ranges=items) if items is not None
                else v.lang.parser()).parse(v.data)
        for row, line, m in pending:
            col = m.start()
            node = tree.root_node.descendant_for_point_range((row, col), (row, m.end()))
            if node is not None and _exported(node, spec.uses, m.group().decode()):
                if not decl.parents and (other == key or _imports_it(index, info, key,
                                                                     decl)):
                    found.append(Reference(other, info.path, Call(
                        row, col, m.end(), m.group().decode(), None), None,
                        "listed in the module's exports"))
                    seen.add((other, row, col))
                continue
            # `from m import name [as x]`, `import { name } from "m"`
            statement = _within(node, spec.uses.imports) if node is not None else None
            if statement is not None:
                first, last = statement.start_point.row, statement.end_point.row
                spelled = m.group().decode()
                imp = next((i for i in info.refs.imports if first <= i.row <= last
                            and _spells(i, spelled)), None)
                if imp is not None and _binds(index, info, imp, key, decl):
                    found.append(Reference(other, info.path, Call(
                        row, _start(node, spec.uses, col), m.end(), m.group().decode(),
                        None), None, IMPORTED))
                continue
            comments = v.lang.comment_nodes if v.lang else ()
            if node is not None and node.type in comments and spec.uses.doc_types:
                # `@throws UnableToWrite`, `@return iterable<Entry>`: a type named in a
                # doc comment is a use where the language's tools read them
                if _doc_type(line, col, spec.uses.doc_types):
                    call = Call(row, col, m.end(), m.group().decode(), None)
                    around = index.at_row(info, row)
                    said = verdict(info, call, around)
                    if said is not None and said[0]:
                        found.append(Reference(other, info.path, call, around.qualname
                                               if around else None, "a doc comment's type"))
                        seen.add((other, row, col))
                continue
            if node is None or not _a_use(node, spec.uses, frozenset(comments)):
                continue
            if decl.kind == "method" and node.parent is not None and \
                    node.parent.type in spec.uses.property_reads:
                continue  # a property of the same name
            obj = _receiver(line[:col], spec.uses.member_operators)
            around = index.at_row(info, row)
            name = m.group().decode()
            if obj is None and around is not None and row > around.signature.end_row:
                scope = (other, around.span, name)
                if scope not in bound:
                    bound[scope] = _local(v.lines, around, name, spec.uses)
                if bound[scope]:
                    continue  # (a signature's annotations name the enclosing scope's)
            call = Call(row, col, m.end(), name, obj)
            said = verdict(info, call, around)
            if said is not None and said[0]:
                found.append(Reference(other, info.path, call._replace(
                    col=_start(node, spec.uses, col)), around.qualname if around else None,
                    said[1]))
                seen.add((other, row, col))
    return own_uses(snap, home, decl, found, spec) if spec.uses.overloads else found


def _private(snap: Snapshot, key: str, decl: Decl, pattern: str) -> bool:
    """Whether a member's head (what precedes its name from its signature's start, after
    its doc comment: modifiers, annotations, its type) says it is used in its own file
    only (``private``)."""
    try:
        v = snap.view_at(key)
    except Exception:  # gone since: as if not
        return False
    head = v.data[v.index.offset(decl.signature.start_row, decl.signature.start_col):
                  v.index.offset(decl.name_span.start_row, decl.name_span.start_col)]
    return _pattern(pattern).search(head) is not None


def _preamble(data: bytes, pattern: str) -> int | None:
    """How many bytes of the file are read before its items: 0 with no ``items_after``
    pattern, the end of its first match, None when it does not match."""
    if not pattern:
        return 0
    m = _pattern(pattern).search(data)
    return m.end() if m else None


def _items(outline: Outline, index: LineIndex, at: list[tuple[int, int, int]],
           preamble: int | None = 0) -> list[ts.Range] | None:
    """The top-level items (declarations, header statements such as imports) that hold the
    names at ``at`` ((row, column, end column)), each with its line break, as the ranges a
    parser reads alone, after the file's first ``preamble`` bytes; None when a name lies
    outside every item, or in one that does not start a line (an import under `if
    TYPE_CHECKING:`), or the preamble is None: the whole file is parsed then. A test module
    of 9,000 lines that imports the name and calls it parses its import."""
    if preamble is None:
        return None
    spans = sorted({*(d.span for d in outline.decls if not d.parents),
                    *(h.span for h in outline.header)})
    chosen: set[Span] = set()
    for row, col, end in at:
        item = next((s for s in spans if (s.start_row, s.start_col) <= (row, col)
                     and (row, end) <= (s.end_row, s.end_col)), None)
        if item is None or item.start_col != 0:
            return None
        chosen.add(item)
    ranges: list[ts.Range] = []
    last = (-1, -1)
    if preamble:
        last = index.point(preamble)
        ranges.append(ts.Range((0, 0), last, 0, preamble))
    for s in sorted(chosen, key=lambda s: (s.start_row, s.start_col, -s.end_row, -s.end_col)):
        if (s.end_row, s.end_col) <= last:
            continue  # (inside the previous one)
        if (s.start_row, s.start_col) < last:
            return None  # items that overlap: not read alone
        # to the start of the next line: items read one after another stay apart
        stop = (s.end_row + 1, 0) if s.end_col and s.end_row + 1 < index.line_count \
            else (s.end_row, s.end_col)
        ranges.append(ts.Range((s.start_row, 0), stop, index.offset(s.start_row, 0),
                               index.offset(*stop)))
        last = stop
    return ranges


@lru_cache(maxsize=64)
def _pattern(pattern: str) -> re.Pattern[bytes]:
    return re.compile(pattern.encode())


def _doc_type(line: bytes, col: int, pattern: str) -> bool:
    """Whether the name at ``col`` lies in a type a doc comment's tag names (group 1)."""
    return any(m.start(1) <= col < m.end(1) for m in _pattern(pattern).finditer(line))


def _start(node: ts.Node | None, spec: UsesSpec, col: int) -> int:
    """Where a use begins: a qualified name's first segment when its last one is the name
    (PHP's `League\\Flysystem\\Config`, as intelephense places it)."""
    if node is None or node.parent is None or node.parent.type not in spec.qualified_names:
        return col
    parent = node.parent
    return int(parent.start_point.column) if parent.start_point.row == node.start_point.row \
        else col


def _a_use(node: ts.Node, spec: UsesSpec, comments: frozenset[str]) -> bool:
    """An identifier in code that names something rather than binding a new name."""
    if "string" in node.type or node.type in comments or node.child_count:
        return False
    parent = node.parent
    if parent is not None and (parent.type in spec.binding_parents or any(
            parent.child_by_field_name(f.rpartition(".")[2]) == node
            for f in spec.binding_fields
            if "." not in f or f.partition(".")[0] == parent.type)):
        return False
    while parent is not None:
        if parent.type in spec.string_code:  # f"{name}", `${name}`: code again
            return True
        if parent.type in comments or "string" in parent.type:
            return False
        parent = parent.parent
    return True


def _exported(node: ts.Node, spec: UsesSpec, name: str) -> bool:
    """A string that is exactly ``name`` in a list assigned to an export list
    (``__all__ = ["name", ...]``)."""
    if not spec.export_lists or "string" not in node.type:
        return False
    string = node if node.type == "string" else node.parent
    if string is None or string.text is None or string.text.decode().strip("'\"") != name:
        return False
    parent = string.parent
    while parent is not None:  # the assignment (or `+=`) whose left side is the list's name
        left = parent.child_by_field_name("left")
        if left is not None and not left.start_byte <= string.start_byte < left.end_byte:
            return left.text is not None and left.text.decode() in spec.export_lists
        parent = parent.parent
    return False


def _may_be_use(verdict: Callable[[FileInfo, Call, Decl | None], tuple[bool, str, str] | None],
                info: FileInfo, row: int, around: Decl | None, line: bytes,
                m: re.Match[bytes], spec: UsesSpec) -> bool:
    """Whether the match at ``row`` (in ``around``) is a use if the tree says it is code
    that names something: judged with its receiver (a name in code), or with none (a doc
    comment's type, where a language reads them)."""
    name = m.group().decode()
    receiver = _receiver(line[:m.start()], spec.member_operators)
    for obj in {receiver, None} if spec.doc_types else (receiver,):
        said = verdict(info, Call(row, m.start(), m.end(), name, obj), around)
        if said is not None and said[0]:
            return True
    return False


def _may_list_it(index: RefIndex, info: FileInfo, key: str, decl: Decl, spec: UsesSpec
                 ) -> bool:
    """Whether an export list's string in the file may name the declaration."""
    return bool(spec.export_lists) and not decl.parents and (
        info.key == key or _imports_it(index, info, key, decl))


def _spells(imp: Import, spelled: str) -> bool:
    return imp.name == spelled or (imp.name == DEFAULT and imp.local == spelled)


def _binds(index: RefIndex, info: FileInfo, imp: Import, key: str, decl: Decl) -> bool:
    """Whether the import binds the declaration ``decl`` of the file ``key``."""
    got = index.imported(info, imp)
    return got is not None and (got[0].key, got[1].qualname) == (key, decl.qualname)


def _imports_as(index: RefIndex, info: FileInfo, spelled: str, key: str, decl: Decl) -> bool:
    """Whether an import of the file spelled so binds the declaration."""
    return any(_spells(i, spelled) and _binds(index, info, i, key, decl)
               for i in info.refs.imports)


def _imports_it(index: RefIndex, info: FileInfo, key: str, decl: Decl) -> bool:
    """Whether the file binds the declaration by a ``from m import name`` (a package
    ``__init__`` re-exporting it)."""
    return any(i.name == decl.name and _binds(index, info, i, key, decl)
               for i in imports_of(index, info))


def _within(node: ts.Node, types: tuple[str, ...]) -> ts.Node | None:
    """The nearest ancestor of one of ``types``."""
    parent = node.parent
    while parent is not None:
        if parent.type in types:
            return parent
        parent = parent.parent
    return None


def _receiver(before: bytes, operators: tuple[str, ...] = (".",)) -> str | None:
    """``a.b`` for ``a.b.name``; ``?`` when what precedes the dot is no plain path
    (``f().name``): judged as a receiver of unknown type; None: a bare name. Other member
    operators (PHP's ``$this->name``, ``Cls::name``) are read as dots, as the tables do."""
    for op in operators:
        if op != ".":
            before = before.replace(op.encode(), b".")
    if not before.rstrip().endswith(b"."):
        return None
    m = RECEIVER.search(before)
    return re.sub(r"\s+", "", m[1].decode()) if m else "?"


def _parameters(text: str) -> set[str]:
    """The names of a parameter list (``a, b: T = x, *args) -> R``): at depth 0 of the
    brackets, before each ``:`` or ``=`` (annotations and defaults name other things)."""
    names: set[str] = set()
    depth, start = 0, 0
    for i, ch in enumerate(text + ","):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:  # the list's own closing bracket
                names.add(_ANNOTATION.split(text[start:i])[0].strip(" *\t"))
                return names - {""}
        elif ch == "," and depth == 0:
            names.add(_ANNOTATION.split(text[start:i])[0].strip(" *\t"))
            start = i + 1
    return names - {""}


def _local(lines: list[str], around: Decl | None, name: str, spec: UsesSpec) -> bool:
    """Whether the innermost function around the use binds ``name`` itself: a parameter
    (in its signature) or a local (``local_binding``)."""
    if around is None or around.kind not in ("function", "method") or not spec.local_binding:
        return False
    sig = " ".join(lines[around.signature.start_row : around.signature.end_row + 1])
    params = sig.partition("(")[2]
    if name in _parameters(params):
        return True
    pattern = spec.local_binding.replace("NAME", re.escape(name))
    # (a parameter whose type comes first binds as a local's declaration does: `String s)`)
    body = "\n".join([params, *lines[around.signature.end_row + 1 : around.span.last_row + 1]])
    return re.search(pattern, body, re.M) is not None
