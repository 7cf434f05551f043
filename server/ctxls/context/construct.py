"""The pipeline of spec 08 §3, stage after stage: pool → gate → residue → representation →
dedup → order → budget. Pure: candidates and settings in, an ``Outcome`` and logs out.
Gathering the candidates from the index is ``collect.py``'s job."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from ctxls.context import budget, dedup, gate, order, pool, render
from ctxls.context.model import Decision, Evidence, Placed

FAILING = ("test_output", "traceback", "error")


@attrs.frozen
class Built:
    outcome: budget.Outcome
    gate_log: list[Decision]
    pool: list[Evidence]
    queued: list[Evidence]  # over the pool cap
    misses: list[str]  # representation-table misses
    pointers: list[tuple[str, str]]  # dedup: (duplicate, survivor)


def reasoned_tests(items: list[Evidence], exemplars: frozenset[str]) -> frozenset[str]:
    """Keys of the tests the decision reasons over: named by an obligation, failing in the
    live output, or the exemplar that shows how this repository writes its tests."""
    failing = "\n".join(e.content for e in items if e.kind in FAILING and not e.superseded)
    out = set(exemplars)
    for e in items:
        if e.kind != "downstream_obligation" or not e.symbol:
            continue
        name = e.symbol.rsplit(".", 1)[-1]
        if e.relation == "named-test" or (failing and name in failing):
            out.add(e.key)
    return frozenset(out)


def build(candidates: list[Evidence], *, intent: str, ceiling: int,
          reservations: dict[str, int] | None, count: Callable[[str], int],
          decision_terms: frozenset[str], exemplars: frozenset[str] = frozenset()) -> Built:
    items, queued = pool.assemble(candidates)
    admitted, residue, log = gate.admit(items)
    room = (reservations or {}).get("retrieved", budget.DEFAULT_SHARES["retrieved"])
    extra, settled = gate.settle_residue(residue, room)
    decided = {d.id: d for d in settled}
    log = [decided.get(d.id, d) for d in log]
    admitted += extra
    reasoned = reasoned_tests(admitted, exemplars)
    placed: list[Placed] = []
    misses: list[str] = []
    for e in admitted:
        rendering, miss = render.choose(e, intent, reasoned)
        if miss:
            misses.append(f"{e.kind} x {e.relation}")
        placed.append(Placed(e, rendering))
    placed, pointers = dedup.collapse(placed)
    placed = order.place(placed)
    outcome = budget.fit(placed, ceiling, reservations, count, decision_terms)
    return Built(outcome, log, items, queued, sorted(set(misses)), pointers)
