"""Gathering the evidence pool for one decision from a snapshot: the impure half of the pool.

Every candidate comes with the renderings later stages may choose among: the target as a
skeleton of its file (or its excerpt, or its signature), the attributes its class keeps and
the classes it inherits from, the other targets the obligations name, what it uses and the
interfaces of the modules those live in (``interfaces.py``), its call sites and tests and
the wider impact as one digest line (``impact.py``), the live state and the agent's own
retrieved hits (``live.py``), then the policy's exceptions (``exceptions.py``). Everything
is numbered with original lines.
"""

from __future__ import annotations

import re
import time

import attrs

from ctxls import protocol as p
from ctxls.context.exceptions import apply_policy
from ctxls.context.impact import impact
from ctxls.context.interfaces import interfaces
from ctxls.context.items import (
    Collected,
    cut,
    imports_rows,
    name_line,
    sig_rows,
    symbol_view,
)
from ctxls.context.limits import MAX_BASES, MIN_CEILING
from ctxls.context.live import core, live_and_retrieved
from ctxls.context.model import Evidence, Text
from ctxls.errors import CtxError, InvalidParams, UnknownSymbol
from ctxls.index.related import Dependency, dependencies
from ctxls.index.resolve import FileInfo
from ctxls.paths import target_file
from ctxls.snapshot import Snapshot, View
from ctxls.syntax.outline import Decl
from ctxls.syntax.skeleton import render, window
from ctxls.syntax.symbols import enclosing, first_mention

INTENTS = ("edit", "rename", "state", "review")
ASKED = "`target.symbol`, `target.position` or `target.line`"

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # (compiled here, not by the first window)


def collect(snap: Snapshot, params: p.ConstructParams) -> Collected:
    if params.intent not in INTENTS:
        raise InvalidParams(f"`intent` must be one of {', '.join(INTENTS)}, not "
                            f"`{params.intent}`")
    if params.ceiling is not None and params.ceiling < MIN_CEILING:
        raise InvalidParams(f"`ceiling` must be at least {MIN_CEILING} tokens")
    path, uri = target_file(params)
    if not uri and not path:
        raise InvalidParams("name the target's file: `path`, `textDocument.uri` or "
                            "`target.path`")
    v = snap.view(snap.locate(path=path, uri=uri))
    target = params.target or p.Target()
    if v.outline is None:
        return _without_outline(snap, params, v, target)
    decl = snap.declaration(v, target.symbol, target.position, target.line, ASKED)
    out = Collected()
    out.target = f"{v.loc.path}::{decl.qualname}"
    out.notes.extend(v.notes)
    info = snap.info(str(v.loc.abspath))
    file_words = set(WORD.findall(v.data.decode("utf-8", errors="replace")))
    core(out.items, params)
    clock = _Clock(out.timings)
    deps = dependencies(snap.refs, info.key, decl, v.lines) if info is not None else []
    clock("dependencies")
    shown = _target(snap, out, v, info, decl, deps)
    clock("target")
    _class_context(snap, out, v, info, decl, shown)
    _obligation_targets(snap, out, params, v)
    clock("class")
    interfaces(snap, out, v, info, decl, deps, file_words, params.task)
    clock("interfaces")
    impact(snap, out, params, v, info, decl)
    clock("callers")
    if params.intent == "state" and info is not None:
        for d in _state_methods(v, decl):
            out.items.append(Evidence(
                relation="state", provenance=f"03: touches the attributes {decl.name} works on",
                renderings={"verbatim": cut(snap, v, [(d.span.start_row, d.span.last_row)]),
                            "signature": cut(snap, v, sig_rows(d)),
                            "name": name_line(v, d)},
                path=v.loc.path, symbol=d.qualname, rows=(d.span.start_row, d.span.last_row),
                key=f"{v.loc.path}::{d.qualname}"))
    live_and_retrieved(snap, out, params)
    apply_policy(snap, out, v)
    clock("extras")
    return out


