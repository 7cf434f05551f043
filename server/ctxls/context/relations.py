"""What links an item to the decision, and everything that follows from it: one row each.

A relation says why an item is a candidate (the target, a definition the target uses, a
proven call site, a test, the live failure...). Its row holds every stage's rule for it:
the role whose budget it draws on, its default kind and source, the gate's driver and
reason, the rendering per kind, how strongly it holds a fact shared with another item
(dedup keeps the strongest), where it is placed, and its label in the window's text. A new
relation is a row here and a name in ``Relation``; no stage keeps a table of its own.
"""

from __future__ import annotations

from typing import Literal

import attrs

Relation = Literal[
    "task", "plan", "acceptance", "target", "obligation-target", "fields", "state",
    "dependency", "base", "import", "module-interface", "instead", "patches", "caller",
    "candidate-caller", "reference", "test", "module-test", "named-test", "setup", "digest",
    "live",
    "retrieved",
]
# The closed set of evidence kinds.
Kind = Literal[
    "source_code", "symbol", "retrieved_hit", "fault_entity", "changed_entity", "graph_edge",
    "config", "downstream_obligation", "plan_node", "acceptance_criteria", "patch", "error",
    "traceback", "tool_output", "test_output",
]
LiveKind = Literal["patch", "error", "traceback", "test_output", "tool_output"]
# Budget roles, in fill order; the stable core and the live state are outside them.
Role = Literal["core", "target", "tests", "interfaces", "call_sites", "retrieved", "live"]
# Representations, richest first (a stage may only move an item down this ladder); then the
# ones outside it: a digest line, an omitted item, a cut (window or tail) of a richer one.
# For the target, `compact` is its skeleton without docstrings, `excerpt` its own lines
# with their lineage and every sibling's first line, `focused` the same without siblings.
Rendering = Literal["verbatim", "compact", "excerpt", "focused", "signature", "name",
                    "pointer", "digest", "omitted", "truncated"]
Gate = Literal["obligation", "impact", "live", "retrieved", "reject"]
Placement = Literal["front", "middle", "back"]

LADDER: tuple[Rendering, ...] = ("verbatim", "compact", "excerpt", "focused", "signature",
                                 "name", "pointer")
ROLES: tuple[Role, ...] = ("target", "tests", "interfaces", "call_sites", "retrieved")
STABLE: Role = "core"  # task, obligations, acceptance criteria: never evicted
TRANSIENT: Role = "live"  # patch, errors, tracebacks, tool and test output
KINDS: frozenset[str] = frozenset(Kind.__args__)  # type: ignore[attr-defined]
LIVE_KINDS: tuple[LiveKind, ...] = LiveKind.__args__  # type: ignore[attr-defined]
FAILING: tuple[LiveKind, ...] = ("test_output", "traceback", "error")  # report a failure
SOURCES = ("07", "05", "06", "04", "03", "patch", "live")  # pool priority, first wins


@attrs.frozen
class Row:
    role: Role
    kind: Kind  # the kind an item of this relation has unless it says otherwise
    source: str  # likewise its source (one of SOURCES)
    gate: Gate
    reason: str  # the gate's reason
    rendering: dict[str, Rendering]  # by kind; a kind not listed is a table miss
    strength: int  # dedup: between two items carrying one fact, the lower keeps it
    placement: Placement
    rank: int  # order within the placement (stable: pool order within a rank)
    label: str  # in the item's header line
    whole_at_back: bool = False  # placed at the back when shown verbatim


def _row(role: Role, kind: Kind, source: str, gate: Gate, reason: str,
         rendering: Rendering | None, strength: int, placement: Placement, rank: int,
         label: str) -> Row:
    return Row(role, kind, source, gate, reason, {kind: rendering} if rendering else {},
               strength, placement, rank, label)


_LIVE_RENDERING: dict[str, Rendering] = {k: "verbatim" for k in LIVE_KINDS}

