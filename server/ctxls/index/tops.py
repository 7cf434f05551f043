"""What names mean at the top of a module, read name by name."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

from ctxls.index.globals import File
from ctxls.syntax.outline import Decl

M = TypeVar("M", bound=File)  # a file of the module
_KEY = operator.attrgetter("key")
# Names looked up per module and remembered, most of them names it lacks: a module's map
# lives while its files are unchanged, a long session asks it thousands of names.
FOUND_LIMIT = 1 << 12


class Tops(Generic[M]):
    """What each name means at the top of a module, in path then source order: its files'
    top-level declarations (also inside a namespace: C++, C# ``billing.Ledger``) by name,
    and every declaration by its dotted qualname. Looked up name by name, and only the
    files that declare the name at their top (or the qualname) are decoded: a Java
    package's 40 files were all decoded for the first class name a window looked up
    (jsoup's first window: 118 files), and each declaring a `toString` method for
    `AnnotationUtils.toString`. The same for the files that bind a name (a Go package's
    variables)."""

    __slots__ = ("_exported", "_found", "_heads", "_members")

    def __init__(self, members: list[M], exported: Iterable[str]) -> None:
        # in path order: the first of a name's declarations wins (Kotlin's `expect` and
        # `actual` twins), and a package's files are filed as the scan's batches come
        self._members = sorted(members, key=_KEY)
        self._exported = frozenset(exported)
        # files by the names they declare (at their top, where no object exports names),
        # by the names they bind, by their members' qualnames: read on first use
        self._heads: tuple[dict[str, list[int]], ...] | None = None
        self._found: dict[str, Sequence[tuple[M, Decl]]] = {}

    def get(self, key: str, default: Sequence[tuple[M, Decl]] = ()
            ) -> Sequence[tuple[M, Decl]]:
        found = self._found.get(key)
        if found is None:
            if len(self._found) >= FOUND_LIMIT:  # (kept while the files are: bounded)
                self._found.clear()
            found = self._found[key] = self._collect(key) or ()
        return found or default

    def binders(self, name: str) -> list[M]:
        """The files that may bind ``name``, in file order."""
        return [self._members[i] for i in self._names()[1].get(name, ())]

    def prepare(self) -> None:
        """Read every file's names now (from each payload's head), not at the first lookup."""
        self._names()

    def _names(self) -> tuple[dict[str, list[int]], ...]:
        heads = self._heads
        if heads is None:  # (from each payload's head, without decoding the files)
            heads = ({}, {}, {})
            for i, member in enumerate(self._members):
                head = member.tables.head_names()
                # (an object's members, `module.exports.f`, are a module's names too)
                tops = head.declared if self._exported else head.tops
                for names, into in zip((tops, head.bound, head.members), heads, strict=True):
                    for name in names:
                        into.setdefault(name, []).append(i)
            self._heads = heads
        return heads

    def _collect(self, key: str) -> list[tuple[M, Decl]]:
        by_name, _, by_qualname = self._names()
        hits = sorted({*by_name.get(key, ()), *by_qualname.get(key, ())})
        out: list[tuple[M, Decl]] = []
        for i in hits:
            member = self._members[i]
            decls = member.outline.decls
            namespaces = {d.qualname for d in decls if d.kind == "namespace"} | self._exported
            for d in decls:
                if (d.name == key and all(p in namespaces for p in d.parents)) or (
                        d.qualname == key and d.qualname != d.name):
                    out.append((member, d))
        return out