class _Clock:
    """Milliseconds since the last mark, under each mark's stage name."""

    def __init__(self, into: dict[str, float]) -> None:
        self.into, self.last = into, time.perf_counter()

    def __call__(self, stage: str) -> None:
        now = time.perf_counter()
        self.into[stage] = round((now - self.last) * 1000, 1)
        self.last = now


def _target(snap: Snapshot, out: Collected, v: View, info: FileInfo | None, decl: Decl,
            deps: list[Dependency]) -> set[int]:
    """The target as a skeleton of its file, with the lighter renderings the budget may
    fall back to; returns the rows the skeleton shows."""
    assert v.outline is not None
    small = len(v.data) <= snap.options.whole_max_tokens * 8
    opts = attrs.evolve(snap.options.skeleton(True), focus=True)
    sk = render(v.outline, v.lines, v.marker, v.comment, decl,
                snap.tokens(v.data.decode("utf-8", errors="replace")) if small else None, opts)
    lineage: list[tuple[int, int]] = [(h.span.start_row, h.span.last_row)
                                      for h in v.outline.header
                                      if h.kind in ("import", "package")]
    for outer in enclosing(v.outline, decl):
        lineage += sig_rows(outer)
    same_file = [r for d in deps if info is not None and d.key == info.key
                 for r in sig_rows(d.decl)]
    own = (decl.span.start_row, decl.span.last_row)
    siblings = [(d.name_span.start_row, d.name_span.start_row) for d in v.outline.decls
                if not d.parents or d.parents == decl.parents]
    constants = [(h.span.start_row, h.span.last_row) for h in v.outline.header
                 if h.kind == "constant"]
    renderings = {"verbatim": Text(sk.text, sk.shown)}
    if sk.mode == "skeleton":  # without docstrings, for when the skeleton does not fit
        bare = render(v.outline, v.lines, v.marker, v.comment, decl, None,
                      attrs.evolve(opts, doc_lines=0))
        if len(bare.text) < len(sk.text):
            renderings["compact"] = Text(bare.text, bare.shown)
    out.items.append(Evidence(
        relation="target", provenance=f"05: the target {decl.qualname} ({sk.mode}: "
        f"{sk.reason})",
        renderings={**renderings,
                    "excerpt": cut(snap, v, [*lineage, *same_file, *siblings, *constants, own]),
                    "focused": cut(snap, v, [*lineage, *same_file, own]),
                    "signature": cut(snap, v, [*lineage, *sig_rows(decl)]),
                    "name": name_line(v, decl)},
        path=v.loc.path, symbol=decl.qualname, rows=own, key=out.target))
    return {r for a, b in sk.shown for r in range(a, b + 1)}


def _class_context(snap: Snapshot, out: Collected, v: View, info: FileInfo | None,
                   decl: Decl, shown: set[int]) -> None:
    """Where the target's class first sets each attribute on self, when the skeleton does
    not show that line (set outside __init__, or in a long class); then the project classes
    it inherits from, with the members ``self.`` and ``super()`` reach there."""
    assert v.outline is not None
    cls_name = decl.parents[-1] if decl.parents else ""
    cls_decl = next((d for d in v.outline.decls if d.qualname == cls_name), None) \
        if info is not None and cls_name else None
    if cls_decl is None:
        return
    first: dict[str, int] = {}
    sets_field = v.lang.sets_field if v.lang else None
    if sets_field is not None:
        for row in range(cls_decl.span.start_row, cls_decl.span.last_row + 1):
            for m in sets_field.finditer(v.lines[row]):
                first.setdefault(m.group(1), row)
    field_rows = sorted({r for r in first.values() if r not in shown})
    if field_rows:
        names = ", ".join(n for n, r in sorted(first.items(), key=lambda x: x[1])
                          if r in field_rows)
        out.items.append(Evidence(
            relation="fields", provenance=f"03: where {cls_name} first sets its attributes",
            renderings={"verbatim": cut(snap, v, [(r, r) for r in field_rows]),
                        "name": Text(f"{v.loc.path}: {cls_name} sets {names}\n")},
            path=v.loc.path, symbol=f"{cls_name}.<fields>", key=f"{out.target}::fields"))
    if info is None or cls_decl.kind != "class":
        return
    for base_key, base_name in list(snap.refs.ancestors(info, cls_decl))[1 : 1 + MAX_BASES]:
        bv = snap.view_at(base_key)
        bd = next((d for d in bv.outline.decls if d.qualname == base_name), None) \
            if bv.outline else None
        if bd is None or bv.outline is None:
            continue
        rows = sig_rows(bd)[:1]
        rows += [(m.name_span.start_row, m.name_span.start_row) for m in bv.outline.decls
                 if m.parents[-1:] == (base_name,)]  # each member's definition line
        base_sets = bv.lang.sets_field if bv.lang else None
        for row in range(bd.span.start_row, bd.span.last_row + 1):
            if base_sets is not None and base_sets.search(bv.lines[row]):
                rows.append((row, row))
        out.items.append(Evidence(
            relation="base", provenance=f"03: {cls_name} inherits from it",
            renderings={"signature": cut(snap, bv, rows), "name": name_line(bv, bd)},
            path=bv.loc.path, symbol=bd.qualname, key=f"{bv.loc.path}::{bd.qualname}::base"))


