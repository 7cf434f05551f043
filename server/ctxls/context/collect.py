"""Gathering the evidence pool for one decision from the index (the impure half of §3.1).

Every candidate comes with the renderings later stages may choose among, built here from
the index and the files: the target as a skeleton (or its excerpt, or its signature), the
definitions it uses as signatures, the modules they live in as interface views, its call
sites as the caller's signature plus the call span, the tests that exercise it as a name
and an expectation (or the body), the wider impact as one digest line, and the live state
and the agent's retrieved hits as they came. Everything is numbered with original lines.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import TYPE_CHECKING

import attrs
import pathspec

from ctxls import protocol as p
from ctxls.context.model import Evidence, Text
from ctxls.errors import CtxError, InvalidParams, UnknownSymbol
from ctxls.index.chunks import generated
from ctxls.index.resolve import (
    Dependency,
    FileInfo,
    Reference,
    dependencies,
    references,
    tests_for,
)
from ctxls.policy import POLICY_PATH, Rule, patches_folder
from ctxls.syntax import languages
from ctxls.syntax.outline import Decl
from ctxls.syntax.skeleton import excerpt, render, window
from ctxls.syntax.symbols import at_row, enclosing, resolve

if TYPE_CHECKING:
    from ctxls.engine import Engine, View

INTENTS = ("edit", "rename", "state", "review")
LIVE_KINDS = {"patch": "patch", "error": "live", "traceback": "live", "test_output": "live",
              "tool_output": "live"}
MAX_CALLERS = 24  # call sites carried as items; the digest counts all of them
MAX_TESTS = 24
MAX_TEST_ITEMS = 8  # tests shown by name (the digest counts the rest)
MAX_CANDIDATES = 40
MAX_BASES = 4  # project base classes shown with a method's window
MAX_MODULES = 12  # imported project modules shown as interfaces
MAX_INTERFACE_LINES = 12  # definition lines per module interface
MAX_CLASS_MEMBERS = 8  # public members shown per class the target uses from another file
# Where a generated file's source may be: schemas whose stem is the generated file's own.
SOURCE_GLOBS = ("**/*.proto", "**/*.thrift", "**/*.graphql", "**/*.avsc")
SEARCH_HITS = 8  # chunks ctx/search contributes when the request gives a `query`
SECOND_HOP = 8  # callers whose own callers the digest counts (each is a references query)


class Collected:
    def __init__(self) -> None:
        self.items: list[Evidence] = []
        self.exemplars: set[str] = set()
        self.notes: list[str] = []
        self.target = ""
        self.views: dict[str, View] = {}


GAP = "..."  # a gap inside a window item: its line numbers already say how many lines


def _text(engine: Engine, v: View, rows: list[tuple[int, int]]) -> Text:
    r = excerpt(v.lines, rows, GAP, engine.options.skeleton(True), edges=False)
    return Text(r.text, r.shown)


def _sig_rows(d: Decl) -> list[tuple[int, int]]:
    rows = [(d.span.start_row, max(d.span.start_row, d.signature.end_row))]
    if d.body is not None and d.body.doc is not None:
        rows.append((d.body.doc[0], d.body.doc[0]))
    if d.keep_whole or d.body is None:
        rows = [(d.span.start_row, min(d.span.last_row, d.span.start_row + 5))]
    return rows


def _name_line(v: View, d: Decl, extra: str = "") -> Text:
    return Text(f"{v.loc.path}:{d.span.start_row + 1} {d.kind} {d.qualname}{extra}\n")


def _expectation(v: View, d: Decl) -> str:
    if d.doc:
        first = d.doc.strip().strip("\"'").strip().split("\n", 1)[0].strip()
        if first:
            return first[:160]
    assertion = v.lang.assertion if v.lang else None
    for r in range(d.signature.end_row + 1, d.span.last_row + 1):
        line = v.lines[r].strip()
        if assertion is not None and assertion.search(line):
            return line[:160]
    return "no assertion found in its body"


def _params(v: View, d: Decl) -> int:
    """How many parameters a test takes (its fixtures): the richest shows the most style."""
    sig = " ".join(v.lines[d.span.start_row : d.signature.end_row + 1])
    inner = sig[sig.find("(") + 1 : sig.rfind(")")] if "(" in sig else ""
    return len([a for a in inner.split(",") if a.strip() and a.strip() not in ("self", "t")])


def _symbol_view(engine: Engine, name: str, home: View) -> tuple[View, Decl] | None:
    """A symbol named by an obligation or a test list: `path::Qualified.name`, or a bare
    name looked up in the home file, then across the workspace's outlines."""
    path, _, sym = name.rpartition("::")
    if path:
        v = engine.view(engine.locate(path=path))
        return (v, resolve(v.outline, sym, v.loc.path)) if v.outline else None
    if home.outline is not None:
        try:
            return home, resolve(home.outline, name, home.loc.path)
        except CtxError:
            pass
    bare = name.rsplit(".", 1)[-1]
    for key, entry in sorted(engine.entries.items()):
        if entry.tables is None or entry.language != (home.lang.name if home.lang else None):
            continue
        outline = entry.outline
        if outline is None or not any(d.name == bare for d in outline.decls):
            continue
        v = engine.view(engine.locate(path=key))
        if v.outline is None:
            continue
        try:
            return v, resolve(v.outline, name, v.loc.path)
        except CtxError:
            continue
    return None


