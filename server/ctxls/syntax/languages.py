"""The language registry.

Everything ctxls knows about a language lives in ``grammars/<lang>/``: a ``language.toml``
data file (its schema: ``syntax/spec.py``) and query files, which may start with those of
the folders it includes (``include``). This module loads them, compiles each query once and
hands out parsers. Adding a language adds a folder, never a branch here.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
import threading
from functools import cache, lru_cache
from pathlib import Path
from typing import NamedTuple

import attrs
import tree_sitter as ts
from tree_sitter_language_pack import get_language

from ctxls.once import once
from ctxls.syntax.spec import LanguageSpec, SpecError, read_generic, read_spec

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
    # The sources of the queries, each compiled when first asked for (a warm start that
    # parses nothing needs the combined scan query of no language, and compiling C++'s
    # four queries holds the GIL for 0.8 s; the first window after a warm restart, reading
    # only cached tables, compiled its language's outline query on the event loop: 90 ms
    # of TypeScript's 200): "outline" is outline.scm; "top" starts at depth <= 1 only;
    # "refs" is references.scm; "scan" is outline.scm then references.scm as one query,
    # so a scan walks each tree once for both (match pattern indices below
    # ``outline_patterns`` are the outline's).
    sources: dict[str, str] = attrs.field(factory=dict, repr=False, eq=False)
    module_system: str = "python"  # how imports name files: a name in ctxls.index.modules
    self_names: tuple[str, ...] = ("self", "cls")  # receivers that mean "this instance"
    super_names: tuple[str, ...] = ("super", "super()")  # receivers that mean its bases
    implicit_self: bool = False  # a bare name in a class may mean a member (Java)
    calls_through_bases: bool = False  # a base's method call is a use of its overrides
    receivers_are_values: bool = False  # no receiver's text names a class (C)
    keywords: frozenset[bytes] = frozenset()  # no declaration's name
    # How a method touches its instance's state, per line (ctx/construct's fields and intent
    # `state`); None where the language has no fixed receiver name (Go) or no folder.
    sets_field: re.Pattern[str] | None = None
    reads_field: re.Pattern[str] | None = None
    mutates_field: re.Pattern[str] | None = None
    constructors: tuple[str, ...] = ()  # `<class>`: named after its class (Java)
    assertion: re.Pattern[str] | None = None  # a test line that states an expectation
    generic: bool = False  # no grammars/<lang> folder: outlined by the generic query
    _local: threading.local = attrs.field(factory=threading.local, repr=False, eq=False)
    _compiled: dict[str, ts.Query | None] = attrs.field(factory=dict, repr=False, eq=False)
    _compiling: threading.Lock = attrs.field(factory=threading.Lock, repr=False, eq=False)
    _cut: list[int] = attrs.field(factory=list, repr=False, eq=False)  # outline_patterns

    @property
    def query(self) -> ts.Query:
        """outline.scm, compiled when first used."""
        q = self.compiled("outline")
        if q is None:
            raise RuntimeError(f"{self.name}: outline.scm does not compile")
        return q

    @property
    def outline_patterns(self) -> int:
        """How many of the scan query's patterns (its first) are outline.scm's."""
        found = self._cut
        if not found:
            scan, size = self.scan_query, len(self.sources["outline"])
            found.append(0 if scan is None else sum(
                1 for i in range(scan.pattern_count) if scan.start_byte_for_pattern(i) < size))
        return found[0]

    def outlines(self) -> bool:
        """Whether its outline query compiles (compiled now if it was not)."""
        return self.compiled("outline") is not None

    @property
    def top_query(self) -> ts.Query | None:
        return self.compiled("top")

    @property
    def refs_query(self) -> ts.Query | None:
        return self.compiled("refs")

    @property
    def scan_query(self) -> ts.Query | None:
        return self.compiled("scan")

    def compiled(self, name: str) -> ts.Query | None:
        """One of ``sources``' queries, compiled once (None: the language has none, or it
        does not compile, which ``load_errors()`` reports)."""
        return once(self._compiled, name, self._compiling, lambda: self._compile(name))

    def _compile(self, name: str) -> ts.Query | None:
        text = self.sources.get(name)
        if text is None:
            return None
        try:
            return ts.Query(self.ts_language, text)
        except Exception as exc:
            _record(f"{self.name}:{name}", exc)
            return None

    def parser(self) -> ts.Parser:
        """A parser for the calling thread: a Parser must never be shared across threads."""
        parser: ts.Parser | None = getattr(self._local, "parser", None)
        if parser is None:
            parser = ts.Parser(self.ts_language)
            self._local.parser = parser
        return parser

    def is_test_file(self, path: str) -> bool:
        return _matches_tests(self.test_files, path)


def _matches_tests(globs: tuple[str, ...], path: str) -> bool:
    """Globs match the file name, or the workspace-relative path when they hold a ``/``."""
    by_name, by_path = _test_patterns(globs)
    return bool((by_name and by_name.match(path.rpartition("/")[2]))
                or (by_path and by_path.match(path)))


@lru_cache(maxsize=64)
def _test_patterns(globs: tuple[str, ...]) -> tuple[re.Pattern[str] | None,
                                                   re.Pattern[str] | None]:
    """One expression for the globs of names and one for those of paths: a window asks
    hundreds of files (a C test runner's) whether they are tests, five globs each."""
    return (globs_pattern(tuple(p for p in globs if "/" not in p)),
            globs_pattern(tuple(p for p in globs if "/" in p)))


@lru_cache(maxsize=64)
def globs_pattern(globs: tuple[str, ...]) -> re.Pattern[str] | None:
    """One expression that matches what any of ``globs`` matches (``fnmatchcase``)."""
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in globs)) \
        if globs else None


