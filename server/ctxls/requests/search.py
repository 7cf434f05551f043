"""``ctx/search``: BM25 over the symbol chunks of every indexed file, and its index's upkeep.

The index (``index/search.py``, SQLite FTS5) lives on disk beside the reference index when
the index persists, so a restart has it at once. The engine builds it after the scan, a few
files at a time on a worker thread (``plan`` on the event loop, ``build`` off it), pausing
while requests are answered; a search waits for that build (at most `indexWait`), then
folds in the files changed since on its own thread and queries. Nothing here runs long on
the event loop: one bundled 900 KB file once held it (and every other request) 90 s.

With a shared index connected, the commit's files are searched in the database and only
the sidecar's own files (changed, untracked) are kept in the local index; the two are
ranked by one BM25 (``index/shared.py``). When the database fails mid-search, that search
indexes every file here (on its own thread) and answers from the local index, saying so.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from ctxls import protocol as p
from ctxls.errors import InvalidParams
from ctxls.index import chunks as chunks_module
from ctxls.index import search as search_module
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
    assert index is not None, "open_index() runs before a search"
    found, lost, files = _hits(snap, params.query, max(1, min(params.limit, 200)))
    notes = snap.scan_notes() + _build_notes(snap)
    if lost is not None:
        notes.append(f"the shared index was lost ({lost}); every file was indexed here for "
                     "this search and the next")
    return p.SearchResult(params.query, [
        p.SearchHit(h.chunk_id, snap.locate(path=h.path).uri, h.path, h.symbol, h.kind,
                    h.granularity, round(h.score, 4)) for h in found],
        len(index.digests) if files is None else files,
        complete=snap.indexed and snap.search_ready, notes=notes)


def hits(snap: Snapshot, query: str, limit: int) -> list[Hit]:
    """The best chunks for ``query``; once the index is built, files changed since are
    folded in first (on the request's own thread)."""
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
    if index is None:
        return [], lost, None
    if snap.search_ready:  # (after a loss: every file the local index lacks, now)
        build(snap, index, stale(snap, index), None)
    return index.search(query, limit), lost, None


def _scope(ws: Workspace) -> set[str] | None:
    """The files the local index must hold: None for every file; with a shared index
    searched in the database, only this server's own."""
    shared = ws.shared
    if shared is None or shared.state != "connected" or not shared.roots:
        return None
    mine = shared.split(e for e in ws.entries.values() if _searchable(e))[1]
    return {e.abspath for e in mine} if shared.searchable(len(mine)) else None


def _build_notes(snap: Snapshot) -> list[str]:
    if snap.search_ready or snap.search is None:
        return []
    files = sum(1 for _, e in snap.entries() if _searchable(e))
    return [f"incomplete: the search index holds {len(snap.search.digests):,} of {files:,} "
            "files; it is still being built"]


def open_index(ws: Workspace) -> SearchIndex:
    """The workspace's search index, opened on first use (on the event loop: cheap)."""
    if ws.search is None:
        ws.search = open_new(ws)
    return ws.search


def prepare(ws: Workspace, params: p.SearchParams) -> p.SearchParams:
    open_index(ws)
    return params


def plan(ws: Workspace) -> tuple[list[str], list[str]]:
    """(files to chunk into the index, paths it holds that are gone), on the event loop."""
    index = open_index(ws)
    if not index.current():  # the file was deleted under it: open it again, all stale
        ws.search = index = open_new(ws)
    live = {e.path for e in ws.entries.values() if _searchable(e)}
    gone = sorted(set(index.digests) - live)
    scope = _scope(ws)  # (with a shared index, only this server's own files are built)
    todo = sorted(k for k, e in ws.entries.items()
                  if _searchable(e) and (scope is None or k in scope)
                  and index.digests.get(e.path) != e.digest)
    return todo, gone


def stale(snap: Snapshot, index: SearchIndex) -> list[str]:
    """Files whose content hash is not the one the index holds (edited since)."""
    return [k for k, e in snap.entries()
            if _searchable(e) and index.digests.get(e.path) != e.digest]


def build(snap: Snapshot, index: SearchIndex, keys: list[str], budget_s: float | None,
          yield_to: Callable[[], bool] | None = None) -> int:
    """Chunk ``keys`` into the index, on a worker thread, until done, ``budget_s`` is spent
    or ``yield_to()`` says a request is waiting; how many were looked at."""
    end = None if budget_s is None else time.perf_counter() + budget_s
    n = 0
    for key in keys:
        if n and ((end is not None and time.perf_counter() > end)
                  or (yield_to is not None and yield_to())):
            break
        n += 1
        snap.check()
        e = snap.entry(key)
        if e is None or not _searchable(e) or index.digests.get(e.path) == e.digest:
            continue
        found = file_chunks(snap, key, None)
        if found is not None:
            index.put(e.path, e.digest, found[1])
    return n


def open_new(ws: Workspace) -> SearchIndex:
    """On disk beside the first root's reference index when the index persists."""
    store = next(iter(ws.stores.values()), None) if ws.options.persist else None
    if store is None:
        return SearchIndex()
    try:
        return SearchIndex(store.path.with_suffix(".search.sqlite"),
                           f"{store.fingerprint}:{_chunking()}")
    except sqlite3.Error as exc:  # no cache is better than no search
        log.warning("search index in memory: %s", exc)
        return SearchIndex()


@functools.cache
def _chunking() -> str:
    """What the stored chunks depend on besides the tables: how files are cut and indexed
    (a changed rule rebuilds the index rather than mixing old chunks with new)."""
    h = hashlib.blake2b(digest_size=8)
    for module in (chunks_module, search_module):
        h.update(Path(module.__file__ or "").read_bytes())
    return h.hexdigest()


def _searchable(e: FileEntry) -> bool:
    return e.language is not None and e.status == "ok" and e.tables is not None