def collect(engine: Engine, params: p.ConstructParams) -> Collected:
    if params.intent not in INTENTS:
        raise InvalidParams(f"`intent` must be one of {', '.join(INTENTS)}, not "
                            f"`{params.intent}`")
    if params.ceiling is not None and params.ceiling < 256:
        raise InvalidParams("`ceiling` must be at least 256 tokens")
    uri = params.text_document.uri if params.text_document else None
    if not uri and not params.path:
        raise InvalidParams("name the target's file: `path` or `textDocument.uri`")
    loc = engine.locate(path=params.path, uri=uri)
    v = engine.view(loc)
    target = params.target or p.Target()
    if v.outline is None:
        return _without_outline(engine, params, v, target)
    decl = engine.declaration(v, target.symbol, target.position, target.line,
                              "`target.symbol` or `target.position`")
    out = Collected()
    out.target = f"{v.loc.path}::{decl.qualname}"
    out.notes.extend(v.notes)
    engine._sync_docs()
    info = engine.refs.files.get(str(v.loc.abspath))
    items = out.items
    home_key = f"{v.loc.path}::{decl.qualname}"
    file_words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*",
                                v.data.decode("utf-8", errors="replace")))

    _core(items, params)

    # ---- 05: the target, as a skeleton of its file ---------------------------------------
    small = len(v.data) <= engine.options.whole_max_tokens * 8
    opts = attrs.evolve(engine.options.skeleton(True), focus=True)
    sk = render(v.outline, v.lines, v.marker, v.comment, decl,
                engine._tokens(v.data.decode("utf-8", errors="replace")) if small else None,
                opts)
    lineage: list[tuple[int, int]] = [(h.span.start_row, h.span.last_row)
                                      for h in v.outline.header if h.kind in ("import",
                                                                               "package")]
    for outer in enclosing(v.outline, decl):
        lineage += _sig_rows(outer)
    deps = dependencies(engine.refs, info.key, decl, v.lines) if info is not None else []
    same_file = [d for d in deps if d.key == info.key] if info is not None else []
    own = (decl.span.start_row, decl.span.last_row)
    siblings = [(d.name_span.start_row, d.name_span.start_row) for d in v.outline.decls
                if not d.parents or d.parents == decl.parents]
    excerpt_rows = [*lineage, *(r for d in same_file for r in _sig_rows(d.decl)), *siblings,
                    *[(h.span.start_row, h.span.last_row) for h in v.outline.header
                      if h.kind == "constant"], own]
    renderings = {"verbatim": Text(sk.text, sk.shown)}
    if sk.mode == "skeleton":  # without docstrings, for when the skeleton does not fit
        bare = render(v.outline, v.lines, v.marker, v.comment, decl, None,
                      attrs.evolve(opts, doc_lines=0))
        if len(bare.text) < len(sk.text):
            renderings["compact"] = Text(bare.text, bare.shown)
    items.append(Evidence(
        "", "05", "changed_entity", "", f"05: the target {decl.qualname} ({sk.mode}: "
        f"{sk.reason})", "target", "target",
        {**renderings, "excerpt": _text(engine, v, excerpt_rows),
         "focused": _text(engine, v, [*lineage, *(r for d in same_file
                                                  for r in _sig_rows(d.decl)), own]),
         "signature": _text(engine, v, [*lineage, *_sig_rows(decl)]),
         "name": _name_line(v, decl)},
        path=v.loc.path, symbol=decl.qualname, rows=own, key=home_key))

    cls_name = decl.parents[-1] if decl.parents else ""
    cls_decl = next((d for d in v.outline.decls if d.qualname == cls_name), None) \
        if info is not None and cls_name else None
    # The attributes the target's class keeps on self, where each is first set, when the
    # skeleton does not show that line (set outside __init__, or in a long class).
    if cls_decl is not None:
        shown_rows = {r for a, b in sk.shown for r in range(a, b + 1)}
        first: dict[str, int] = {}
        sets_field = v.lang.sets_field if v.lang else None
        if sets_field is not None:
            for row in range(cls_decl.span.start_row, cls_decl.span.last_row + 1):
                for m in sets_field.finditer(v.lines[row]):
                    first.setdefault(m.group(1), row)
        field_rows = sorted({r for r in first.values() if r not in shown_rows})
        if field_rows:
            names = ", ".join(n for n, r in sorted(first.items(), key=lambda x: x[1])
                              if r in field_rows)
            items.append(Evidence(
                "", "03", "symbol", "", f"03: where {cls_name} first sets its attributes",
                "target", "fields",
                {"verbatim": _text(engine, v, [(r, r) for r in field_rows]),
                 "name": Text(f"{v.loc.path}: {cls_name} sets {names}\n")},
                path=v.loc.path, symbol=f"{cls_name}.<fields>", key=f"{home_key}::fields"))

    # The classes the target's class inherits from, as far as they are in the project: the
    # members `self.` and `super()` reach there (their signatures and the lines that set
    # their attributes).
    if info is not None and cls_decl is not None and cls_decl.kind == "class":
        bases = list(engine.refs.ancestors(info, cls_decl))[1 : 1 + MAX_BASES]
        for base_key, base_name in bases:
            bv = _view(engine, out, base_key)
            bd = next((d for d in bv.outline.decls if d.qualname == base_name), None) \
                if bv.outline else None
            if bd is None or bv.outline is None:
                continue
            rows = _sig_rows(bd)[:1]
            rows += [(m.name_span.start_row, m.name_span.start_row) for m in bv.outline.decls
                     if m.parents[-1:] == (base_name,)]  # each member's definition line
            base_sets = bv.lang.sets_field if bv.lang else None
            for row in range(bd.span.start_row, bd.span.last_row + 1):
                if base_sets is not None and base_sets.search(bv.lines[row]):
                    rows.append((row, row))
            items.append(Evidence(
                "", "03", "symbol", "", f"03: {cls_name} inherits from it", "interfaces",
                "base", {"signature": _text(engine, bv, rows), "name": _name_line(bv, bd)},
                path=bv.loc.path, symbol=bd.qualname, key=f"{bv.loc.path}::{bd.qualname}::base"))

    # ---- 07: other targets the obligations name ------------------------------------------
    for ob in params.obligations:
        for name in ob.targets:
            try:
                named_target = _symbol_view(engine, name, v)
            except CtxError as exc:
                out.notes.append(f"obligation target `{name}`: {exc.message}")
                continue
            if named_target is None:
                out.notes.append(f"obligation target `{name}` not found")
                continue
            tv, od = named_target
            if f"{tv.loc.path}::{od.qualname}" == home_key:
                continue
            imports = [(h.span.start_row, h.span.last_row) for h in (tv.outline.header
                       if tv.outline else ()) if h.kind == "import"]
            items.append(Evidence(
                "", "07", "changed_entity", "", f"07: named by obligation {ob.id}",
                "target", "obligation-target",
                {"verbatim": _text(engine, tv, [*imports,
                                                (od.span.start_row, od.span.last_row)]),
                 "signature": _text(engine, tv, _sig_rows(od)), "name": _name_line(tv, od)},
                path=tv.loc.path, symbol=od.qualname,
                rows=(od.span.start_row, od.span.last_row),
                key=f"{tv.loc.path}::{od.qualname}", obligations=(ob.id,)))

    _interfaces(engine, out, v, info, decl, deps, file_words)
    _impact(engine, out, params, v, info, decl)

    # ---- intent `state`: the constructor and the methods that touch the same attributes -
    if params.intent == "state" and info is not None:
        for d in _state_methods(v, decl):
            items.append(Evidence(
                "", "03", "symbol", "", f"03: touches the attributes {decl.name} works on",
                "target", "state",
                {"verbatim": _text(engine, v, [(d.span.start_row, d.span.last_row)]),
                 "signature": _text(engine, v, _sig_rows(d)), "name": _name_line(v, d)},
                path=v.loc.path, symbol=d.qualname, rows=(d.span.start_row, d.span.last_row),
                key=f"{v.loc.path}::{d.qualname}"))

    _live_and_retrieved(engine, out, params)
    _apply_policy(engine, out, v)
    return out


