"""``ctx/search``: BM25 over the symbol chunks of every indexed file, and its index's upkeep.

The index (``index/search.py``, SQLite FTS5) lives on disk beside the reference index when
the index persists, so a restart has it at once. The server builds it after the scan, a few
files at a time between requests (``refresh`` with a limit); a search first folds in every
file whose content hash changed since (``refresh`` without one), then queries.

With a shared index connected, the commit's files are searched in the database and only
the sidecar's own files (changed, untracked) are kept in the local index; the two are
ranked by one BM25 (``index/shared.py``). When the database fails mid-search, the answer
comes from the local index and says so, and the next search indexes every file locally.
"""

from __future__ import annotations

import logging
import sqlite3

from ctxls import protocol as p
from ctxls.errors import InvalidParams
from ctxls.index.chunks import Chunk
from ctxls.index.pgstore import StoreError
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
    found, lost, files = _hits(snap, params.query, max(1, min(params.limit, 200)))
    notes = snap.scan_notes()
    if lost is not None:
        notes.append(f"incomplete: the shared index was lost ({lost}); only this server's "
                     "own files were searched, and the next search indexes every file here")
    return p.SearchResult(params.query, [
        p.SearchHit(h.chunk_id, snap.locate(path=h.path).uri, h.path, h.symbol, h.kind,
                    h.granularity, round(h.score, 4)) for h in found],
        len(index.digests) if files is None else files,
        complete=snap.indexed and lost is None, notes=notes)


def hits(snap: Snapshot, query: str, limit: int) -> list[Hit]:
    return _hits(snap, query, limit)[0]


def _hits(snap: Snapshot, query: str, limit: int
          ) -> tuple[list[Hit], str | None, int | None]:
    """The hits, why the shared index failed if it did, and the files searched when the
    shared index was."""
    shared = snap.shared
    lost = None
    if shared is not None and shared.state == "connected" and shared.roots:
        mine = [e for _, e in snap.entries() if _searchable(e)]
        if shared.searchable(len(shared.split(mine)[1])):
            def chunks_of(e: FileEntry) -> list[Chunk] | None:
                found = file_chunks(snap, e.abspath, None)
                return found[1] if found is not None else None

            try:
                return shared.search(query, limit, mine, chunks_of), None, len(mine)
            except StoreError as exc:
                lost = str(exc)
    index = snap.search
    return (index.search(query, limit) if index is not None else []), lost, None


def _scope(ws: Workspace) -> set[str] | None:
    """The files the local index must hold: None for every file; with a shared index
    searched in the database, only this server's own."""
    shared = ws.shared
    if shared is None or shared.state != "connected" or not shared.roots:
        return None
    mine = shared.split(e for e in ws.entries.values() if _searchable(e))[1]
    return {e.abspath for e in mine} if shared.searchable(len(mine)) else None


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
        scope = _scope(ws)
        wanted = {k: e for k, e in ws.entries.items()
                  if _searchable(e) and (scope is None or k in scope)}
        live = {e.path for e in wanted.values()}
        for gone in set(index.digests) - live:
            index.forget(gone)
        ws.search_queue = sorted(k for k, e in wanted.items()
                                 if index.digests.get(e.path) != e.digest)
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
