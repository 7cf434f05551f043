"""(f) Ordering: critical content at the edges, supporting in the middle.

Front: the stable core (task, current obligation, acceptance criteria), then the target
with its insertion point, then the critical definitions it uses. Back: the tests the
decision reasons over, then the live state, the freshest failing output last of all.
Middle: everything supporting (interfaces, call sites, test names, retrieved, the digest).
"""

from __future__ import annotations

import attrs

from ctxls.context.model import Placed
from ctxls.context.relations import FAILING, RELATIONS, LiveKind


def place(items: list[Placed], critical: tuple[LiveKind, ...] = FAILING) -> list[Placed]:
    """``critical``: the live kinds whose freshest item ends the window."""

    def back_rank(p: Placed) -> tuple[int, int, int]:
        """Reasoned-over tests, then live items oldest first; the freshest failure (or what
        the intent makes critical) ends it."""
        if p.item.relation != "live":
            return (0, 0, 0)
        return (1, int(p.item.kind in critical), p.item.order)

    front, middle, back = [], [], []
    for p in items:
        row = RELATIONS[p.item.relation]
        if row.placement == "front":
            front.append(p)
        elif row.placement == "back" or (row.whole_at_back and p.rendering == "verbatim"):
            back.append(p)
        else:
            middle.append(p)
    # stable sorts: pool order within a rank
    front.sort(key=lambda p: RELATIONS[p.item.relation].rank)
    middle.sort(key=lambda p: RELATIONS[p.item.relation].rank)
    back.sort(key=back_rank)
    return ([attrs.evolve(p, placement="front") for p in front]
            + [attrs.evolve(p, placement="middle") for p in middle]
            + [attrs.evolve(p, placement="back") for p in back])


def bury(window: list[Placed]) -> list[Placed]:
    """The probe of the ordering: the same items with the edges' content moved to the
    middle of the supporting items (``ablate: ["placement:edges"]``), so that a check of
    where the target and its definitions sit has a window it must flag."""
    edges = [p for p in window if p.placement != "middle"]
    middle = [p for p in window if p.placement == "middle"]
    half = len(middle) // 2
    return [attrs.evolve(p, placement="middle") for p in middle[:half] + edges + middle[half:]]