def _interfaces(engine: Engine, out: Collected, v: View, info: FileInfo | None, decl: Decl,
                deps: list[Dependency], file_words: set[str]) -> None:
    """03: what the target uses, and the interfaces of the modules they live in."""
    items = out.items
    for dep in deps:
        dv = v if dep.key == (info.key if info else "") else engine.view(
            engine.locate(path=dep.key))
        d = dep.decl
        # Overloads share a qualified name; the last definition is the implementation, whose
        # signature accepts every overload's arguments.
        twins = [x for x in (dv.outline.decls if dv.outline else ())
                 if x.qualname == d.qualname and x is not d]
        members: list[tuple[int, int]] = _sig_rows(twins[-1])[:1] \
            if twins and twins[-1].span.start_row > d.span.start_row else []
        if d.kind in ("class", "interface", "struct") and dv is not v and dv.outline:
            # A class from another file: the public members the file names first, a few.
            listed = [m for m in dv.outline.decls
                      if m.parents[-1:] == (d.qualname,) and not m.name.startswith("_")]
            listed.sort(key=lambda m: m.name not in file_words)
            members += [(m.name_span.start_row, m.name_span.start_row)
                        for m in listed[:MAX_CLASS_MEMBERS]]
        items.append(Evidence(
            "", "03", "symbol", "", f"03: {decl.name} uses it ({dep.relation}, line "
            f"{dep.row + 1})", "interfaces", "dependency",
            {"verbatim": _text(engine, dv, [(d.span.start_row, d.span.last_row)]),
             "signature": _text(engine, dv, _sig_rows(d) + members),
             "name": _name_line(dv, d)},
            path=dv.loc.path, symbol=d.qualname, rows=(d.span.start_row, d.span.last_row),
            key=f"{dv.loc.path}::{d.qualname}"))
    # The names the file's header binds from other project files (seed 000: the header is
    # where a name gets its meaning), as signatures (a class's members come with it only
    # when the target uses it, above); then the modules it uses by attribute (`import m`,
    # `from pkg import m`), each as the definition lines of its public interface.
    imported: dict[str, list[Decl]] = {}
    modules: dict[str, None] = {}  # files, in first-import order
    if info is not None:
        for imp in info.refs.imports:
            mod_file = engine.refs.module_file(engine.refs.absolute(info, imp))
            if imp.name and imp.name != "*":
                found_imp = engine.refs.imported(info, imp)
                if found_imp is not None and found_imp[0].key != info.key:
                    imported.setdefault(found_imp[0].key, []).append(found_imp[1])
                    continue
                mod_file = engine.refs.module_file(
                    f"{engine.refs.absolute(info, imp)}.{imp.name}")
            if mod_file is not None and mod_file.key != info.key:
                modules.setdefault(mod_file.key)
    for key, defs in imported.items():
        iv = engine.view(engine.locate(path=key))
        shown = [d for d in defs if f"{iv.loc.path}::{d.qualname}" not in
                 {e.key for e in items}]
        if not shown:
            continue
        items.append(Evidence(
            "", "03", "symbol", "", f"03: what {v.loc.path} imports from {iv.loc.path}",
            "interfaces", "import",
            {"signature": _text(engine, iv, [r for d in shown for r in _sig_rows(d)]),
             "name": Text(f"{iv.loc.path}: " + ", ".join(d.qualname for d in shown) + "\n")},
            path=iv.loc.path, key=f"{iv.loc.path}::imports"))
    for key in list(modules)[:MAX_MODULES]:
        mv = engine.view(engine.locate(path=key))
        if mv.outline is None:
            continue
        skip = {d.qualname for d in imported.get(key, [])}
        public = [d for d in mv.outline.decls
                  if d.qualname not in skip and not d.name.startswith("_")
                  and not any(part.startswith("_") for part in d.parents)
                  and d.kind not in ("field",)
                  and (not d.parents or d.kind in ("method", "function", "attribute"))]
        if not public:
            continue
        # What the target's file already names from it first (new code tends to reuse it),
        # then the rest in file order, up to a cap: the definition line of each.
        public.sort(key=lambda d: d.name not in file_words)  # stable: file order within
        rows = [(d.name_span.start_row, d.name_span.start_row)
                for d in public[:MAX_INTERFACE_LINES]]
        names = ", ".join(d.qualname for d in public[:60])
        items.append(Evidence(
            "", "03", "symbol", "", f"03: the public interface of {mv.loc.path}, which "
            f"{v.loc.path} imports", "interfaces", "module-interface",
            {"signature": _text(engine, mv, rows),
             "name": Text(f"{mv.loc.path}: {names}\n")},
            path=mv.loc.path, key=f"{mv.loc.path}::*"))