RELATIONS: dict[Relation, Row] = {
    # the stable core
    "task": _row("core", "plan_node", "07", "obligation", "the task the obligation serves",
                 "verbatim", 0, "front", 0, "task"),
    "plan": _row("core", "plan_node", "07", "obligation", "the current plan node",
                 "verbatim", 1, "front", 1, "current obligation"),
    "acceptance": _row("core", "acceptance_criteria", "07", "obligation",
                       "an acceptance criterion of the current obligation", "verbatim", 2,
                       "front", 2, "acceptance criteria"),
    # the target and what it cannot be understood without
    "target": _row("target", "changed_entity", "05", "obligation", "the entity being edited",
                   "verbatim", 3, "front", 3, "target"),
    "obligation-target": _row("target", "changed_entity", "07", "obligation",
                              "a target symbol the obligation names", "verbatim", 4, "front",
                              5, "obligation target"),
    "fields": _row("target", "symbol", "03", "obligation",
                   "the attributes the target's class keeps on self", "verbatim", 5, "front",
                   4, "attributes"),
    "state": _row("target", "symbol", "03", "obligation",
                  "mutates the attributes the target works on (intent `state`)", "verbatim",
                  6, "front", 6, "state"),
    # interfaces: definitions the target or its file uses
    "dependency": _row("interfaces", "symbol", "03", "obligation",
                       "a definition the target's body uses", "signature", 9, "front", 7,
                       "definition used"),
    "base": _row("interfaces", "symbol", "03", "obligation",
                 "a project class the target's class inherits from", "signature", 10,
                 "front", 8, "base class"),
    "import": _row("interfaces", "symbol", "03", "obligation",
                   "a definition the target's file imports (its header binds the name)",
                   "signature", 15, "middle", 1, "imported"),
    "module-interface": _row("interfaces", "symbol", "03", "obligation",
                             "a project module the target's file imports", "signature", 16,
                             "middle", 2, "interface"),
    "instead": _row("interfaces", "source_code", "03", "obligation",
                    "offered by the policy in place of an excluded file", "verbatim", 14,
                    "middle", 0, "instead of an excluded file"),
    "patches": _row("interfaces", "config", "03", "obligation",
                    "the local patches of a vendored package the target uses (PATCHES.md)",
                    "verbatim", 17, "middle", 3, "local patches"),
    # impact: who calls it, what tests it
    "caller": _row("call_sites", "graph_edge", "06", "impact",
                   "CalledBy: a proven call site of the target", "signature", 12, "middle", 4,
                   "call site"),
    "candidate-caller": _row("call_sites", "graph_edge", "06", "reject",
                             "same name, receiver of unknown type: not a proven call site "
                             "(counted in the impact digest)", None, 21, "middle", 10,
                             "candidate-caller"),
    "reference": _row("call_sites", "graph_edge", "06", "impact",
                      "a reference the rename must change (intent `rename`)", "name", 13,
                      "middle", 5, "reference"),
    "digest": _row("call_sites", "graph_edge", "06", "impact",
                   "the wider impact of the change, as counts", "digest", 20, "middle", 9,
                   "impact"),
    "test": _row("tests", "downstream_obligation", "06", "impact",
                 "PreserveObligation: a test that exercises the target", "name", 11, "middle",
                 6, "test"),
    "module-test": _row("tests", "downstream_obligation", "06", "impact",
                        "no test calls the target: its module's own test file shows how "
                        "this repository tests it", "name", 11, "middle", 6, "test"),
    # a test the decision reasons over is shown whole, at the back (see ``order``)
    "named-test": attrs.evolve(_row(
        "tests", "downstream_obligation", "06", "obligation", "a test the obligation names",
        "verbatim", 7, "middle", 10, "test"), whole_at_back=True),
    "setup": _row("tests", "downstream_obligation", "06", "impact",
                  "PreserveObligation: a file the test runner loads for those tests",
                  "signature", 18, "middle", 7, "setup"),
    # the live state and the agent's own retrieval
    "live": Row("live", "tool_output", "live", "live", "the current execution state",
                _LIVE_RENDERING, 8, "back", 0, "live"),
    "retrieved": _row("retrieved", "retrieved_hit", "04", "retrieved",
                      "retrieved, and structurally linked to the decision", "signature", 19,
                      "middle", 8, "retrieved"),
}

if set(RELATIONS) != set(Relation.__args__):  # type: ignore[attr-defined]
    raise AssertionError("every relation needs exactly one row")
