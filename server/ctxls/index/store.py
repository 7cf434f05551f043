"""The persistent index: outlines and reference tables in SQLite, keyed by content hash.

Stores share one small interface (``IndexStore``): start-up asks each, in turn, for the
tables of the files the previous one did not have (``restore``), and the files parsed
locally are written back (``save``, ``forget``). Two implement it: this per-root SQLite
cache (the default), and the shared PostgreSQL index a fleet of sidecars reads
(``index/shared.py``), which a sidecar never writes.

One database per workspace root, outside the workspace (the XDG cache directory unless the
``cacheDir`` option says otherwise). A restart on an unchanged tree takes the tables of every
file whose content hash matches from here instead of parsing it. As git does with its
index, a file whose size and modification time are those recorded, and whose modification
time is safely older than the row, is taken as unchanged without being read; any other
file is read and hashed. Tables stay pickled until a request needs them (``Tables``). A
database that cannot be read, or that an older ctxls or other grammars wrote, is deleted
and rebuilt: the cache is never trusted over the files.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple, Protocol

import ctxls
from ctxls.index.scan import SNIFF, FileEntry, content_digest, index_bytes, index_file, listed_only
from ctxls.index.tables import Tables
from ctxls.paths import read_inside
from ctxls.syntax import languages

log = logging.getLogger("ctxls")
SCHEMA = 3  # (3: rows for binary files, an empty digest and payload)
# A file modified this soon before its row was written could change again within the same
# timestamp tick without its (size, mtime) changing: such rows are checked by hash.
RACY_NS = 2_000_000_000
# The digest a binary file is kept under: its kind is all the index needs of it, and a
# row spares a warm start reading it and sending it to be indexed again, every start.
BINARY = ""
FILES = ("path TEXT PRIMARY KEY, digest TEXT NOT NULL, size INTEGER NOT NULL, "
         "mtime_ns INTEGER NOT NULL, written_ns INTEGER NOT NULL, non_utf8 INTEGER NOT NULL, "
         "errors INTEGER NOT NULL, names TEXT, payload BLOB NOT NULL")


class IndexStore(Protocol):
    """Where start-up finds tables it need not parse."""

    @property
    def label(self) -> str:
        """Where it is, for ``ctx/status`` (never with a password)."""

    def restore(self, root: Path, plan: list[tuple[str, str]], max_bytes: int
                ) -> tuple[list[FileEntry], list[tuple[str, str]]]:
        """(entries it holds the tables of, files it does not) among ``plan``."""

    def save(self, entries: Iterable[FileEntry]) -> None:
        """Keep the tables of files indexed here."""

    def forget(self, paths: Iterable[str]) -> None:
        """Files deleted from the workspace."""

    def close(self) -> None: ...


@functools.cache
def extraction_fingerprint() -> str:
    """What the cached tables depend on: every grammar file and the code that extracts
    tables from trees (so an edited extractor never trusts tables an older one wrote)."""
    h = hashlib.blake2b(digest_size=12)
    h.update(f"{SCHEMA}:{ctxls.__version__}".encode())
    package = Path(ctxls.__file__).parent
    sources = [*sorted(languages.grammars_dir().rglob("*")),
               *(package / "syntax" / f for f in ("outline.py", "text.py", "languages.py",
                                                  "spec.py")),
               *(package / "index" / f for f in ("refs.py", "scan.py", "tables.py")),
               *sorted((package / "index" / "modules").glob("*.py"))]
    for path in sources:
        if path.is_file():
            h.update(path.name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()


class Store:
    def __init__(self, folder: Path, root: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        name = hashlib.blake2b(str(root).encode(), digest_size=8).hexdigest()
        self.path = folder / f"{name}.sqlite"
        self.fingerprint = extraction_fingerprint()
        self.db = self._open()
        self._ident = _ident(self.path)

    @property
    def label(self) -> str:
        return str(self.path)

    def restore(self, root: Path, plan: list[tuple[str, str]], max_bytes: int
                ) -> tuple[list[FileEntry], list[tuple[str, str]]]:
        return warm(plan, self.load(payloads=False), max_bytes, self)

    def fetch(self, rel: str, abspath: str, digest: str) -> bytes:
        """A restored file's payload, read when a request first needs its tables. When the
        row has gone since (the cache removed, or rewritten by another version of the
        extractor), the file is indexed again from disk, as it is now."""
        with contextlib.suppress(sqlite3.Error):
            row = self._current().execute(
                "SELECT payload FROM files WHERE path = ? AND digest = ?", (rel, digest)
            ).fetchone()
            if row is not None:
                return row[0]  # type: ignore[no-any-return]
        root = abspath[: len(abspath) - len(rel)]
        try:
            raw = read_inside(abspath, root)
        except OSError:  # gone or unreadable: the tables of no text, until it is listed again
            raw = b""
        entry = index_bytes(rel, abspath, raw, 0, max(len(raw), 1), keep_data=False)
        if entry.tables is None:  # (binary now)
            entry = index_bytes(rel, abspath, b"", 0, 1, keep_data=False)
        assert entry.tables is not None
        return entry.tables.payload()

    def fetch_many(self, wanted: list[Fetch]) -> list[bytes]:
        """The payloads of many restored files, a few hundred rows a query (a window's test
        discovery reads the imports of every test file naming the module: 700 single-row
        queries on mypy after a warm restart, 80 ms); a row gone or changed since is read
        as ``fetch`` reads it."""
        found: dict[str, tuple[str, bytes]] = {}
        with contextlib.suppress(sqlite3.Error):
            db = self._current()
            for i in range(0, len(wanted), MANY):
                part = [f.rel for f in wanted[i : i + MANY]]
                found.update((path, (digest, payload)) for path, digest, payload in db.execute(
                    "SELECT path, digest, payload FROM files WHERE path IN "
                    f"({','.join('?' * len(part))})", part))
        return [row[1] if (row := found.get(f.rel)) is not None and row[0] == f.digest
                else f() for f in wanted]

    def _current(self) -> sqlite3.Connection:
        """The connection, opened again when the file was deleted or replaced under it
        (writes to an unlinked file would vanish, or fail until a restart)."""
        if _ident(self.path) != self._ident:
            log.warning("index cache %s was removed; opening it again", self.path)
            with contextlib.suppress(sqlite3.Error):
                self.db.close()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = self._open()
            self._ident = _ident(self.path)
        return self.db

    def _open(self) -> sqlite3.Connection:
        for attempt in (1, 2):
            try:
                db = sqlite3.connect(self.path, check_same_thread=False)
                db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
                db.execute(f"CREATE TABLE IF NOT EXISTS files ({FILES})")
                db.execute("CREATE TABLE IF NOT EXISTS walked (root INTEGER PRIMARY KEY, "
                           "record BLOB NOT NULL)")
                row = db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
                if row is None or row[0] != self.fingerprint:
                    db.execute("DROP TABLE files")  # perhaps of another schema
                    db.execute(f"CREATE TABLE files ({FILES})")
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)",
                               (self.fingerprint,))
                    db.commit()
                return db
            except sqlite3.DatabaseError as exc:  # corrupt or not a database: start over
                log.warning("index cache %s unreadable (%s); rebuilding", self.path, exc)
                self.path.unlink(missing_ok=True)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def load(self, payloads: bool = True) -> dict[str, Row]:
        """The rows, with their payloads or without (read later by ``fetch``)."""
        try:
            return {r[0]: Row(*r[1:]) for r in self.db.execute(
                "SELECT path, digest, size, mtime_ns, written_ns, non_utf8, errors, names, "
                f"{'payload' if payloads else 'NULL'} FROM files")}
        except sqlite3.DatabaseError as exc:
            log.warning("index cache unreadable (%s); rebuilding", exc)
            self.db.close()
            self.path.unlink(missing_ok=True)
            self.db = self._open()
            return {}

    def save(self, entries: Iterable[FileEntry]) -> None:
        now = time.time_ns()
        rows = [(e.path, e.digest, e.size, e.mtime_ns, now, int(e.non_utf8), e.tables.errors,
                 e.tables.names, e.tables.payload()) if e.tables is not None else
                (e.path, BINARY, e.size, e.mtime_ns, now, 0, 0, None, b"")
                for e in entries if e.status == "binary" or (
                    e.status == "ok" and e.tables is not None)]
        try:
            with self._current() as db:
                db.executemany("INSERT OR REPLACE INTO files VALUES "
                               "(?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        except (sqlite3.DatabaseError, OSError) as exc:
            log.warning("index cache not written (%s)", exc)

    def forget(self, paths: Iterable[str]) -> None:
        try:
            with self._current() as db:
                db.executemany("DELETE FROM files WHERE path = ?", [(p,) for p in paths])
        except (sqlite3.DatabaseError, OSError) as exc:
            log.warning("index cache not updated (%s)", exc)

    def walked(self) -> bytes | None:
        """The record of the last walk of the root (``walk.Walked``), if kept."""
        with contextlib.suppress(sqlite3.Error):
            row = self.db.execute("SELECT record FROM walked WHERE root = 0").fetchone()
            return row[0] if row is not None else None
        return None

    def keep_walked(self, record: bytes) -> None:
        try:
            with self._current() as db:
                db.execute("INSERT OR REPLACE INTO walked VALUES (0, ?)", (record,))
        except (sqlite3.DatabaseError, OSError) as exc:
            log.warning("index cache not written (%s)", exc)

    def close(self) -> None:
        self.db.close()


def _ident(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class Row(NamedTuple):
    digest: str
    size: int
    mtime_ns: int
    written_ns: int
    non_utf8: int
    errors: int
    names: str | None
    payload: bytes | None


MANY = 500  # rows a query of ``fetch_many`` asks for (SQLite takes 32,766 parameters)


class Fetch:
    """Where a restored file's payload is: read when first needed (``Tables._bytes``), or
    together with other files' (``tables.prefetch`` -> ``Store.fetch_many``)."""

    __slots__ = ("abspath", "digest", "rel", "store")

    def __init__(self, store: Store, rel: str, abspath: str, digest: str) -> None:
        self.store, self.rel, self.abspath, self.digest = store, rel, abspath, digest

    def __call__(self) -> bytes:
        return self.store.fetch(self.rel, self.abspath, self.digest)


