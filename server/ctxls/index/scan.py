"""Indexing a workspace's files (listing them is ``walk.py``'s).

Indexing a file reads it, classifies it (too large, binary, not UTF-8) and outlines it; it
is a top-level function so a process pool can run it during a cold scan.
"""

from __future__ import annotations

import gc
import hashlib
import os
from collections.abc import Callable

import attrs
import tree_sitter as ts

from ctxls.index import refs as refs_mod
from ctxls.index.refs import Refs
from ctxls.index.tables import Tables
from ctxls.paths import read_inside
from ctxls.syntax import languages
from ctxls.syntax.outline import Outline, extract
from ctxls.syntax.text import LineIndex, decode

SNIFF = 8192  # bytes inspected for NUL when deciding that a file is binary
Known = Callable[[bytes], "Tables | None"]  # a text's tables, when the caller has them


def content_digest(raw: bytes) -> str:
    """A file's content hash, as entries, the caches and the shared index keep it."""
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


@attrs.frozen
class FileEntry:
    path: str  # relative to its root, POSIX
    abspath: str
    language: str | None
    size: int
    mtime_ns: int
    digest: str
    status: str  # ok | too-large | binary | unreadable
    non_utf8: bool = False
    data: bytes | None = attrs.field(default=None, repr=False)
    tables: Tables | None = attrs.field(default=None, repr=False)

    @property
    def outline(self) -> Outline | None:
        return self.tables.outline if self.tables is not None else None

    @property
    def refs(self) -> Refs | None:
        return self.tables.refs if self.tables is not None else None

    @property
    def notes(self) -> list[str]:
        out = [] if self.status == "ok" else [self.status]
        if self.non_utf8:
            out.append("non-utf8: invalid bytes were decoded as U+FFFD")
        if self.tables is not None and self.tables.errors:
            out.append(f"parse-error: {self.tables.errors} error node(s)")
        return out




def index_bytes(rel: str, abspath: str, raw: bytes, mtime_ns: int, max_bytes: int,
                keep_data: bool = True, known: Known | None = None) -> FileEntry:
    """Classify, outline and reference-index one file's bytes. Without ``keep_data`` the
    entry keeps only tables and the content hash; the text is read again when shown.
    ``known``: the tables of a text, if the caller has them (an open document saved)."""
    common = {"path": rel, "abspath": abspath, "language": languages.name_for(rel),
              "size": len(raw), "mtime_ns": mtime_ns, "digest": content_digest(raw)}
    if len(raw) > max_bytes:
        return FileEntry(status="too-large", **common)  # type: ignore[arg-type]
    if b"\0" in raw[:SNIFF]:
        return FileEntry(status="binary", **common)  # type: ignore[arg-type]
    data, non_utf8 = decode(raw)
    tables = known(data) if known is not None else None
    lang = languages.for_path(rel)  # (compiles its queries: not for a file never parsed)
    if lang is not None and lang.scan_query is None and not lang.outlines():
        lang = None  # (its outline query does not compile: plain text)
    if lang is not None and tables is None:
        tree = lang.parser().parse(data)
        if lang.scan_query is not None:  # one walk of the tree for both tables
            found = ts.QueryCursor(lang.scan_query).matches(tree.root_node)
            cut = lang.outline_patterns
            outline = extract(lang, tree, LineIndex(data), [m for m in found if m[0] < cut])
            refs = refs_mod.extract(lang, tree.root_node, [m for m in found if m[0] >= cut])
        else:
            outline, refs = extract(lang, tree, LineIndex(data)), None
        tables = Tables.of(outline, refs)
    return FileEntry(status="ok", non_utf8=non_utf8, data=data if keep_data else None,
                     tables=tables, **common)  # type: ignore[arg-type]


def listed_only(rel: str, abspath: str) -> FileEntry:
    """A file of no language: listed, never parsed, not even stat'ed (its size and time
    are 0: what is known of it is read when it is shown: readRange, fallback windows); on
    57,000 files, the 24,000 of no language cost 0.1 s of every start in system calls."""
    return FileEntry(path=rel, abspath=abspath, language=None, size=0, mtime_ns=0,
                     digest="", status="ok")


def index_file(rel: str, abspath: str, max_bytes: int, keep_data: bool = False,
               known: Known | None = None) -> FileEntry:
    lang = languages.name_for(rel)
    if lang is None:
        return listed_only(rel, abspath)
    try:
        st = os.stat(abspath)
        root = abspath[: len(abspath) - len(rel)]
        if st.st_size > max_bytes:
            head = read_inside(abspath, root, SNIFF)
            return FileEntry(path=rel, abspath=abspath, language=lang,
                             size=st.st_size, mtime_ns=st.st_mtime_ns, digest="",
                             status="binary" if b"\0" in head else "too-large")
        raw = read_inside(abspath, root)
    except OSError:  # gone, unreadable, or swapped for a link out of the workspace
        return FileEntry(path=rel, abspath=abspath, language=None, size=0, mtime_ns=0,
                         digest="", status="unreadable")
    return index_bytes(rel, abspath, raw, st.st_mtime_ns, max_bytes, keep_data, known)


def packed(e: FileEntry) -> FileEntry:
    """The entry with its tables as the payload alone: what the index keeps of a file it
    indexed for one request or read again from disk. Decoded when next read, a file's
    equal strings are one object (freshly extracted, each is its own: a long session that
    opened and closed documents kept ~10 MiB more of jsoup's tables)."""
    return e if e.tables is None else attrs.evolve(e, tables=e.tables.packed())


def index_batch(batch: list[tuple[str, str]], max_bytes: int) -> list[FileEntry]:
    """Index files in a worker. Collections are off: the batch allocates many small tables
    that all survive it, so a collection would find nothing to free."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        # Tables only: sending the text back would double what crosses the process boundary,
        # and the server reads a file again (checking its hash) when it has to show it.
        # Encoded here, while collections are off, and the decoded tables freed at once.
        return [packed(index_file(rel, abspath, max_bytes, keep_data=False))
                for rel, abspath in batch]
    finally:
        if enabled:
            gc.enable()
