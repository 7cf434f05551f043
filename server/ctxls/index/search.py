"""Lexical retrieval over symbol chunks: BM25 in SQLite FTS5, no external service.

Three columns, weighted: the symbol's name, the identifiers of the chunk split on case and
underscores (``ShardedLRUCache`` is also ``sharded lru cache``), and the chunk's own text
(its code and docstrings, not the lineage header every sibling repeats). Results are
deduplicated across granularities: a result set never holds a method and the class chunk
that already contains it; the better-ranked of the two stays.

With a path, the index lives in the cache folder beside the reference index and outlives
the server: a restart re-chunks only the files whose content hash changed. It is a cache
(written without fsync); a file it cannot read is deleted and built again.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import sqlite3
import threading
from pathlib import Path

import attrs

from ctxls.index.chunks import BODY_MARK, Chunk

log = logging.getLogger(__name__)

WEIGHTS = (6.0, 2.0, 1.0)  # symbol, split identifiers, text
TABLES = {
    "chunks": "CREATE VIRTUAL TABLE chunks USING fts5(symbol, words, body, "
              "tokenize = 'unicode61')",
    "meta": "CREATE TABLE meta (id INTEGER PRIMARY KEY, chunk_id TEXT, path TEXT, "
            "symbol TEXT, kind TEXT, granularity TEXT, parents TEXT)",
    "files": "CREATE TABLE files (path TEXT PRIMARY KEY, digest TEXT NOT NULL)",
}
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def words(text: str) -> str:
    """Identifiers split on underscores and case, lower-cased: ``getHTTPResponse`` ->
    ``get http response``."""
    return " ".join(w for w in map(_split, IDENT.findall(text)) if w)


@functools.lru_cache(maxsize=1 << 16)
def _split(ident: str) -> str:
    """One identifier's words (remembered: a file repeats its identifiers many times)."""
    return " ".join(w.lower() for piece in ident.split("_") for w in CAMEL.findall(piece))


@attrs.frozen
class Hit:
    chunk_id: str
    path: str
    symbol: str | None
    kind: str
    granularity: str
    parents: tuple[str, ...]
    score: float  # BM25, higher is better


class SearchIndex:
    def __init__(self, path: Path | None = None, fingerprint: str = "") -> None:
        """In memory, or in the SQLite file ``path``; rows written by another
        ``fingerprint`` (another version of the chunker) are dropped."""
        self.path = path
        self.fingerprint = fingerprint
        self.lock = threading.Lock()
        self.db = self._open(fingerprint)
        self._ident = _ident(path)
        # path -> content hash the rows were built from
        self.digests: dict[str, str] = dict(self.db.execute("SELECT path, digest FROM files"))

    def current(self) -> bool:
        """Open the file again if it was deleted or replaced under the connection (its
        rows are then gone, and so are the digests that say what it holds); False then."""
        if self.path is None or _ident(self.path) == self._ident:
            return True
        log.warning("search index %s was removed; building it again", self.path)
        with self.lock:
            with contextlib.suppress(sqlite3.Error):
                self.db.close()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._open(self.fingerprint)
            self._ident = _ident(self.path)
            self.digests = dict(self.db.execute("SELECT path, digest FROM files"))
        return False

    def _open(self, fingerprint: str) -> sqlite3.Connection:
        for attempt in (1, 2):
            try:
                db = sqlite3.connect(str(self.path) if self.path else ":memory:",
                                     check_same_thread=False, timeout=10)
                if self.path is not None:
                    db.execute("PRAGMA journal_mode=WAL")
                    db.execute("PRAGMA synchronous=OFF")  # a cache: rebuilt if it breaks
                db.execute("CREATE TABLE IF NOT EXISTS about (key TEXT PRIMARY KEY, value TEXT)")
                row = db.execute("SELECT value FROM about WHERE key = 'fingerprint'").fetchone()
                if row is None or row[0] != fingerprint:
                    for name, create in TABLES.items():
                        db.execute(f"DROP TABLE IF EXISTS {name}")
                        db.execute(create)
                    db.execute("CREATE INDEX meta_path ON meta (path)")
                    db.execute("INSERT OR REPLACE INTO about VALUES ('fingerprint', ?)",
                               (fingerprint,))
                    db.commit()
                db.execute("SELECT count(*) FROM files").fetchone()
                return db
            except sqlite3.DatabaseError as exc:  # corrupt or not a database: start over
                if self.path is None or attempt == 2 or isinstance(exc, sqlite3.OperationalError):
                    raise  # (a lock another connection holds is no corrupt file)
                log.warning("search index %s unreadable (%s); rebuilding", self.path, exc)
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        raise AssertionError("unreachable")

    def put(self, path: str, digest: str, chunks: list[Chunk]) -> None:
        with self.lock, self.db:
            ids = [r[0] for r in self.db.execute("SELECT id FROM meta WHERE path = ?", (path,))]
            self.db.executemany("DELETE FROM chunks WHERE rowid = ?", [(i,) for i in ids])
            self.db.execute("DELETE FROM meta WHERE path = ?", (path,))
            for c in chunks:
                cur = self.db.execute(
                    "INSERT INTO meta (chunk_id, path, symbol, kind, granularity, parents) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (c.chunk_id, c.path, c.symbol, c.kind, c.granularity, "\n".join(c.parents)))
                body = c.text.partition(f"{BODY_MARK}\n")[2] or c.text
                name = c.symbol or ""
                self.db.execute("INSERT INTO chunks (rowid, symbol, words, body) VALUES "
                                "(?, ?, ?, ?)",
                                (cur.lastrowid, f"{name} {words(name)}", words(body), body))
            self.db.execute("INSERT OR REPLACE INTO files VALUES (?, ?)", (path, digest))
            self.digests[path] = digest

    def forget(self, path: str) -> None:
        self.put(path, "", [])
        with self.lock, self.db:
            self.db.execute("DELETE FROM files WHERE path = ?", (path,))
        self.digests.pop(path, None)

    def search(self, query: str, limit: int = 10) -> list[Hit]:
        terms = sorted({w for w in words(query).split() if len(w) > 1}
                       | {w.lower() for w in IDENT.findall(query)})
        if not terms:
            return []
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        with self.lock:
            rows = self.db.execute(
                f"SELECT m.chunk_id, m.path, m.symbol, m.kind, m.granularity, m.parents, "
                f"bm25(chunks, {WEIGHTS[0]}, {WEIGHTS[1]}, {WEIGHTS[2]}) AS rank "
                "FROM chunks JOIN meta m ON m.id = chunks.rowid WHERE chunks MATCH ? "
                "ORDER BY rank LIMIT ?", (match, max(1, limit) * 4)).fetchall()
        return dedup([Hit(r[0], r[1], r[2], r[3], r[4],
                          tuple(p for p in r[5].split("\n") if p), -r[6]) for r in rows])[:limit]


def _ident(path: Path | None) -> tuple[int, int] | None:
    try:
        st = os.stat(path) if path is not None else None
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if st is not None else None


def dedup(hits: list[Hit]) -> list[Hit]:
    """Drop a method whose class chunk ranks above it, and a class chunk whose method
    ranks above it: one unit per place in the code."""
    out: list[Hit] = []
    for h in hits:
        inside = any(o.path == h.path and o.symbol and h.symbol and (
            (o.granularity == "coarse" and h.symbol.startswith(f"{o.symbol}."))
            or (h.granularity == "coarse" and o.symbol.startswith(f"{h.symbol}.")))
            for o in out)
        if not inside and not any(o.chunk_id.split("#")[0] == h.chunk_id.split("#")[0]
                                  for o in out):
            out.append(h)
    return out