def _impact(engine: Engine, out: Collected, params: p.ConstructParams, v: View,
            info: FileInfo | None, decl: Decl) -> None:
    """06: call sites, tests, the digest (the rename list under intent `rename`)."""
    items = out.items
    home_key = f"{v.loc.path}::{decl.qualname}"
    resolved: list[Reference] = []
    candidates: list[Reference] = []
    if info is not None:
        resolved, candidates = references(engine.refs, info.key, decl)
    else:  # no reference table for this language: word matches, counted as unproven
        candidates = engine._mentions(v, decl)
    callers = [r for r in resolved if not _is_test(r.path)]
    if params.intent == "rename":
        listing = [f"{r.path}:{r.call.row + 1}:{r.call.col + 1} in {r.enclosing or '<module>'}"
                   f": {_line(engine, out, r.key, r.call.row)}" for r in resolved]
        listing += [f"{r.path}:{r.call.row + 1}:{r.call.col + 1} (unproven: {r.why}): "
                    f"{_line(engine, out, r.key, r.call.row)}" for r in candidates]
        body = (f"{len(resolved)} references of {decl.qualname}"
                + (f", {len(candidates)} unproven name matches" if candidates else "")
                + (" (index incomplete)" if engine.scanning else "") + "\n"
                + "\n".join(listing) + ("\n" if listing else ""))
        items.append(Evidence("", "06", "graph_edge", body, "06: every reference (rename)",
                              "call_sites", "reference", {"name": Text(body)},
                              key=f"refs:{home_key}"))
    for r in callers[:MAX_CALLERS]:
        cv = _view(engine, out, r.key)
        rows = []
        if cv.outline is not None:
            binds = {decl.name, *(decl.parents[-1:] if decl.parents else ())}
            rows += [(h.span.start_row, h.span.last_row) for h in cv.outline.header
                     if h.kind == "import" and any(b in "\n".join(
                         cv.lines[h.span.start_row : h.span.last_row + 1]) for b in binds)]
            around = at_row(cv.outline, r.call.row)
            if around is not None:
                rows += _sig_rows(around)[:1]
        rows.append((max(0, r.call.row - 1), min(len(cv.lines) - 1, r.call.row + 1)))
        items.append(Evidence(
            "", "06", "graph_edge", "", f"06: CalledBy {r.enclosing or cv.loc.path} "
            f"({r.why})", "call_sites", "caller",
            {"signature": _text(engine, cv, rows),
             "name": Text(f"{cv.loc.path}:{r.call.row + 1} in {r.enclosing or '<module>'}: "
                          f"{cv.lines[r.call.row].strip()}\n")},
            path=cv.loc.path, symbol=r.enclosing, rows=(r.call.row, r.call.row),
            key=f"{cv.loc.path}:{r.call.row}"))
    for r in candidates[:MAX_CANDIDATES]:
        items.append(Evidence(
            "", "06", "graph_edge", "", f"06: name match only ({r.why})"[:200], "call_sites",
            "candidate-caller", {"name": Text(f"{r.path}:{r.call.row + 1}\n")},
            path=r.path, symbol=r.enclosing, key=f"{r.path}:{r.call.row}"))
    hits = tests_for(engine.refs, info.key, decl, _is_test) if info is not None else []
    named = {n.rsplit("::", 1)[-1].rsplit(".", 1)[-1]: n
             for ob in params.obligations for n in ob.tests}
    seen_tests: set[str] = set()
    direct: list[tuple[int, int, str]] = []  # (fixtures taken, -row, key) of direct tests
    plain_tests = 0
    importers = [h for h in hits if h.symbol is None
                 and h.path.rsplit("/", 1)[-1] != "conftest.py"]
    if importers:  # test files that only import the module: one line for all of them
        importing = (f"{len(importers)} test files import {v.loc.path}'s module without a "
                   "proven call of the target: " + ", ".join(h.path for h in importers) + "\n")
        items.append(Evidence(
            "", "06", "downstream_obligation", importing, "06: PreserveObligation — test files "
            "that import the target's module", "tests", "test", {"name": Text(importing)},
            key=f"importers:{home_key}"))
    for h in [h for h in hits if h not in importers][:MAX_TESTS]:
        is_plain = h.symbol is not None and h.path.rsplit("/", 1)[-1] != "conftest.py" and \
            h.symbol.rsplit(".", 1)[-1] not in named
        if is_plain:
            plain_tests += 1
            if plain_tests > MAX_TEST_ITEMS:
                continue  # counted in the digest; named and conftest files always come
        tv = _view(engine, out, h.key)
        td: Decl | None = next(
            (d for d in tv.outline.decls if d.qualname == h.symbol), None) \
            if tv.outline and h.symbol else None
        conftest = h.path.rsplit("/", 1)[-1] == "conftest.py"
        key = f"{tv.loc.path}::{td.qualname}" if td else f"{tv.loc.path}::*"
        seen_tests.add(key)
        if td is not None:
            rend = {"verbatim": _text(engine, tv, [(td.span.start_row, td.span.last_row)]),
                    "name": _name_line(tv, td, f" — {_expectation(tv, td)}")}
            if h.evidence.startswith("calls ") and "directly" in h.evidence:
                direct.append((_params(tv, td), -td.span.start_row, key))
        else:
            public = [d for d in (tv.outline.decls if tv.outline else ()) if not d.parents]
            rend = {"signature": _text(engine, tv, [r for d in public for r in _sig_rows(d)]),
                    "name": Text(f"{tv.loc.path}: {len(public)} top-level declarations; "
                                 f"{h.evidence}\n")}
        relation = "conftest" if conftest else (
            "named-test" if td is not None and td.name in named else "test")
        items.append(Evidence(
            "", "06", "downstream_obligation", "", f"06: PreserveObligation — {h.evidence}"[:200],
            "tests", relation, rend, path=tv.loc.path, symbol=td.qualname if td else None,
            rows=(td.span.start_row, td.span.last_row) if td else None, key=key))
    if direct:  # one body shows how this repository builds fixtures and asserts
        out.exemplars.add(max(direct)[2])
    for short, full in named.items():  # named tests the import graph did not reach
        if any(k.endswith(f"::{short}") or k.endswith(f".{short}") for k in seen_tests):
            continue
        named_test = None
        try:
            named_test = _symbol_view(engine, full, v)
        except CtxError as exc:
            out.notes.append(f"named test `{full}`: {exc.message}")
        if named_test is None:
            out.notes.append(f"named test `{full}` not found")
            continue
        tv, nd = named_test
        items.append(Evidence(
            "", "07", "downstream_obligation", "", "07: a test the obligation names", "tests",
            "named-test",
            {"verbatim": _text(engine, tv, [(nd.span.start_row, nd.span.last_row)]),
             "name": _name_line(tv, nd, f" — {_expectation(tv, nd)}")},
            path=tv.loc.path, symbol=nd.qualname, rows=(nd.span.start_row, nd.span.last_row),
            key=f"{tv.loc.path}::{nd.qualname}"))
    second = 0
    hop = callers[:SECOND_HOP]
    for r in hop:
        ci = engine.refs.files.get(r.key)
        cd = next((d for d in ci.outline.decls if d.qualname == r.enclosing), None) \
            if ci and r.enclosing else None
        if cd is not None and cd.kind in ("function", "method", "class"):
            second += len(references(engine.refs, r.key, cd)[0])
    unindexed = engine._unindexed(v.lang.name if v.lang else None)
    digest = (f"{len(callers)} callers ({min(len(callers), MAX_CALLERS)} as call sites), "
              f"{len(resolved) - len(callers)} direct calls from tests, "
              f"{len(candidates)} unproven name matches, {len(hits)} tests and conftest files, "
              f"{second} second-hop call sites"
              + (f" (through the first {SECOND_HOP} callers)" if len(callers) > SECOND_HOP
                 else "")
              + (f"; {unindexed} files not indexed" if unindexed else "")
              + ("; the scan is still running" if engine.scanning else "")
              + ("; no reference table for this language: counts are text matches"
                 if info is None else "")
              + " — no direct evidence requires source expansion yet\n")
    items.append(Evidence("", "06", "graph_edge", digest, "06: the wider impact, counted",
                          "call_sites", "digest", {"digest": Text(digest)},
                          key=f"digest:{home_key}"))


