"""(e) Deduplication: one rendering per fact, pointers for the rest.

Identity is the fact, not the id: the same definition reached two ways, the same failure
reported twice, a symbol that is both the target and a dependency, a definition whose lines
another item already shows verbatim. The survivor is the item in the strongest role; it
inherits the others' obligations. Runs before ordering and budgeting, so the budget never
pays twice for one fact.
"""

from __future__ import annotations

import attrs

from ctxls.context.model import Placed
from ctxls.context.relations import FAILING, RELATIONS


def _strength(p: Placed) -> tuple[int, int, int]:
    """Role first; between two reports of the same live output, a failure over other
    output, then the freshest (the one that ends the window is the one that survives)."""
    r = p.item.relation
    live = (-int(p.item.kind in FAILING), -p.item.order) if r == "live" else (0, 0)
    return (RELATIONS[r].strength, *live)


def covers(outer: Placed, inner: Placed) -> bool:
    """``outer`` already shows verbatim every line ``inner`` would show."""
    if (outer.item.path is None or outer.item.path != inner.item.path
            or outer.rendering in ("name", "pointer", "digest")
            or inner.rendering in ("name", "pointer", "digest", "omitted")):
        return False
    rows = inner.view.shown
    return bool(rows) and all(any(x <= a and b <= y for x, y in outer.view.shown)
                              for a, b in rows)


def collapse(items: list[Placed]) -> tuple[list[Placed], list[tuple[str, str]]]:
    """(items with duplicates turned into pointers, [(duplicate id, survivor id)])."""
    ranked = sorted(range(len(items)), key=lambda i: (_strength(items[i]), i))
    survivors: list[int] = []
    out = list(items)
    pairs: list[tuple[str, str]] = []
    for i in ranked:
        p = items[i]
        if p.rendering == "omitted":
            continue
        same = next((j for j in survivors
                     if (p.item.key and items[j].item.key == p.item.key)
                     or covers(items[j], p)), None)
        if same is None:
            survivors.append(i)
            continue
        keep = out[same]
        merged = tuple(dict.fromkeys(keep.item.obligations + p.item.obligations))
        out[same] = attrs.evolve(keep, item=attrs.evolve(keep.item, obligations=merged))
        out[i] = attrs.evolve(p, rendering="pointer", pointer_to=keep.item.id, was=p.rendering)
        pairs.append((p.item.id, keep.item.id))
    return out, pairs
