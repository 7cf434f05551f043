"""(b) The hard relevance gate (spec 08 §3.2): admitted, residue, or rejected, with a driver.

An item is admitted iff an obligation needs it (the target, its dependencies, the named
tests, the acceptance criteria, the plan itself) or it is a direct consequence of the change
(a proven call site, a test that exercises the target, the conftest.py pytest injects for
it). The live failing state is what the obligation must fix, so it is admitted too. A
retriever's hit that is none of these is residue: semantically near, structurally unlinked.
Everything else is rejected. No model runs here.
"""

from __future__ import annotations

import attrs

from ctxls.context.model import SOURCES, Decision, Evidence

MAX_ADMITTED = 64

OBLIGATION = {
    "plan": "the current plan node",
    "acceptance": "an acceptance criterion of the current obligation",
    "task": "the task the obligation serves",
    "target": "the entity being edited",
    "obligation-target": "a target symbol the obligation names",
    "named-test": "a test the obligation names",
    "dependency": "a definition the target's body uses",
    "module-interface": "a project module the target's file imports",
    "import": "a definition the target's file imports (its header binds the name)",
    "base": "a project class the target's class inherits from",
    "fields": "the attributes the target's class keeps on self",
    "instead": "offered by the policy in place of an excluded file",
    "patches": "the local patches of a vendored package the target uses (PATCHES.md)",
    "state": "mutates the attributes the target works on (intent `state`)",
}
IMPACT = {
    "caller": "CalledBy: a proven call site of the target",
    "reference": "a reference the rename must change (intent `rename`)",
    "test": "PreserveObligation: a test that exercises the target",
    "conftest": "PreserveObligation: conftest.py that pytest injects for those tests",
    "digest": "the wider impact of the change, as counts",
}
REJECT = {
    "candidate-caller": "same name, receiver of unknown type: not a proven call site "
                        "(counted in the impact digest)",
}


def admit(pool: list[Evidence]) -> tuple[list[Evidence], list[Evidence], list[Decision]]:
    """(admitted, residue, log). Over 64 admitted, the lowest source priority goes."""
    admitted: list[Evidence] = []
    residue: list[Evidence] = []
    log: list[Decision] = []
    linked = {e.key for e in pool if e.key and e.relation not in ("retrieved",)
              and e.relation not in REJECT}
    for e in pool:
        if e.excluded_by:
            log.append(Decision(e.id, "rejected", "policy", f"excluded by {e.excluded_by}"))
        elif e.relation in OBLIGATION:
            admitted.append(e)
            log.append(Decision(e.id, "admitted", "obligation", OBLIGATION[e.relation]))
        elif e.relation in IMPACT:
            admitted.append(e)
            log.append(Decision(e.id, "admitted", "impact", IMPACT[e.relation]))
        elif e.relation == "live":
            admitted.append(e)
            log.append(Decision(e.id, "admitted", "live", "the current execution state"))
        elif e.relation == "retrieved" and e.key in linked:
            admitted.append(e)
            log.append(Decision(e.id, "admitted", "obligation",
                                "retrieved, and structurally linked to the decision"))
        elif e.relation == "retrieved":
            residue.append(e)
            log.append(Decision(e.id, "residue", "none",
                                "retrieved but linked by no obligation or impact edge"))
        else:
            log.append(Decision(e.id, "rejected", "none",
                                REJECT.get(e.relation, f"no driver reaches `{e.relation}`")))
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
