"""(b) The hard relevance gate: admitted, residue, or rejected, with a driver.

An item is admitted iff an obligation needs it (the target, its dependencies, the named
tests, the acceptance criteria, the plan itself) or it is a direct consequence of the change
(a proven call site, a test that exercises the target, a file the test runner loads for
it). The live failing state is what the obligation must fix, so it is admitted too. A
retriever's hit that is none of these is residue: semantically near, structurally unlinked.
Everything else is rejected. No model runs here. Each relation's driver and reason are its
row in ``relations.py``.
"""

from __future__ import annotations

import attrs

from ctxls.context.limits import MAX_ADMITTED
from ctxls.context.model import Decision, Evidence
from ctxls.context.relations import RELATIONS, SOURCES


def admit(pool: list[Evidence]) -> tuple[list[Evidence], list[Evidence], list[Decision]]:
    """(admitted, residue, log). Over 64 admitted, the lowest source priority goes."""
    admitted: list[Evidence] = []
    residue: list[Evidence] = []
    log: list[Decision] = []
    linked = {e.key for e in pool
              if e.key and RELATIONS[e.relation].gate not in ("retrieved", "reject")}
    for e in pool:
        row = RELATIONS[e.relation]
        if e.excluded_by:
            log.append(Decision(e.id, "rejected", "policy", f"excluded by {e.excluded_by}"))
        elif row.gate in ("obligation", "impact", "live"):
            admitted.append(e)
            log.append(Decision(e.id, "admitted", row.gate, row.reason))
        elif row.gate == "retrieved" and e.key in linked:
            admitted.append(e)
            log.append(Decision(e.id, "admitted", "obligation", row.reason))
        elif row.gate == "retrieved":
            residue.append(e)
            log.append(Decision(e.id, "residue", "none",
                                "retrieved but linked by no obligation or impact edge"))
        else:
            log.append(Decision(e.id, "rejected", "none", row.reason))
    if len(admitted) > MAX_ADMITTED:
        rank = {s: i for i, s in enumerate(SOURCES)}
        order = sorted(range(len(admitted)),
                       key=lambda i: (rank.get(admitted[i].source, len(rank)), i))
        cut = {admitted[i].id for i in order[MAX_ADMITTED:]}
        admitted = [e for e in admitted if e.id not in cut]
        log = [attrs.evolve(d, decision="rejected",
                            reason=f"over the cap of {MAX_ADMITTED} admitted items "
                                   f"(lowest source priority); was: {d.reason}")
               if d.id in cut else d for d in log]
    return admitted, residue, log


def settle_residue(residue: list[Evidence], retrieved_reservation: int
                   ) -> tuple[list[Evidence], list[Decision]]:
    """Without the ranking call: the residue enters the `retrieved` role by retriever score
    when that role has a reservation, and is rejected otherwise."""
    if retrieved_reservation <= 0:
        return [], [Decision(e.id, "rejected", "residue",
                             "residue, and the `retrieved` role has no reservation")
                    for e in residue]
    ranked = sorted(residue, key=lambda e: -(e.score or 0.0))
    return ranked, [Decision(e.id, "residue-admitted", "residue",
                             f"retriever score {e.score if e.score is not None else 'none'}; "
                             "no ranking call configured")
                    for e in ranked]
