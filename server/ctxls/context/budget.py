"""(g) Token budgeting: roles, tiers, the eviction ladder.

Tokens are counted on the exact text the window will hold, headers and separators included.
The fill runs in protection order, and each step is logged:

1. the stable core (task, obligations, acceptance criteria) is placed first; if it alone is
   over the ceiling, supporting detail goes, then the task text is cut to a window and the
   result is flagged (the core is emitted alone);
2. the freshest failing live output is placed next, cut to its tail if it must be (under
   intent `review`, the freshest of the failures and the patch);
3. the roles fill in order with reservations (default shares target 25, tests 15,
   interfaces 10, call sites 8, retrieved 12) and unspent reservation flows down; an item
   that does not fit moves down its representation ladder (verbatim, excerpt, signature,
   name, pointer), a verbatim target is cut to its best sliding window, and what still does
   not fit is omitted with a handle; what the roles leave unspent then goes back to the
   omitted items (backfill) and lifts demoted ones back up their ladder (upgrade);
4. older live output is last: verbatim if it fits, else a pointer (masking, ladder step 1);
5. the composed text is counted whole; while it is over, the last supporting item is
   demoted or omitted.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from ctxls.context.compress import clip, sliding_window, tail
from ctxls.context.dedup import covers
from ctxls.context.limits import DEFAULT_SHARES, IRREDUCIBLE
from ctxls.context.model import Placed, Step, Text
from ctxls.context.relations import FAILING, LADDER, ROLES, STABLE, TRANSIENT, LiveKind, Role
from ctxls.tokens import Counter


@attrs.frozen
class Outcome:
    window: list[Placed]
    steps: list[Step]
    omitted: list[tuple[Placed, str]]  # (item at its best rendering, reason)
    text: str
    tokens: int
    flagged: bool  # the core alone did not fit: it was emitted alone


def header(p: Placed) -> str:
    e = p.item
    where = " :: ".join(x for x in (e.path, e.symbol) if x)
    label = e.label
    if p.pointer_to is not None:
        return f"### {e.id} = {p.pointer_to} ({where or label})\n"
    # The rendering is named only where the text does not show it (a cut or a listing).
    shown = "" if p.rendering in ("verbatim", "signature", "compact") else f" ({p.rendering})"
    return f"### {e.id} {label}{shown}" + (f": {where}" if where else "") + "\n"


def compose(p: Placed) -> str:
    if p.pointer_to is not None or (p.rendering == "pointer" and "pointer" not in \
            p.item.renderings):
        return header(p)
    return header(p) + p.view.text.rstrip("\n") + "\n"


def join(items: list[Placed]) -> str:
    return "\n".join(compose(p) for p in items)


def _role(p: Placed) -> Role:
    return p.item.role


def fit(items: list[Placed], ceiling: int, reservations: dict[str, int] | None,
        count: Counter, decision_terms: frozenset[str],
        critical: tuple[LiveKind, ...] = FAILING) -> Outcome:
    """``critical``: the live kinds whose freshest item is protected (step 2)."""
    steps: list[Step] = []
    omitted: list[tuple[Placed, str]] = []
    kept: dict[str, Placed] = {}

    def cost(p: Placed) -> int:
        return count(compose(p)) + 1  # the blank line between items

    def keep(p: Placed) -> int:
        c = cost(p)
        kept[p.item.id] = attrs.evolve(p, text=compose(p), tokens=c)
        return c

    # 1. stable core
    core = [p for p in items if _role(p) == STABLE]
    spent = sum(cost(p) for p in core)
    flagged = False
    if spent > ceiling:  # ladder step 3: supporting detail, last first; never the task
        for p in reversed([q for q in core if q.item.relation == "acceptance" or (
                q.item.relation == "plan" and q.item.key != "plan:current")]):
            if spent <= ceiling:
                break
            c = cost(p)
            spent -= c
            core.remove(p)
            omitted.append((p, "supporting detail trimmed: the stable core was over the "
                               "ceiling"))
            steps.append(Step("core:trim", p.item.id, "supporting detail of the core", -c))
    if spent > ceiling:
        flagged = True
        task = next((p for p in core if p.item.relation == "task"), core[0] if core else None)
        others = sum(cost(p) for p in core if p is not task)
        if task is not None:
            room = ceiling - others - count(header(task)) - 2
            cut = sliding_window(task.view, decision_terms, room, count,
                                 "[task text cut to fit the ceiling]")
            if cut is None or count(header(task) + cut.text) + 1 > ceiling - others:
                clipped = clip(task.view.text, room, count, "[task text cut to fit the ceiling]")
                cut = Text(clipped) if clipped is not None else None
            if cut is not None:
                task = attrs.evolve(task, rendering="truncated", item=attrs.evolve(
                    task.item, renderings={**task.item.renderings, "truncated": cut}))
                core = [task if p.item.id == task.item.id else p for p in core]
        while len(core) > 1 and sum(cost(q) for q in core) > ceiling:
            core.remove(next(q for q in reversed(core) if q is not task))
        steps.append(Step("core-only", None, "the stable core alone exceeds the ceiling: "
                          "emitted alone, flagged", sum(cost(p) for p in core)))
        for p in core:
            keep(p)
        for p in items:
            if p.item.id not in kept:
                omitted.append((p, "the stable core alone filled the ceiling"))
        window = [kept[p.item.id] for p in items if p.item.id in kept]
        text = join(window)
        while count(text) > ceiling and window:  # the BPE of the joined text, to the token
            last = window[-1]
            clipped = clip(last.view.text, last.tokens - (count(text) - ceiling) - count(
                header(last)) - 2, count, "[cut to fit the ceiling]")
            if clipped is None:
                window.pop()
            else:
                window[-1] = attrs.evolve(last, rendering="truncated", item=attrs.evolve(
                    last.item, renderings={**last.item.renderings,
                                           "truncated": Text(clipped)}))
                window[-1] = attrs.evolve(window[-1], text=compose(window[-1]),
                                          tokens=cost(window[-1]))
            text = join(window)
        return Outcome(window, steps, omitted, text, count(text), True)
    for p in core:
        keep(p)
    left = ceiling - spent

    # 2. the freshest failing output (or patch, in a review), protected; cut to its tail
    # when it must be
    live = [p for p in items if _role(p) == TRANSIENT and p.rendering != "omitted"]
    failing = [p for p in live if p.item.kind in critical]
    fresh = max(failing, key=lambda p: p.item.order) if failing else None
    if fresh is not None:
        cap = max(left // 4, min(left, 400))
        c = cost(fresh)
        if c > cap:
            cut = tail(fresh.view, cap - count(header(fresh)) - 2, count,
                       "[earlier lines of this output cut to fit]")
            if cut is not None:
                fresh = attrs.evolve(fresh, rendering="truncated", item=attrs.evolve(
                    fresh.item, renderings={**fresh.item.renderings, "truncated": cut}))
                steps.append(Step("transient:tail", fresh.item.id,
                                  f"freshest {fresh.item.kind.replace('_', ' ')} cut to its "
                                  f"last lines ({c} tokens over a cap of {cap})",
                                  cost(fresh) - c))
        if cost(fresh) <= left:
            left -= keep(fresh)
        else:
            omitted.append((fresh, "no room even for the tail of the freshest "
                                   f"{fresh.item.kind.replace('_', ' ')}"))

    # 3. roles, in order, with reservations; unspent reservation flows down
    pool_for_roles = left
    shares = {r: DEFAULT_SHARES[r] for r in ROLES}
    total_share = sum(shares.values())
    res = {r: (reservations[r] if reservations and r in reservations
               else pool_for_roles * shares[r] // total_share) for r in ROLES}
    steps.append(Step("reserve", None, ", ".join(f"{r} {res[r]}" for r in ROLES),
                      sum(res.values())))
    for i, role in enumerate(ROLES):
        if reservations and reservations.get(role) == 0:  # a role switched off (ablation)
            for p in (q for q in items if _role(q) == role):
                omitted.append((p, f"the `{role}` role has a zero reservation"))
            steps.append(Step("role-off", None, f"{role}: zero reservation", 0))
            continue
        later = sum(res[r] for r in ROLES[i + 1 :])
        allowance = min(left, max(res[role], left - later))
        used = 0
        for p in [q for q in items if _role(q) == role]:
            p = _restore(p, kept, steps)
            room = allowance - used
            got = _fit_item(p, room, count, decision_terms, steps, cost)
            if got is None:
                best = p
                reason = (f"no room in the `{role}` role ({allowance} tokens, {used} used)")
                richest = p.item.renderings.get(p.rendering)
                if richest is not None and len(richest.text.encode()) > IRREDUCIBLE and \
                        p.rendering in ("verbatim", "excerpt"):
                    reason += "; irreducible below 1 KB at its required rendering: flagged"
                omitted.append((best, reason))
                steps.append(Step("omit", p.item.id, reason, 0))
                continue
            used += keep(got)
        left -= used
        if used < allowance:
            steps.append(Step("flow", None, f"{role}: {allowance - used} unspent tokens flow "
                              "down", allowance - used))

    # 3b. what the roles left over goes back to what they had to leave out, in role order
    for p, why in list(omitted):
        if _role(p) not in ROLES or not why.startswith("no room in"):
            continue
        got = _fit_item(p, left, count, decision_terms, steps, cost)
        if got is not None:
            omitted.remove((p, why))
            left -= keep(got)
            steps.append(Step("backfill", p.item.id, f"placed at {got.rendering} with what the "
                              "roles left unspent", kept[p.item.id].tokens))

    # 3c. what is still unspent lifts demoted items back up their ladder, in role order
    for role in ROLES:
        for p in (q for q in items if _role(q) == role and q.pointer_to is None):
            now = kept.get(p.item.id)
            if now is None or now.rendering == p.rendering or left <= 0:
                continue
            got = _fit_item(p, left + now.tokens, count, decision_terms, [], cost)
            if got is None or _rank(got.rendering) >= _rank(now.rendering):
                continue
            left += now.tokens - keep(got)
            steps.append(Step("upgrade", p.item.id, f"{now.rendering} -> {got.rendering} with "
                              "what the roles left unspent",
                              kept[p.item.id].tokens - now.tokens))
    for p in items:  # a pointer restored while its survivor was demoted can point again
        now = kept.get(p.item.id)
        if p.pointer_to is None or now is None or now.pointer_to is not None or \
                _restore(p, kept, []) is not p:
            continue
        left += now.tokens - keep(p)
        steps.append(Step("re-point", p.item.id, f"{p.pointer_to} shows its lines again",
                          kept[p.item.id].tokens - now.tokens))

    # 4. older live output: verbatim if it fits, else a pointer (masking)
    for p in sorted((q for q in live if fresh is None or q.item.id != fresh.item.id),
                    key=lambda q: -q.item.order):
        c = cost(p)
        if c <= left:
            left -= keep(p)
            continue
        masked = attrs.evolve(p, rendering="pointer")
        if "pointer" in p.item.renderings and cost(masked) <= left:
            steps.append(Step("transient:mask", p.item.id,
                              "older output replaced by a pointer", cost(masked) - c))
            left -= keep(masked)
        else:
            omitted.append((p, "older live output: no room even for a pointer"))
            steps.append(Step("omit", p.item.id, "older live output", 0))
    for p in items:
        if p.rendering == "omitted" and p.item.id not in kept:
            omitted.append((p, "superseded live history (omitted by the representation "
                               "table)"))

    # 5. count the whole text; shave supporting items while it is over
    window = [kept[p.item.id] for p in items if p.item.id in kept]
    text = join(window)
    total = count(text)
    while total > ceiling:
        victim = next((p for p in reversed(window) if p.placement == "middle"), None) or next(
            (p for p in reversed(window) if _role(p) not in (STABLE,)), None)
        if victim is None:
            break
        window.remove(victim)
        omitted.append((victim, "shaved: the composed window was over the ceiling"))
        steps.append(Step("shave", victim.item.id, "composed text over the ceiling",
                          -victim.tokens))
        text = join(window)
        total = count(text)
    return Outcome(window, steps, omitted, text, total, flagged)


def _rank(rendering: str) -> float:
    """Place on the ladder, richest first; a sliding window sits just above a signature."""
    return LADDER.index(rendering) if rendering in LADDER else LADDER.index("signature") - 0.5


def _restore(p: Placed, kept: dict[str, Placed], steps: list[Step]) -> Placed:
    """A dedup pointer whose survivor was demoted or left out shows its own lines again."""
    if p.pointer_to is None or p.was is None:
        return p
    survivor = kept.get(p.pointer_to)
    own = attrs.evolve(p, rendering=p.was, pointer_to=None, was=None)
    if survivor is not None and ((survivor.item.key == p.item.key and p.item.key)
                                 or covers(survivor, own)):
        return p
    steps.append(Step("restore", p.item.id, f"{p.pointer_to} no longer shows its lines at "
                      f"{survivor.rendering if survivor else 'all'}: shown on its own", 0))
    return own


def _fit_item(p: Placed, room: int, count: Counter, decision_terms: frozenset[str],
              steps: list[Step], cost: Callable[[Placed], int]) -> Placed | None:
    """``p`` at the richest rendering (no richer than its assigned one) that fits ``room``.
    A rendering is counted only until it passes the room (a 17,000-line file shown whole:
    75 ms to count), and a step from one counted so says how many tokens it saved at
    least."""
    if p.pointer_to is not None or p.rendering == "digest":
        return p if cost(p) <= room else None
    start = p.rendering if p.rendering in LADDER else "verbatim"
    first, exact = count.count_to(compose(p), room - 1)
    first_cost = first + 1  # (the blank line between items)
    if first_cost <= room:
        return p

    def step(kind: str, detail: str, q: Placed) -> None:
        if not exact:
            detail += f" (at least: {p.rendering} was counted only to {first} tokens)"
        steps.append(Step(kind, p.item.id, detail, cost(q) - first_cost))

    for name in LADDER[LADDER.index(start) + 1 :]:
        if name not in p.item.renderings:
            continue
        q = attrs.evolve(p, rendering=name)
        if p.item.relation == "target" and name in ("signature", "name", "pointer"):
            # Before the target loses its body, try its best window of lines.
            w = _window(p, room, count, decision_terms, cost)
            if w is not None:
                step("working-set:window", f"{p.rendering} -> sliding window of the lines "
                     "that overlap the task most", w)
                return w
        if count.count_to(compose(q), room - 1)[0] + 1 <= room:
            step("working-set:downgrade", f"{p.rendering} -> {name}", q)
            return q
    return None


def _window(p: Placed, room: int, count: Callable[[str], int],
            decision_terms: frozenset[str], cost: Callable[[Placed], int]) -> Placed | None:
    base: Text | None = (p.item.renderings.get("focused") or p.item.renderings.get("excerpt")
                         or p.item.renderings.get("verbatim"))
    if base is None:
        return None
    cut = sliding_window(base, decision_terms, room - count(header(p)) - 2, count,
                         "[a window of the lines that overlap the task most]")
    if cut is None:
        return None
    q = attrs.evolve(p, rendering="truncated", item=attrs.evolve(
        p.item, renderings={**p.item.renderings, "truncated": cut}))
    return q if cost(q) <= room else None
