"""The types every context stage passes on: evidence, its renderings, and the logs.

An ``Evidence`` item is a pool record (``id``, ``source``, ``kind``, ``content``,
``provenance``) plus what the later stages need to act without reading files again: its
relation to the decision (which fixes its role and every stage's rule for it, see
``relations.py``), its handle (path, symbol, rows) and the renderings it can take, prepared
when the pool was assembled. Stages choose among renderings; none renders from scratch.
"""

from __future__ import annotations

import attrs

from ctxls.context.relations import (
    FAILING,
    LADDER,
    RELATIONS,
    Kind,
    LiveKind,
    Placement,
    Relation,
    Rendering,
    Role,
)

# The live kinds whose freshest item is protected and ends the window. A review judges the
# patch itself, so under intent `review` the patch is one of them.
CRITICAL: dict[str, tuple[LiveKind, ...]] = {"review": (*FAILING, "patch")}


def critical(intent: str) -> tuple[LiveKind, ...]:
    return CRITICAL.get(intent, FAILING)


@attrs.frozen
class Text:
    """One way to show an item: its text and the original rows it shows verbatim."""

    text: str
    shown: tuple[tuple[int, int], ...] = ()  # 0-based inclusive rows of ``Evidence.path``


EMPTY = Text("")


@attrs.frozen(kw_only=True)
class Evidence:
    relation: Relation  # what links it to the decision
    provenance: str  # where it came from and why, capped at 200 characters
    renderings: dict[str, Text] = attrs.field(factory=dict, eq=False)
    kind: Kind = attrs.field()
    source: str = attrs.field()  # 03 | 04 | 05 | 06 | 07 | patch | live
    label: str = attrs.field()  # in its header line
    id: str = ""  # E1, E2, ... in pool order; stable within one request
    content: str = ""  # the richest rendering's text, capped at 8 KB
    path: str | None = None
    symbol: str | None = None
    rows: tuple[int, int] | None = None  # the declaration's rows, for a readRange handle
    score: float | None = None  # a retriever's score
    key: str = ""  # identity of the fact it carries (dedup)
    obligations: tuple[str, ...] = ()  # obligation ids that name it
    superseded: bool = False  # live history already falsified (rendered `omitted`)
    order: int = 0  # freshness of live items: higher is newer
    excluded_by: str = ""  # the policy rule that keeps this path out
    richest: Rendering | None = None  # the richest rendering the policy allows
    writable: bool = True  # false: the policy says the task must not modify this path

    @kind.default
    def _kind(self) -> Kind:
        return RELATIONS[self.relation].kind

    @source.default
    def _source(self) -> str:
        return RELATIONS[self.relation].source

    @label.default
    def _label(self) -> str:
        return self.kind.replace("_", " ") if self.relation == "live" \
            else RELATIONS[self.relation].label

    @property
    def role(self) -> Role:
        return RELATIONS[self.relation].role

    def best(self, floor: Rendering = "verbatim") -> Rendering | None:
        """The richest rendering this item has, no richer than ``floor``."""
        for name in LADDER[LADDER.index(floor):] if floor in LADDER else (floor,):
            if name in self.renderings:
                return name
        return None


@attrs.frozen
class Decision:
    """A gate decision, logged for every pool item."""

    id: str
    decision: str  # admitted | rejected | residue | residue-admitted
    driver: str  # obligation | impact | live | policy | residue | ranking | none
    reason: str


@attrs.frozen
class Step:
    """One budget step: a reservation, a downgrade, an eviction."""

    step: str
    item: str | None
    detail: str
    tokens: int


@attrs.frozen
class Placed:
    """An item in the window: its chosen rendering, tier and place."""

    item: Evidence
    rendering: Rendering
    placement: Placement = "middle"
    text: str = ""
    tokens: int = 0
    pointer_to: str | None = None  # a dedup pointer: the id rendered in its place
    was: Rendering | None = None  # a pointer's own rendering, if its survivor stops showing it

    @property
    def view(self) -> Text:
        """The chosen rendering; empty for a dedup pointer (its header says it all)."""
        return self.item.renderings.get(self.rendering, EMPTY)
