"""(f) Ordering (spec 08 §3.6): critical content at the edges, supporting in the middle.

Front: the stable core (task, current obligation, acceptance criteria), then the target
with its insertion point, then the critical definitions it uses. Back: the tests the
decision reasons over, then the live state, the freshest failing output last of all.
Middle: everything supporting (interfaces, call sites, test names, retrieved, the digest).
"""

from __future__ import annotations

import attrs

from ctxls.context.model import FAILING, Placed

FRONT = ("task", "plan", "acceptance", "target", "fields", "obligation-target", "state",
         "dependency", "base")
MIDDLE = ("instead", "import", "module-interface", "patches", "caller", "reference", "test",
          "conftest", "retrieved", "digest")


def _front_rank(p: Placed) -> int:
    return FRONT.index(p.item.relation)


def place(items: list[Placed], critical: tuple[str, ...] = FAILING) -> list[Placed]:
    """``critical``: the live kinds whose freshest item ends the window."""

    def back_rank(p: Placed) -> tuple[int, int, int]:
        """Reasoned-over tests, then live items oldest first; the freshest failure (or what
        the intent makes critical) ends it."""
        if p.item.relation != "live":
            return (0, 0, 0)
        return (1, int(p.item.kind in critical), p.item.order)

    front, middle, back = [], [], []
    for p in items:
        if p.item.relation in FRONT:
            front.append(p)
        elif p.item.relation == "live" or (p.item.kind == "downstream_obligation"
                                            and p.rendering == "verbatim"
                                            and p.item.relation == "named-test"):
            back.append(p)
        else:
            middle.append(p)
    front.sort(key=_front_rank)  # stable: pool order within a rank
    middle.sort(key=lambda p: MIDDLE.index(p.item.relation) if p.item.relation in MIDDLE
                else len(MIDDLE))
    back.sort(key=back_rank)
    return ([attrs.evolve(p, placement="front") for p in front]
            + [attrs.evolve(p, placement="middle") for p in middle]
            + [attrs.evolve(p, placement="back") for p in back])
