"""Rust receivers judged by their spelling (``typed_by_case``): a call whose receiver is
spelled as another type than the method's own is no use of it, and a file whose every
call of the name is spelled so need not be read at all."""

from __future__ import annotations

from ctxls.index import derived
from ctxls.index.reach import renames
from ctxls.index.refindex import FileInfo, RefIndex


def another_type(index: RefIndex, info: FileInfo, obj: str, home: FileInfo,
                 owner: str) -> bool:
    """Whether a receiver is, by its capital, a type other than the method's own
    (``typed_by_case``): bevy's 11,000 calls of outside types' ``new`` were each an unproven
    use of every ``new``. A path (``syn::Error``, ``Query::<T>``) is judged by its last type.
    Another type it is, whether the file declares it (a struct, an enum, their impls; not a
    type alias or a trait, whose calls may reach the class), imports it or has it from a
    prelude or a glob, unless some import in the workspace renames the class (or a rename
    of it) to that name. A one-letter name may be a generic parameter (``T::new()`` calls
    any implementor's), and a trait's own method is every implementor's, so those stay."""
    if not index.module_system(info).typed_by_case:
        return False
    name = derived.type_spelling(obj)
    own = owner.rsplit(".", 1)[-1]
    if name is None or name in (own, "Self") or _a_traits_own(index, home, owner):
        return False
    declared = info.tables.derived("kinds", derived.kinds_by_name).get(name, frozenset())
    return declared <= derived.CONCRETE and name not in _renamed(index, home, own)


def no_use(index: RefIndex, info: FileInfo, names: set[str], home: FileInfo,
           owner: str) -> bool:
    """Whether every call of ``names`` in the file is, by its receiver's spelling, another
    type's (``another_type`` for each), read from the payload's head: such a file is
    not decoded at all."""
    if info.tables.decoded or not index.module_system(info).typed_by_case \
            or _a_traits_own(index, home, owner):
        return False  # (decoded: its calls are judged one by one as cheaply)
    typed = info.tables.typed_calls()
    own = owner.rsplit(".", 1)[-1]
    spelled = False
    for name in names:
        types = typed.get(name)
        if types is None:
            if name in info.tables.name_set():
                return False  # (a call of it with another receiver, or an import of it)
            continue
        if any(t in (own, "Self") or t in _renamed(index, home, own) for t in types):
            return False
        spelled = True
    return spelled


def _a_traits_own(index: RefIndex, home: FileInfo, owner: str) -> bool:
    """A trait's own method is every implementor's: no spelling rules it out. (Asked for
    every call judged: remembered.)"""
    return index.remembered("trait", (home.key, owner), lambda: any(
        d.kind == "trait" and d.qualname == owner for d in home.outline.decls))


def _renamed(index: RefIndex, home: FileInfo, cls: str) -> frozenset[str]:
    """Every name an import anywhere gives ``cls``, proven or not (a receiver spelled
    otherwise is not the class), remembered until the index changes."""
    return index.remembered("renamed", (home.key, cls),
                            lambda: frozenset(renames(index, home, {cls})))