def warm(plan: list[tuple[str, str]], cached: dict[str, Row], max_bytes: int,
         store: Store | None = None) -> tuple[list[FileEntry], list[tuple[str, str]]]:
    """(entries restored from the cache, files still to index): hashes decide, and an
    unchanged (size, mtime) that is not racy stands for an unchanged hash. (Rows and
    stats unpacked once: a warm start runs this for 57,000 files.)"""
    hits: list[FileEntry] = []
    misses: list[tuple[str, str]] = []
    name_for, stat, get = languages.name_for, os.stat, cached.get
    for rel, abspath in plan:
        lang = name_for(rel)
        if lang is None:  # listed, never parsed
            hits.append(listed_only(rel, abspath))
            continue
        row = get(rel)
        try:
            st = stat(abspath)
            size, mtime = st.st_size, st.st_mtime_ns
            if size > max_bytes:  # (never cached: not parsed, and said so again)
                hits.append(index_file(rel, abspath, max_bytes))
                continue
            if row is None:
                misses.append((rel, abspath))
                continue
            was, was_size, was_mtime, written, non_utf8, errors, names, payload = row
            if size == was_size and mtime == was_mtime and mtime < written - RACY_NS:
                digest = was
            else:
                raw = read_inside(abspath, abspath[: len(abspath) - len(rel)])
                digest = content_digest(raw)
                if b"\0" in raw[:SNIFF]:
                    digest = BINARY
        except OSError:
            misses.append((rel, abspath))
            continue
        if digest != was:
            misses.append((rel, abspath))
            continue
        if digest == BINARY:  # (a test fixture named .js with a NUL in it: not read again)
            hits.append(FileEntry(path=rel, abspath=abspath, language=lang, size=size,
                                  mtime_ns=mtime, digest=BINARY, status="binary"))
            continue
        hits.append(FileEntry(path=rel, abspath=abspath, language=lang, size=size,
                              mtime_ns=mtime, digest=digest, status="ok",
                              non_utf8=bool(non_utf8), data=None,
                              tables=Tables(payload, names, errors, source=None
                                            if store is None or payload is not None
                                            else Fetch(store, rel, abspath, digest))))
    return hits, misses
