"""What one request reads, from start to end: the workspace as it was when the request began.

A ``Snapshot`` is taken by the workspace after it has brought itself up to date for the
request (open documents synced into the reference index, the request's own file indexed
again if it changed on disk). From then on the request only reads: open documents are
frozen at the version they had, and a file the request is the first to read (not yet
scanned, or changed on disk since it was indexed) is indexed into the snapshot's own
``fresh`` entries, never into the workspace in the middle of a request. The workspace takes
those entries when the request is over (``Workspace.absorb``).
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Protocol, TypeVar

import attrs
from lsprotocol.types import Position, Range

from ctxls.config import Options
from ctxls.errors import (
    Cancelled,
    CtxError,
    FileMissing,
    InvalidParams,
    OutsideWorkspace,
    UnknownSymbol,
    Unreadable,
)
from ctxls.index.resolve import FileInfo, RefIndex
from ctxls.index.scan import FileEntry, content_digest, index_file, packed
from ctxls.index.search import SearchIndex
from ctxls.index.shared import SharedStore
from ctxls.paths import Escaped, Located, close_paths, locate, read_inside, target_file
from ctxls.policy import Policy
from ctxls.syntax import languages
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import Decl, Outline
from ctxls.syntax.skeleton import split_lines
from ctxls.syntax.symbols import at_row, resolve
from ctxls.syntax.text import Encoding, LineIndex, decode
from ctxls.tokens import tokenizer

PLAIN_MARKER = "... {count} lines elided{names}"
HUGE_READ_LIMIT = 64 << 20  # bytes; beyond this even readRange refuses
MAX_LINE = 2000  # characters of one line shown from a file too large to parse
T = TypeVar("T")


@attrs.frozen
class DocState:
    """An open document at one version."""

    lang: Language | None
    data: bytes
    lines: LineIndex
    outline: Outline | None
    version: int | None
    non_utf8: bool


@attrs.define
class View:
    """One file as a request sees it: bytes, rows and outline that belong together."""

    loc: Located
    lang: Language | None
    data: bytes
    index: LineIndex
    outline: Outline | None
    version: int | None
    notes: list[str]
    encoding: Encoding
    clip_at: int | None = None  # lines longer than this are cut (files too large to parse)
    _lines: list[str] | None = None
    clipped: set[int] = attrs.Factory(set)  # rows that were cut

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            lines = split_lines(self.data.decode("utf-8", errors="replace"))
            if self.clip_at is not None and max(map(len, lines), default=0) > self.clip_at:
                n = self.clip_at
                self.clipped = {i for i, x in enumerate(lines) if len(x) > n}
                for i in self.clipped:
                    lines[i] = f"{lines[i][:n]} ...[{len(lines[i]) - n:,} more characters]"
            self._lines = lines
        return self._lines

    @property
    def marker(self) -> str:
        return self.lang.elision if self.lang else PLAIN_MARKER

    @property
    def comment(self) -> str:
        return self.lang.line_comment if self.lang else "#"

    def range(self, first: int, last: int) -> Range:
        """LSP range of whole rows ``first..last`` (inclusive), in the negotiated units."""
        return Range(Position(first, 0), self.position(last, len(self.index.line(last))))

    def position(self, row: int, col: int) -> Position:
        return Position(*self.index.to_lsp(row, col, self.encoding))

    def row(self, position: Position) -> int:
        return self.index.from_lsp(position.line, position.character, self.encoding)[0]


class Listing:
    """Facts over every listed file, worked out once per version of the workspace's
    entries: the workspace copies that dict before changing it once a snapshot holds it, so
    the same dict is the same files (57,000 files: 40 ms a pass, and a window made two). A
    fact that can be brought up to date from the files added and removed since is (the
    basenames: 18 ms a pass, paid by the first window after every change)."""

    def __init__(self) -> None:
        # kind -> (the entries it was worked out for, the fact)
        self._memo: dict[str, tuple[Mapping[str, FileEntry], object]] = {}

    def of(self, entries: Mapping[str, FileEntry], kind: str,
           make: Callable[[Mapping[str, FileEntry]], T],
           patch: Callable[[T, Mapping[str, FileEntry], Mapping[str, FileEntry]], T] | None
           = None) -> T:
        held = self._memo.get(kind)
        if held is not None and held[0] is entries:
            return held[1]  # type: ignore[return-value]
        value = make(entries) if held is None or patch is None else patch(
            held[1], held[0], entries)  # type: ignore[arg-type]
        self._memo[kind] = (entries, value)
        return value


def _unindexed(entries: Mapping[str, FileEntry]) -> Counter[str | None]:
    return Counter(e.language for e in entries.values() if e.tables is None)


def _basenames(entries: Mapping[str, FileEntry]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for key in entries:
        found.setdefault(key[key.rfind("/") + 1 :], []).append(key)
    return found


def _stems(entries: Mapping[str, FileEntry]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for key in entries:
        found.setdefault(stem_of(key), []).append(key)
    return found


def _listed(e: FileEntry) -> Located:
    """Where a listed file is, by its index key: the walk never follows a link, so the
    key is its real path as listed (resolving it walked each part's links again, ~0.15 ms
    a file: 11-19 ms of a window that reads a hundred test files). What is read is
    checked as it is opened (``read_inside``), as for any path."""
    abspath = Path(e.abspath)
    return Located(Path(e.abspath[: len(e.abspath) - len(e.path) - 1]), abspath, e.path,
                   abspath.as_uri())


def stem_of(path: str) -> str:
    """A path's name up to its first dot (``api`` for ``a/api.v1.proto``)."""
    return path[path.rfind("/") + 1 :].split(".", 1)[0]


