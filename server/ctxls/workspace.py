"""The workspace: the server's only mutable state, and the one place that changes it.

It holds the listed files (one ``FileEntry`` each), the open documents, the reference index
over both, the persistent stores, the policy files and the search index. The LSP layer
changes it (documents opened and edited, files saved or changed on disk, scan batches) and
asks it for a ``Snapshot`` per request; requests read the snapshot only (``requests/``,
``context/window.py``), so nothing a request does changes what it is reading.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

from ctxls.config import Options
from ctxls.errors import CtxError, InvalidParams, OutsideWorkspace
from ctxls.index import modules
from ctxls.index.resolve import FileInfo, RefIndex
from ctxls.index.scan import FileEntry, content_digest, index_file, packed
from ctxls.index.search import SearchIndex
from ctxls.index.shared import SharedStore
from ctxls.index.store import IndexStore, Store, warm
from ctxls.index.tables import Tables
from ctxls.index.terms import fingerprint as store_fingerprint
from ctxls.index.walk import Walked, walk
from ctxls.paths import Located, locate, locate_many
from ctxls.policy import POLICY_PATH, Policy, load
from ctxls.snapshot import DocState, Listing, Snapshot
from ctxls.startup import cache_folder
from ctxls.syntax import languages
from ctxls.syntax.document import Document
from ctxls.syntax.text import Encoding

log = logging.getLogger("ctxls")
DRIFT_STRIDE = 256  # files listed between looks at whether requests are being answered


class Workspace:
    def __init__(self, roots: list[Path], options: Options | None = None,
                 encoding: Encoding = "utf-16") -> None:
        self.roots = [r.resolve() for r in roots]
        self.options = options or Options()
        self.encoding: Encoding = encoding
        self.entries: dict[str, FileEntry] = {}  # by absolute path
        self.docs: dict[str, Document] = {}  # open documents, by absolute path
        # Open documents located once, at open: resolving a path (each folder's link
        # checked) took 0.2 ms of every change. uri -> absolute path; absolute -> relative
        self._opened: dict[str, str] = {}
        self._relative: dict[str, str] = {}
        self.scanning = False
        self.planned = 0
        self.pending = 0  # files changed on disk, not yet indexed again
        self.reindexed = 0  # files indexed again (or dropped) after changes on disk
        self.refs = RefIndex()
        self.stores: dict[Path, Store] = {}
        self.from_cache = 0
        self.from_store = 0  # files whose tables came from the shared index
        self.indexed_locally = 0  # files the scan parsed here
        # The shared index, read at start and by searches; None without the `store` option.
        self.shared: SharedStore | None = None
        if self.options.store:
            self.shared = SharedStore(self.options.store, store_fingerprint(),
                                      self.options.store_repo, self.options.store_timeout)
        # ctx/search's index: built after the scan (or on first use), refreshed per file by
        # content hash; see requests/search.py.
        self.search: SearchIndex | None = None
        self.search_queue: list[str] | None = None  # files left to chunk into it
        self.search_ready = False
        self._policies: dict[Path, tuple[tuple[int, ...] | None, Policy]] = {}
        self._indexed_versions: dict[str, int | None] = {}  # open documents in self.refs
        self._entries_shared = False  # a snapshot holds self.entries: copy before a change
        self._listing = Listing()
        # each root's listing at the scan; once kept, as its bytes (the record of 57,000
        # files is 15 MB of objects, 4 MB of bytes: read once more, by the drift listing)
        self._walked: dict[Path, Walked | bytes] = {}

    # ---- paths -------------------------------------------------------------------------
    def locate(self, path: str | None = None, uri: str | None = None) -> Located:
        return locate(self.roots, path, uri)

    def _key(self, uri: str) -> str | None:
        opened = self._opened.get(uri)
        if opened is not None:
            return opened
        try:
            return str(self.locate(uri=uri).abspath)
        except (OutsideWorkspace, InvalidParams):
            return None  # editors open files from anywhere; we only serve the workspace

    # ---- snapshots ---------------------------------------------------------------------
    def snapshot(self, path: str | None = None, uri: str | None = None,
                 refs: bool = False, names: bool = True) -> Snapshot:
        """The state one request reads. ``refs``: the request reads the reference index, so
        open documents are synced into it first. ``path``/``uri``: the request's own file,
        read (and indexed again if it changed on disk) before the snapshot is handed out.
        ``names=False``: the request reads nothing of the reference index (``ctx/status``),
        which is then not brought up to date for it (``RefIndex.settle``)."""
        if refs:
            self._sync_docs()
        docs = {key: DocState(d.lang, d.data, d.lines, d.outline(), d.version, d.non_utf8)
                for key, d in self.docs.items()}
        policies = {root: self.policy(root) for root in self.roots}
        self._entries_shared = True
        snap = Snapshot(
            roots=self.roots, options=self.options, encoding=self.encoding,
            refs=self.refs.frozen(names), entries=self.entries, docs=docs, scanning=self.scanning,
            planned=self.planned, policy=lambda root: policies.get(root) or Policy(),
            keep=self.put_entry, search=self.search,
            from_cache=self.from_cache, search_ready=self.search_ready,
            pending=self.pending, reindexed=self.reindexed,
            cache=", ".join(str(s.path) for s in self.stores.values()) or None,
            shared=self.shared, from_store=self.from_store,
            indexed_locally=self.indexed_locally, listing=self._listing)
        if path or uri:
            # (a request meets the same error where it reads the file)
            with contextlib.suppress(CtxError):
                snap.prime(self.locate(path, uri))
        return snap

    def absorb(self, snap: Snapshot) -> None:
        """Files a request read for the first time, or found changed on disk, join the index."""
        for key, entry in snap.fresh.items():
            self.put_entry(key, entry)

    def put_entry(self, key: str, entry: FileEntry) -> None:
        self._own_entries()[key] = entry
        self._index_entry(entry)

    def _own_entries(self) -> dict[str, FileEntry]:
        """The entries, safe to change: a snapshot keeps the dict it was given."""
        if self._entries_shared:
            self.entries = dict(self.entries)
            self._entries_shared = False
        return self.entries

    # ---- documents ---------------------------------------------------------------------
    def open(self, uri: str, text: str, version: int | None) -> None:
        try:
            loc = self.locate(uri=uri)
        except (OutsideWorkspace, InvalidParams):
            return  # editors open files from anywhere; we only serve the workspace
        key = self._opened[uri] = str(loc.abspath)
        self._relative[key] = loc.path
        doc = self.docs[key] = Document(languages.outlined(key), text, version)
        self._indexed_versions.pop(key, None)  # (opened again: its text's tables are not in)
        entry = self.entries.get(key)
        if (entry is not None and entry.tables is not None and entry.status == "ok"
                and entry.digest == content_digest(doc.data)):
            # the file as the index holds it: its tables are the document's, and the index
            # need not file them again (what it remembered stays)
            doc.adopt(entry.tables)
            self._indexed_versions[key] = version

    def change(self, uri: str, version: int | None,
               changes: list[tuple[tuple[int, int], tuple[int, int], str] | str]) -> None:
        """Replay LSP content changes in order: (start, end, text) or a whole text."""
        key = self._key(uri)
        doc = self.docs.get(key) if key is not None else None
        if doc is None:
            return
        for change in changes:
            if isinstance(change, str):
                doc.replace(change, version)
            else:
                doc.edit(change[0], change[1], change[2], self.encoding, version)

    def release_idle_trees(self, idle_s: float) -> None:
        """Drop the syntax trees of open documents not changed for ``idle_s`` seconds."""
        now = time.monotonic()
        for doc in self.docs.values():
            if now - doc.touched >= idle_s:
                doc.release_tree()

    def close(self, uri: str) -> None:
        key = self._key(uri)
        if key is None:
            return
        self._opened.pop(uri, None)
        self._relative.pop(key, None)
        self.refresh(uri, self.docs.pop(key, None))

    def refresh(self, uri: str, closed: Document | None = None) -> None:
        """Re-read a file from disk (saved, changed or deleted outside the editor). What an
        open document holds of the same text is not made again (a save reads the file and
        finds the editor's text); a ``closed`` one, no longer the editor's, is brought to
        the file's text as after an edit (what it had unsaved, undone incrementally)."""
        found = self.changed_files([uri])
        if found is None:
            return
        (todo, gone) = found
        self.apply([packed(index_file(rel, key, self.options.max_file_bytes,
                                      known=_tables_of(closed or self.docs.get(key),
                                                       adopt=closed is not None)))
                    for rel, key in todo], gone)

    def changed_files(self, uris: list[str]) -> tuple[list[tuple[str, str]], list[str]] | None:
        """What changes on disk ask of the index: (files to index again as (relative, absolute)
        paths, absolute paths of files gone, a deleted folder's files included); None when no
        uri lies in the workspace."""
        todo: list[tuple[str, str]] = []
        gone: list[str] = []
        folders: set[str] = set()
        seen = False
        for loc in locate_many(self.roots, uris):
            if loc is None:
                continue
            seen = True
            key = str(loc.abspath)
            if loc.abspath.is_file():
                todo.append((loc.path, key))
            elif key in self.entries:
                gone.append(key)
            elif not loc.abspath.exists():  # perhaps a whole folder is gone
                folders.add(key)
        if folders:  # one pass over the index for all of them, not one per path
            for k in self.entries:
                folder = os.path.dirname(k)
                while len(folder) > 1:
                    if folder in folders:
                        gone.append(k)
                        break
                    folder = os.path.dirname(folder)
        return (todo, gone) if seen else None

    def apply(self, entries: list[FileEntry], gone: list[str]) -> None:
        """Files indexed again, and files gone, replace what the index held of them; the
        persistent index takes them in one transaction per root."""
        own = self._own_entries()
        forgotten: dict[Path, list[str]] = {}
        for key in gone:
            old = own.pop(key, None)
            if old is None:
                continue
            self.refs.remove(key)
            self._indexed_versions.pop(key, None)
            forgotten.setdefault(self._root_of(key), []).append(old.path)
        for entry in entries:
            own[entry.abspath] = entry
            if entry.tables is None and entry.abspath not in self.docs:
                self.refs.remove(entry.abspath)  # (no longer parsed: too large, binary)
            self._index_entry(entry)
            self._indexed_versions.pop(entry.abspath, None)
        for root, paths in forgotten.items():
            store = self._store(root)
            if store is not None:
                store.forget(paths)
        self.persist(entries)

    def _sync_docs(self) -> None:
        """Bring the reference index up to date with open documents."""
        for key, doc in self.docs.items():
            if (self._indexed_versions.get(key, -1) == doc.version or doc.lang is None
                    or doc.lang.refs_query is None):
                continue
            outline, refs = doc.outline(), doc.refs()
            if outline is None or refs is None:
                continue
            path = self._relative.get(key) or self.locate(path=key).path
            self.refs.put(FileInfo(key, path, Tables.of(outline, refs)))
            self._indexed_versions[key] = doc.version

    # ---- scanning ----------------------------------------------------------------------
    def scan_plan(self) -> list[tuple[str, str]]:
        plan: list[tuple[str, str]] = []
        for root in self.roots:
            store, walked = self._store(root), Walked()
            before = Walked.loads(store.walked()) if store is not None else None
            mine = list(walk(root, self.options.exclude, before, walked))
            self._walked[root] = walked
            modules.listed(str(root), [rel for rel, _ in mine])  # (their manifests' folders)
            plan.extend(mine)
        self.planned = len(plan)
        return plan

    def drift(self, since_ns: int, busy: Callable[[], bool] = lambda: False) -> list[str]:
        """Files listed now that the index lacks, or holds with another size or time and
        that were written since ``since_ns`` (the scan's start), and files it holds that are
        gone: what changed between the scan's listing and the file watches. (Files from the
        shared index carry no time of their own: git vouched for them.) Safe beside the
        event loop: it reads the entries as they are and changes nothing. While ``busy()``
        it waits: a listing of 57,000 files holds the GIL for seconds, beside the first
        requests after ready."""
        out: list[str] = []
        listed: set[str] = set()
        entries = self.entries
        for root in self.roots:
            walked = self._walked.get(root)
            before = Walked.loads(walked) if isinstance(walked, bytes) else walked
            for n, (_, abspath) in enumerate(walk(root, self.options.exclude, before)):
                while n % DRIFT_STRIDE == 0 and busy():
                    time.sleep(0.005)
                listed.add(abspath)
                e = entries.get(abspath)
                try:
                    st = os.stat(abspath)
                except OSError:
                    continue
                if e is None or (st.st_mtime_ns >= since_ns and (
                        e.size != st.st_size or e.mtime_ns != st.st_mtime_ns)):
                    out.append(Path(abspath).as_uri())
        out += [Path(k).as_uri() for k in list(entries)
                if k not in listed and not os.path.exists(k)]
        return out

    def _root_of(self, abspath: str) -> Path:
        if len(self.roots) == 1:
            return self.roots[0]
        return next(r for r in self.roots if abspath.startswith(f"{r}{os.sep}"))

    def _store(self, root: Path) -> Store | None:
        if not self.options.persist:
            return None
        if root not in self.stores:
            folder = Path(self.options.cache_dir) if self.options.cache_dir else cache_folder()
            try:
                self.stores[root] = Store(folder, root)
            except Exception as exc:  # no cache is better than no server
                log.warning("no index cache: %s", exc)
                self.options.persist = False
                return None
        return self.stores[root]

    def warm_start(self, plan: list[tuple[str, str]]
                   ) -> tuple[list[FileEntry], list[tuple[str, str]]]:
        """Entries restored from the stores, and the files still to index: the local
        cache first (a stat per file), then the shared index for what it did not hold."""
        hits: list[FileEntry] = []
        misses: list[tuple[str, str]] = []
        for root in self.roots:
            rest = plan if len(self.roots) == 1 else [
                (rel, a) for rel, a in plan if self._root_of(a) == root]
            local = self._store(root)
            if local is None:
                h, rest = warm(rest, {}, self.options.max_file_bytes)  # unlisted files only
                hits.extend(h)
            sources: list[IndexStore] = [s for s in (local, self.shared) if s is not None]
            for source in sources:
                h, rest = source.restore(root, rest, self.options.max_file_bytes)
                n = sum(1 for e in h if e.tables is not None)
                if source is self.shared:
                    self.from_store += n
                else:
                    self.from_cache += n
                hits.extend(h)
            misses.extend(rest)
        self.indexed_locally = len(misses)
        if self.shared is not None:
            self.shared.local_paths = [rel for rel, _ in misses]
        return hits, misses

    def persist(self, entries: list[FileEntry]) -> None:
        for root in self.roots:
            store = self._store(root)
            if store is not None:
                store.save(e for e in entries if self._root_of(e.abspath) == root)

    def keep_walks(self) -> None:
        """Each root's listing at the scan, for the next start's (after ready: 0.04 s of
        57,000 files' start)."""
        for root, walked in list(self._walked.items()):
            blob = walked.dumps() if isinstance(walked, Walked) else walked
            self._walked[root] = blob
            store = self._store(root)
            if store is not None:
                store.keep_walked(blob)

    def add(self, entries: list[FileEntry]) -> None:
        own = self._own_entries()
        new: list[FileInfo] = []
        for e in entries:
            if own.setdefault(e.abspath, e) is e:  # a refresh that raced the scan wins
                info = self._filed(e)
                if info is not None:
                    new.append(info)
        self.refs.add_later(new)

    def _index_entry(self, e: FileEntry) -> None:
        info = self._filed(e)
        if info is not None:
            self.refs.put(info)

    def _filed(self, e: FileEntry) -> FileInfo | None:
        """What the reference index holds of an entry: nothing for a language without
        reference tables, nor for an open document (its text's tables are filed instead)."""
        if e.tables is None or e.tables.names is None or e.abspath in self.docs:
            return None
        return FileInfo(e.abspath, e.path, e.tables)

    # ---- policy ------------------------------------------------------------------------
    def policy(self, root: Path) -> Policy:
        """The root's ``.agent/context-policy.yaml``, read again whenever it changes: an
        edit applies to the next request, no restart."""
        try:
            st = (root / POLICY_PATH).stat()
            stamp: tuple[int, ...] | None = (st.st_mtime_ns, st.st_size, self.scanning,
                                             len(self.entries))
        except OSError:
            stamp = None
        cached = self._policies.get(root)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        files = [e.path for e in self.entries.values() if e.abspath.startswith(f"{root}/")]
        found = load(root, dt.date.today(), files) if stamp is not None else Policy()
        self._policies[root] = (stamp, found)
        return found


def _tables_of(doc: Document | None, adopt: bool) -> Callable[[bytes], Tables | None] | None:
    """The document's tables for a text that is the document's; with ``adopt`` (the
    document is no longer the editor's), for any text, the document changed to it."""
    if doc is None or doc.lang is None:
        return None

    def known(data: bytes) -> Tables | None:
        if data != doc.data:
            if not adopt:
                return None
            doc.replace(data.decode("utf-8"), doc.version)
        outline = doc.outline()
        return Tables.of(outline, doc.refs()) if outline is not None else None
    return known