def warm_globs(path: str) -> None:
    """Compile the test and generated-file globs of ``path``'s language (the first window
    asks them of hundreds of files)."""
    spec = spec_for(path)
    if spec is not None:
        _test_patterns(spec.tests.files)
        globs_pattern(spec.generated_files)


def is_test_path(path: str) -> bool:
    """Whether ``path`` is a test file of its language, without compiling the language (a
    window asks it of every file that names its target: seven languages' queries were
    compiled for it, 0.7 s, in the first window after a start)."""
    spec = spec_for(path)
    return spec is not None and _matches_tests(spec.tests.files, path)


def _sources(folder: Path, spec: LanguageSpec) -> list[Path]:
    """The folders a language's query files come from, in order: each folder it includes
    (not what those include in turn), then its own."""
    return [*(folder.parent / name for name in spec.include), folder]


def _query_source(sources: list[Path], name: str) -> str | None:
    """A query file with its includes: their text first, the folder's own last."""
    parts = [(w / name).read_text(encoding="utf-8") for w in sources if (w / name).is_file()]
    return "\n".join(parts) if parts else None


_spec = cache(read_spec)


def load(folder: Path) -> Language:
    """The language of one folder (raises on a bad data file; a query that does not
    compile is found, and reported, where it is first used)."""
    spec = _spec(folder / "language.toml")
    ts_language = get_language(spec.grammar)  # type: ignore[arg-type]
    sources = _sources(folder, spec)

    outline_text = _query_source(sources, "outline.scm")
    if outline_text is None:
        raise FileNotFoundError(f"{folder.name}: no outline.scm")
    lazy = {"outline": outline_text, "top": _query_source(sources, "toplevel.scm"),
            "refs": _query_source(sources, "references.scm")}
    if lazy["refs"] is not None:
        lazy["scan"] = f"{outline_text}\n{lazy['refs']}"
    return Language(
        name=spec.name,
        extensions=spec.extensions,
        line_comment=spec.line_comment,
        comment_nodes=frozenset(spec.comment_nodes),
        elision=spec.elision,
        wrappers=frozenset(spec.wrappers),
        leading=frozenset(spec.leading),
        test_files=spec.tests.files,
        generated_markers=spec.generated_markers,
        generated_files=spec.generated_files,
        ts_language=ts_language,
        sources={k: v for k, v in lazy.items() if v is not None},
        module_system=spec.module_system,
        self_names=spec.self_names,
        super_names=spec.super_names,
        implicit_self=spec.implicit_self,
        calls_through_bases=spec.calls_through_bases,
        receivers_are_values=spec.receivers_are_values,
        keywords=frozenset(k.encode() for k in spec.keywords),
        sets_field=_regex(spec.sets_field),
        reads_field=_regex(spec.reads_field),
        mutates_field=_regex(spec.mutates_field),
        constructors=spec.constructors,
        assertion=_regex(spec.assertion),
    )


def _regex(text: str | None) -> re.Pattern[str] | None:
    return re.compile(text) if text is not None else None


_errors: dict[str, str] = {}


def _record(where: str, exc: Exception) -> None:
    """A broken language (or generic row) is reported in ``load_errors()`` and the log, not
    raised: the others still load."""
    message = str(exc) if isinstance(exc, SpecError) else f"{type(exc).__name__}: {exc}"
    _errors[where] = message
    log.error("grammars/%s: %s", where, message)


