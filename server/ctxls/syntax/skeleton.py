"""Skeletons: a file with its rules kept and its bodies elided.

Kept verbatim: the header (docstring, imports, module-level assignments), every declaration
down to the end of its signature with its decorators, class bodies' attributes, short
docstrings, the target with its enclosing chain, and the instance attributes its class's
constructor sets. Replaced by a marker that says how many lines it stands for and which
declarations it hides: every other body. Kept whole: declarations a grammar marks
``@keep.whole`` (enums, TypedDicts, protocols...). Shown whole instead: short or flat files.

Pure: an outline, the file's lines and a target in; a ``Rendering`` out.
"""

from __future__ import annotations

import bisect

import attrs

from ctxls.syntax.outline import VALUE_KINDS, Decl, Outline
from ctxls.syntax.symbols import enclosing

SHOWN = -1


@attrs.frozen
class SkeletonOptions:
    line_numbers: bool = True
    whole_max_lines: int = 120  # files this short are shown whole
    whole_max_tokens: int = 1500  # ...and so are files this cheap
    flat_ratio: float = 0.25  # whole when a skeleton would elide less than this share
    min_elide_lines: int = 2  # a one-line body costs what its marker costs
    doc_lines: int = 4  # docstrings up to this long stay in elided bodies
    error_window: int = 3  # lines shown around a parse error
    fallback_lines: int = 80  # size of the line window when parsing cannot help
    focus: bool = False  # collapse the bodies of classes that do not enclose the target


@attrs.frozen
class Elision:
    first: int  # rows, 0-based, inclusive
    last: int
    symbol: str | None  # the declaration whose body this was
    names: tuple[str, ...]  # declarations hidden inside


@attrs.frozen
class Rendering:
    text: str
    mode: str  # skeleton | whole | fallback
    reason: str
    shown: tuple[tuple[int, int], ...]  # row ranges shown verbatim, inclusive
    elided: tuple[Elision, ...]


