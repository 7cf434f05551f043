"""Who uses what: ``ctx/references``, ``ctx/tests``, ``ctx/dependencies``, and the LSP
``textDocument/definition`` and ``textDocument/references``.

Resolution is ``index/resolve.py``'s; this module turns its answers into sites with their
numbered lines. Every answer says whether it is complete: "no callers" and "callers not
known yet" (the scan still running, files unreadable, a language without reference tables,
where only text matches are given) must not look alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from lsprotocol.types import Location, Position, Range

from ctxls import protocol as p
from ctxls.errors import FileMissing, InvalidParams, UnknownSymbol
from ctxls.index.refs import Call
from ctxls.index.related import TestHit, tests_for
from ctxls.index.related import dependencies as find_dependencies
from ctxls.index.resolve import FileInfo, Reference, RefIndex, definition
from ctxls.index.resolve import references as find_calls
from ctxls.requests.uses import uses
from ctxls.snapshot import Snapshot, View
from ctxls.syntax import languages
from ctxls.syntax.outline import Decl
from ctxls.syntax.skeleton import numbered
from ctxls.syntax.symbols import at_row, resolve


def references(snap: Snapshot, params: p.ReferencesParams,
               brief: bool = False, every_use: bool = False) -> p.ReferencesResult:
    """Call sites of a declaration; ``brief`` leaves out their text (LSP wants ranges);
    ``every_use``: every proven use, not only calls (textDocument/references, ``uses``)."""
    find_references = _every_use(snap) if every_use else find_calls
    v = snap.view(snap.located(params))
    if v.outline is None:
        raise UnknownSymbol(f"{v.loc.path} has no outline; nothing to find references of")
    key = str(v.loc.abspath)
    info = snap.info(key)
    if info is None:  # no reference table for this language: say so, match text
        decl = snap.declaration(v, params.name, params.position, params.line)
        resolved: list[Reference] = []
        candidates = mentions(snap, v, decl)
    elif params.name:
        decl = resolve(v.outline, params.name, v.loc.path, params.line)
        resolved, candidates = find_references(snap.refs, key, decl)
    elif params.position is not None:
        row, col = v.index.from_lsp(params.position.line, params.position.character,
                                    snap.encoding)
        found = definition(snap.refs, info, row, col)
        if found is None:
            raise UnknownSymbol(f"nothing at {v.loc.path}:{row + 1}:{col + 1} resolves to "
                                "a declaration")
        info, decl = found
        key = info.key
        resolved, candidates = find_references(snap.refs, key, decl)
    else:
        raise InvalidParams("give `name` or `position`")
    cap = max(1, params.limit)
    headers: dict[str, str] = {}  # a file's import lines, for each of its sites

    def header(rv: View) -> str:
        width = len(str(len(rv.lines)))
        return "".join(numbered(r + 1, width, rv.lines[r]) + "\n"
                       for h in (rv.outline.header if rv.outline else ())
                       if h.kind in ("import", "package")
                       for r in range(h.span.start_row, h.span.last_row + 1))

    def site(ref: Reference) -> p.Site | None:
        try:
            rv = snap.view_at(ref.key)
        except FileMissing:  # deleted since it was indexed: its calls are gone with it
            return None
        c = ref.call
        span = Range(rv.position(c.row, c.col), rv.position(c.row, c.end_col))
        if brief:
            return p.Site(rv.loc.uri, rv.loc.path, span, ref.enclosing, "", "", ref.why)
        width = len(str(len(rv.lines)))
        rows = range(max(0, c.row - 1), min(len(rv.lines), c.row + 2))
        if ref.key not in headers:
            headers[ref.key] = header(rv)
        return p.Site(
            uri=rv.loc.uri, path=rv.loc.path, range=span, enclosing=ref.enclosing,
            text="".join(numbered(r + 1, width, rv.lines[r]) + "\n" for r in rows),
            header=headers[ref.key], evidence=ref.why)

    unindexed = snap.unindexed(v.lang.name if v.lang else None)
    home = snap.view_at(key)
    complete, notes = _completeness(snap, v, info is not None, unindexed, decl.name, candidates)
    return p.ReferencesResult(
        symbol=decl.qualname, kind=decl.kind, uri=home.loc.uri, path=home.loc.path,
        references=[s for r in resolved[:cap] if (s := site(r)) is not None],
        candidates=[s for r in candidates[:cap] if (s := site(r)) is not None]
        if params.include_candidates else [],
        unindexed_files=unindexed, complete=complete,
        truncated=len(resolved) > cap or (params.include_candidates and len(candidates) > cap),
        version=home.version, notes=notes)


def _every_use(snap: Snapshot) -> Callable[[RefIndex, str, Decl],
                                            tuple[list[Reference], list[Reference]]]:
    def find(index: RefIndex, key: str, decl: Decl) -> tuple[list[Reference], list[Reference]]:
        return uses(snap, key, decl), []

    return find


def tests(snap: Snapshot, params: p.SymbolParams) -> p.TestsResult:
    v, info, decl = _symbol(snap, params)
    if info is None:  # no reference table: test files that mention the name
        seen: dict[tuple[str, str | None], TestHit] = {}
        for ref in mentions(snap, v, decl):
            if is_test(ref.path):
                seen.setdefault((ref.key, ref.enclosing), TestHit(
                    ref.key, ref.path, ref.enclosing,
                    f"mentions {decl.name} (line {ref.call.row + 1}); {ref.why}"))
        hits = list(seen.values())
    else:
        hits = tests_for(snap.refs, info.key, decl, is_test)
    unindexed = snap.unindexed(v.lang.name if v.lang else None)
    # a use not resolved may be a caller that tests reach
    unproven = find_calls(snap.refs, info.key, decl)[1] if info is not None else []
    complete, notes = _completeness(snap, v, info is not None, unindexed, decl.name, unproven)
    return p.TestsResult(
        symbol=decl.qualname, path=v.loc.path,
        tests=[p.TestItem(Path(h.key).as_uri(), h.path, h.symbol, h.evidence) for h in hits],
        complete=complete, unindexed_files=unindexed, notes=notes)


def dependencies(snap: Snapshot, params: p.SymbolParams) -> p.DependenciesResult:
    v, info, decl = _symbol(snap, params)
    if info is None:
        raise InvalidParams(f"{v.loc.path}: dependencies need a reference table, and "
                            f"{v.lang.name if v.lang else 'this file'} has none yet")
    items = []
    for dep in find_dependencies(snap.refs, info.key, decl, v.lines):
        dv = v if dep.key == info.key else snap.view_at(dep.key)
        s = dep.decl.name_span
        items.append(p.DependencyItem(
            symbol=dep.decl.qualname, kind=dep.decl.kind, uri=dv.loc.uri, path=dv.loc.path,
            range=Range(dv.position(s.start_row, s.start_col),
                        dv.position(s.end_row, s.end_col)),
            relation=dep.relation, line=dep.row + 1))
    return p.DependenciesResult(symbol=decl.qualname, path=v.loc.path, dependencies=items,
                                complete=snap.indexed, notes=snap.scan_notes())


def definition_at(snap: Snapshot, uri: str, position: Position) -> Location | None:
    v = snap.view(snap.locate(uri=uri))
    info = snap.info(str(v.loc.abspath))
    if info is None:
        return None
    row, col = v.index.from_lsp(position.line, position.character, snap.encoding)
    found = definition(snap.refs, info, row, col)
    if found is None and _in_code(v, row, col):  # a name the tables do not record
        found = definition(snap.refs, info, row, col, v.index.line(row))
    if found is None:
        return None
    target = snap.view_at(found[0].key)
    s = found[1].name_span
    return Location(target.loc.uri, Range(target.position(s.start_row, s.start_col),
                                          target.position(s.end_row, s.end_col)))


def _in_code(v: View, row: int, col: int) -> bool:
    """Whether (row, col) is outside strings and comments: a word there names nothing.
    Grammars call their string nodes ``string``, ``string_content``, ``string_literal``,
    ``string_fragment``...; an interpolation inside one is code again."""
    if v.lang is None or v.outline is None:
        return False
    node = v.lang.parser().parse(v.data).root_node.descendant_for_point_range((row, col),
                                                                              (row, col))
    if node is None or "string" in node.type:
        return False
    while node is not None:
        if node.type in v.lang.comment_nodes:
            return False
        node = node.parent
    return True


def references_at(snap: Snapshot, uri: str, position: Position,
                  include_declaration: bool) -> list[Location]:
    result = references(snap, p.ReferencesParams(
        text_document=None, path=str(snap.locate(uri=uri).abspath), position=position,
        include_candidates=False, limit=10_000), brief=True, every_use=True)
    out = [Location(s.uri, s.range) for s in result.references]
    if include_declaration:
        decl_loc = definition_at(snap, uri, position)
        if decl_loc is not None:
            out.insert(0, decl_loc)
    return out


def mentions(snap: Snapshot, home: View, decl: Decl, limit: int = 1000) -> list[Reference]:
    """Word matches of a declaration's name in the files of its language: the honest
    answer where the language has no reference table yet (all candidates)."""
    lang = home.lang.name if home.lang else None
    word = re.compile(rf"\b{re.escape(decl.name)}\b".encode())
    why = f"text match only: no reference table for {lang} yet"
    out: list[Reference] = []
    for key, entry in sorted(snap.entries()):
        if entry.language != lang or entry.tables is None:
            continue
        try:
            fv = home if key == str(home.loc.abspath) else snap.view_at(key)
        except Exception:
            continue
        if decl.name.encode() not in fv.data:
            continue
        for row in range(fv.index.line_count):
            line = fv.index.line(row)
            for m in word.finditer(line):
                if key == str(home.loc.abspath) and (row, m.start()) == (
                        decl.name_span.start_row, decl.name_span.start_col):
                    continue  # the declaration itself
                around = at_row(fv.outline, row) if fv.outline else None
                out.append(Reference(key, fv.loc.path,
                                     Call(row, m.start(), m.end(), decl.name, None),
                                     around.qualname if around else None, why))
                if len(out) >= limit:
                    return out
    return out


def _completeness(snap: Snapshot, v: View, has_table: bool, unindexed: int, name: str,
                  candidates: list[Reference]) -> tuple[bool, list[str]]:
    """Whether an answer found every use there is, and if not, why not."""
    lang = v.lang.name if v.lang else "this file"
    notes = snap.scan_notes()
    if snap.indexed and unindexed:
        notes.append(f"incomplete: {unindexed} {lang} files could not be indexed")
    if not has_table:
        notes.append(f"incomplete: {lang} has no reference table; these are text matches")
    elif candidates:
        notes.append(unresolved_note(name, candidates))
    return not notes, notes


def unresolved_note(name: str, candidates: list[Reference]) -> str:
    """``incomplete: 3 uses of refresh could not be resolved (receiver of unknown type: 2;
    import not followed: 1)``: a use neither proven this declaration nor another one."""
    counts: dict[str, int] = {}
    for ref in candidates:
        counts[ref.unresolved or "unresolved"] = counts.get(ref.unresolved or "unresolved", 0) + 1
    n = len(candidates)
    return (f"incomplete: {n} {'use' if n == 1 else 'uses'} of {name} could not be resolved ("
            + "; ".join(f"{why}: {k}" for why, k in sorted(counts.items(), key=lambda x: -x[1]))
            + "); see candidates")


@lru_cache(maxsize=1 << 16)
def is_test(path: str) -> bool:
    return languages.is_test_path(path)


def _symbol(snap: Snapshot, params: p.SymbolParams) -> tuple[View, FileInfo | None, Decl]:
    v = snap.view(snap.located(params))
    if v.outline is None:
        raise UnknownSymbol(f"{v.loc.path} has no outline")
    return v, snap.info(str(v.loc.abspath)), resolve(v.outline, params.name, v.loc.path,
                                                     params.line)
