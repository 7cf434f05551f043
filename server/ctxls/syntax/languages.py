"""The language registry.

Everything ctxls knows about a language lives in ``grammars/<lang>/``: a ``language.toml``
data file and an ``outline.scm`` query. This module loads them, compiles each query once and
hands out parsers. Adding a language adds a folder, never a branch here.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import posixpath
import re
import threading
import tomllib
from functools import cache, lru_cache
from pathlib import Path, PurePosixPath
from typing import NamedTuple

import attrs
import tree_sitter as ts
from tree_sitter_language_pack import get_language

log = logging.getLogger("ctxls")

# What QueryCursor.matches returns: (pattern index, captures by name) per match.
Matches = list[tuple[int, dict[str, list[ts.Node]]]]

def grammars_dir() -> Path:
    """The installed copy (wheel) wins; a source checkout falls back to the repo folder."""
    env = os.environ.get("CTXLS_GRAMMARS")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "grammars", here.parent.parent / "grammars"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("grammars/ not found; set CTXLS_GRAMMARS")


@attrs.frozen
class Language:
    name: str
    extensions: tuple[str, ...]
    line_comment: str
    comment_nodes: frozenset[str]
    elision: str
    wrappers: frozenset[str]
    leading: frozenset[str]  # sibling nodes just before a declaration that belong to it
    test_files: tuple[str, ...]
    generated_markers: tuple[str, ...]
    generated_files: tuple[str, ...]  # file-name globs a generator writes (`*_pb2.py`)
    ts_language: ts.Language = attrs.field(repr=False)
    query: ts.Query = attrs.field(repr=False)
    top_query: ts.Query | None = attrs.field(repr=False)  # starts at depth <= 1 only
    refs_query: ts.Query | None = attrs.field(default=None, repr=False)  # references.scm
    # outline.scm then references.scm as one query: a scan walks each tree once for both;
    # match pattern indices below ``outline_patterns`` are the outline's.
    scan_query: ts.Query | None = attrs.field(default=None, repr=False)
    outline_patterns: int = 0
    module_style: str = "python"  # how import paths name files: "python" or "es"
    self_names: tuple[str, ...] = ("self", "cls")  # receivers that mean "this instance"
    implicit_self: bool = False  # a bare name in a class may mean a member (Java)
    # How a method touches its instance's state, per line (ctx/construct's fields and intent
    # `state`); None where the language has no fixed receiver name (Go) or no folder.
    sets_field: re.Pattern[str] | None = None
    reads_field: re.Pattern[str] | None = None
    mutates_field: re.Pattern[str] | None = None
    constructors: tuple[str, ...] = ()  # `<class>`: named after its class (Java)
    assertion: re.Pattern[str] | None = None  # a test line that states an expectation
    generic: bool = False  # no grammars/<lang> folder: outlined by the generic query
    _local: threading.local = attrs.field(factory=threading.local, repr=False, eq=False)

    def parser(self) -> ts.Parser:
        """A parser for the calling thread: a Parser must never be shared across threads."""
        parser: ts.Parser | None = getattr(self._local, "parser", None)
        if parser is None:
            parser = ts.Parser(self.ts_language)
            self._local.parser = parser
        return parser

    def is_test_file(self, path: str) -> bool:
        """Globs match the file name, or the workspace-relative path when they hold a ``/``."""
        name = PurePosixPath(path).name
        return any(fnmatch.fnmatchcase(path if "/" in pat else name, pat)
                   for pat in self.test_files)


def _load(folder: Path) -> Language:
    data = tomllib.loads((folder / "language.toml").read_text(encoding="utf-8"))
    ts_language = get_language(data["grammar"])
    # `queries_from`: a grammar that extends another (TSX extends TypeScript) reuses its
    # query files; a file in the folder itself still wins.
    shared = folder.parent / data["queries_from"] if "queries_from" in data else None

    def source(name: str) -> str | None:
        for where in (folder, shared):
            if where is not None and (where / name).is_file():
                return (where / name).read_text(encoding="utf-8")
        return None

    def query(text: str | None) -> ts.Query | None:
        return ts.Query(ts_language, text) if text is not None else None

    outline_text, refs_text = source("outline.scm"), source("references.scm")
    outline = query(outline_text)
    if outline is None:
        raise FileNotFoundError(f"{folder.name}: no outline.scm")
    top_query, refs_query = query(source("toplevel.scm")), query(refs_text)
    scan_query = query(f"{outline_text}\n{refs_text}") if refs_text is not None else None
    return Language(
        name=data["name"],
        extensions=tuple(data["extensions"]),
        line_comment=data["line_comment"],
        comment_nodes=frozenset(data.get("comment_nodes", ["comment"])),
        elision=data["elision"],
        wrappers=frozenset(data.get("wrappers", [])),
        leading=frozenset(data.get("leading", [])),
        test_files=tuple(data.get("test_files", [])),
        generated_markers=tuple(data.get("generated_markers", [])),
        generated_files=tuple(data.get("generated_files", [])),
        ts_language=ts_language,
        query=outline,
        top_query=top_query,
        refs_query=refs_query,
        scan_query=scan_query,
        outline_patterns=outline.pattern_count,
        module_style=data.get("module_style", "python"),
        self_names=tuple(data.get("self_names", ["self", "cls"])),
        implicit_self=bool(data.get("implicit_self", False)),
        sets_field=_regex(data, "sets_field"),
        reads_field=_regex(data, "reads_field"),
        mutates_field=_regex(data, "mutates_field"),
        constructors=tuple(data.get("constructors", [])),
        assertion=_regex(data, "assertion"),
    )


def _regex(data: dict[str, object], key: str) -> re.Pattern[str] | None:
    text = data.get(key)
    return re.compile(text) if isinstance(text, str) else None


_errors: dict[str, str] = {}


class Known(NamedTuple):
    """What the TOML file and the folder listing say about a language, before compiling."""

    folder: Path
    name: str
    module_style: str
    has_refs: bool  # a references.scm (its own or the one it shares)


@cache
def _folders() -> dict[str, Known]:
    """Languages by extension. Only the small TOML files are read: compiling a language's
    queries waits until a file of that language is parsed (a Python workspace never pays for
    Rust's queries, and a warm start that parses nothing compiles nothing)."""
    out: dict[str, Known] = {}
    for folder in sorted(grammars_dir().iterdir()):
        toml = folder / "language.toml"
        if folder.name.startswith("_") or not toml.is_file():
            continue
        try:
            data = tomllib.loads(toml.read_text(encoding="utf-8"))
            where = [folder, *([folder.parent / data["queries_from"]]
                               if "queries_from" in data else [])]
            known = Known(folder, data["name"], data.get("module_style", "python"),
                          any((w / "references.scm").is_file() for w in where))
            exts = data["extensions"]
        except Exception as exc:
            _errors[folder.name] = f"{type(exc).__name__}: {exc}"
            continue
        for ext in exts:
            out.setdefault(ext, known)
    return out


@cache
def _load_folder(folder: Path) -> Language | None:
    """One language, compiled once per process. A folder that fails to load (a query that
    does not compile) is recorded in ``load_errors()``: one broken language must not take
    the others down."""
    try:
        return _load(folder)
    except Exception as exc:
        _errors[folder.name] = f"{type(exc).__name__}: {exc}"
        log.error("grammars/%s not loaded: %s", folder.name, exc)
        return None


def registry() -> dict[str, Language]:
    """Every language under grammars/, by name (compiles them all)."""
    out: dict[str, Language] = {}
    for folder in sorted({k.folder for k in _folders().values()}):
        lang = _load_folder(folder)
        if lang is not None:
            out[lang.name] = lang
    return out


def load_errors() -> dict[str, str]:
    registry()
    return dict(_errors)


def _patterns(source: str) -> list[str]:
    """Top-level patterns of a query file, split by parenthesis depth."""
    out, depth, current = [], 0, []
    for line in source.splitlines():
        if depth == 0 and (not line.strip() or line.lstrip().startswith(";")):
            continue
        current.append(line)
        depth += line.count("(") - line.count(")") + line.count("[") - line.count("]")
        if depth == 0:
            out.append("\n".join(current))
            current = []
    return out


@cache
def _generic_table() -> dict[str, tuple[str, str, str]]:
    path = grammars_dir() / "_generic" / "languages.toml"
    if not path.is_file():
        return {}
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    return {ext: (row[0], row[1], row[2]) for ext, row in table.items()}


@cache
def _generic(grammar: str, comment: str, elision: str) -> Language | None:
    """A language from the generic table: its grammar, and the generic patterns it accepts."""
    try:
        ts_language = get_language(grammar)  # type: ignore[arg-type]
    except Exception:
        return None
    source = (grammars_dir() / "_generic" / "outline.scm").read_text(encoding="utf-8")
    accepted = []
    for pattern in _patterns(source):
        try:
            ts.Query(ts_language, pattern)
        except Exception:  # node type or field absent from this grammar
            continue
        accepted.append(pattern)
    # A query must have a pattern; ERROR exists in every grammar and yields no captures
    # the extractor uses.
    query = ts.Query(ts_language, "\n".join(accepted) or "(ERROR) @_none")
    exts = tuple(e for e, row in _generic_table().items() if row[0] == grammar)
    return Language(name=grammar, extensions=exts, line_comment=comment,
                    comment_nodes=frozenset({"comment", "line_comment", "block_comment"}),
                    elision=elision, wrappers=frozenset(), leading=frozenset(),
                    test_files=(), generated_markers=(), generated_files=(),
                    ts_language=ts_language,
                    query=query, top_query=None, generic=True)


def for_path(path: str) -> Language | None:
    """The language of a file, by extension: a grammar folder first, then the generic table.

    None for extensions no grammar claims (answered with plain line windows).
    """
    ext = posixpath.splitext(path)[1].lower()  # pathlib costs 10x: this runs per listed file
    known = _folders().get(ext)
    lang = _load_folder(known.folder) if known is not None else None
    if lang is None and ext in _generic_table():
        lang = _generic(*_generic_table()[ext])
    return lang


def name_for(path: str) -> str | None:
    """The name ``for_path`` would give, without compiling anything (a warm start needs the
    name only). A generic grammar that fails to load is still named here."""
    ext = posixpath.splitext(path)[1].lower()
    known = _folders().get(ext)
    if known is not None:
        return known.name
    row = _generic_table().get(ext)
    return row[0] if row is not None else None


@lru_cache(maxsize=1 << 16)
def module_style(path: str) -> str | None:
    """How import paths name the file's modules, for languages with reference tables;
    from the TOML file, without compiling anything."""
    known = _folders().get(posixpath.splitext(path)[1].lower())
    return known.module_style if known is not None and known.has_refs else None
