"""The types every context stage passes on (spec 08 §3): evidence, its renderings, logs.

An ``Evidence`` item is the spec's pool record (`id`, `source`, `kind`, `content`,
`provenance`) plus what the later stages need to act without reading files again: its role,
its handle (path, symbol, rows) and the renderings it can take, prepared when the pool was
assembled. Stages choose among renderings; none of them renders anything from scratch.
"""

from __future__ import annotations

import attrs

# spec 08 §3.1, closed
KINDS = frozenset({
    "source_code", "symbol", "retrieved_hit", "fault_entity", "changed_entity", "graph_edge",
    "config", "downstream_obligation", "plan_node", "acceptance_criteria", "patch", "error",
    "traceback", "tool_output", "test_output",
})
SOURCES = ("07", "05", "06", "04", "03", "patch", "live")  # pool priority, first wins
ROLES = ("target", "tests", "interfaces", "call_sites", "retrieved")  # seed 003, fill order
STABLE = "core"  # task, obligations, acceptance criteria: never evicted
TRANSIENT = "live"  # patch, errors, tracebacks, tool and test output
FAILING = ("test_output", "traceback", "error")  # live kinds that report a failure
# The live kinds whose freshest item is protected and ends the window. A review judges the
# patch itself, so under intent `review` the patch is one of them.
CRITICAL = {"review": (*FAILING, "patch")}


def critical(intent: str) -> tuple[str, ...]:
    return CRITICAL.get(intent, FAILING)


# Representations, richest first: a stage may only move an item down this list. For the
# target: `compact` is its skeleton without docstrings; `excerpt` its own lines with their
# lineage (imports, enclosing declarations, the same-file definitions it uses) and the
# first line of every sibling declaration; `focused` the same without the siblings.
LADDER = ("verbatim", "compact", "excerpt", "focused", "signature", "name", "pointer")


@attrs.frozen
class Text:
    """One way to show an item: its text and the original rows it shows verbatim."""

    text: str
    shown: tuple[tuple[int, int], ...] = ()  # 0-based inclusive rows of ``Evidence.path``


EMPTY = Text("")


@attrs.frozen
class Evidence:
    id: str  # E1, E2, ... in pool order; stable within one request
    source: str  # 03 | 04 | 05 | 06 | 07 | patch | live
    kind: str  # one of KINDS
    content: str  # the richest rendering's text, capped at 8 KB (spec §3.1)
    provenance: str  # where it came from and why, capped at 200 characters
    role: str  # one of ROLES, or STABLE / TRANSIENT
    relation: str  # what links it to the decision: target, dependency, caller, test, ...
    renderings: dict[str, Text] = attrs.field(factory=dict, eq=False)
    path: str | None = None
    symbol: str | None = None
    rows: tuple[int, int] | None = None  # the declaration's rows, for a readRange handle
    score: float | None = None  # a retriever's score
    key: str = ""  # identity of the fact it carries (dedup, §3.5)
    obligations: tuple[str, ...] = ()  # obligation ids that name it
    superseded: bool = False  # live history already falsified (rendered `omitted`)
    order: int = 0  # freshness of live items: higher is newer
    excluded_by: str = ""  # the policy rule that keeps this path out (seed 003)
    richest: str | None = None  # the richest rendering the policy allows (interface views)
    writable: bool = True  # false: the policy says the task must not modify this path

    def best(self, floor: str = "verbatim") -> str | None:
        """The richest rendering this item has, no richer than ``floor``."""
        for name in LADDER[LADDER.index(floor):] if floor in LADDER else (floor,):
            if name in self.renderings:
                return name
        return None


@attrs.frozen
class Decision:
    """A gate decision, logged for every pool item (spec §3.2)."""

    id: str
    decision: str  # admitted | rejected | residue | residue-admitted
    driver: str  # obligation | impact | live | core | residue | none
    reason: str


@attrs.frozen
class Step:
    """One budget step (spec §3.7): a reservation, a downgrade, an eviction."""

    step: str
    item: str | None
    detail: str
    tokens: int


@attrs.frozen
class Placed:
    """An item in the window: its chosen rendering, tier and place."""

    item: Evidence
    rendering: str
    placement: str = "middle"  # front | middle | back
    text: str = ""
    tokens: int = 0
    pointer_to: str | None = None  # a dedup pointer: the id rendered in its place
    was: str | None = None  # a pointer's own rendering, if its survivor stops showing it

    @property
    def view(self) -> Text:
        """The chosen rendering; empty for a dedup pointer (its header says it all)."""
        return self.item.renderings.get(self.rendering, EMPTY)
