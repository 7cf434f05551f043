"""(c) Representation choice: each item's rendering from its relation's row, by its kind.

Intent adjusts the table: a rename needs the whole reference list, not bodies; a change to
state needs every method that mutates the same attributes, the constructor and the tests in
full. A test the decision reasons over is shown whole.
"""

from __future__ import annotations

from ctxls.context.model import Evidence
from ctxls.context.relations import LADDER, RELATIONS, Rendering


def choose(item: Evidence, intent: str, reasoned: frozenset[str]) -> tuple[Rendering, bool]:
    """(rendering, table miss). ``reasoned``: keys of tests the decision reasons over (named
    by an obligation, failing in the live output, or the one exemplar of the test style)."""
    if item.superseded:
        return "omitted", False
    if item.kind == "downstream_obligation" and item.key in reasoned:
        return "verbatim", False
    if intent == "rename" and item.relation == "target":
        return "signature", False  # the reference list carries a rename, not the body
    if intent == "state" and item.relation in ("test", "module-test"):
        return "verbatim", False
    found = RELATIONS[item.relation].rendering.get(item.kind)
    miss = found is None
    wanted: Rendering = found or "signature"  # a miss: the cheapest safe default, logged
    if wanted in ("digest", "omitted"):
        return wanted, miss
    if item.richest is not None and wanted in LADDER and item.richest in LADDER and \
            LADDER.index(wanted) < LADDER.index(item.richest):
        wanted = item.richest  # the policy shows this path as an interface, or as names
    return item.best(wanted) or item.best("pointer") or "omitted", miss
