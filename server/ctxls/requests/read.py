"""Reading code: ``ctx/skeleton``, ``ctx/readSymbol`` and ``ctx/readRange``.

A skeleton is the file with its header, every signature and the target's body, the other
bodies replaced by markers that say what they hide; ``readSymbol`` expands one declaration
by name with its lineage (imports, enclosing declarations); ``readRange`` shows numbered
lines, for files that do not parse or have no grammar. A read of a path the policy
excludes is allowed, said in the notes and logged (the escape hatch).
"""

from __future__ import annotations

import attrs
from lsprotocol.types import Range

from ctxls import agentlog
from ctxls import protocol as p
from ctxls.errors import InvalidParams, UnknownSymbol
from ctxls.paths import Located
from ctxls.snapshot import Snapshot
from ctxls.syntax.outline import Decl
from ctxls.syntax.skeleton import Rendering, excerpt, numbered, render, window
from ctxls.syntax.symbols import at_row, enclosing, first_mention, resolve


def skeleton(snap: Snapshot, params: p.SkeletonParams) -> p.SkeletonResult:
    v = snap.view(snap.located(params))
    opts = snap.options.skeleton(params.line_numbers)
    target = params.target or p.Target()
    decl: Decl | None = None
    rendering: Rendering | None = None
    row = v.row(target.position) if target.position is not None else None
    if row is None and target.line is not None:  # without a symbol, a line is a position
        if target.line < 1:
            raise InvalidParams(f"`target.line` is 1-based; {target.line} is before line 1")
        row = target.line - 1
    if v.outline is None:
        why = ("unsupported-language" if v.lang is None
               else v.notes[0] if v.notes else "no-parse")
        rendering = window(v.lines, row or 0, v.marker, why, opts)
    elif v.lang is not None and v.lang.generic and not v.outline.decls:
        rendering = window(v.lines, row or 0, v.marker,
                           f"generic-grammar: the generic query found no declarations "
                           f"in {v.lang.name}; line window", opts)
    elif target.symbol:
        try:
            decl = resolve(v.outline, target.symbol, v.loc.path, target.line)
        except UnknownSymbol:
            if not v.outline.errors:
                raise
            hit = first_mention(v.lines, target.symbol)
            if hit is None:
                raise
            rendering = window(v.lines, hit, v.marker,
                               "parse-error: symbol not in the parsed outline; "
                               f"window around its first mention (line {hit + 1})", opts)
    elif row is not None:
        decl = at_row(v.outline, row)
        if decl is None and any(e.start_row <= row <= e.last_row for e in v.outline.errors):
            rendering = window(v.lines, row, v.marker, "parse-error", opts)
    if rendering is None:
        assert v.outline is not None
        small = len(v.data) <= opts.whole_max_tokens * 8
        rendering = render(
            v.outline, v.lines, v.marker, v.comment, decl,
            snap.tokens(v.data.decode("utf-8", errors="replace")) if small else None, opts)
        if v.lang is not None and v.lang.generic and rendering.mode == "skeleton":
            # No grammar folder: the generic query found these declarations; say so.
            rendering = attrs.evolve(rendering, mode="fallback", reason=(
                f"generic-grammar: {v.lang.name} has no grammars/ folder; outline from "
                f"the generic definitions query ({rendering.reason})"))
    return p.SkeletonResult(
        uri=v.loc.uri, path=v.loc.path, language=v.lang.name if v.lang else None,
        version=v.version, text=rendering.text,
        shown=[v.range(a, b) for a, b in rendering.shown],
        elided=[p.Elided(v.range(e.first, e.last), e.symbol, e.last - e.first + 1,
                         list(e.names)) for e in rendering.elided],
        tokens=snap.tokens(rendering.text), mode=rendering.mode, reason=rendering.reason,
        target=decl.qualname if decl else None, notes=v.notes,
    )