def split_lines(text: str) -> list[str]:
    """Lines as an editor numbers them: no phantom line after a final newline."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    if "\r" not in text:
        return lines
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _label(d: Decl) -> str:
    return f"{d.name}()" if d.kind in ("function", "method") else f"{d.kind} {d.name}"


class _Plan:
    """Which rows are shown, which are elided and under which marker."""

    def __init__(self, n: int, min_lines: int) -> None:
        self.marks = [SHOWN] * n
        self.groups: list[tuple[str, Elision]] = []  # (indent, elision)
        self.notes: dict[int, str] = {}  # row -> comment line shown before it
        self.min_lines = min_lines

    def elide(self, first: int, last: int, indent: str, symbol: str | None,
              names: tuple[str, ...] = ()) -> None:
        last = min(last, len(self.marks) - 1)
        if last - first + 1 < self.min_lines or any(
            self.marks[r] != SHOWN for r in range(first, last + 1)
        ):
            return
        self.groups.append((indent, Elision(first, last, symbol, names)))
        for r in range(first, last + 1):
            self.marks[r] = len(self.groups) - 1

    def show(self, first: int, last: int) -> None:
        for r in range(max(first, 0), min(last, len(self.marks) - 1) + 1):
            self.marks[r] = SHOWN

    @property
    def elided_rows(self) -> int:
        return sum(1 for m in self.marks if m != SHOWN)


def _by_start(outline: Outline) -> tuple[list[int], list[int]]:
    """The start rows of the outline's declarations that are no values, ascending, with
    each one's index: a file of 1,500 declarations asks which lie under each of 800
    markers (a scan of all of them each time was 0.1 s of a window on mypy's checker.py)."""
    pairs = sorted((d.span.start_row, i) for i, d in enumerate(outline.decls)
                   if d.kind not in VALUE_KINDS)
    return [r for r, _ in pairs], [i for _, i in pairs]


def _hidden(outline: Outline, by_start: tuple[list[int], list[int]], first: int, last: int,
            most: int = 6, public: bool = False) -> tuple[str, ...]:
    """The declarations a marker stands for, ``most`` by name; ``public``: names without a
    leading underscore only (the rest are counted). ``by_start``: ``_by_start(outline)``."""
    rows, order = by_start
    found = [outline.decls[i] for i in sorted(
        order[bisect.bisect_left(rows, first) : bisect.bisect_right(rows, last)])]
    names = [_label(d) for d in found if not (public and d.name.startswith("_"))]
    rest = len(found) - min(len(names), most)
    if not names:
        return (f"{rest} declarations",) if rest else ()
    return tuple(names[:most]) + ((f"+{rest} more",) if rest else ())


def _plan(outline: Outline, lines: list[str], target: Decl | None, opts: SkeletonOptions
          ) -> _Plan:
    n = len(lines)
    plan = _Plan(n, opts.min_elide_lines)
    by_start = _by_start(outline)
    focus = opts.focus and target is not None
    lineage = {d.qualname for d in enclosing(outline, target)} if target is not None else set()
    # Kept whole: enums, protocols, TypedDicts. Focused on a target elsewhere, such a class
    # keeps its values and member signatures, and its methods' bodies are elided.
    protected = [(d.span.start_row, d.span.last_row) for d in outline.decls if d.keep_whole
                 and not (focus and d.container and d.qualname not in lineage)]
    if target is not None:
        protected.append((target.span.start_row, target.span.last_row))
    owner = enclosing(outline, target)[-1:] if target is not None else []
    home = owner[0].qualname if owner and owner[0].container else None
    if focus:
        # Other classes keep their statement and a short docstring; a long docstring and
        # the members are one marker (a window for one decision needs the target's own
        # class, not every class's documentation).
        for d in outline.decls:
            body = d.body
            if body is None or not d.container or d.keep_whole or d.has_error \
                    or d.qualname in lineage or d.parents:
                continue
            first = body.first
            if body.doc and body.doc[0] == first and body.doc[1] - body.doc[0] < opts.doc_lines:
                first = body.doc[1] + 1
            plan.elide(first, body.last, body.indent, d.qualname,
                       _hidden(outline, by_start, first, body.last, 4, public=True))
        _overloads(plan, outline, lines, lineage, protected)

    for d in outline.decls:
        body = d.body
        if body is None or d.container or d.keep_whole or d.has_error:
            continue
        if any(a <= d.span.start_row <= b for a, b in protected):
            continue
        if target is not None and d.span.start_row <= target.span.start_row <= d.span.last_row:
            continue  # an enclosing function of the target: shown in full
        first = body.first
        if body.doc and body.doc[0] == first and body.doc[1] - body.doc[0] < opts.doc_lines:
            first = body.doc[1] + 1
        if home is not None and body.members and d.parents[-1:] == (home,):
            # The target's class constructor: keep what it stores on the instance.
            keep = sorted(body.members)
            start = first
            for a, b in keep:
                plan.elide(start, a - 1, body.indent, d.qualname,
                           _hidden(outline, by_start, start, a - 1))
                start = max(start, b + 1)
            plan.elide(start, body.last, body.indent, d.qualname,
                       _hidden(outline, by_start, start, body.last))
            continue
        plan.elide(first, body.last, body.indent, d.qualname,
                   _hidden(outline, by_start, first, body.last))

    starts = sorted({d.span.start_row for d in outline.decls} |
                    {h.span.start_row for h in outline.header})
    for blk in outline.blocks:
        if any(blk.first <= r <= blk.last for r in starts):
            continue
        if any(blk.first <= b and a <= blk.last for a, b in protected[-1:] if target):
            continue
        plan.elide(blk.first, blk.last, blk.indent, None)
    return plan


def _overloads(plan: _Plan, outline: Outline, lines: list[str], lineage: set[str],
               protected: list[tuple[int, int]]) -> None:
    """Overloads: bodiless declarations of one name (stubs), then the implementation. The
    implementation is shown; the stubs before it are one marker."""
    groups: dict[tuple[str, ...], list[Decl]] = {}
    for d in outline.decls:
        if d.kind in ("function", "method"):
            groups.setdefault((*d.parents, d.name), []).append(d)
    for decls in groups.values():
        stubs = all(d.body is None or d.body.last <= d.signature.end_row for d in decls[:-1])
        if len(decls) < 3 or not stubs or any(d.qualname in lineage for d in decls):
            continue
        first, last = decls[0].span.start_row, decls[-1].span.start_row - 1
        if any(a <= last and first <= b for a, b in protected) or any(
                first <= d.span.start_row <= last for d in outline.decls if d not in decls):
            continue
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        plan.elide(first, last, indent, decls[-1].qualname,
                   (f"{len(decls) - 1} overloads of {decls[-1].name}()",))


def _mark_errors(plan: _Plan, outline: Outline, lines: list[str], comment: str,
                 opts: SkeletonOptions) -> None:
    """Broken regions: a window of plain lines around each error, the rest elided."""
    n = len(lines)
    regions: dict[tuple[int, int, str, str | None], list[tuple[int, int]]] = {}
    key: tuple[int, int, str, str | None]
    for err in outline.errors:
        window = (max(0, err.start_row - opts.error_window),
                  min(n - 1, err.last_row + opts.error_window))
        owners = [d for d in outline.decls if d.body is not None and d.has_error
                  and d.span.start_row <= err.start_row <= d.span.last_row]
        if owners:
            d = min(owners, key=lambda d: d.span.last_row - d.span.start_row)
            assert d.body is not None
            key = (d.body.first, d.body.last, d.body.indent, d.qualname)
        else:
            key = (err.start_row, err.last_row, "", None)
        regions.setdefault(key, []).append(window)
    for (first, last, indent, symbol), windows in regions.items():
        start = first
        for a, b in sorted(windows):
            plan.show(a, b)
            plan.notes.setdefault(
                a, f"{comment} ctxls: parse error; lines {a + 1}-{b + 1} shown as plain text")
            if a > start:
                plan.elide(start, a - 1, indent, symbol, ("unparsed region",))
            start = max(start, b + 1)
        if start <= last:
            plan.elide(start, last, indent, symbol, ("unparsed region",))


def numbered(number: int, width: int, text: str) -> str:
    """``12 | text``, the line byte for byte after the bar (trailing blanks kept); an empty
    line is ``12 |``."""
    return f"{number:>{width}} | {text}" if text else f"{number:>{width}} |"


def _emit(plan: _Plan, lines: list[str], marker: str, numbers: bool) -> str:
    width = len(str(len(lines)))
    out: list[str] = []
    blank = " " * width
    for row, text in enumerate(lines):
        g = plan.marks[row]
        if row in plan.notes and g == SHOWN:
            out.append(f"{blank} | {plan.notes[row]}" if numbers else plan.notes[row])
        if g == SHOWN:
            out.append(numbered(row + 1, width, text) if numbers else text)
        elif row == 0 or plan.marks[row - 1] != g:
            indent, el = plan.groups[g]
            names = f"; hides {', '.join(el.names)}" if el.names else ""
            line = indent + marker.format(count=el.last - el.first + 1, names=names)
            out.append(f"{blank} | {line}" if numbers else line)
    return "\n".join(out) + "\n"


def _result(plan: _Plan, lines: list[str], marker: str, mode: str, reason: str,
            opts: SkeletonOptions) -> Rendering:
    shown: list[tuple[int, int]] = []
    for row, g in enumerate(plan.marks):
        if g != SHOWN:
            continue
        if shown and shown[-1][1] == row - 1:
            shown[-1] = (shown[-1][0], row)
        else:
            shown.append((row, row))
    return Rendering(
        text=_emit(plan, lines, marker, opts.line_numbers),
        mode=mode,
        reason=reason,
        shown=tuple(shown),
        elided=tuple(sorted((el for _, el in plan.groups), key=lambda e: e.first)),
    )


def excerpt(lines: list[str], keep: list[tuple[int, int]], marker: str, opts: SkeletonOptions,
            mode: str = "fallback", reason: str = "",
            notes: dict[int, str] | None = None, edges: bool = True) -> Rendering:
    """Only the rows in ``keep``; every gap becomes one marker line (a one-line gap is
    shown: its marker would cost as much). ``edges=False`` drops the markers before the
    first and after the last row shown (in a window of many small excerpts, the line
    numbers already say where they are, and the two markers cost about as much as a
    signature line). Work is in proportion to the rows shown, not to the file: a window of
    a file of a million lines costs what a window of a small one does."""
    n = len(lines)
    segments: list[tuple[bool, int, int]] = []  # (shown, first, last), in file order
    start = 0

    def gap(first: int, last: int) -> None:
        last = min(last, n - 1)
        if last - first + 1 >= 2:
            segments.append((False, first, last))
        elif first <= last:
            segments.append((True, first, last))

    for a, b in sorted(keep):
        a, b = max(a, 0), min(b, n - 1)
        if a > start:
            gap(start, a - 1)
        if b >= max(a, start):
            segments.append((True, max(a, start), b))
        start = max(start, b + 1)
    if start < n:
        gap(start, n - 1)
    notes = notes or {}
    width = len(str(n))
    blank = " " * width
    numbers = opts.line_numbers
    out: list[str] = []
    shown: list[tuple[int, int]] = []
    elided: list[Elision] = []
    for is_shown, first, last in segments:
        if not is_shown:
            line = marker.format(count=last - first + 1, names="")
            out.append(f"{blank} | {line}" if numbers else line)
            elided.append(Elision(first, last, None, ()))
            continue
        if shown and shown[-1][1] == first - 1:
            shown[-1] = (shown[-1][0], last)
        else:
            shown.append((first, last))
        for row in range(first, last + 1):
            if row in notes:
                out.append(f"{blank} | {notes[row]}" if numbers else notes[row])
            text = lines[row]
            out.append(numbered(row + 1, width, text) if numbers else text)
    if not edges and shown and segments:
        out = out[1 if not segments[0][0] else 0 : -1 if not segments[-1][0] else None]
    return Rendering(text="\n".join(out) + "\n", mode=mode, reason=reason,
                     shown=tuple(shown), elided=tuple(elided))


def window(lines: list[str], center: int, marker: str, reason: str, opts: SkeletonOptions,
           keep: tuple[tuple[int, int], ...] = ()) -> Rendering:
    """A line window around ``center`` (plus ``keep``): the answer when parsing cannot help."""
    n = len(lines)
    lo = max(0, min(center - opts.fallback_lines // 2, n - opts.fallback_lines))
    hi = min(n - 1, lo + opts.fallback_lines - 1)
    return excerpt(lines, [(lo, hi), *keep], marker, opts, "fallback", reason)


def render(outline: Outline, lines: list[str], marker: str, comment: str,
           target: Decl | None = None, file_tokens: int | None = None,
           opts: SkeletonOptions = SkeletonOptions()) -> Rendering:
    """The skeleton of one file, or the whole file when a skeleton would not pay."""
    n = len(lines)
    if target is not None and target.has_error:
        header = tuple((h.span.start_row, h.span.last_row) for h in outline.header
                       if h.kind == "import")
        return window(lines, target.span.start_row, marker, "parse-error", opts, header)
    if n <= opts.whole_max_lines or (file_tokens is not None
                                     and file_tokens <= opts.whole_max_tokens):
        plan = _Plan(n, opts.min_elide_lines)
        why = f"short: {n} lines" + (f", {file_tokens} tokens" if file_tokens is not None else "")
        return _result(plan, lines, marker, "whole", why, opts)
    plan = _plan(outline, lines, target, opts)
    if outline.errors:
        _mark_errors(plan, outline, lines, comment, opts)
    elif plan.elided_rows < opts.flat_ratio * n:
        share = round(100 * plan.elided_rows / n)
        return _result(_Plan(n, 1), lines, marker, "whole",
                       f"flat: a skeleton would elide only {share}% of {n} lines", opts)
    reason = "target" if target is not None else "outline"
    if outline.errors:
        reason += f"; {len(outline.errors)} parse error(s) shown as line windows"
    return _result(plan, lines, marker, "skeleton", reason, opts)
