"""(c) Representation choice (spec 08 §3.3): (kind × role) → rendering, from a fixed table.

The table is code, not prose. Intent adjusts it as seed 000 says: a rename needs the whole
reference list, not bodies; a change to state needs every method that mutates the same
attributes, the constructor and the tests in full.
"""

from __future__ import annotations

from ctxls.context.model import LADDER, Evidence

# (kind, relation) -> rendering. `relation` says which role-row of the spec's table applies.
TABLE: dict[tuple[str, str], str] = {
    ("changed_entity", "target"): "verbatim",  # the target and its insertion point
    ("changed_entity", "obligation-target"): "verbatim",
    ("plan_node", "plan"): "verbatim",
    ("plan_node", "task"): "verbatim",
    ("acceptance_criteria", "acceptance"): "verbatim",
    ("symbol", "dependency"): "signature",  # related symbols: signature + one-line doc
    ("symbol", "module-interface"): "signature",
    ("symbol", "import"): "signature",
    ("symbol", "state"): "verbatim",  # intent state: the mutating methods, in full
    ("symbol", "fields"): "verbatim",
    ("symbol", "base"): "signature",
    ("graph_edge", "caller"): "signature",  # signature + the call span only
    ("graph_edge", "reference"): "name",  # intent rename: one line per reference
    ("graph_edge", "digest"): "digest",
    ("downstream_obligation", "test"): "name",  # name + one-line expectation...
    ("downstream_obligation", "named-test"): "verbatim",  # ...unless reasoned over
    ("downstream_obligation", "conftest"): "signature",
    ("retrieved_hit", "retrieved"): "signature",
    ("patch", "live"): "verbatim",
    ("error", "live"): "verbatim",
    ("traceback", "live"): "verbatim",
    ("test_output", "live"): "verbatim",
    ("tool_output", "live"): "verbatim",
    ("source_code", "instead"): "verbatim",
    ("config", "patches"): "verbatim",
}


def choose(item: Evidence, intent: str, reasoned: frozenset[str]) -> tuple[str, bool]:
    """(rendering, table miss). ``reasoned``: keys of tests the decision reasons over (named
    by an obligation, failing in the live output, or the one exemplar of the test style)."""
    if item.superseded:
        return "omitted", False
    if item.kind == "downstream_obligation" and item.key in reasoned:
        return "verbatim", False
    if intent == "rename" and item.relation == "target":
        return "signature", False  # the reference list carries a rename, not the body
    if intent == "state" and item.kind == "downstream_obligation" and item.relation == "test":
        return "verbatim", False
    wanted = TABLE.get((item.kind, item.relation))
    miss = wanted is None
    if wanted is None:
        wanted = "signature"  # cheapest safe default, logged as a miss
    if wanted in ("digest", "omitted"):
        return wanted, miss
    if item.richest is not None and wanted in LADDER and item.richest in LADDER and \
            LADDER.index(wanted) < LADDER.index(item.richest):
        wanted = item.richest  # the policy shows this path as an interface, or as names
    return item.best(wanted) or item.best("pointer") or "omitted", miss