def _core(items: list[Evidence], params: p.ConstructParams) -> None:
    """07: the task, the obligations, the acceptance criteria (the stable core)."""
    if params.task.strip():
        items.append(Evidence("", "07", "plan_node", params.task, "07: the task", "core",
                              "task", {"verbatim": Text(params.task.strip() + "\n")},
                              key="task"))
    for i, ob in enumerate(params.obligations):
        lines = [ob.text.strip()]
        if ob.targets:
            lines.append("targets: " + ", ".join(ob.targets))
        if ob.tests:
            lines.append("tests: " + ", ".join(ob.tests))
        body = "\n".join(x for x in lines if x) + "\n"
        items.append(Evidence("", "07", "plan_node", body,
                              f"07: obligation {ob.id or i + 1}"
                              + (" (current)" if i == 0 else ""), "core", "plan",
                              {"verbatim": Text(body)},
                              key="plan:current" if i == 0 else f"plan:{ob.id or i + 1}",
                              obligations=(ob.id or str(i + 1),)))
    for crit in params.acceptance_criteria:
        if crit.strip():
            items.append(Evidence("", "07", "acceptance_criteria", crit,
                                  "07: acceptance criterion", "core", "acceptance",
                                  {"verbatim": Text(crit.strip() + "\n")},
                                  key=f"acceptance:{crit.strip()}"))


