"""Walking a workspace and indexing its files.

The walk honours ``.gitignore`` files at every level (pathspec's gitignore semantics) and
always skips VCS folders, virtualenvs, dependency and build output. Indexing a file reads it,
classifies it (too large, binary, not UTF-8) and outlines it; it is a top-level function so a
process pool can run it during a cold scan.
"""

from __future__ import annotations

import gc
import hashlib
import operator
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import pathspec
import tree_sitter as ts

from ctxls.index import refs as refs_mod
from ctxls.index.refs import Refs
from ctxls.index.tables import Tables
from ctxls.paths import read_inside
from ctxls.syntax import languages
from ctxls.syntax.outline import Outline, extract
from ctxls.syntax.text import LineIndex, decode

ALWAYS_SKIP = frozenset({
    ".git", ".hg", ".svn", ".jj", "node_modules", "__pycache__", ".venv", "venv",
    ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".eggs", "build", "dist",
    "target", ".gradle", ".idea", ".vscode", "site-packages", ".agent",
})

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


def _ignored(specs: list[tuple[str, pathspec.GitIgnoreSpec]], rel: str, is_dir: bool,
             extra: pathspec.GitIgnoreSpec | None = None) -> bool:
    """As git decides: the deepest ignore file with a pattern that matches decides (a
    folder's ``!a.log`` takes back its parent's ``*.log``), and within one file the last
    matching pattern. The ``exclude`` option (``extra``) is over all of them."""
    if extra is not None and extra.match_file(rel + "/" if is_dir else rel):
        return True
    for base, spec in reversed(specs):
        if base and not rel.startswith(base + "/"):
            continue
        sub = rel[len(base) + 1 :] if base else rel
        include = spec.check_file(sub + "/" if is_dir else sub).include
        if include is not None:
            return include
    return False


def _spec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    """The patterns of one ignore file. A line git would not take (a lone ``!``) is skipped,
    as git skips it: one bad line must not lose the whole scan."""
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError:  # (pathspec's pattern error is one)
        good = []
        for line in lines:
            try:
                pathspec.GitIgnoreSpec.from_lines([line])
            except ValueError:
                continue
            good.append(line)
        return pathspec.GitIgnoreSpec.from_lines(good)


class Ignores:
    """The walk's rules asked one path at a time (for the file watcher): a path is skipped
    when a folder above it is, or the nearest ``.gitignore`` files or the excludes say so."""

    def __init__(self, root: Path, extra_excludes: list[str] | None = None) -> None:
        self.root = str(root)
        self.extra = _spec(extra_excludes) if extra_excludes else None
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}  # folder -> .gitignore
        # folder -> skipped?, decided once: a checkout reports thousands of paths in the
        # same few folders, and each asked every folder above it again (2-4 s on babel)
        self._folders: dict[str, bool] = {}

    def forget(self, folder: str) -> None:
        """A folder's .gitignore changed: read it again when next asked."""
        self._specs.pop(folder, None)
        self._folders.clear()

    def _folder_spec(self, folder: str) -> pathspec.GitIgnoreSpec | None:
        if folder not in self._specs:
            try:
                text = read_inside(os.path.join(self.root, folder, ".gitignore"), self.root)
                self._specs[folder] = _spec(text.decode("utf-8", errors="replace").splitlines())
            except OSError:
                self._specs[folder] = None
        return self._specs[folder]

    def _specs_for(self, folder: str) -> list[tuple[str, pathspec.GitIgnoreSpec]]:
        """The ignore files that apply inside ``folder``: its own and every one above."""
        parts = folder.split("/") if folder else []
        out = []
        for i in range(len(parts) + 1):
            here = "/".join(parts[:i])
            spec = self._folder_spec(here)
            if spec is not None:
                out.append((here, spec))
        return out

    def _folder_skipped(self, folder: str) -> bool:
        found = self._folders.get(folder)
        if found is None:
            parent, _, name = folder.rpartition("/")
            found = (bool(parent) and self._folder_skipped(parent)) or name in ALWAYS_SKIP \
                or _ignored(self._specs_for(parent), folder, True, self.extra) \
                or os.path.exists(os.path.join(self.root, folder, "pyvenv.cfg"))
            self._folders[folder] = found
        return found

    def ignored(self, rel: str) -> bool:
        folder = rel.rpartition("/")[0]
        if folder and self._folder_skipped(folder):
            return True
        return _ignored(self._specs_for(folder), rel, False, self.extra)


def walk(root: Path, extra_excludes: list[str] | None = None) -> Iterator[tuple[str, str]]:
    """(relative POSIX path, absolute path) of every file not ignored, in sorted order.
    Strings, not Paths: a pathlib object per file costs more than the rest of the walk.
    A loop over a stack of folders rather than nested generators (each file passed up
    through one generator per level), and a folder's own listing says whether it holds an
    ignore file or is a virtualenv (two system calls per folder fewer: 57,000 files over
    22,000 folders listed in half the time)."""
    specs: list[tuple[str, pathspec.GitIgnoreSpec]] = []
    extra = _spec(extra_excludes) if extra_excludes else None

    def enter(folder: str, rel: str) -> tuple[str, Iterator[os.DirEntry[str]], bool] | None:
        try:
            items = sorted(os.scandir(folder), key=_NAME)
        except OSError:
            items = []
        names = {item.name for item in items}
        if rel and "pyvenv.cfg" in names:
            return None
        pushed = False
        if ".gitignore" in names:
            try:  # (a link out of the workspace is not read)
                text = read_inside(os.path.join(folder, ".gitignore"), root)
                specs.append((rel, _spec(text.decode("utf-8", errors="replace").splitlines())))
                pushed = True
            except OSError:
                pass
        return rel, iter(items), pushed

    top = enter(str(root), "")
    stack = [top] if top is not None else []
    while stack:
        rel, items, pushed = stack[-1]
        item = next(items, None)
        if item is None:
            stack.pop()
            if pushed:
                specs.pop()
            continue
        child = f"{rel}/{item.name}" if rel else item.name
        try:
            if item.is_symlink():
                continue  # never follow links out of (or around) the workspace
            if item.is_dir():
                if item.name not in ALWAYS_SKIP and not _ignored(specs, child, True, extra) \
                        and (frame := enter(item.path, child)) is not None:
                    stack.append(frame)
            elif item.is_file() and not _ignored(specs, child, False, extra):
                yield child, item.path
        except OSError:
            continue


_NAME = operator.attrgetter("name")


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
