"""A sidecar's side of the shared index: start from the commit's tables, search them in the
database, and carry on alone when the store is not there.

At start, per root: git names the commit and the files that are not its own (changed,
added, untracked). Every other file takes its tables from the commit's manifest in one
bulk query, without being read. The rest are read and hashed, and looked up by content
(the same bytes may have been built on another branch or in another repository); what
the store does not hold is parsed here, as without a store, and kept in the local cache.
A root outside git is hashed file by file and looked up the same way.

Sidecars only read the store. A store that cannot be reached at start leaves the sidecar
to index alone (state ``unreachable``); one that goes away later (``lost``) costs what
still reads it, the search, which then falls back to the local index. Reconnection is
tried again after ``RETRY`` seconds.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import attrs

from ctxls.index import git
from ctxls.index import pgstore as pg
from ctxls.index import terms as tm
from ctxls.index.chunks import Chunk
from ctxls.index.scan import SNIFF, FileEntry, content_digest
from ctxls.index.search import Hit, dedup
from ctxls.index.tables import Tables
from ctxls.paths import read_inside
from ctxls.syntax import languages

log = logging.getLogger("ctxls")
RETRY = 30.0  # seconds between attempts to reach a lost store again
# Above this many files of its own, a sidecar searches alone: sending their terms with
# every query would cost more than searching its own full-text index.
LOCAL_SEARCH_LIMIT = 2000


@attrs.define
class Root:
    """One workspace root as the store knows it."""

    path: Path
    checkout: git.Checkout | None
    repo: str | None
    manifest: dict[str, pg.Listed]  # by path under the work tree's top
    note: str | None = None  # why nothing came from the manifest, when nothing did


@attrs.frozen
class Report:
    """What ``ctx/status`` shows of the store."""

    location: str  # the address, without a password
    state: str  # connected | unreachable | lost | off
    reason: str | None
    repository: str | None
    commit: str | None
    local_paths: list[str]  # files parsed here at start (the first 200, sorted)


class SharedStore:
    """The shared index as one sidecar reads it (one connection, reused by requests)."""

    def __init__(self, dsn: str, fingerprint: str, repo: str | None = None,
                 timeout: float = pg.CONNECT_TIMEOUT) -> None:
        self._dsn = dsn
        self.location = pg.redact(dsn)
        self.fingerprint = fingerprint
        self.repo_name = repo
        self.timeout = timeout
        self.state = "off"  # until start-up asks it
        self.reason: str | None = None
        self.roots: dict[Path, Root] = {}
        self.local_paths: list[str] = []
        self._conn: Any = None
        self._failed_at = 0.0
        self._lock = threading.Lock()
        self._terms: dict[tuple[str, str], list[tuple[Chunk, tm.Terms]]] = {}
        self._fetched: dict[Path, tuple[Root, dict[tuple[str, str], pg.Blob]] | None] = {}
        self._prefetched = threading.Event()
        self.prefetching = False  # set (on the loop) when ``prefetch`` is scheduled

    @property
    def label(self) -> str:
        return self.location

    def save(self, entries: Iterable[FileEntry]) -> None:
        """Sidecars never write the shared index: the batch builder does."""

    def forget(self, paths: Iterable[str]) -> None:
        """(Nor delete from it.)"""

    # ---- the connection ------------------------------------------------------------------
    def _connection(self) -> Any:
        with self._lock:
            if self._conn is not None and not self._conn.closed:
                return self._conn
            if self.state in ("unreachable", "lost") and \
                    time.monotonic() - self._failed_at < RETRY:
                raise pg.StoreError(self.reason or "unreachable")
            try:
                self._conn = pg.connect(self._dsn, self.timeout)
                if not pg.has_schema(self._conn):
                    raise pg.StoreError("the store holds no ctxls index (run `ctxls index "
                                        "build` first)")
            except Exception as exc:
                self._fail("unreachable" if self.state != "connected" else "lost", exc)
                raise pg.StoreError(self.reason or "unreachable") from exc
            if self.state in ("unreachable", "lost"):
                log.warning("shared index %s reachable again", self.location)
            self.state, self.reason = "connected", None
            return self._conn

    def _fail(self, state: str, exc: BaseException) -> None:
        """Remember the failure; one log line per change of state."""
        why = str(exc) if isinstance(exc, pg.StoreError) else pg.reason(exc, self._dsn)
        if self.state != state:
            log.warning("shared index %s %s (%s); %s", self.location, state, why,
                        "indexing locally" if state == "unreachable"
                        else "searching locally")
        self.state, self.reason = state, why
        self._failed_at = time.monotonic()
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def lost(self, exc: BaseException) -> None:
        with self._lock:
            self._fail("lost", exc)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                with contextlib.suppress(Exception):
                    self._conn.close()
                self._conn = None

    def report(self) -> Report:
        root = next(iter(self.roots.values()), None)
        return Report(self.location, self.state, self.reason or (root.note if root else None),
                      root.repo if root else None,
                      root.checkout.commit if root and root.checkout else None,
                      sorted(self.local_paths)[:200])

    # ---- start-up --------------------------------------------------------------------------
    def prefetch(self, roots: list[Path]) -> None:
        """What start-up will ask, fetched beside the listing of the workspace: the
        commit's manifest and the tables of every file in it (few are dirty), and git's
        status. Importing the driver, connecting, ``git status`` and the queries took
        0.6 s on Django, as long as the listing they now overlap."""
        try:
            for root in roots:
                self._fetched[root] = self._fetch(root)
        finally:
            self._prefetched.set()

    def _fetch(self, root: Path) -> tuple[Root, dict[tuple[str, str], pg.Blob]] | None:
        try:
            conn = self._connection()
        except pg.StoreError:
            return None
        found = git.checkout(root)
        repo = git.repository(root, self.repo_name, found)
        state = Root(root, found, repo, {})
        try:
            if found is None:
                state.note = "not a git checkout: files are looked up by content"
                return state, {}
            state.manifest = pg.manifest(conn, repo, found.commit, self.fingerprint,
                                         found.prefix)
            if not state.manifest and pg.built_by(conn, repo, found.commit):
                state.note = ("the commit was built by another version of ctxls; "
                              "files are looked up by content")
            elif not state.manifest:
                state.note = f"the store has no manifest of {repo} at {found.commit[:12]}"
            held = pg.blobs(conn, self.fingerprint, sorted(
                {(x.digest, x.language) for p, x in state.manifest.items()
                 if p not in found.dirty}))
        except Exception as exc:
            self.lost(exc)
            return None
        return state, held

    def restore(self, root: Path, plan: list[tuple[str, str]], max_bytes: int
                ) -> tuple[list[FileEntry], list[tuple[str, str]]]:
        """(entries whose tables the store holds, files still to index) of one root:
        the commit's files that git calls clean from the manifest, without reading them;
        the others hashed and looked up by content."""
        if not plan:
            return [], []
        if self.prefetching:
            self._prefetched.wait()
        got = self._fetched.pop(root) if root in self._fetched else self._fetch(root)
        if got is None:
            return [], plan
        state, held = got
        self.roots[root] = state
        found = state.checkout
        prefix = found.prefix if found else ""
        # rel, abspath, (digest, language), size, mtime (0: not read, git vouches)
        wanted: list[tuple[str, str, tuple[str, str], int, int]] = []
        for rel, abspath in plan:
            lang = languages.name_for(rel)
            listed = state.manifest.get(prefix + rel)
            if found is not None and listed is not None and \
                    prefix + rel not in found.dirty and listed.language == lang:
                wanted.append((rel, abspath, (listed.digest, lang), listed.size, 0))
                continue
            hashed = _hash(rel, abspath, max_bytes)
            if hashed is not None and lang is not None:
                wanted.append((rel, abspath, (hashed[0], lang), hashed[1], hashed[2]))
        more = sorted({w[2] for w in wanted} - held.keys())
        if more:  # files not the commit's, looked up by content
            try:
                held = {**held, **pg.blobs(self._connection(), self.fingerprint, more)}
            except Exception as exc:
                if not isinstance(exc, pg.StoreError):
                    self.lost(exc)
        hits: list[FileEntry] = []
        kept: set[str] = set()
        for rel, abspath, key, size, mtime in wanted:
            if key in held:
                hits.append(_entry(rel, abspath, held[key], size, mtime))
                kept.add(abspath)
        return hits, [(rel, a) for rel, a in plan if a not in kept]

    # ---- search ----------------------------------------------------------------------------
    def searchable(self, local: int) -> bool:
        """Whether a search goes to the store: connected, one root with a manifest, and
        few enough files of the sidecar's own to send with each query."""
        return (self.state == "connected" and len(self.roots) == 1
                and bool(next(iter(self.roots.values())).manifest)
                and local <= LOCAL_SEARCH_LIMIT)

    def split(self, entries: Iterable[FileEntry]) -> tuple[list[str], list[FileEntry]]:
        """(manifest paths the store must leave out, files searched from here): a file is
        the store's while its content is the one the manifest lists for its path."""
        root = next(iter(self.roots.values()))
        prefix = root.checkout.prefix if root.checkout else ""
        theirs: set[str] = set()
        mine: list[FileEntry] = []
        for e in entries:
            listed = root.manifest.get(prefix + e.path)
            if listed is not None and listed.digest == e.digest:
                theirs.add(prefix + e.path)
            else:
                mine.append(e)
        return [p for p in root.manifest if p not in theirs], mine

    def search(self, query: str, limit: int, entries: Iterable[FileEntry],
               chunks_of: Callable[[FileEntry], list[Chunk] | None]) -> list[Hit]:
        """BM25 over the commit's chunks in the database and the sidecar's own files'
        chunks here, with one set of corpus figures, merged by score. Raises StoreError
        (and marks the store lost) when the database fails."""
        words = tm.query_terms(query)
        if not words:
            return []
        excluded, mine = self.split(entries)
        local: list[tuple[Chunk, tm.Terms]] = []
        kept: dict[tuple[str, str], list[tuple[Chunk, tm.Terms]]] = {}
        for e in mine:
            key = (e.path, e.digest)
            terms = self._terms.get(key)
            if terms is None:
                found = chunks_of(e)
                if found is None:
                    continue
                terms = [(c, tm.chunk_terms(c)) for c in found]
            kept[key] = terms
            local.extend(terms)
        self._terms = kept  # (an edited file's older contents are let go)
        rows, length, hits = tm.corpus_stats((t for _, t in local), words)
        root = next(iter(self.roots.values()))
        assert root.checkout is not None and root.repo is not None
        conn = self._connection()
        try:
            got = pg.search(conn, fingerprint=self.fingerprint, repo=root.repo,
                            commit=root.checkout.commit, prefix=root.checkout.prefix,
                            excluded=excluded, query=words, local_hits=hits,
                            local_rows=rows, local_tokens=length, limit=max(1, limit) * 4,
                            k1=tm.K1, b=tm.B)
        except Exception as exc:
            self.lost(exc)
            raise pg.StoreError(self.reason or "lost") from exc
        avgdl = got.tokens / got.rows if got.rows else 0.0
        cut = len(root.checkout.prefix)
        out = [Hit(path[cut:] + suffix, path[cut:], symbol, kind, granularity,
                   tuple(p for p in parents.split("\n") if p), score)
               for path, suffix, symbol, kind, granularity, parents, score in got.hits]
        for c, t in local:
            s = tm.score(t, got.idf, avgdl)
            if s > 0:
                out.append(Hit(c.chunk_id, c.path, c.symbol, c.kind, c.granularity,
                               c.parents, s))
        out.sort(key=lambda h: (-h.score, h.path, h.chunk_id))
        return dedup(out)[:limit]


def _hash(rel: str, abspath: str, max_bytes: int) -> tuple[str, int, int] | None:
    """(digest, size, mtime) of a file worth looking up, or None (too large, binary,
    unreadable: the local scan classifies those)."""
    try:
        st = os.stat(abspath)
        if st.st_size > max_bytes:
            return None
        raw = read_inside(abspath, abspath[: len(abspath) - len(rel)])
    except OSError:
        return None
    if b"\0" in raw[:SNIFF]:
        return None
    return content_digest(raw), len(raw), st.st_mtime_ns


def _entry(rel: str, abspath: str, blob: pg.Blob, size: int, mtime_ns: int) -> FileEntry:
    return FileEntry(path=rel, abspath=abspath, language=blob.language, size=size,
                     mtime_ns=mtime_ns,
                     digest=blob.digest, status="ok", non_utf8=blob.non_utf8, data=None,
                     tables=Tables(blob.payload, blob.names, blob.errors))


