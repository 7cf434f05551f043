"""The language registry.

Everything ctxls knows about a language lives in ``grammars/<lang>/``: a ``language.toml``
data file and an ``outline.scm`` query. This module loads them, compiles each query once and
hands out parsers. Adding a language adds a folder, never a branch here.
"""

from __future__ import annotations

import fnmatch
import os
import threading
import tomllib
from functools import cache
from pathlib import Path, PurePosixPath

import attrs
import tree_sitter as ts
from tree_sitter_language_pack import get_language


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
    ts_language: ts.Language = attrs.field(repr=False)
    query: ts.Query = attrs.field(repr=False)
    top_query: ts.Query | None = attrs.field(repr=False)  # starts at depth <= 1 only
    _local: threading.local = attrs.field(factory=threading.local, repr=False, eq=False)

    def parser(self) -> ts.Parser:
        """A parser for the calling thread: a Parser must never be shared across threads."""
        parser: ts.Parser | None = getattr(self._local, "parser", None)
        if parser is None:
            parser = ts.Parser(self.ts_language)
            self._local.parser = parser
        return parser

    def is_test_file(self, path: str) -> bool:
        name = PurePosixPath(path).name
        return any(fnmatch.fnmatchcase(name, pat) for pat in self.test_files)


def _load(folder: Path) -> Language:
    data = tomllib.loads((folder / "language.toml").read_text(encoding="utf-8"))
    ts_language = get_language(data["grammar"])
    query = ts.Query(ts_language, (folder / "outline.scm").read_text(encoding="utf-8"))
    top = folder / "toplevel.scm"
    top_query = ts.Query(ts_language, top.read_text(encoding="utf-8")) if top.is_file() else None
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
        ts_language=ts_language,
        query=query,
        top_query=top_query,
    )


@cache
def registry() -> dict[str, Language]:
    """Every language under grammars/, by name. Compiled once per process."""
    root = grammars_dir()
    return {
        lang.name: lang
        for lang in (_load(d) for d in sorted(root.iterdir()) if (d / "language.toml").is_file())
    }


@cache
def _by_extension() -> dict[str, Language]:
    return {ext: lang for lang in registry().values() for ext in lang.extensions}


def for_path(path: str) -> Language | None:
    """The language of a file, by extension; None when no grammar folder claims it."""
    return _by_extension().get(PurePosixPath(path).suffix.lower())
