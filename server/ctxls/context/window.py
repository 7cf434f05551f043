"""``ctx/construct``: the context window for one decision about to be made.

Gather the candidates from the snapshot (``collect.py``), then run the pure pipeline
(``construct.build``: pool, gate, the optional ranking call, representation, dedup,
ordering, budget) and shape its outcome into the wire result: every window item with the
original ranges it shows, the gate and budget logs, and a handle for each omission.
"""

from __future__ import annotations

import os
import time

import attrs
from lsprotocol.types import Range

from ctxls import protocol as p
from ctxls.config import Options
from ctxls.context.collect import collect
from ctxls.context.compress import terms
from ctxls.context.construct import build
from ctxls.context.limits import DEFAULT_CEILING, MAX_ITEMS
from ctxls.context.model import Evidence, Text
from ctxls.context.page import render as render_page
from ctxls.context.rank import Ranked, RankingConfig, rank
from ctxls.context.relations import RELATIONS, ROLES
from ctxls.errors import InvalidParams
from ctxls.requests import search
from ctxls.snapshot import Snapshot, View
from ctxls.tokens import tokenizer
from ctxls.workspace import Workspace


def prepare(ws: Workspace, params: p.ConstructParams) -> p.ConstructParams:
    """A window filled from ctx/search needs the search index open."""
    if searches(params):
        search.open_index(ws)
    return params


def searches(params: p.ConstructParams) -> bool:
    """Whether the window reads the search index (so waits for its build)."""
    return bool(params.query and params.query.strip())


def construct(snap: Snapshot, params: p.ConstructParams) -> p.DecisionContext:
    start = time.perf_counter()
    encoding = params.encoding or snap.options.encoding
    count = tokenizer(encoding)
    got = collect(snap, params)
    collected = time.perf_counter()
    if params.ablate:
        got.items = ablated(got.items, params.ablate)
    # The request wins; then the repository's policy; then the defaults.
    policy = snap.policy(snap.locate(path=got.target.rsplit("::", 1)[0]).root)
    ceiling = params.ceiling or policy.first_turn_ceiling or DEFAULT_CEILING
    reservations = params.reservations
    if reservations is None and policy.roles:
        reservations = {**policy.reservations,
                        **{r: 0 for r in ROLES if r not in policy.roles}}
    params = attrs.evolve(params, ceiling=ceiling, reservations=reservations or None)
    config = ranking_config(snap.options)
    obligation = "\n".join([*(o.text for o in params.obligations[:1]),
                             *params.acceptance_criteria])
    question = (f"Which of these does the edit of {got.target} need?"
                + (f" Task: {params.task.strip().splitlines()[0]}"
                   if params.task.strip() else ""))

    def ranker(residue: list[Evidence]) -> Ranked:
        return rank(config, obligation, question, residue)

    built = build(got.items, intent=params.intent, ceiling=ceiling,
                  ranker=ranker if config is not None else None,
                  threshold=config.threshold if config is not None else 0.5,
                  reservations=params.reservations, count=count,
                  decision_terms=terms(params.task, got.target,
                                       *(o.text for o in params.obligations)),
                  exemplars=frozenset(got.exemplars),
                  buried="placement:edges" in params.ablate)

    built_at = time.perf_counter()

    def ranges(e: Evidence, text: Text) -> list[Range]:
        if e.path is None or not text.shown:
            return []
        v: View = snap.view_at(e.path)
        return [v.range(a, min(b, len(v.lines) - 1)) for a, b in text.shown
                if a < len(v.lines)]

    def uri(e: Evidence) -> str | None:
        return snap.locate(path=e.path).uri if e.path else None

    window = [p.WindowItem(
        id=w.item.id, role=w.item.role, relation=w.item.relation, kind=w.item.kind,
        source=w.item.source,
        rendering=w.rendering, placement=w.placement, uri=uri(w.item), path=w.item.path,
        symbol=w.item.symbol,
        shown=[] if w.pointer_to or w.rendering not in w.item.renderings
        else ranges(w.item, w.view),
        tokens=w.tokens, text=w.text, provenance=w.item.provenance,
        pointer_to=w.pointer_to, writable=w.item.writable) for w in built.outcome.window]
    by_id = {e.id: e for e in built.pool}
    gate_log = [p.GateEntry(d.id, d.decision, d.driver, d.reason, by_id[d.id].kind,
                            by_id[d.id].source, by_id[d.id].path, by_id[d.id].symbol)
                for d in built.gate_log]
    omitted = [p.OmittedItem(
        id=o.item.id, reason=why, kind=o.item.kind, path=o.item.path, symbol=o.item.symbol,
        start_line=o.item.rows[0] + 1 if o.item.rows and not o.item.symbol else None,
        end_line=o.item.rows[1] + 1 if o.item.rows and not o.item.symbol else None)
        for o, why in built.outcome.omitted]
    omitted += [p.OmittedItem(e.id, f"over the pool cap of {MAX_ITEMS} items", e.kind,
                              e.path, e.symbol, None, None) for e in built.queued]
    omitted += [p.OmittedItem(d.id, d.reason, by_id[d.id].kind, by_id[d.id].path,
                              by_id[d.id].symbol, None, None)
                for d in built.gate_log if d.decision == "rejected"]
    current = params.obligations[0] if params.obligations else None
    timings = {**got.timings, "pipeline": round((built_at - collected) * 1000, 1),
               "shape": round((time.perf_counter() - built_at) * 1000, 1),
               "total": round((time.perf_counter() - start) * 1000, 1)}
    return p.DecisionContext(
        task=params.task, acceptance_criteria=params.acceptance_criteria,
        current_obligation=current, target=got.target, intent=params.intent,
        window=window, text=built.outcome.text, token_count=built.outcome.tokens,
        ceiling=ceiling, encoding=encoding,
        budget_log=[p.BudgetEntry(s.step, s.item, s.detail, s.tokens)
                    for s in built.outcome.steps],
        gate_log=gate_log, omitted=omitted, flagged=built.outcome.flagged,
        table_misses=built.misses, notes=got.notes + snap.scan_notes(), complete=got.complete,
        ranking=p.RankingInfo(
            fired=bool(built.ranking and built.ranking.fired),
            reason=built.ranking.reason if built.ranking else (
                "no ranking endpoint configured" if config is None
                else "the residue is empty"),
            latency_ms=built.ranking.latency_ms if built.ranking else None,
            usage=built.ranking.usage if built.ranking else None),
        timings=timings)


