"""The window's pipeline, stage after stage: pool → gate → residue → representation →
dedup → order → budget. Pure: candidates and settings in, an ``Outcome`` and logs out.
Gathering the candidates from the index is ``collect.py``'s job."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from ctxls.context import budget, dedup, gate, order, pool, render
from ctxls.context.limits import DEFAULT_SHARES
from ctxls.context.model import Decision, Evidence, Placed, critical
from ctxls.context.rank import Ranked
from ctxls.context.relations import FAILING
from ctxls.tokens import Counter


@attrs.frozen
class Built:
    outcome: budget.Outcome
    gate_log: list[Decision]
    pool: list[Evidence]
    queued: list[Evidence]  # over the pool cap
    misses: list[str]  # representation-table misses
    pointers: list[tuple[str, str]]  # dedup: (duplicate, survivor)
    ranking: Ranked | None  # the one model call, when a ranker was given


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
          reservations: dict[str, int] | None, count: Counter,
          decision_terms: frozenset[str], exemplars: frozenset[str] = frozenset(),
          ranker: Callable[[list[Evidence]], Ranked] | None = None,
          threshold: float = 0.5, buried: bool = False) -> Built:
    """Pure but for ``ranker``, the one model call, injected. ``buried``: the ordering's
    probe (``order.bury``)."""
    items, queued = pool.assemble(candidates)
    admitted, residue, log = gate.admit(items)
    room = (reservations or {}).get("retrieved", DEFAULT_SHARES["retrieved"])
    ranked = ranker(residue) if ranker is not None and residue else None
    if ranked is not None and (ranked.fired or ranked.scores is not None
                               or "over" in ranked.reason):
        extra, settled = _by_ranking(residue, ranked, threshold)
    else:
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
    placed = order.place(placed, critical(intent))
    outcome = budget.fit(placed, ceiling, reservations, count, decision_terms,
                         critical(intent))
    if buried:
        window = order.bury(outcome.window)
        while window and count(budget.join(window)) > ceiling:  # a BPE merge at a new seam
            window.pop(next(i for i in range(len(window) - 1, -1, -1)
                            if window[i].item.role != "target"))
        text = budget.join(window)
        outcome = attrs.evolve(outcome, window=window, text=text, tokens=count(text))
    return Built(outcome, log, items, queued, sorted(set(misses)), pointers, ranked)


def _by_ranking(residue: list[Evidence], ranked: Ranked, threshold: float
                ) -> tuple[list[Evidence], list[Decision]]:
    """Scores at or over the threshold travel on like any admitted item; a failed or
    refused call rejects the whole residue (no retry)."""
    if ranked.scores is None:
        return [], [Decision(e.id, "rejected", "ranking", f"ranking call: {ranked.reason}; "
                             "the whole residue is rejected") for e in residue]
    keep = [e for e in residue if ranked.scores.get(e.id, -1.0) >= threshold]
    keep.sort(key=lambda e: -ranked.scores[e.id] if ranked.scores else 0.0)
    out = []
    for e in residue:
        score = ranked.scores.get(e.id)
        if score is None:
            out.append(Decision(e.id, "rejected", "ranking", "not ranked by the model"))
        elif score >= threshold:
            out.append(Decision(e.id, "residue-admitted", "ranking",
                                f"ranked {score:g} >= threshold {threshold:g}"))
        else:
            out.append(Decision(e.id, "rejected", "ranking",
                                f"ranked {score:g} < threshold {threshold:g}"))
    return [attrs.evolve(e, score=ranked.scores[e.id]) for e in keep], out
