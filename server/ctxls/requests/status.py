"""``ctx/status`` (how far the index is, what was skipped and why) and ``ctx/recordOutcome``
(an agent's run result, appended to the log under ``.agent/``)."""

from __future__ import annotations

from ctxls import agentlog
from ctxls import protocol as p
from ctxls.errors import InvalidParams
from ctxls.snapshot import Snapshot

# files listed in `skipped` at most (the first by path; `skippedCount` counts them all): a
# monorepo's test fixtures hold thousands with parse errors on purpose, and a client that
# polls the status got them all every time
MAX_SKIPPED = 200


def status(snap: Snapshot, params: p.StatusParams) -> p.StatusResult:
    entries = [e for _, e in snap.entries()]
    skipped = [e for e in entries
               if e.status != "ok" or e.non_utf8 or (e.tables and e.tables.errors)]
    shown = sorted(skipped, key=lambda e: e.path)[:MAX_SKIPPED]
    return p.StatusResult(
        roots=[r.as_uri() for r in snap.roots], scanning=snap.scanning,
        files=max(snap.planned, len(entries)),
        indexed=sum(1 for e in entries if e.tables is not None),
        skipped=[p.SkippedFile(e.path, ", ".join(e.notes)) for e in shown],
        skipped_count=len(skipped), encoding=snap.options.encoding,
        from_cache=snap.from_cache, cache=snap.cache,
        search_indexed=len(snap.search.digests) if snap.search else 0,
        search_ready=snap.search_ready, reindexing=snap.pending, reindexed=snap.reindexed,
        from_store=snap.from_store, indexed_locally=snap.indexed_locally, store=_store(snap))


def _store(snap: Snapshot) -> p.StoreStatus | None:
    if snap.shared is None:
        return None
    r = snap.shared.report()
    return p.StoreStatus(r.location, r.state, r.reason, r.repository, r.commit, r.local_paths)


def record_outcome(snap: Snapshot, params: p.OutcomeParams) -> p.OutcomeResult:
    if not params.run_id.strip():
        raise InvalidParams("`runId` is empty")
    log = snap.options.context_log
    logged = False
    for root in snap.roots:
        logged = agentlog.append(root, log, {"event": "outcome", "runId": params.run_id,
                                             "success": params.success}) or logged
    return p.OutcomeResult(logged, log if logged else None)