def _live_and_retrieved(engine: Engine, out: Collected, params: p.ConstructParams) -> None:
    """Live state (patch, errors, test output) and the agent's retrieved hits."""
    items = out.items
    for i, item in enumerate(params.live):
        if item.kind not in LIVE_KINDS:
            raise InvalidParams(f"live[{i}].kind must be one of {', '.join(LIVE_KINDS)}, "
                                f"not `{item.kind}`")
        text = item.text.rstrip("\n") + "\n"
        label = f"{item.kind}{f' ({item.name})' if item.name else ''}"
        pointer = (f"[{label}: {text.count(chr(10))} lines masked to save room; it is in the "
                   "agent's own tool log]\n")
        ident = re.sub(r"0x[0-9a-f]+|\d+(\.\d+)?s\b", "", text)
        items.append(Evidence(
            "", LIVE_KINDS[item.kind], item.kind, text, f"live: {label}, #{i + 1}", "live",
            "live", {"verbatim": Text(text), "pointer": Text(pointer)},
            key=f"live:{hashlib.blake2b(ident.encode(), digest_size=8).hexdigest()}",
            superseded=item.superseded, order=i))
    retrieved = list(params.retrieved)
    if params.query and params.query.strip():  # the built-in lexical retriever fills the role
        found = engine.search(p.SearchParams(params.query, SEARCH_HITS)).hits
        top = max((h.score for h in found), default=1.0) or 1.0
        retrieved += [p.RetrievedHit(h.path, h.symbol, score=round(h.score / top, 3),
                                     query=params.query) for h in found if h.symbol]
    for i, hit in enumerate(retrieved):
        try:
            items.append(_retrieved(engine, out, hit))
        except CtxError as exc:
            out.notes.append(f"retrieved[{i}] {hit.path}: {exc.message}")