def read_symbol(snap: Snapshot, params: p.ReadSymbolParams) -> p.ReadSymbolResult:
    if not params.name.strip():
        raise InvalidParams("`name` is empty")
    if params.context_lines < 0:
        raise InvalidParams("`contextLines` must be ≥ 0")
    v = snap.view(snap.located(params))
    if v.outline is None:
        raise UnknownSymbol(
            f"{v.loc.path} has no outline ({', '.join(v.notes) or 'unsupported language'}); "
            "use ctx/readRange")
    decl = resolve(v.outline, params.name, v.loc.path, params.line)
    escape = _escape(snap, v.loc, "ctx/readSymbol", decl.qualname, params.run_id)
    n = len(v.lines)
    first = max(0, decl.span.start_row - params.context_lines)
    last = min(n - 1, decl.span.last_row + params.context_lines)
    context: list[tuple[int, int]] = []
    if params.include_header:
        context += [(h.span.start_row, h.span.last_row) for h in v.outline.header
                    if h.kind in ("import", "package")]
        for outer in enclosing(v.outline, decl):
            if outer.keep_whole:  # a Go struct, a Rust enum: its fields are its meaning
                context.append((outer.span.start_row, outer.span.last_row))
                continue
            context.append((outer.span.start_row, outer.signature.end_row))
            if outer.body is not None and outer.body.doc is not None:
                context.append(outer.body.doc)
    # Lineage never repeats the declaration's own lines: a kept-whole parent (an enum
    # around its constant) is clipped around it, not dropped.
    context = [part for a, b in context
               for part in ((a, min(b, first - 1)), (max(a, last + 1), b))
               if part[0] <= part[1]]
    notes = {}
    if context:
        notes[min(a for a, _ in context)] = (
            f"{v.comment} ctxls: context (imports, enclosing declarations) for {decl.qualname}")
    opts = snap.options.skeleton(params.line_numbers)
    rendering = excerpt(v.lines, [*context, (first, last)], v.marker, opts, notes=notes)
    return p.ReadSymbolResult(
        symbol=decl.qualname, kind=decl.kind, uri=v.loc.uri, path=v.loc.path,
        language=v.lang.name if v.lang else None, version=v.version,
        range=Range(v.position(decl.span.start_row, decl.span.start_col),
                    v.position(decl.span.end_row, decl.span.end_col)),
        context=[v.range(a, b) for a, b in _merge(context)],
        text=rendering.text, tokens=snap.tokens(rendering.text), notes=v.notes + escape,
    )


def read_range(snap: Snapshot, params: p.ReadRangeParams) -> p.ReadRangeResult:
    if params.start_line < 1 or params.end_line < params.start_line:
        raise InvalidParams("need 1 ≤ startLine ≤ endLine (1-based, inclusive)")
    v = snap.view(snap.located(params))
    n = len(v.lines)
    if params.start_line > n:
        raise InvalidParams(f"{v.loc.path} has {n} lines; startLine {params.start_line} "
                            "is past the end")
    cap = snap.options.read_range_max_lines
    first = params.start_line - 1
    last = min(params.end_line - 1, n - 1, first + cap - 1)
    escape = _escape(snap, v.loc, "ctx/readRange", f"lines {first + 1}-{last + 1}",
                     params.run_id)
    truncated = last < params.end_line - 1
    opts = snap.options.skeleton(params.line_numbers)
    width = len(str(n))
    text = "".join(
        (numbered(r + 1, width, v.lines[r]) if opts.line_numbers else v.lines[r])
        + "\n" for r in range(first, last + 1))
    return p.ReadRangeResult(
        uri=v.loc.uri, path=v.loc.path, version=v.version, range=v.range(first, last),
        text=text, tokens=snap.tokens(text), total_lines=n, truncated=truncated,
        notes=v.notes + escape + ([f"capped at {cap} lines"]
                                  if truncated and last - first + 1 >= cap else [])
        + ([f"lines over {v.clip_at:,} characters are cut"]
           if any(first <= r <= last for r in v.clipped) else []),
    )


def _escape(snap: Snapshot, loc: Located, method: str, what: str,
            run_id: str | None) -> list[str]:
    """A read of a path the policy excludes is allowed and logged; the note says so."""
    rule = snap.policy(loc.root).rule_for(loc.path)
    if rule is None:
        return []
    note = f"excluded by {rule.describe()}; this read is allowed"
    log = snap.options.context_log
    if agentlog.append(loc.root, log, {"event": "read", "method": method, "path": loc.path,
                                       "what": what, "rule": rule.describe(),
                                       "runId": run_id or snap.options.run_id}):
        note += f" and logged in {log}"
    return [note]


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1] + 2:  # a one-line gap is shown, as in the text
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out
