"""The engine: workspace state (indexed files, open documents) and the answer to every request.

No LSP transport here: ``lsp/`` translates messages into calls on this class and results back.
The engine owns the only mutable state of the server (the index and the open documents); the
answers themselves come from pure functions in ``syntax/``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote, urlparse

import attrs
from lsprotocol.types import (
    DocumentSymbol,
    Location,
    Position,
    Range,
    SymbolKind,
    WorkspaceSymbol,
)

from ctxls import protocol as p
from ctxls.config import Options
from ctxls.context.collect import collect
from ctxls.context.compress import terms
from ctxls.context.construct import build
from ctxls.context.model import ROLES, Evidence, Text
from ctxls.context.rank import Ranked, RankingConfig, rank
from ctxls.errors import (
    CtxError,
    FileMissing,
    InvalidParams,
    OutsideWorkspace,
    UnknownSymbol,
    Unreadable,
)
from ctxls.index import refs as refs_mod
from ctxls.index.chunks import Chunk, chunk_file, generated
from ctxls.index.refs import Call
from ctxls.index.resolve import (
    FileInfo,
    Reference,
    RefIndex,
    TestHit,
    definition,
    dependencies,
    references,
    tests_for,
)
from ctxls.index.scan import FileEntry, index_bytes, index_file, walk
from ctxls.index.search import SearchIndex
from ctxls.index.stats import FileRecord, summarize
from ctxls.index.store import Store, default_dir, warm
from ctxls.index.tables import Tables
from ctxls.policy import POLICY_PATH, Policy, load
from ctxls.syntax import languages
from ctxls.syntax.document import Document
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import Decl, Outline
from ctxls.syntax.skeleton import Rendering, excerpt, render, split_lines, window
from ctxls.syntax.symbols import at_row, enclosing, resolve
from ctxls.syntax.text import Encoding, LineIndex, decode
from ctxls.tokens import tokenizer

log = logging.getLogger("ctxls")
PLAIN_MARKER = "... {count} lines elided{names}"
HUGE_READ_LIMIT = 64 << 20  # bytes; beyond this even readRange refuses
DEFAULT_CEILING = 24_000  # spec 08's TOKEN_CEILING

KIND = {
    "class": SymbolKind.Class, "function": SymbolKind.Function, "method": SymbolKind.Method,
    "interface": SymbolKind.Interface, "enum": SymbolKind.Enum, "struct": SymbolKind.Struct,
    "module": SymbolKind.Module, "namespace": SymbolKind.Namespace, "type": SymbolKind.Class,
    "trait": SymbolKind.Interface, "impl": SymbolKind.Class, "field": SymbolKind.Field,
    "attribute": SymbolKind.Field, "constant": SymbolKind.Constant,
    "variable": SymbolKind.Variable, "object": SymbolKind.Object,
}
UPPER = re.compile(r"^[A-Z][A-Z0-9_]*$")


@attrs.frozen
class Located:
    root: Path
    abspath: Path
    path: str  # relative to root, POSIX
    uri: str


@attrs.define
class View:
    """One file as a request sees it: a consistent snapshot of bytes, rows and outline."""

    loc: Located
    lang: Language | None
    data: bytes
    index: LineIndex
    outline: Outline | None
    version: int | None
    notes: list[str]
    encoding: Encoding
    _lines: list[str] | None = None

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = split_lines(self.data.decode("utf-8", errors="replace"))
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


def _file_path(uri: str) -> Path:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise InvalidParams(f"only file: URIs are supported, got `{uri}`")
    return Path(unquote(parsed.path))


class Engine:
    def __init__(self, roots: list[Path], options: Options | None = None,
                 encoding: Encoding = "utf-16") -> None:
        self.roots = [r.resolve() for r in roots]
        self.options = options or Options()
        self.encoding: Encoding = encoding
        self.entries: dict[str, FileEntry] = {}  # by absolute path
        self.docs: dict[str, Document] = {}  # open documents, by absolute path
        self.scanning = False
        self.planned = 0
        self.refs = RefIndex()
        self.stores: dict[Path, Store] = {}
        self.from_cache = 0
        self._search: SearchIndex | None = None  # built after the scan, or on first use
        self._search_queue: list[str] | None = None  # files left to chunk into it
        self.search_ready = False
        self._policies: dict[Path, tuple[tuple[int, ...] | None, Policy]] = {}
        self._indexed_versions: dict[str, int | None] = {}  # open documents in self.refs

    # ---- paths -------------------------------------------------------------------------
    def locate(self, path: str | None = None, uri: str | None = None) -> Located:
        """Resolve a request's file (symlinks too); refuse anything outside the workspace."""
        if uri:
            raw = _file_path(uri)
        elif path:
            raw = Path(path)
        else:
            raise InvalidParams("name the file: `textDocument.uri` or `path`")
        candidates = [raw] if raw.is_absolute() else [root / raw for root in self.roots]
        resolved = [c.resolve() for c in candidates]
        for target in sorted(resolved, key=lambda r: not r.exists()):
            for root in self.roots:
                if target.is_relative_to(root):
                    return Located(root, target, target.relative_to(root).as_posix(),
                                   target.as_uri())
        shown = path or uri
        raise OutsideWorkspace(
            f"`{shown}` resolves outside the workspace ({', '.join(map(str, self.roots))}); "
            "refused without reading it")

    def located(self, params: p.SkeletonParams | p.ReadSymbolParams | p.ReadRangeParams
                | p.ReferencesParams | p.SymbolParams | p.ChunksParams) -> Located:
        doc = params.text_document
        return self.locate(params.path, doc.uri if doc else None)

    # ---- documents ---------------------------------------------------------------------
    def open(self, uri: str, text: str, version: int | None) -> None:
        try:
            loc = self.locate(uri=uri)
        except (OutsideWorkspace, InvalidParams):
            return  # editors open files from anywhere; we only serve the workspace
        self.docs[str(loc.abspath)] = Document(languages.for_path(loc.path), text, version)

    def _doc(self, uri: str) -> Document | None:
        try:
            return self.docs.get(str(self.locate(uri=uri).abspath))
        except (OutsideWorkspace, InvalidParams):
            return None

    def change(self, uri: str, version: int | None,
               changes: list[tuple[tuple[int, int], tuple[int, int], str] | str]) -> None:
        """Replay LSP content changes in order: (start, end, text) or a whole text."""
        doc = self._doc(uri)
        if doc is None:
            return
        for change in changes:
            if isinstance(change, str):
                doc.replace(change, version)
            else:
                doc.edit(change[0], change[1], change[2], self.encoding, version)

    def close(self, uri: str) -> None:
        try:
            loc = self.locate(uri=uri)
        except (OutsideWorkspace, InvalidParams):
            return
        self.docs.pop(str(loc.abspath), None)
        self.refresh(uri)

    def refresh(self, uri: str) -> None:
        """Re-read a file from disk (saved, changed or deleted outside the editor)."""
        try:
            loc = self.locate(uri=uri)
        except (OutsideWorkspace, InvalidParams):
            return
        key = str(loc.abspath)
        store = self._store(loc.root)
        if loc.abspath.is_file():
            self.entries[key] = entry = index_file(loc.path, key, self.options.max_file_bytes)
            self._index_entry(entry)
            if store is not None:
                store.save([entry])
        else:
            self.entries.pop(key, None)
            self.refs.remove(key)
            if store is not None:
                store.forget([loc.path])
        self._indexed_versions.pop(key, None)

    # ---- scanning ----------------------------------------------------------------------
    def scan_plan(self) -> list[tuple[str, str]]:
        plan: list[tuple[str, str]] = []
        for root in self.roots:
            plan.extend(walk(root, self.options.exclude))
        self.planned = len(plan)
        return plan

    def _root_of(self, abspath: str) -> Path:
        if len(self.roots) == 1:
            return self.roots[0]
        return next(r for r in self.roots if abspath.startswith(f"{r}{os.sep}"))

    def _store(self, root: Path) -> Store | None:
        if not self.options.persist:
            return None
        if root not in self.stores:
            folder = Path(self.options.cache_dir) if self.options.cache_dir else default_dir()
            try:
                self.stores[root] = Store(folder, root)
            except Exception as exc:  # no cache is better than no server
                log.warning("no index cache: %s", exc)
                self.options.persist = False
                return None
        return self.stores[root]

    def warm_start(self, plan: list[tuple[str, str]]
                   ) -> tuple[list[FileEntry], list[tuple[str, str]]]:
        """Entries restored from the persistent index, and the files still to index."""
        hits: list[FileEntry] = []
        misses: list[tuple[str, str]] = []
        for root in self.roots:
            mine = [(rel, a) for rel, a in plan if self._root_of(a) == root]
            store = self._store(root)
            if store is None:
                h, m = warm(mine, {}, self.options.max_file_bytes)  # unlisted files only
                hits.extend(h)
                misses.extend(m)
                continue
            h, m = warm(mine, store.load(), self.options.max_file_bytes)
            self.from_cache += sum(1 for e in h if e.tables is not None)
            hits.extend(h)
            misses.extend(m)
        return hits, misses

    def persist(self, entries: list[FileEntry]) -> None:
        for root in self.roots:
            store = self._store(root)
            if store is not None:
                store.save(e for e in entries if self._root_of(e.abspath) == root)

    def add(self, entries: list[FileEntry]) -> None:
        for e in entries:
            if self.entries.setdefault(e.abspath, e) is e:  # a refresh that raced the scan wins
                self._index_entry(e)

    def _index_entry(self, e: FileEntry) -> None:
        if e.tables is not None and e.tables.names is not None and e.abspath not in self.docs:
            self.refs.put(FileInfo(e.abspath, e.path, e.tables))

    def _sync_docs(self) -> None:
        """Bring the reference index up to date with open documents (lazily, per request)."""
        for key, doc in self.docs.items():
            if (self._indexed_versions.get(key, -1) == doc.version or doc.lang is None
                    or doc.lang.refs_query is None):
                continue
            outline, tree = doc.outline(), doc.parsed()
            if outline is None or tree is None:
                continue
            path = self.locate(path=key).path
            self.refs.put(FileInfo(key, path, Tables.of(
                outline, refs_mod.extract(doc.lang, tree.root_node))))
            self._indexed_versions[key] = doc.version

    # ---- views -------------------------------------------------------------------------
    def view(self, loc: Located) -> View:
        key = str(loc.abspath)
        doc = self.docs.get(key)
        if doc is not None:
            v = View(loc, doc.lang, doc.data, doc.lines, doc.outline(), doc.version,
                     (["non-utf8: invalid bytes were decoded as U+FFFD"] if doc.non_utf8 else [])
                     + (["parse-error"] if (o := doc.outline()) and o.errors else []),
                     self.encoding)
        else:
            entry = self.entries.get(key)
            if entry is None:
                entry = self._read(loc, entry)
            if entry.status == "binary":
                raise Unreadable(f"{loc.path} is a binary file; there is no text to show")
            data = entry.data
            if data is None and entry.outline is not None:
                data = self._current(loc, entry)
                if data is None:  # changed on disk since it was indexed: index it again
                    entry = self._read(loc, entry)
                    data = entry.data
            if data is None:
                data = self._read_raw(loc)
            v = View(loc, languages.for_path(loc.path), data, LineIndex(data), entry.outline,
                     None, entry.notes, self.encoding)
        return v

    def _read(self, loc: Located, entry: FileEntry | None) -> FileEntry:
        if not loc.abspath.exists():
            raise FileMissing(f"{loc.path} does not exist in the workspace")
        if not loc.abspath.is_file():
            raise InvalidParams(f"{loc.path} is not a file")
        if entry is None or entry.language is not None:
            entry = index_file(loc.path, str(loc.abspath), self.options.max_file_bytes)
            if entry.language is not None:
                self.entries[str(loc.abspath)] = entry
                self._index_entry(entry)
        return entry

    def _current(self, loc: Located, entry: FileEntry) -> bytes | None:
        """The indexed file's text, if the file still has the content the tables describe."""
        try:
            raw = loc.abspath.read_bytes()
        except OSError:
            return None
        if hashlib.blake2b(raw, digest_size=16).hexdigest() != entry.digest:
            return None
        return decode(raw)[0]

    def _read_raw(self, loc: Located) -> bytes:
        size = loc.abspath.stat().st_size
        if size > HUGE_READ_LIMIT:
            raise Unreadable(f"{loc.path} is {size} bytes; too large to read")
        raw = loc.abspath.read_bytes()
        if b"\0" in raw[:8192]:
            raise Unreadable(f"{loc.path} is a binary file; there is no text to show")
        return index_bytes(loc.path, str(loc.abspath), raw, 0, len(raw) + 1).data or b""

    # ---- requests ----------------------------------------------------------------------
    def _tokens(self, text: str) -> int:
        return tokenizer(self.options.encoding).count(text)

    def skeleton(self, params: p.SkeletonParams) -> p.SkeletonResult:
        v = self.view(self.located(params))
        opts = self.options.skeleton(params.line_numbers)
        target = params.target or p.Target()
        decl: Decl | None = None
        rendering: Rendering | None = None
        row: int | None = None
        if target.position is not None:
            row = v.index.from_lsp(target.position.line, target.position.character,
                                   self.encoding)[0]
        if v.outline is None:
            why = ("unsupported-language" if v.lang is None
                   else v.notes[0] if v.notes else "no-parse")
            rendering = window(v.lines, row or 0, v.marker, why, opts)
        elif v.lang is not None and v.lang.generic and not v.outline.decls:
            rendering = window(v.lines, row or 0, v.marker,
                               f"generic-grammar: the generic query found no declarations "
                               f"in {v.lang.name}; line window", opts)
        elif target.symbol:
            try:
                decl = resolve(v.outline, target.symbol, v.loc.path, target.line)
            except UnknownSymbol:
                if not v.outline.errors:
                    raise
                hit = _mention(v.lines, target.symbol)
                if hit is None:
                    raise
                rendering = window(v.lines, hit, v.marker,
                                   "parse-error: symbol not in the parsed outline; "
                                   f"window around its first mention (line {hit + 1})", opts)
        elif row is not None:
            decl = at_row(v.outline, row)
            if decl is None and any(e.start_row <= row <= e.last_row for e in v.outline.errors):
                rendering = window(v.lines, row, v.marker, "parse-error", opts)
        if rendering is None:
            assert v.outline is not None
            small = len(v.data) <= opts.whole_max_tokens * 8
            rendering = render(
                v.outline, v.lines, v.marker, v.comment, decl,
                self._tokens(v.data.decode("utf-8", errors="replace")) if small else None, opts)
            if v.lang is not None and v.lang.generic and rendering.mode == "skeleton":
                # No grammar folder: the generic query found these declarations; say so.
                rendering = attrs.evolve(rendering, mode="fallback", reason=(
                    f"generic-grammar: {v.lang.name} has no grammars/ folder; outline from "
                    f"the generic definitions query ({rendering.reason})"))
        return p.SkeletonResult(
            uri=v.loc.uri, path=v.loc.path, language=v.lang.name if v.lang else None,
            version=v.version, text=rendering.text,
            shown=[v.range(a, b) for a, b in rendering.shown],
            elided=[p.Elided(v.range(e.first, e.last), e.symbol, e.last - e.first + 1,
                             list(e.names)) for e in rendering.elided],
            tokens=self._tokens(rendering.text), mode=rendering.mode, reason=rendering.reason,
            target=decl.qualname if decl else None, notes=v.notes,
        )

    def read_symbol(self, params: p.ReadSymbolParams) -> p.ReadSymbolResult:
        if not params.name.strip():
            raise InvalidParams("`name` is empty")
        if params.context_lines < 0:
            raise InvalidParams("`contextLines` must be ≥ 0")
        v = self.view(self.located(params))
        if v.outline is None:
            raise UnknownSymbol(
                f"{v.loc.path} has no outline ({', '.join(v.notes) or 'unsupported language'}); "
                "use ctx/readRange")
        decl = resolve(v.outline, params.name, v.loc.path, params.line)
        escape = self._escape(v.loc, "ctx/readSymbol", decl.qualname, params.run_id)
        n = len(v.lines)
        first = max(0, decl.span.start_row - params.context_lines)
        last = min(n - 1, decl.span.last_row + params.context_lines)
        context: list[tuple[int, int]] = []
        if params.include_header:
            context += [(h.span.start_row, h.span.last_row) for h in v.outline.header
                        if h.kind in ("import", "package")]
            for outer in enclosing(v.outline, decl):
                if outer.keep_whole:  # a Go struct, a Rust enum: its fields are its meaning
                    context.append((outer.span.start_row, outer.span.last_row))
                    continue
                context.append((outer.span.start_row, outer.signature.end_row))
                if outer.body is not None and outer.body.doc is not None:
                    context.append(outer.body.doc)
        # Lineage never repeats the declaration's own lines: a kept-whole parent (an enum
        # around its constant) is clipped around it, not dropped.
        context = [part for a, b in context
                   for part in ((a, min(b, first - 1)), (max(a, last + 1), b))
                   if part[0] <= part[1]]
        notes = {}
        if context:
            notes[min(a for a, _ in context)] = (
                f"{v.comment} ctxls: context (imports, enclosing declarations) for {decl.qualname}")
        opts = self.options.skeleton(params.line_numbers)
        rendering = excerpt(v.lines, [*context, (first, last)], v.marker, opts, notes=notes)
        merged = _merge(context)
        return p.ReadSymbolResult(
            symbol=decl.qualname, kind=decl.kind, uri=v.loc.uri, path=v.loc.path,
            language=v.lang.name if v.lang else None, version=v.version,
            range=Range(v.position(decl.span.start_row, decl.span.start_col),
                        v.position(decl.span.end_row, decl.span.end_col)),
            context=[v.range(a, b) for a, b in merged],
            text=rendering.text, tokens=self._tokens(rendering.text), notes=v.notes + escape,
        )

    def read_range(self, params: p.ReadRangeParams) -> p.ReadRangeResult:
        if params.start_line < 1 or params.end_line < params.start_line:
            raise InvalidParams("need 1 ≤ startLine ≤ endLine (1-based, inclusive)")
        v = self.view(self.located(params))
        n = len(v.lines)
        if params.start_line > n:
            raise InvalidParams(f"{v.loc.path} has {n} lines; startLine {params.start_line} "
                                "is past the end")
        first = params.start_line - 1
        last = min(params.end_line - 1, n - 1, first + self.options.read_range_max_lines - 1)
        escape = self._escape(v.loc, "ctx/readRange", f"lines {first + 1}-{last + 1}",
                              params.run_id)
        truncated = last < params.end_line - 1
        opts = self.options.skeleton(params.line_numbers)
        width = len(str(n))
        text = "".join(
            (f"{r + 1:>{width}} | {v.lines[r]}".rstrip() if opts.line_numbers else v.lines[r])
            + "\n" for r in range(first, last + 1))
        return p.ReadRangeResult(
            uri=v.loc.uri, path=v.loc.path, version=v.version, range=v.range(first, last),
            text=text, tokens=self._tokens(text), total_lines=n, truncated=truncated,
            notes=v.notes + escape + ([f"capped at {self.options.read_range_max_lines} lines"]
                             if truncated and last - first + 1 >= self.options.read_range_max_lines
                             else []),
        )

    def references(self, params: p.ReferencesParams, brief: bool = False) -> p.ReferencesResult:
        """Call sites of a declaration; ``brief`` leaves out their text (LSP wants ranges)."""
        v = self.view(self.located(params))
        if v.outline is None:
            raise UnknownSymbol(f"{v.loc.path} has no outline; nothing to find references of")
        self._sync_docs()
        key = str(v.loc.abspath)
        info = self.refs.files.get(key)
        if info is None:  # no references.scm for this language yet: say so, match text
            decl = self.declaration(v, params.name, params.position, params.line)
            resolved: list[Reference] = []
            candidates = self._mentions(v, decl)
        elif params.name:
            decl = resolve(v.outline, params.name, v.loc.path, params.line)
            resolved, candidates = references(self.refs, key, decl)
        elif params.position is not None:
            row, col = v.index.from_lsp(params.position.line, params.position.character,
                                        self.encoding)
            found = definition(self.refs, info, row, col)
            if found is None:
                raise UnknownSymbol(f"nothing at {v.loc.path}:{row + 1}:{col + 1} resolves to "
                                    "a declaration")
            info, decl = found
            key = info.key
            resolved, candidates = references(self.refs, key, decl)
        else:
            raise InvalidParams("give `name` or `position`")
        views: dict[str, View] = {}
        cap = max(1, params.limit)

        def site(ref: Reference) -> p.Site:
            rv = views.get(ref.key)
            if rv is None:
                rv = views[ref.key] = self.view(self.locate(path=ref.key))
            c = ref.call
            span = Range(rv.position(c.row, c.col), rv.position(c.row, c.end_col))
            if brief:
                return p.Site(rv.loc.uri, rv.loc.path, span, ref.enclosing, "", "", ref.why)
            width = len(str(len(rv.lines)))
            rows = range(max(0, c.row - 1), min(len(rv.lines), c.row + 2))
            imports = [r for h in (rv.outline.header if rv.outline else ())
                       if h.kind in ("import", "package")
                       for r in range(h.span.start_row, h.span.last_row + 1)]
            return p.Site(
                uri=rv.loc.uri, path=rv.loc.path,
                range=span,
                enclosing=ref.enclosing,
                text="".join(f"{r + 1:>{width}} | {rv.lines[r]}".rstrip() + "\n" for r in rows),
                header="".join(f"{r + 1:>{width}} | {rv.lines[r]}".rstrip() + "\n"
                               for r in imports),
                evidence=ref.why)

        unindexed = self._unindexed(v.lang.name if v.lang else None)
        home = self.view(self.locate(path=key))
        return p.ReferencesResult(
            symbol=decl.qualname, kind=decl.kind, uri=home.loc.uri, path=home.loc.path,
            references=[site(r) for r in resolved[:cap]],
            candidates=[site(r) for r in candidates[:cap]] if params.include_candidates else [],
            unindexed_files=unindexed,
            complete=not self.scanning and unindexed == 0 and info is not None,
            truncated=len(resolved) > cap or (params.include_candidates and len(candidates) > cap),
            version=home.version)

    def declaration(self, v: View, name: str | None, position: Position | None,
                    line: int | None = None, asked: str = "`name` or `position`") -> Decl:
        """The declaration a request names: by (qualified) name, else the innermost one
        around a position."""
        if v.outline is None:
            raise UnknownSymbol(f"{v.loc.path} has no outline")
        if name:
            return resolve(v.outline, name, v.loc.path, line)
        if position is None:
            raise InvalidParams(f"give {asked}")
        row = v.index.from_lsp(position.line, position.character, self.encoding)[0]
        found = at_row(v.outline, row)
        if found is None:
            raise UnknownSymbol(f"no declaration at {v.loc.path}:{row + 1}")
        return found

    def _symbol(self, params: p.SymbolParams) -> tuple[View, FileInfo | None, Decl]:
        v = self.view(self.located(params))
        if v.outline is None:
            raise UnknownSymbol(f"{v.loc.path} has no outline")
        self._sync_docs()
        info = self.refs.files.get(str(v.loc.abspath))
        return v, info, resolve(v.outline, params.name, v.loc.path, params.line)

    def _mentions(self, home: View, decl: Decl, limit: int = 1000) -> list[Reference]:
        """Word matches of a declaration's name in the files of its language: the honest
        answer where the language has no reference table yet (all candidates)."""
        lang = home.lang.name if home.lang else None
        word = re.compile(rf"\b{re.escape(decl.name)}\b".encode())
        why = f"text match only: no reference table for {lang} yet"
        out: list[Reference] = []
        for key, entry in sorted(self.entries.items()):
            if entry.language != lang or entry.tables is None:
                continue
            try:
                fv = home if key == str(home.loc.abspath) else self.view(self.locate(path=key))
            except Exception:
                continue
            if decl.name.encode() not in fv.data:
                continue
            for row in range(fv.index.line_count):
                line = fv.index.line(row)
                for m in word.finditer(line):
                    if key == str(home.loc.abspath) and (row, m.start()) == (
                            decl.name_span.start_row, decl.name_span.start_col):
                        continue  # the declaration itself
                    around = at_row(fv.outline, row) if fv.outline else None
                    out.append(Reference(key, fv.loc.path,
                                         Call(row, m.start(), m.end(), decl.name, None),
                                         around.qualname if around else None, why))
                    if len(out) >= limit:
                        return out
        return out

    def _unindexed(self, lang: str | None) -> int:
        n = sum(1 for e in self.entries.values() if e.language == lang and e.tables is None)
        return n + (max(0, self.planned - len(self.entries)) if self.scanning else 0)

    def tests(self, params: p.SymbolParams) -> p.TestsResult:
        v, info, decl = self._symbol(params)

        def is_test(path: str) -> bool:
            lang = languages.for_path(path)
            return lang is not None and lang.is_test_file(path)

        if info is None:  # no reference table: test files that mention the name
            seen: dict[tuple[str, str | None], TestHit] = {}
            for ref in self._mentions(v, decl):
                if is_test(ref.path):
                    seen.setdefault((ref.key, ref.enclosing), TestHit(
                        ref.key, ref.path, ref.enclosing,
                        f"mentions {decl.name} (line {ref.call.row + 1}); {ref.why}"))
            hits = list(seen.values())
        else:
            hits = tests_for(self.refs, info.key, decl, is_test)
        unindexed = self._unindexed(v.lang.name if v.lang else None)
        return p.TestsResult(
            symbol=decl.qualname, path=v.loc.path,
            tests=[p.TestItem(Path(h.key).as_uri(), h.path, h.symbol, h.evidence) for h in hits],
            complete=not self.scanning and unindexed == 0 and info is not None,
            unindexed_files=unindexed)

    def dependencies(self, params: p.SymbolParams) -> p.DependenciesResult:
        v, info, decl = self._symbol(params)
        if info is None:
            raise InvalidParams(f"{v.loc.path}: dependencies need a reference table, and "
                                f"{v.lang.name if v.lang else 'this file'} has none yet")
        items = []
        for dep in dependencies(self.refs, info.key, decl, v.lines):
            dv = v if dep.key == info.key else self.view(self.locate(path=dep.key))
            s = dep.decl.name_span
            items.append(p.DependencyItem(
                symbol=dep.decl.qualname, kind=dep.decl.kind, uri=dv.loc.uri, path=dv.loc.path,
                range=Range(dv.position(s.start_row, s.start_col),
                            dv.position(s.end_row, s.end_col)),
                relation=dep.relation, line=dep.row + 1))
        return p.DependenciesResult(symbol=decl.qualname, path=v.loc.path, dependencies=items)

    def stats(self, params: p.StatsParams) -> dict[str, object]:
        """Index metrics over every listed file (chunks every parsed file: seconds on a
        large workspace)."""
        count = tokenizer(self.options.encoding).count
        records = []
        for key, e in sorted(self.entries.items()):
            chunks: tuple[Chunk, ...] = ()
            is_generated = False
            if e.language is not None and e.status == "ok":
                found = self._file_chunks(key, count, params.max_tokens)
                if found is not None:
                    v, listed = found
                    is_generated = generated(v.loc.path, v.data, v.lang)
                    chunks = tuple(listed)
            records.append(FileRecord(e.path, e.language, e.tables is not None
                                      and e.tables.errors == 0, is_generated, chunks))
        return summarize(records, params.max_tokens)

    def search(self, params: p.SearchParams) -> p.SearchResult:
        """BM25 over the symbol chunks of every indexed file (see ``search_step``: built
        after the scan or here, then kept current file by file by content hash)."""
        if not params.query.strip():
            raise InvalidParams("`query` is empty")
        index = self._search_index()
        hits = index.search(params.query, max(1, min(params.limit, 200)))
        return p.SearchResult(params.query, [
            p.SearchHit(h.chunk_id, self.locate(path=h.path).uri, h.path, h.symbol, h.kind,
                        h.granularity, round(h.score, 4)) for h in hits],
            len(index.digests))

    def _search_index(self) -> SearchIndex:
        self.search_step(None)
        assert self._search is not None
        return self._search

    def _file_chunks(self, key: str, count: Callable[[str], int] | None, cap: int = 8192
                     ) -> tuple[View, list[Chunk]] | None:
        """One file's chunks, for a pass over every file (stats, chunks, the search index):
        tables decoded only for it go back to their compact payload afterwards (Django's,
        all decoded at once, held ~120 MiB more)."""
        e = self.entries.get(key)
        tables = e.tables if e is not None else None
        was = tables is None or tables.decoded
        try:
            v = self.view(self.locate(path=key))
            return v, chunk_file(v.loc.path, v.data, v.lines, v.outline, v.lang, count, cap)
        except CtxError:
            return None
        finally:
            if tables is not None and not was:
                tables.release()

    def _open_search(self) -> SearchIndex:
        """On disk beside the first root's reference index when the index persists."""
        store = next(iter(self.stores.values()), None) if self.options.persist else None
        if store is None:
            return SearchIndex()
        try:
            return SearchIndex(store.path.with_suffix(".search.sqlite"), store.fingerprint)
        except sqlite3.Error as exc:  # no cache is better than no search
            log.warning("search index in memory: %s", exc)
            return SearchIndex()

    def search_step(self, limit: int | None) -> bool:
        """Bring the search index up to date, chunking at most ``limit`` stale files (all
        when None); True when it is current. The server calls it between requests after the
        scan, so the first ctx/search finds it built. A call without a limit (a search)
        looks at every file again, so edits made since are folded in."""
        index = self._search or self._open_search()
        self._search = index
        if self._search_queue is None or limit is None:
            live = {e.path for e in self.entries.values() if _searchable(e)}
            for gone in set(index.digests) - live:
                index.forget(gone)
            self._search_queue = sorted(k for k, e in self.entries.items()
                                        if _searchable(e) and index.digests.get(e.path)
                                        != e.digest)
        queue = self._search_queue
        n = len(queue) if limit is None else min(limit, len(queue))
        for key in queue[:n]:
            e = self.entries.get(key)
            if e is None or not _searchable(e):
                continue
            found = self._file_chunks(key, None)
            if found is not None:
                index.put(e.path, e.digest, found[1])
        del queue[:n]
        if queue:
            return False
        self._search_queue = None
        self.search_ready = self.search_ready or not self.scanning
        return True

    def chunks(self, params: p.ChunksParams) -> p.ChunksResult:
        """Symbol chunks with their lineage (seed 001) of one file or of every indexed one."""
        if params.max_tokens < 64:
            raise InvalidParams("`maxTokens` must be at least 64")
        count = tokenizer(self.options.encoding).count
        if params.path or params.text_document:
            keys = [str(self.located(params).abspath)]
        else:
            keys = sorted(k for k, e in self.entries.items() if e.language is not None
                          and e.status == "ok")
        out: list[p.ChunkItem] = []
        for key in keys:
            found = self._file_chunks(key, count, params.max_tokens)
            for c in found[1] if found is not None else ():
                out.append(p.ChunkItem(
                    c.chunk_id, c.path, c.symbol, c.kind, list(c.parents), c.start_byte,
                    c.end_byte, c.language, c.header_bytes, c.granularity, c.part, c.parts,
                    c.tokens, c.content_hash, c.strategy,
                    c.text if params.include_text else None))
        return p.ChunksResult(out, len(keys), sum(1 for c in out if c.parts > 1))

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

    def _escape(self, loc: Located, method: str, what: str, run_id: str | None) -> list[str]:
        """A read of a path the policy excludes is allowed and logged (seed 003's escape
        hatch); the note says so. Nothing but the path, the rule and the run is logged."""
        rule = self.policy(loc.root).rule_for(loc.path)
        if rule is None:
            return []
        note = f"excluded by {rule.describe()}; this read is allowed"
        log = self.options.context_log
        if log:
            self._log(loc.root, {"event": "read", "method": method, "path": loc.path,
                                 "what": what, "rule": rule.describe(),
                                 "runId": run_id or self.options.run_id})
            note += f" and logged in {log}"
        return [note]

    def _log(self, root: Path, record: dict[str, object]) -> bool:
        log = self.options.context_log
        if not log:
            return False
        target = (root / log).resolve()
        if not target.is_relative_to(root / ".agent"):  # the server writes nowhere else
            raise InvalidParams(f"contextLog must lie under .agent/, not {log}")
        target.parent.mkdir(parents=True, exist_ok=True)
        record = {"time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                  **record}
        with target.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        return True

    def record_outcome(self, params: p.OutcomeParams) -> p.OutcomeResult:
        if not params.run_id.strip():
            raise InvalidParams("`runId` is empty")
        logged = False
        for root in self.roots:
            logged = self._log(root, {"event": "outcome", "runId": params.run_id,
                                      "success": params.success}) or logged
        return p.OutcomeResult(logged, self.options.context_log if logged else None)

    def construct(self, params: p.ConstructParams) -> p.DecisionContext:
        """The context window for one decision (spec 08): gather, then the pure pipeline."""
        encoding = params.encoding or self.options.encoding
        count = tokenizer(encoding).count
        got = collect(self, params)
        # The request wins; then the repository's policy (seed 003); then the defaults.
        policy = self.policy(self.locate(path=got.target.rsplit("::", 1)[0]).root)
        ceiling = params.ceiling or policy.first_turn_ceiling or DEFAULT_CEILING
        reservations = params.reservations
        if reservations is None and policy.roles:
            reservations = {**policy.reservations,
                            **{r: 0 for r in ROLES if r not in policy.roles}}
        params = attrs.evolve(params, ceiling=ceiling, reservations=reservations or None)
        config = ranking_config(self.options)
        obligation = "\n".join([*(o.text for o in params.obligations[:1]),
                                 *params.acceptance_criteria])
        question = (f"Which of these does the edit of {got.target} need?"
                    + (f" Task: {params.task.strip().splitlines()[0]}"
                       if params.task.strip() else ""))

        def ranker(residue: list[Evidence]) -> Ranked:
            return rank(config, obligation, question, residue)

        built = build(got.items, intent=params.intent, ceiling=ceiling,
                      ranker=ranker if config is not None else None,
                      threshold=config.threshold if config is not None else 0.5,
                      reservations=params.reservations, count=count,
                      decision_terms=terms(params.task, got.target,
                                           *(o.text for o in params.obligations)),
                      exemplars=frozenset(got.exemplars))
        views: dict[str, View] = {}

        def ranges(e: Evidence, text: Text) -> list[Range]:
            if e.path is None or not text.shown:
                return []
            v = views.get(e.path) or views.setdefault(e.path, self.view(self.locate(path=e.path)))
            return [v.range(a, min(b, len(v.lines) - 1)) for a, b in text.shown
                    if a < len(v.lines)]

        def uri(e: Evidence) -> str | None:
            return self.locate(path=e.path).uri if e.path else None

        window = [p.WindowItem(
            id=w.item.id, role=w.item.role, kind=w.item.kind, source=w.item.source,
            rendering=w.rendering, placement=w.placement, uri=uri(w.item), path=w.item.path,
            symbol=w.item.symbol,
            shown=[] if w.pointer_to or w.rendering not in w.item.renderings
            else ranges(w.item, w.view),
            tokens=w.tokens, text=w.text, provenance=w.item.provenance,
            pointer_to=w.pointer_to, writable=w.item.writable) for w in built.outcome.window]
        by_id = {e.id: e for e in built.pool}
        gate_log = [p.GateEntry(d.id, d.decision, d.driver, d.reason, by_id[d.id].kind,
                                by_id[d.id].source, by_id[d.id].path, by_id[d.id].symbol)
                    for d in built.gate_log]
        omitted = [p.OmittedItem(
            id=o.item.id, reason=why, kind=o.item.kind, path=o.item.path, symbol=o.item.symbol,
            start_line=o.item.rows[0] + 1 if o.item.rows and not o.item.symbol else None,
            end_line=o.item.rows[1] + 1 if o.item.rows and not o.item.symbol else None)
            for o, why in built.outcome.omitted]
        omitted += [p.OmittedItem(e.id, "over the pool cap of 256 items", e.kind, e.path,
                                  e.symbol, None, None) for e in built.queued]
        omitted += [p.OmittedItem(d.id, d.reason, by_id[d.id].kind, by_id[d.id].path,
                                  by_id[d.id].symbol, None, None)
                    for d in built.gate_log if d.decision in ("rejected",)]
        current = params.obligations[0] if params.obligations else None
        return p.DecisionContext(
            task=params.task, acceptance_criteria=params.acceptance_criteria,
            current_obligation=current, target=got.target, intent=params.intent,
            window=window, text=built.outcome.text, token_count=built.outcome.tokens,
            ceiling=ceiling, encoding=encoding,
            budget_log=[p.BudgetEntry(s.step, s.item, s.detail, s.tokens)
                        for s in built.outcome.steps],
            gate_log=gate_log, omitted=omitted, flagged=built.outcome.flagged,
            table_misses=built.misses, notes=got.notes,
            ranking=p.RankingInfo(
                fired=bool(built.ranking and built.ranking.fired),
                reason=built.ranking.reason if built.ranking else (
                    "no ranking endpoint configured" if config is None
                    else "the residue is empty"),
                latency_ms=built.ranking.latency_ms if built.ranking else None,
                usage=built.ranking.usage if built.ranking else None))

    def definition_at(self, uri: str, line: int, character: int) -> Location | None:
        v = self.view(self.locate(uri=uri))
        self._sync_docs()
        info = self.refs.files.get(str(v.loc.abspath))
        if info is None:
            return None
        row, col = v.index.from_lsp(line, character, self.encoding)
        found = definition(self.refs, info, row, col)
        if found is None:
            return None
        target = self.view(self.locate(path=found[0].key))
        s = found[1].name_span
        return Location(target.loc.uri, Range(target.position(s.start_row, s.start_col),
                                              target.position(s.end_row, s.end_col)))

    def references_at(self, uri: str, line: int, character: int,
                      include_declaration: bool) -> list[Location]:
        result = self.references(p.ReferencesParams(
            text_document=None, path=str(self.locate(uri=uri).abspath),
            position=Position(line, character), include_candidates=False, limit=10_000),
            brief=True)
        out = [Location(s.uri, s.range) for s in result.references]
        if include_declaration:
            decl_loc = self.definition_at(uri, line, character)
            if decl_loc is not None:
                out.insert(0, decl_loc)
        return out

    def document_symbols(self, uri: str) -> list[DocumentSymbol]:
        v = self.view(self.locate(uri=uri))
        if v.outline is None:
            return []
        by_name: dict[str, DocumentSymbol] = {}
        kids: dict[str, list[DocumentSymbol]] = {}
        top: list[DocumentSymbol] = []
        for d in v.outline.decls:
            sym = DocumentSymbol(
                name=d.name, kind=_kind(d), detail=_signature(v, d),
                range=Range(v.position(d.span.start_row, d.span.start_col),
                            v.position(d.span.end_row, d.span.end_col)),
                selection_range=Range(v.position(d.name_span.start_row, d.name_span.start_col),
                                      v.position(d.name_span.end_row, d.name_span.end_col)),
                children=kids.setdefault(d.qualname, []),
            )
            parent = d.parents[-1] if d.parents else None
            (kids[parent] if parent in by_name else top).append(sym)
            by_name.setdefault(d.qualname, sym)
        return top

    def workspace_symbols(self, query: str, limit: int = 200) -> list[WorkspaceSymbol]:
        q = query.lower()
        out: list[WorkspaceSymbol] = []
        files: dict[str, tuple[Outline | None, FileEntry | None]] = {
            k: (e.outline, e) for k, e in self.entries.items()}
        for k, doc in self.docs.items():
            files[k] = (doc.outline(), None)
        for key in sorted(files):
            outline, _ = files[key]
            if outline is None:
                continue
            hits = [d for d in outline.decls if _fuzzy(q, d.name.lower())]
            if not hits:
                continue
            try:
                v = self.view(self.locate(path=key))
            except Exception:
                continue
            for d in hits:
                out.append(WorkspaceSymbol(
                    name=d.name, kind=_kind(d),
                    container_name=d.parents[-1] if d.parents else None,
                    location=Location(v.loc.uri, Range(
                        v.position(d.name_span.start_row, d.name_span.start_col),
                        v.position(d.name_span.end_row, d.name_span.end_col)))))
                if len(out) >= limit:
                    return out
        return out

    def status(self) -> p.StatusResult:
        skipped = [p.SkippedFile(e.path, ", ".join(e.notes)) for e in self.entries.values()
                   if e.status != "ok" or e.non_utf8 or (e.tables and e.tables.errors)]
        return p.StatusResult(
            roots=[r.as_uri() for r in self.roots], scanning=self.scanning,
            files=max(self.planned, len(self.entries)),
            indexed=sum(1 for e in self.entries.values() if e.tables is not None),
            skipped=sorted(skipped, key=lambda s: s.path), encoding=self.options.encoding,
            from_cache=self.from_cache,
            cache=", ".join(str(s.path) for s in self.stores.values()) or None,
            search_indexed=len(self._search.digests) if self._search else 0,
            search_ready=self.search_ready)


def _searchable(e: FileEntry) -> bool:
    return e.language is not None and e.status == "ok" and e.tables is not None


def ranking_config(options: Options) -> RankingConfig | None:
    """From initializationOptions.ranking, else from CTXLS_RANKING_* variables; off
    unless both a base URL and a model are known."""
    r = options.ranking
    base = r.base_url if r else os.environ.get("CTXLS_RANKING_BASE_URL")
    model = r.model if r else os.environ.get("CTXLS_RANKING_MODEL")
    if not base or not model:
        return None
    return RankingConfig(base, model,
                         r.api_key_env if r else os.environ.get("CTXLS_RANKING_API_KEY_ENV"),
                         r.timeout_s if r else 20.0, r.threshold if r else 0.5)


def _kind(d: Decl) -> SymbolKind:
    if d.kind in ("variable", "attribute") and UPPER.match(d.name):
        return SymbolKind.Constant
    return KIND.get(d.kind, SymbolKind.Variable)


def _signature(v: View, d: Decl) -> str:
    s = d.signature
    rows = [v.index.line(r) for r in range(s.start_row, min(s.end_row, s.start_row + 8) + 1)]
    if len(rows) == 1:
        rows[0] = rows[0][s.start_col : s.end_col]
    else:
        rows[0], rows[-1] = rows[0][s.start_col :], rows[-1][: s.end_col]
    return " ".join(b" ".join(rows).decode("utf-8", errors="replace").split())[:200]


def _fuzzy(query: str, name: str) -> bool:
    """Every query character in order (what editors' symbol pickers do)."""
    it = iter(name)
    return all(ch in it for ch in query)


def _mention(lines: list[str], name: str) -> int | None:
    word = re.compile(rf"\b{re.escape(name.rsplit('.', 1)[-1])}\b")
    return next((i for i, line in enumerate(lines) if word.search(line)), None)


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1] + 2:  # a one-line gap is shown, as in the text
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out