def _obligation_targets(snap: Snapshot, out: Collected, params: p.ConstructParams,
                        v: View) -> None:
    """Other targets the obligations name, whole, with their file's imports."""
    for ob in params.obligations:
        for name in ob.targets:
            try:
                named_target = symbol_view(snap, name, v)
            except CtxError as exc:
                out.notes.append(f"obligation target `{name}`: {exc.message}")
                continue
            if named_target is None:
                out.notes.append(f"obligation target `{name}` not found")
                continue
            tv, od = named_target
            if f"{tv.loc.path}::{od.qualname}" == out.target:
                continue
            out.items.append(Evidence(
                relation="obligation-target", provenance=f"07: named by obligation {ob.id}",
                renderings={
                    "verbatim": cut(snap, tv, [*imports_rows(tv),
                                               (od.span.start_row, od.span.last_row)]),
                    "signature": cut(snap, tv, sig_rows(od)), "name": name_line(tv, od)},
                path=tv.loc.path, symbol=od.qualname,
                rows=(od.span.start_row, od.span.last_row),
                key=f"{tv.loc.path}::{od.qualname}", obligations=(ob.id,)))


def _without_outline(snap: Snapshot, params: p.ConstructParams, v: View, target: p.Target
                     ) -> Collected:
    """A file with no outline (too large, no grammar): the target is a line window, around
    ``target.position`` or ``line``, else the first line that names ``target.symbol``; the
    window says so, and carries no dependencies, call sites or tests."""
    why = ", ".join(v.notes) or "unsupported language"
    if target.position is not None:
        row = v.row(target.position)
    elif target.line is not None:
        row = max(0, min(target.line - 1, len(v.lines) - 1))
    elif target.symbol:
        hit = first_mention(v.lines, target.symbol)
        if hit is None:
            raise UnknownSymbol(f"{v.loc.path} has no outline ({why}) and no line names "
                                f"`{target.symbol}`")
        row = hit
    else:
        raise InvalidParams(f"give {ASKED}")
    r = window(v.lines, row, v.marker, why, snap.options.skeleton(True))
    out = Collected()
    out.target = f"{v.loc.path}:{row + 1}"
    out.notes += [*v.notes, f"{v.loc.path} has no outline ({why}): the target is a window "
                  f"of lines around line {row + 1}, without dependencies, call sites or tests"]
    core(out.items, params)
    out.items.append(Evidence(
        relation="target", provenance=f"05: the target, lines around {row + 1} (fallback: "
        f"{why})", renderings={"verbatim": Text(r.text, r.shown)},
        path=v.loc.path, symbol=target.symbol, rows=(row, row), key=out.target))
    live_and_retrieved(snap, out, params)
    apply_policy(snap, out, v)
    return out


def _state_methods(v: View, decl: Decl) -> list[Decl]:
    """The constructor, and every method of the target's class that assigns or mutates an
    attribute the target reads or writes (intent `state`)."""
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
