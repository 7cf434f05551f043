"""The persistent index: outlines and reference tables in SQLite, keyed by content hash.

One database per workspace root, outside the workspace (the XDG cache directory unless the
``cacheDir`` option says otherwise). A restart on an unchanged tree reads and hashes every
file, and takes the tables of every file whose hash matches from here instead of parsing
it. A database that cannot be read, or that an older ctxls or other grammars wrote, is
deleted and rebuilt: the cache is never trusted over the files.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import ctxls
from ctxls.index.scan import SNIFF, FileEntry, index_file
from ctxls.syntax import languages

log = logging.getLogger("ctxls")
SCHEMA = 1


def default_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ctxls"


def _fingerprint() -> str:
    """What the cached tables depend on: every grammar file and the code that extracts
    tables from trees (so an edited extractor never trusts tables an older one wrote)."""
    h = hashlib.blake2b(digest_size=12)
    h.update(f"{SCHEMA}:{ctxls.__version__}".encode())
    package = Path(ctxls.__file__).parent
    sources = [*sorted(languages.grammars_dir().rglob("*")),
               *(package / "syntax" / f for f in ("outline.py", "text.py", "languages.py")),
               *(package / "index" / f for f in ("refs.py", "scan.py"))]
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
        self.fingerprint = _fingerprint()
        self.db = self._open()

    def _open(self) -> sqlite3.Connection:
        for attempt in (1, 2):
            try:
                db = sqlite3.connect(self.path, check_same_thread=False)
                db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
                db.execute("CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, "
                           "digest TEXT NOT NULL, payload BLOB NOT NULL)")
                row = db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
                if row is None or row[0] != self.fingerprint:
                    db.execute("DELETE FROM files")
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

    def load(self) -> dict[str, tuple[str, bytes]]:
        try:
            return {p: (d, b) for p, d, b in self.db.execute(
                "SELECT path, digest, payload FROM files")}
        except sqlite3.DatabaseError as exc:
            log.warning("index cache unreadable (%s); rebuilding", exc)
            self.db.close()
            self.path.unlink(missing_ok=True)
            self.db = self._open()
            return {}

    def save(self, entries: Iterable[FileEntry]) -> None:
        rows = [(e.path, e.digest, pickle.dumps((e.outline, e.refs, e.non_utf8), protocol=5))
                for e in entries if e.status == "ok" and e.outline is not None]
        try:
            with self.db:
                self.db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?)", rows)
        except sqlite3.DatabaseError as exc:
            log.warning("index cache not written (%s)", exc)

    def forget(self, paths: Iterable[str]) -> None:
        try:
            with self.db:
                self.db.executemany("DELETE FROM files WHERE path = ?", [(p,) for p in paths])
        except sqlite3.DatabaseError as exc:
            log.warning("index cache not updated (%s)", exc)

    def close(self) -> None:
        self.db.close()


def warm(plan: list[tuple[str, str]], cached: dict[str, tuple[str, bytes]],
         max_bytes: int) -> tuple[list[FileEntry], list[tuple[str, str]]]:
    """(entries restored from the cache, files still to index): hashes decide, not times."""
    hits: list[FileEntry] = []
    misses: list[tuple[str, str]] = []
    for rel, abspath in plan:
        lang = languages.for_path(rel)
        if lang is None:  # listed, never parsed: a stat is all it costs
            hits.append(index_file(rel, abspath, max_bytes))
            continue
        row = cached.get(rel)
        if row is None:
            misses.append((rel, abspath))
            continue
        try:
            st = os.stat(abspath)
            if st.st_size > max_bytes:
                hits.append(index_file(rel, abspath, max_bytes))
                continue
            with open(abspath, "rb") as fh:
                raw = fh.read()
        except OSError:
            misses.append((rel, abspath))
            continue
        digest = hashlib.blake2b(raw, digest_size=16).hexdigest()
        if digest != row[0] or b"\0" in raw[:SNIFF]:
            misses.append((rel, abspath))
            continue
        try:
            outline, refs, non_utf8 = pickle.loads(row[1])
        except Exception:  # a payload this version cannot read: index the file again
            misses.append((rel, abspath))
            continue
        hits.append(FileEntry(path=rel, abspath=abspath, language=lang.name, size=len(raw),
                              mtime_ns=st.st_mtime_ns, digest=digest, status="ok",
                              non_utf8=non_utf8, data=None, outline=outline,
                              refs=refs))
    return hits, misses