def ablated(items: list[Evidence], flags: list[str]) -> list[Evidence]:
    """The pool without the evidence the flags name (see ``ConstructParams.ablate``)."""
    drop: dict[str, set[str]] = {"role": set(), "relation": set(), "source": set(),
                                 "rendering": set(), "placement": set()}
    for flag in flags:
        what, _, name = flag.partition(":")
        if what not in drop or not name or (what == "placement" and name != "edges"):
            raise InvalidParams(f"`ablate` entries are role:, relation:, source: or "
                                f"rendering: and a name, or placement:edges, not `{flag}`")
        drop[what].add(name)
    out = []
    for e in items:
        row = RELATIONS[e.relation]
        if row.role in drop["role"] or e.relation in drop["relation"] or (
                e.source in drop["source"]):
            continue
        kept = {k: t for k, t in e.renderings.items() if k not in drop["rendering"]}
        if kept != e.renderings:
            cheapest = min(e.renderings, key=lambda k: len(e.renderings[k].text))
            e = attrs.evolve(e, renderings=kept or {cheapest: e.renderings[cheapest]})
        out.append(e)
    return out


def page(snap: Snapshot, params: p.ConstructParams) -> p.PageResult:
    """``ctx/page``: the window of ``ctx/construct`` as the page editors preview."""
    ctx = construct(snap, params)
    return p.PageResult(html=render_page(ctx), target=ctx.target, token_count=ctx.token_count,
                        ceiling=ctx.ceiling, complete=ctx.complete)


def ranking_config(options: Options) -> RankingConfig | None:
    """From initializationOptions.ranking, else from CTXLS_RANKING_* variables; off
    unless both a base URL and a model are known."""
    r = options.ranking
    base = r.base_url if r else os.environ.get("CTXLS_RANKING_BASE_URL")
    model = r.model if r else os.environ.get("CTXLS_RANKING_MODEL")
    if not base or not model:
        return None
    return RankingConfig(base, model,
                         r.api_key_env if r else os.environ.get("CTXLS_RANKING_API_KEY_ENV"),
                         r.timeout_s if r else 20.0, r.threshold if r else 0.5)