def _without_outline(engine: Engine, params: p.ConstructParams, v: View, target: p.Target
                     ) -> Collected:
    """A file with no outline (too large, no grammar): the target is a line window, around
    ``target.position`` or ``line``, else the first line that names ``target.symbol``; the
    window says so, and carries no dependencies, call sites or tests."""
    why = ", ".join(v.notes) or "unsupported language"
    if target.position is not None:
        row = v.index.from_lsp(target.position.line, target.position.character,
                               engine.encoding)[0]
    elif target.line is not None:
        row = max(0, min(target.line - 1, len(v.lines) - 1))
    elif target.symbol:
        word = re.compile(rf"\b{re.escape(target.symbol.rsplit('.', 1)[-1])}\b")
        row = next((i for i, line in enumerate(v.lines) if word.search(line)), -1)
        if row < 0:
            raise UnknownSymbol(f"{v.loc.path} has no outline ({why}) and no line names "
                                f"`{target.symbol}`")
    else:
        raise InvalidParams("give `target.symbol` or `target.position`")
    r = window(v.lines, row, v.marker, why, engine.options.skeleton(True))
    out = Collected()
    out.target = f"{v.loc.path}:{row + 1}"
    out.notes += [*v.notes, f"{v.loc.path} has no outline ({why}): the target is a window "
                  f"of lines around line {row + 1}, without dependencies, call sites or tests"]
    _core(out.items, params)
    out.items.append(Evidence(
        "", "05", "changed_entity", "", f"05: the target, lines around {row + 1} (fallback: "
        f"{why})", "target", "target", {"verbatim": Text(r.text, r.shown)},
        path=v.loc.path, symbol=target.symbol, rows=(row, row), key=out.target))
    _live_and_retrieved(engine, out, params)
    _apply_policy(engine, out, v)
    return out


def _apply_policy(engine: Engine, out: Collected, v: View) -> None:
    """Seed 003's exceptions: an excluded path never enters (its replacement may), an
    interface-view path enters as signatures or names, and `writable: false` travels with
    every item from it. The target itself is never excluded: the agent is editing it."""
    policy = engine.policy(v.loc.root)
    out.notes += [f"{POLICY_PATH}:{x.line + 1}: {x.severity}: {x.message}"
                  for x in policy.problems if x.severity == "error"]
    instead: dict[str, tuple[tuple[str, ...], str]] = {}  # path -> (globs, why)
    made: dict[str, bool] = {}  # path -> written by a generator
    notes_for: dict[int, Rule] = {}  # interface-view rules that matched an item
    for i, e in enumerate(out.items):
        rule = policy.rule_for(e.path) if e.path else None
        if rule is None and e.path and e.relation != "target":
            if e.path not in made:
                gv = _view(engine, out, e.path)
                made[e.path] = generated(gv.loc.path, gv.data, gv.lang)
            if made[e.path]:  # excluded by default, its schema offered instead (seed 003)
                why = "generated file (its grammar's markers): edits are reverted"
                out.items[i] = attrs.evolve(e, excluded_by=why, writable=False)
                instead.setdefault(e.path, (SOURCE_GLOBS, why))
            continue
        if rule is None:
            continue
        if e.relation == "target":
            out.items[i] = attrs.evolve(e, writable=rule.writable)
            out.notes.append(f"the target is under {rule.describe()}")
            continue
        if rule.view == "none":
            out.items[i] = attrs.evolve(e, excluded_by=rule.describe(), writable=rule.writable)
            if rule.include_instead and e.path:
                instead.setdefault(e.path, ((rule.include_instead,), rule.describe()))
        elif rule.view == "interface" and e.symbol and any(
                part.startswith("_") and not part.startswith("__")
                for part in e.symbol.split(".")):
            out.items[i] = attrs.evolve(e, excluded_by=f"{rule.describe()}: a private "
                                        "helper is not part of the interface",
                                        writable=rule.writable)
        else:
            out.items[i] = attrs.evolve(e, richest="signature" if rule.view == "interface"
                                        else "name", writable=rule.writable)
            if rule.view == "interface":
                notes_for.setdefault(rule.index, rule)
    for rule in notes_for.values():  # a vendored package's local patches travel with it
        folder = patches_folder(rule.glob)
        notes = v.loc.root / folder / "PATCHES.md" if folder else None
        if notes is None or not notes.is_file():
            continue
        pv = engine.view(engine.locate(path=f"{folder}/PATCHES.md"))
        out.items.append(Evidence(
            "", "03", "config", "", f"policy: the local patches of {folder} ({rule.describe()})"
            [:200], "interfaces", "patches",
            {"verbatim": _text(engine, pv, [(0, min(len(pv.lines), 80) - 1)]),
             "name": Text(f"{pv.loc.path}\n")},
            path=pv.loc.path, key=f"{pv.loc.path}::patches", writable=False))
    if not instead:
        return
    listed = sorted(e.path for e in engine.entries.values()
                    if e.abspath.startswith(f"{v.loc.root}/"))
    for path, (globs, why) in instead.items():
        spec = pathspec.GitIgnoreSpec.from_lines(list(globs))
        stem = re.sub(r"(_pb2(_grpc)?|_pb|\.pb)$", "", path.rsplit("/", 1)[-1].split(".")[0])
        matching = [f for f in listed if spec.match_file(f)]
        same = [f for f in matching if f.rsplit("/", 1)[-1].split(".")[0] == stem]
        chosen = same or ([] if globs == SOURCE_GLOBS else matching[:3])
        for f in chosen:
            fv = engine.view(engine.locate(path=f))
            rows = [(0, min(len(fv.lines), 300) - 1)]
            out.items.append(Evidence(
                "", "03", "source_code", "", f"policy: in place of {path} ({why})"[:200],
                "interfaces", "instead",
                {"verbatim": _text(engine, fv, rows), "name": Text(f"{fv.loc.path}\n")},
                path=fv.loc.path, key=f"{fv.loc.path}::instead"))