class Known(NamedTuple):
    """What the TOML file and the folder listing say about a language, before compiling."""

    folder: Path
    spec: LanguageSpec
    has_refs: bool  # a references.scm (its own or an included one)


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
            spec = _spec(toml)
        except Exception as exc:
            _record(folder.name, exc)
            continue
        known = Known(folder, spec, any((w / "references.scm").is_file()
                                        for w in _sources(folder, spec)))
        for ext in spec.extensions:
            out.setdefault(ext, known)
    return out


_LOADING = threading.RLock()  # a request and the scan's background load compile it once


_loaded: dict[Path, Language | None] = {}


def _load_folder(folder: Path) -> Language | None:
    return once(_loaded, folder, _LOADING, lambda: _load_folder_once(folder))


def _load_folder_once(folder: Path) -> Language | None:
    """One language, compiled once per process. A folder that fails to load (a query that
    does not compile) is recorded in ``load_errors()``: one broken language must not take
    the others down."""
    try:
        return load(folder)
    except Exception as exc:
        _record(folder.name, exc)
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
    """Folders (and ``_generic``) that did not load, with the reason (every query is
    compiled to find out)."""
    for lang in registry().values():
        for name in lang.sources:
            lang.compiled(name)
    _generic_table()
    return dict(_errors)


def reload() -> None:
    """Forget every loaded language and error, so the next call reads ``grammars_dir()``
    again (tests point ``CTXLS_GRAMMARS`` at a folder of their own)."""
    for cached in (_spec, _folders, _generic_table, _generic, _module_system_of,
                   module_system_named):
        cached.cache_clear()
    _loaded.clear()
    _errors.clear()


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
    try:
        rows, problems = read_generic(path)
    except SpecError as exc:
        rows, problems = {}, [str(exc)]
    if problems:
        _record("_generic", SpecError("; ".join(problems)))
    return {ext: (row.grammar, row.line_comment, row.elision) for ext, row in rows.items()}


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
    query = "\n".join(accepted) or "(ERROR) @_none"
    exts = tuple(e for e, row in _generic_table().items() if row[0] == grammar)
    return Language(name=grammar, extensions=exts, line_comment=comment,
                    comment_nodes=frozenset({"comment", "line_comment", "block_comment"}),
                    elision=elision, wrappers=frozenset(), leading=frozenset(),
                    test_files=(), generated_markers=(), generated_files=(),
                    ts_language=ts_language,
                    sources={"outline": query}, generic=True)


def for_path(path: str) -> Language | None:
    """The language of a file, by extension: a grammar folder first, then the generic table.

    None for extensions no grammar claims (answered with plain line windows).
    """
    ext = suffix(path)
    known = _folders().get(ext)
    lang = _load_folder(known.folder) if known is not None else None
    if lang is None and ext in _generic_table():
        lang = _generic(*_generic_table()[ext])
    return lang


def outlined(path: str) -> Language | None:
    """``for_path``, unless the language's outline query does not compile (reported in
    ``load_errors()``): its files are then plain text, as a language that failed to load
    is."""
    lang = for_path(path)
    return lang if lang is not None and lang.outlines() else None


def suffix(path: str) -> str:
    """``posixpath.splitext(path)[1].lower()`` in a third of its time (it runs for every
    listed file, 57,000 at each start; pathlib costs 10x): the extension after the last dot
    of the last name, unless only dots come before it there."""
    dot, slash = path.rfind("."), path.rfind("/")
    if dot <= slash + 1 or not path[slash + 1 : dot].strip("."):
        return ""
    return path[dot:].lower()


def name_for(path: str) -> str | None:
    """The name ``for_path`` would give, without compiling anything (a warm start needs the
    name only). A generic grammar that fails to load is still named here."""
    ext = suffix(path)
    known = _folders().get(ext)
    if known is not None:
        return known.spec.name
    row = _generic_table().get(ext)
    return row[0] if row is not None else None


def spec_for(path: str) -> LanguageSpec | None:
    """The data file of the file's language (a grammar folder's), without compiling."""
    known = _folders().get(suffix(path))
    return known.spec if known is not None else None


@cache
def module_system_named(language: str) -> str | None:
    """``module_system`` of the language called ``language`` (its data file's name)."""
    return next((k.spec.module_system for k in _folders().values()
                 if k.spec.name == language and k.has_refs), None)


def module_system(path: str) -> str | None:
    """The module system that names the file's modules, for languages with reference
    tables; from the TOML file, without compiling anything."""
    return _module_system_of(suffix(path))


@cache
def _module_system_of(ext: str) -> str | None:
    """(By extension: kept by path, each of a start's 57,000 paths missed once and stayed.)"""
    known = _folders().get(ext)
    return known.spec.module_system if known is not None and known.has_refs else None
