"""Names any file may mean wherever they are declared (C's functions, PHP's and Ruby's
classes), read name by name."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Generic, Literal, Protocol, TypeVar

from ctxls.index.modules import ModuleSystem
from ctxls.index.tables import CLASS_KINDS as CLASS_KINDS
from ctxls.index.tables import Tables, class_names
from ctxls.syntax.outline import Decl, Outline

PATH_SEP = re.compile(r"[.]|::")  # between a qualified name's parts


class File(Protocol):
    """A file of the index (the reference index's ``FileInfo``)."""

    @property
    def key(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def tables(self) -> Tables: ...

    @property
    def outline(self) -> Outline: ...


F = TypeVar("F", bound=File)


class Index(Protocol[F]):
    """What the lookups read of the reference index."""

    @property
    def files(self) -> Mapping[str, F]: ...

    @property
    def declared_by(self) -> Mapping[str, Sequence[str]]: ...

    def module_system(self, info: F) -> ModuleSystem: ...

    def internal(self, info: F) -> tuple[str, ...]: ...


# What a lookup asks for: "decl", a global function (C), its prototypes too; "fn", its
# definition alone; "def", a function or method of a language whose classes are global
# (Ruby's `only_method`); "class", a class or module by name or qualname.
Kind = Literal["decl", "fn", "def", "class"]


class Globals(Generic[F]):
    """The declarations of ``RefIndex._globals``, looked up name by name: only the files
    that declare the name are decoded (filed under it in ``declared_by`` from their
    payload's head). Built whole, every file's outline was decoded on the first request
    and walked again after each change (laravel's 1,705 files: 0.28 s, and a p95 over
    0.3 s in a session with edits)."""

    def __init__(self, index: Index[F]) -> None:
        self.index = index
        self.found: dict[tuple[Kind, str, str], list[tuple[F, Decl]]] = {}

    def get(self, kind: Kind, name: str, system: str = "") -> list[tuple[F, Decl]]:
        """The declarations of ``kind`` named ``name`` (of module system ``system``, for
        functions)."""
        key = (kind, name, system)
        found = self.found.get(key)
        if found is None:
            found = self.found[key] = self._find(kind, name, system)
        return found

    def _find(self, kind: Kind, name: str, wanted: str) -> list[tuple[F, Decl]]:
        index = self.index
        found: list[tuple[F, Decl]] = []
        last = PATH_SEP.split(name)[-1]
        for k in dict.fromkeys(index.declared_by.get(last, ())):
            f = index.files.get(k)
            if f is None or (kind == "class" and last not in _types(f.tables)):
                continue
            system = index.module_system(f)
            if kind in ("decl", "fn"):
                if system.name != wanted or not system.global_functions:
                    continue
                found += [(f, d) for d in f.outline.decls
                          if not d.parents and d.kind == "function" and d.name == name
                          and (kind == "decl" or d.body is not None)
                          and d.name not in index.internal(f)]
            elif kind == "def" and system.global_classes:
                found += [(f, d) for d in f.outline.decls
                          if d.kind in ("function", "method") and d.name == name]
            elif kind == "class" and system.global_classes:
                found += [(f, d) for d in f.outline.decls
                          if d.name == last and d.kind in ("module", *CLASS_KINDS) and (
                              name in (d.name, d.qualname) or name == in_namespace(f, d))]
        return found


def in_namespace(f: File, d: Decl) -> str:
    """A class's qualified name in its namespace, dotted: PHP's `A.B.C` for a `class C`
    after `namespace A\\B;` or inside `namespace A\\B { }` (a `use A\\B\\C;` names it so;
    by its own name alone, one of symfony's 25 `LogicException`s was no import's)."""
    dotted = d.qualname.replace("\\", ".")
    refs = f.tables.refs
    if refs is None or not refs.namespaces:
        return dotted
    namespace = next((n for row, n in reversed(refs.namespaces)
                      if row <= d.span.start_row), None)
    return f"{namespace}.{dotted}" if namespace else dotted


def _types(tables: Tables) -> Sequence[str] | frozenset[str]:
    """The names of a file's classes: its payload head's, or kept while its tables are
    decoded (the head made again from them costs more than the search it spares; and
    without either, a class lookup searched every decoded file declaring the name: each
    `ToString` override's file, for orleans' every use of one, 0.35 s)."""
    if not tables.decoded:
        return tables.head_names().types
    return tables.derived("types", class_names)
