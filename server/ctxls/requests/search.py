"""``ctx/search``: BM25 over the symbol chunks of every indexed file, and its index's upkeep.

The index (``index/search.py``, SQLite FTS5) lives on disk beside the reference index when
the index persists, so a restart has it at once. The server builds it after the scan, a few
files at a time between requests (``refresh`` with a limit); a search first folds in every
file whose content hash changed since (``refresh`` without one), then queries.
"""

from __future__ import annotations

import logging
import sqlite3

from ctxls import protocol as p
from ctxls.errors import InvalidParams
from ctxls.index.scan import FileEntry
from ctxls.index.search import Hit, SearchIndex
from ctxls.requests.chunks import file_chunks
from ctxls.snapshot import Snapshot
from ctxls.workspace import Workspace

log = logging.getLogger("ctxls")


def search(snap: Snapshot, params: p.SearchParams) -> p.SearchResult:
    if not params.query.strip():
        raise InvalidParams("`query` is empty")
    index = snap.search
    assert index is not None, "refresh() runs before a search"
    found = hits(snap, params.query, max(1, min(params.limit, 200)))
    return p.SearchResult(params.query, [
        p.SearchHit(h.chunk_id, snap.locate(path=h.path).uri, h.path, h.symbol, h.kind,
                    h.granularity, round(h.score, 4)) for h in found], len(index.digests),
        complete=snap.indexed, notes=snap.scan_notes())


def hits(snap: Snapshot, query: str, limit: int) -> list[Hit]:
    index = snap.search
    return index.search(query, limit) if index is not None else []


def prepare(ws: Workspace, params: p.SearchParams) -> p.SearchParams:
    """Before a search: every file changed since the last one is folded in."""
    if params.query.strip():
        refresh(ws, None)
    return params


def refresh(ws: Workspace, limit: int | None) -> bool:
    """Bring the search index up to date, chunking at most ``limit`` stale files (all
    when None); True when it is current. Without a limit every file is looked at again,
    so edits made since the last call are folded in."""
    index = ws.search or _open(ws)
    ws.search = index
    if not index.current():  # the file was deleted under it: every file is stale again
        ws.search_queue = None
    if ws.search_queue is None or limit is None:
        live = {e.path for e in ws.entries.values() if _searchable(e)}
        for gone in set(index.digests) - live:
            index.forget(gone)
        ws.search_queue = sorted(k for k, e in ws.entries.items()
                                 if _searchable(e) and index.digests.get(e.path) != e.digest)
    queue = ws.search_queue
    n = len(queue) if limit is None else min(limit, len(queue))
    snap = ws.snapshot()
    for key in queue[:n]:
        e = ws.entries.get(key)
        if e is None or not _searchable(e):
            continue
        found = file_chunks(snap, key, None)
        if found is not None:
            index.put(e.path, e.digest, found[1])
    ws.absorb(snap)
    del queue[:n]
    if queue:
        return False
    ws.search_queue = None
    ws.search_ready = ws.search_ready or not ws.scanning
    return True


def _open(ws: Workspace) -> SearchIndex:
    """On disk beside the first root's reference index when the index persists."""
    store = next(iter(ws.stores.values()), None) if ws.options.persist else None
    if store is None:
        return SearchIndex()
    try:
        return SearchIndex(store.path.with_suffix(".search.sqlite"), store.fingerprint)
    except sqlite3.Error as exc:  # no cache is better than no search
        log.warning("search index in memory: %s", exc)
        return SearchIndex()


def _searchable(e: FileEntry) -> bool:
    return e.language is not None and e.status == "ok" and e.tables is not None
