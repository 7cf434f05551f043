"""(d) Structural compression, deterministic.

Signatures over bodies is the representation table's job; this module holds the two
line-level reductions the budgeter applies when an item is still too big for its room:
the sliding window (the contiguous lines that overlap most with the decision's terms) and
the tail (the last lines of a failing output, where the assertion and the exception are).
Texts keep their original line numbers, so the rows a reduced text shows are read back
from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ctxls.context.model import Text

NUMBERED = re.compile(r"^\s*(\d+) \| ")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# (compiled here, not by the first window: a server's first request compiled a dozen)
PARTS = re.compile(r"_|(?<=[a-z])(?=[A-Z])")


def terms(*texts: str) -> frozenset[str]:
    """The decision's terms: identifiers and their snake/camel parts, lower-cased."""
    out: set[str] = set()
    for text in texts:
        for w in WORD.findall(text):
            out.add(w.lower())
            out.update(p.lower() for p in PARTS.split(w) if len(p) > 2)
    return frozenset(out)


def rows_of(lines: list[str]) -> tuple[tuple[int, int], ...]:
    """The original rows a numbered text shows, as inclusive ranges."""
    rows = [int(m.group(1)) - 1 for line in lines if (m := NUMBERED.match(line))]
    out: list[tuple[int, int]] = []
    for r in rows:
        if out and r == out[-1][1] + 1:
            out[-1] = (out[-1][0], r)
        else:
            out.append((r, r))
    return tuple(out)


def sliding_window(text: Text, decision_terms: frozenset[str], budget: int,
                   count: Callable[[str], int], note: str) -> Text | None:
    """The contiguous run of lines with the most decision-term overlap that fits ``budget``
    tokens (ties: the earliest), after a one-line note saying what was cut."""
    lines = text.text.splitlines()
    head = f"{note}\n"
    room = budget - count(head)
    if room <= 0 or not lines:
        return None
    cost = [count(line + "\n") for line in lines]
    score = [len(decision_terms & terms(line)) for line in lines]
    best: tuple[int, int, int] | None = None  # (score, length, -start): more terms, longer
    span = (0, 0)
    lo, used, got = 0, 0, 0
    for hi in range(len(lines)):
        used += cost[hi]
        got += score[hi]
        while used > room and lo <= hi:
            used -= cost[lo]
            got -= score[lo]
            lo += 1
        if lo <= hi and (best is None or (got, hi - lo, -lo) > best):
            best = (got, hi - lo, -lo)
            span = (lo, hi)
    if best is None:
        return None
    start, end = span
    kept = lines[start : end + 1]
    return Text(head + "\n".join(kept) + "\n", rows_of(kept))


def tail(text: Text, budget: int, count: Callable[[str], int], note: str) -> Text | None:
    """The last lines that fit: where a traceback or a test run states what failed."""
    lines = text.text.splitlines()
    head = f"{note}\n"
    room = budget - count(head)
    kept: list[str] = []
    for line in reversed(lines):
        c = count(line + "\n")
        if c > room:
            break
        room -= c
        kept.append(line)
    if not kept:
        return None
    kept.reverse()
    return Text(head + "\n".join(kept) + "\n", rows_of(kept))


def clip(text: str, budget: int, count: Callable[[str], int], note: str) -> str | None:
    """The longest prefix of ``text`` that fits ``budget`` tokens with ``note`` after it: the
    last resort for one line too long for any window (a pasted task, a minified file)."""
    tail_note = f"\n{note}\n"
    if count(tail_note) > budget:
        return None
    lo, hi = 0, len(text)
    while lo < hi:  # binary search on characters; token counts grow with the prefix
        mid = (lo + hi + 1) // 2
        if count(text[:mid] + tail_note) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + tail_note