def _basenames_since(found: dict[str, list[str]], old: Mapping[str, FileEntry],
                     new: Mapping[str, FileEntry]) -> dict[str, list[str]]:
    """``_basenames(new)`` from ``found``, which is ``_basenames(old)``: a copy with the
    names of the files added and removed since changed (the sets are taken in C)."""
    added, removed = new.keys() - old.keys(), old.keys() - new.keys()
    if len(added) + len(removed) > len(new) // 4:
        return _basenames(new)
    found = dict(found)  # (``found`` is still another snapshot's answer)
    for key in removed:
        name = key[key.rfind("/") + 1 :]
        keys = [k for k in found.get(name, ()) if k != key]
        if keys:
            found[name] = keys
        else:
            found.pop(name, None)
    for key in added:
        name = key[key.rfind("/") + 1 :]
        found[name] = [*found.get(name, ()), key]
    return found


class HasFile(Protocol):
    """Params that name a file: a path, or a text document (or a target naming one)."""

    @property
    def path(self) -> str | None: ...

    @property
    def text_document(self) -> object | None: ...


class Snapshot:
    def __init__(self, *, roots: list[Path], options: Options, encoding: Encoding,
                 refs: RefIndex, entries: Mapping[str, FileEntry], docs: dict[str, DocState],
                 scanning: bool, planned: int, policy: Callable[[Path], Policy],
                 keep: _Keep, search: SearchIndex | None, from_cache: int,
                 search_ready: bool, cache: str | None, pending: int = 0,
                 reindexed: int = 0, shared: SharedStore | None = None,
                 from_store: int = 0, indexed_locally: int = 0,
                 listing: Listing | None = None) -> None:
        self.roots = roots
        self.options = options
        self.encoding: Encoding = encoding
        self.refs = refs
        self.docs = docs
        self.scanning = scanning  # the scan had not finished when the request began
        self.planned = planned  # files the scan listed
        self.pending = pending  # files changed on disk, not yet indexed again
        self.reindexed = reindexed  # files indexed again after changes on disk so far
        self.from_cache = from_cache  # of them, restored from the persistent index
        self.search = search  # ctx/search's index, as current as the request needs it
        self.search_ready = search_ready
        self.cache = cache  # the persistent index's database(s)
        self.shared = shared  # the shared index, when one is configured
        self.from_store = from_store  # files whose tables came from it
        self.indexed_locally = indexed_locally  # files the scan parsed here
        self.fresh: dict[str, FileEntry] = {}  # files first read by this request
        self._entries = entries
        self._listing = listing or Listing()
        self._policy = policy
        self._keep = keep
        self._views: dict[str, View] = {}
        self._located: dict[tuple[str | None, str | None], Located] = {}
        self._policies: dict[Path, Policy] = {}
        self.cancel = threading.Event()  # set when the client cancels the request

    def check(self) -> None:
        """Stop here if the request was cancelled (called between units of long work)."""
        if self.cancel.is_set():
            raise Cancelled("the request was cancelled")

    # ---- files ---------------------------------------------------------------------------
    def locate(self, path: str | None = None, uri: str | None = None) -> Located:
        # Once per path a request: a window names the same few dozen files again and
        # again, and each resolve walks the path's links (~0.13 ms, 12 ms of a jsoup
        # window). What is read is checked again as it is opened.
        found = self._located.get((path, uri))
        if found is None:
            e = self._entries.get(path) if path and uri is None else None
            found = self._located[(path, uri)] = (
                _listed(e) if e is not None else locate(self.roots, path, uri))
        return found

    def located(self, params: HasFile) -> Located:
        return self.locate(*target_file(params))

    def entry(self, key: str) -> FileEntry | None:
        return self.fresh.get(key) or self._entries.get(key)

    def entries(self) -> Iterator[tuple[str, FileEntry]]:
        """Every listed file, the ones this request read fresh as it read them."""
        listed = self._entries
        return itertools.chain(
            ((k, self.fresh.get(k, e)) for k, e in listed.items()),
            ((k, e) for k, e in self.fresh.items() if k not in listed))

    def named(self, basename: str) -> list[str]:
        """The listed files with this name, in path order."""
        keys = self._listing.of(self._entries, "basenames", _basenames,
                                _basenames_since).get(basename, [])
        fresh = [k for k in self.fresh if k not in self._entries
                 and k.rsplit("/", 1)[-1] == basename]
        return sorted([*keys, *fresh])

    def stemmed(self, stem: str, root: Path) -> list[str]:
        """The listed files under ``root`` whose name up to its first dot is ``stem``, as
        paths relative to it, in path order (a generated file's schema is looked for by
        its stem: matching every listed path against the schemas' globs was 0.6 s of each
        such window on 57,000 files)."""
        listed = self._entries
        keys = self._listing.of(listed, "stems", _stems).get(stem, [])
        fresh = [k for k in self.fresh if k not in listed and stem_of(k) == stem]
        return sorted(e.path for k in (*keys, *fresh)
                      if k.startswith(f"{root}/")
                      and (e := self.fresh.get(k) or listed.get(k)) is not None)

    def info(self, key: str) -> FileInfo | None:
        """A file's reference tables, if its language has them."""
        return self.refs.files.get(key)

    def view(self, loc: Located) -> View:
        key = str(loc.abspath)
        found = self._views.get(key)
        if found is None:
            self.check()
            found = self._views[key] = self._read_view(loc, self.fresh.__setitem__)
        return found

    def view_at(self, path: str) -> View:
        """The view of a workspace-relative or absolute path (an index key)."""
        return self.view(self.locate(path=path))

    def mentions(self, path: str, words: list[bytes]) -> bool:
        """Whether the file's text may hold one of ``words``: its bytes searched as they are,
        without a view (hash, decode, line index), since most files a search for every use
        reads hold none of them. True when it cannot tell (unreadable, or not UTF-8 where
        a word is not ASCII): ``view_at`` then decides, as it would have."""
        try:
            loc = self.locate(path=path)
        except (CtxError, OSError):  # (outside the workspace: view_at refuses it)
            return True
        key = str(loc.abspath)
        known = self._views.get(key) or self.docs.get(key)
        if known is not None:
            return any(w in known.data for w in words)
        try:
            raw = read_inside(loc.abspath, loc.root)
        except OSError:  # (gone, or swapped for a link out since it was located)
            return True
        return any(w in raw for w in words) or not all(w.isascii() for w in words)

    def prime(self, loc: Located) -> View:
        """The request's own file, read before the request begins: what has to be indexed
        again goes into the workspace itself, so the reference index agrees with it."""
        key = str(loc.abspath)
        if key not in self._views:
            self._views[key] = self._read_view(loc, self._keep)
        return self._views[key]

    def _read_view(self, loc: Located, keep: _Keep) -> View:
        key = str(loc.abspath)
        doc = self.docs.get(key)
        if doc is not None:
            return View(loc, doc.lang, doc.data, doc.lines, doc.outline, doc.version,
                        (["non-utf8: invalid bytes were decoded as U+FFFD"] if doc.non_utf8
                         else []) + (["parse-error"] if doc.outline and doc.outline.errors
                                     else []), self.encoding)
        entry = self.entry(key)
        if entry is None:
            entry = self._index(loc, None, keep)
        if entry.status == "binary":
            raise Unreadable(f"{loc.path} is a binary file; there is no text to show")
        data = entry.data
        if data is None and entry.outline is not None:
            data = _current(loc, entry)
            if data is None:  # changed on disk since it was indexed: index it again
                entry = self._index(loc, entry, keep)
                data = entry.data
        clip = None
        if data is None:
            data = _read_raw(loc)
            if len(data) > self.options.max_file_bytes:  # shown as windows: bound each line
                clip = MAX_LINE
        return View(loc, languages.for_path(loc.path), data, LineIndex(data), entry.outline,
                    None, entry.notes, self.encoding, clip)

    def _index(self, loc: Located, entry: FileEntry | None, keep: _Keep) -> FileEntry:
        if not loc.abspath.exists():
            close = close_paths(loc.path, (e.path for _, e in self.entries()))
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise FileMissing(f"{loc.path} does not exist in the workspace{hint}",
                              {"suggestions": close})
        if not loc.abspath.is_file():
            raise InvalidParams(f"{loc.path} is not a file")
        if entry is None or entry.language is not None:
            entry = index_file(loc.path, str(loc.abspath), self.options.max_file_bytes,
                               keep_data=True)
            if entry.language is not None:  # (the index keeps no text: it is read again
                # when shown; kept, every file a long session read stayed in memory)
                keep(str(loc.abspath), attrs.evolve(packed(entry), data=None))
        return entry

    # ---- what requests share -----------------------------------------------------------
    def tokens(self, text: str) -> int:
        return tokenizer(self.options.encoding).count(text)

    def unindexed(self, lang: str | None) -> int:
        """Files of a language whose tables are missing, and files the scan has yet to list."""
        n = self._listing.of(self._entries, "unindexed", _unindexed)[lang]
        for key, e in self.fresh.items():
            old = self._entries.get(key)
            n += (e.language == lang and e.tables is None) \
                - (old is not None and old.language == lang and old.tables is None)
        return n + (max(0, self.planned - len(self._entries)) if self.scanning else 0)

    @property
    def indexed(self) -> bool:
        """The initial scan had finished, and no file changed on disk was waiting to be
        indexed again, when the request began."""
        return not self.scanning and not self.pending

    def scan_notes(self) -> list[str]:
        """How far the scan is, for an answer that depends on the index and may be partial."""
        if not self.scanning:
            return [f"incomplete: {self.pending:,} files changed on disk are being indexed "
                    "again; call sites and definitions in them may be out of date"
                    ] if self.pending else []
        if not self.planned:
            return ["incomplete: the scan is still listing the workspace's files"]
        done = min(len(self._entries), self.planned)
        return [f"incomplete: {done:,} of {self.planned:,} files indexed; the scan is still "
                "running, so call sites, tests and definitions in the rest are missing"]

    def policy(self, root: Path) -> Policy:
        found = self._policies.get(root)
        if found is None:
            found = self._policies[root] = self._policy(root)
        return found

    def declaration(self, v: View, name: str | None, position: Position | None,
                    line: int | None = None, asked: str = "`name` or `position`") -> Decl:
        """The declaration a request names: by (qualified) name, else the innermost one
        around a position, or around a (1-based) line."""
        if v.outline is None:
            raise UnknownSymbol(f"{v.loc.path} has no outline")
        if name:
            return resolve(v.outline, name, v.loc.path, line)
        if position is not None:
            row = v.row(position)
        elif line is not None:
            if line < 1:
                raise InvalidParams(f"`line` is 1-based; {line} is before line 1")
            row = line - 1
        else:
            raise InvalidParams(f"give {asked}")
        found = at_row(v.outline, row)
        if found is None:
            raise UnknownSymbol(f"no declaration at {v.loc.path}:{row + 1}")
        return found


