"""What names mean at the top of a module, read name by name."""

from __future__ import annotations

import bisect
import operator
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
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

    __slots__ = ("_exported", "_found", "_heads", "_members", "_since")

    def __init__(self, members: list[M], exported: Iterable[str],
                 since: Tops[M] | None = None) -> None:
        # in path order: the first of a name's declarations wins (Kotlin's `expect` and
        # `actual` twins), and a package's files are filed as the scan's batches come
        self._members = sorted(members, key=_KEY)
        self._exported = frozenset(exported)
        # files by the names they declare (at their top, where no object exports names),
        # by the names they bind, by their members' qualnames: read on first use
        self._heads: tuple[dict[str, list[int]], ...] | None = None
        self._found: dict[str, Sequence[tuple[M, Decl]]] = {}
        # the same module's names before a change, if read: after an edit of one of its
        # files, only that file's names are read again (okio's package: 150 files)
        self._since = since if since is not None and since._heads is not None else None

    def get(self, key: str, default: Sequence[tuple[M, Decl]] = ()
            ) -> Sequence[tuple[M, Decl]]:
        found = self._found.get(key)
        if found is None:
            if len(self._found) >= FOUND_LIMIT:  # (kept while the files are: bounded)
                self._found.clear()
            found = self._found[key] = self._collect(key) or ()
        return found or default

    def most_naming(self, words: Collection[str], skip: Callable[[str], bool]) -> M:
        """The member that declares at its top the most of ``words``, from the payloads'
        heads, of those whose path ``skip`` does not refuse (while any is left); of those
        tied (none at all too), the first in path order."""
        by_name = self._names()[0]
        kept = [i for i, m in enumerate(self._members) if not skip(m.path)] or [0]
        hits = Counter(i for w in words for i in set(by_name.get(w, ())))
        return self._members[min(kept, key=lambda i: (-hits[i], i))]

    def binders(self, name: str) -> list[M]:
        """The files that may bind ``name``, in file order."""
        return [self._members[i] for i in self._names()[1].get(name, ())]

    def prepare(self) -> None:
        """Read every file's names now (from each payload's head), not at the first lookup."""
        self._names()

    def _names(self) -> tuple[dict[str, list[int]], ...]:
        heads = self._heads
        if heads is None:  # (from each payload's head, without decoding the files)
            heads = self._patched() or self._read(range(len(self._members)), ({}, {}, {}))
            self._heads, self._since = heads, None
        return heads

    def _head(self, member: M) -> tuple[tuple[str, ...], ...]:
        """A file's names as the three maps file them (from its payload's head)."""
        head = member.tables.head_names()
        # (an object's members, `module.exports.f`, are a module's names too)
        return head.declared if self._exported else head.tops, head.bound, head.members

    def _read(self, which: Iterable[int], heads: tuple[dict[str, list[int]], ...],
              shared: bool = False) -> tuple[dict[str, list[int]], ...]:
        """The names of the members ``which`` filed into ``heads``, each list in member
        order; with ``shared``, a list is replaced, not changed (``_since`` may still be
        read by a view)."""
        for i in which:
            for names, into in zip(self._head(self._members[i]), heads, strict=True):
                for name in names:
                    at = into.get(name)
                    if at is None:
                        into[name] = [i]
                    else:
                        if shared:
                            at = into[name] = list(at)
                        at.insert(bisect.bisect(at, i), i)
        return heads

    def _unread(self, old: M, i: int, heads: tuple[dict[str, list[int]], ...]) -> None:
        """``old``'s names, filed as member ``i``, taken out of ``heads`` (lists replaced)."""
        for names, into in zip(self._head(old), heads, strict=True):
            for name in names:
                if (at := into.get(name)) is not None:
                    if kept := [j for j in at if j != i]:
                        into[name] = kept
                    else:
                        del into[name]

    def _patched(self) -> tuple[dict[str, list[int]], ...] | None:
        """``_since``'s names with those of the files that changed read again, when the
        module's files are the same ones; None otherwise."""
        since = self._since
        if since is None or since._heads is None or [m.key for m in since._members] != [
                m.key for m in self._members]:
            return None
        changed = [i for i, (a, b) in enumerate(zip(since._members, self._members,
                                                    strict=True)) if a.tables is not b.tables]
        if len(changed) * 4 > len(self._members):
            return None  # (most of them: as quick to read all)
        heads = tuple(dict(d) for d in since._heads)  # (lists replaced, never changed)
        for i in changed:
            self._unread(since._members[i], i, heads)
        return self._read(changed, heads, shared=True)

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