def _retrieved(engine: Engine, out: Collected, hit: p.RetrievedHit) -> Evidence:
    hv = engine.view(engine.locate(path=hit.path))  # refuses paths outside the workspace
    prov = f"04: retrieved (score {hit.score:g})" + (f" by `{hit.query}`" if hit.query else "")
    if hit.symbol:
        if hv.outline is None:
            raise UnknownSymbol(f"{hv.loc.path} has no outline")
        d = resolve(hv.outline, hit.symbol, hv.loc.path)
        return Evidence(
            "", "04", "retrieved_hit", "", prov, "retrieved", "retrieved",
            {"verbatim": _text(engine, hv, [(d.span.start_row, d.span.last_row)]),
             "signature": _text(engine, hv, _sig_rows(d)), "name": _name_line(hv, d)},
            path=hv.loc.path, symbol=d.qualname, rows=(d.span.start_row, d.span.last_row),
            score=hit.score, key=f"{hv.loc.path}::{d.qualname}")
    n = len(hv.lines)
    a = max(0, (hit.start_line or 1) - 1)
    b = min(n - 1, (hit.end_line or hit.start_line or n) - 1)
    if a > b:
        raise InvalidParams(f"empty line range {hit.start_line}-{hit.end_line}")
    return Evidence(
        "", "04", "retrieved_hit", "", prov, "retrieved", "retrieved",
        {"verbatim": _text(engine, hv, [(a, b)]),
         "name": Text(f"{hv.loc.path}:{a + 1}-{b + 1}\n")},
        path=hv.loc.path, rows=(a, b), score=hit.score, key=f"{hv.loc.path}:{a}-{b}")


@lru_cache(maxsize=1 << 16)
def _is_test(path: str) -> bool:
    lang = languages.for_path(path)
    return lang is not None and lang.is_test_file(path)


def _view(engine: Engine, out: Collected, key: str) -> View:
    v = out.views.get(key)
    if v is None:
        v = out.views[key] = engine.view(engine.locate(path=key))
    return v


def _line(engine: Engine, out: Collected, key: str, row: int) -> str:
    lines = _view(engine, out, key).lines
    return lines[row].strip() if 0 <= row < len(lines) else ""


def _state_methods(v: View, decl: Decl) -> list[Decl]:
    """The constructor, and every method of the target's class that assigns or mutates an
    attribute the target reads or writes (intent `state`, seed 000)."""
    lang = v.lang
    if v.outline is None or not decl.parents or lang is None:
        return []
    cls = decl.parents[-1]
    body = "\n".join(v.lines[decl.span.start_row : decl.span.last_row + 1])
    used = _groups(lang.reads_field, body)
    makers = {cls.rsplit(".", 1)[-1] if c == "<class>" else c for c in lang.constructors}
    out = []
    for d in v.outline.decls:
        if d.parents[-1:] != (cls,) or d.kind not in ("method", "function") \
                or d is decl or d.qualname == decl.qualname:
            continue
        text = "\n".join(v.lines[d.span.start_row : d.span.last_row + 1])
        if d.name in makers or used & _groups(lang.mutates_field, text):
            out.append(d)
    return out


def _groups(pattern: re.Pattern[str] | None, text: str) -> set[str]:
    """Every attribute name a grammar's field pattern captures in ``text`` (any group)."""
    if pattern is None:
        return set()
    return {g for m in pattern.finditer(text) for g in m.groups() if g}