class _Keep(Protocol):
    def __call__(self, key: str, entry: FileEntry, /) -> None: ...


def _current(loc: Located, entry: FileEntry) -> bytes | None:
    """The indexed file's text, if the file still has the content the tables describe."""
    try:
        raw = read_inside(loc.abspath, loc.root)
    except Escaped as exc:
        raise OutsideWorkspace(f"`{loc.path}` now leads outside the workspace; refused") \
            from exc
    except OSError:
        return None
    if content_digest(raw) != entry.digest:
        return None
    return decode(raw)[0]


def _read_raw(loc: Located) -> bytes:
    try:
        raw = read_inside(loc.abspath, loc.root, HUGE_READ_LIMIT + 1)
    except Escaped as exc:
        raise OutsideWorkspace(f"`{loc.path}` now leads outside the workspace; refused") \
            from exc
    except OSError as exc:
        raise FileMissing(f"{loc.path} cannot be read: {exc.strerror}") from exc
    if len(raw) > HUGE_READ_LIMIT:
        raise Unreadable(f"{loc.path} is over {HUGE_READ_LIMIT} bytes; too large to read")
    if b"\0" in raw[:8192]:
        raise Unreadable(f"{loc.path} is a binary file; there is no text to show")
    return decode(raw)[0]  # text only: a file read raw is too large (or unknown) to parse
