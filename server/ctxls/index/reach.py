"""Which files can use a declaration, before any of their calls is judged: the names
imports and re-exports give it, the nearest of many files, the files whose imports lead to
it. A name in thousands of files (a helper every test fixture imports, a module's default
export) must not mean judging every call of every one of them.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Callable, Iterable, Iterator

from ctxls.index.refindex import MAX_HOPS, FileInfo, RefIndex
from ctxls.index.refs import DEFAULT, Import
from ctxls.syntax.outline import Decl


def imports_of(index: RefIndex, info: FileInfo) -> tuple[Import, ...]:
    """A file's import rows, remembered until the index changes: one search asks a file's
    several times (its aliases, whether it may use the target, whether it imports it), and
    each read unpickled the file's whole tables (svelte's `test`: 23,000 reads of 8,600)."""
    return index.remembered("imports", info.key, lambda: info.imports)


def resolved_imports(index: RefIndex, info: FileInfo
                     ) -> tuple[tuple[Import, str, FileInfo | None], ...]:
    """Each import row of the file with the absolute module it names and that module's
    file (None: none in the workspace), remembered until the index changes: a search for
    every use asks it of every file that may use the name, and each import's two lookups
    were half of that (Django's `override_settings`: 29,000 of them in 1,500 files)."""
    return index.remembered("resolved", info.key, lambda: tuple(
        (imp, absolute, index.module_file(absolute, info)) for imp in imports_of(index, info)
        for absolute in (index.absolute(info, imp),)))


def nearest(keys: Iterable[str], home: str, n: int) -> list[str]:
    """The ``n`` of ``keys`` that share the most folders with ``home`` (then by path): a
    module's callers are mostly its package's own files and tests."""
    parts = home.split(os.sep)

    def shared(key: str) -> int:
        depth = 0
        for a, b in zip(parts, key.split(os.sep), strict=False):
            if a != b:
                break
            depth += 1
        return depth

    return heapq.nsmallest(n, keys, key=lambda k: (-shared(k), k))


def same_system(index: RefIndex, keys: Iterable[str], home: FileInfo) -> list[str]:
    """Those of ``keys`` whose files share ``home``'s module system: no other file can
    import or use its declarations (``may_use``). Taken before the nearest are picked, so
    the bound counts files that may: `foo` in a Python test was looked for in the hundred
    nearest files naming `foo`, in every language of a monorepo, and their imports resolved
    (manifests read) only to be dropped."""
    system, files = index.module_system(home), index.files
    return [k for k in keys
            if (f := files.get(k)) is not None and index.module_system(f) is system]


def aliases(index: RefIndex, home: FileInfo, decl: Decl, max_files: int | None = None
            ) -> set[str]:
    """The names ``decl`` of ``home`` goes by: its own, and the names imports and re-exports
    give it where they are proven to bind it (``export {a as b} from``, ``from m import a
    as b``, a default import), since a module importing the new name finds it through them;
    looked for in at most ``max_files`` of the files naming each, the nearest to ``home``
    first (the bound of ``bounded_references``). A module's default export is imported
    under any name: only those of imports that lead to it count (every file's ``import
    React from 'react'`` made `React` an alias, and its calls candidates, of each default
    export). The module-wide ``default`` itself is never among them: no file calls it."""
    if decl.parents:  # no import binds a method
        return {decl.name}
    target = (home.key, decl.qualname)
    start = {decl.name}
    if any(b.name == DEFAULT and b.type == decl.name for b in home.refs.bindings):
        start.add(DEFAULT)  # `export default View`

    def proven(info: FileInfo, imp: Import) -> bool:
        got = index.imported(info, imp)
        return got is not None and (got[0].key, got[1].qualname) == target

    names = renames(index, home, start, proven, max_files, MAX_HOPS)
    names.discard(DEFAULT)
    return names


def renames(index: RefIndex, home: FileInfo, start: set[str],
            binds: Callable[[FileInfo, Import], bool] = lambda info, imp: True,
            max_files: int | None = None, most: int | None = None) -> set[str]:
    """``start`` and the local names that imports in ``home``'s module system give any of
    these (``import {a as b}``, ``use a::Handler as Hd``, and on through re-exports), where
    ``binds`` says the import binds what it names; found through the files filed under
    each name (at most ``max_files`` of them, the nearest to ``home`` first), until there
    are more than ``most`` names."""
    names, todo = set(start), list(start)
    while todo and (most is None or len(names) <= most):
        current = todo.pop()
        naming = same_system(index, index.by_name.get(current, ()), home)
        keys = naming if max_files is None else nearest(naming, home.key, max_files)
        for key in keys:
            info = index.files.get(key)
            if info is None:
                continue
            for imp in imports_of(index, info):
                if imp.name == current and imp.local and imp.local not in names \
                        and binds(info, imp):
                    names.add(imp.local)
                    todo.append(imp.local)
    return names


def may_reach(index: RefIndex, source: FileInfo, name: str, home: FileInfo) -> bool:
    """Whether ``name``, which the tables did not find in module ``source`` (a destructured
    ``const {test} = suite()``, a ``module.exports`` object), may still be ``home``'s: when
    ``source`` is ``home``'s module, imports it, or re-exports the name from a module the
    index cannot follow (a tsconfig path, a package). Otherwise every fixture calling a
    shared helper would be a candidate call of each fixture's own function of that name.
    Remembered until the index changes: thousands of fixtures import from one module."""
    return index.remembered("reach", (source.key, name, home.key),
                            lambda: _may_reach(index, source, name, home))


def _may_reach(index: RefIndex, source: FileInfo, name: str, home: FileInfo) -> bool:
    own = {m.key for m in index.package(home)}
    if source.key in own:
        return True
    for imp, _, target in resolved_imports(index, source):
        if target is not None and target.key in own:
            return True
        if target is None and (imp.name == "*" or name in (imp.name, imp.local)):
            return True
    return False


def may_use(index: RefIndex, info: FileInfo, home: FileInfo, decl: Decl, names: set[str],
            candidates: bool = False) -> bool:
    """Whether the file ``info`` can hold a proven use of ``home``'s ``decl`` (known by
    ``names``), or with ``candidates`` an unproven one: where a module's names are reached
    only by importing it, a file none of whose imports leads to the declaration (directly,
    through re-exports, or to its module or a package above it) cannot, and need not be
    read or judged; an unproven use needs an import of a workspace module that may reach it
    (``may_reach``). Imports of modules outside the workspace prove nothing and leave
    nothing unproven (``judge`` takes them for outside names), and a file of another
    language (module system) holds no use at all (a Python test's `self.test()` was an
    unproven use of each JavaScript `test` method; a Rust method's callers were looked for
    in every TypeScript file naming `build`). A local object's method of the same name
    (``/re/.test(s)``) is no use of another module's function. A method's use is proven
    where a receiver's type is, which takes an import of a module whose own imports lead
    to the class's (a subclass, a function whose return type it is: ``leads_to``). Names copied into
    thousands of test fixtures (svelte's and babel's `test`) otherwise meant judging every
    call of each, and reading and parsing each for every use."""
    system = index.module_system(home)
    if index.module_system(info) is not system:
        return False  # a file of another language imports nothing of this one's
    if not system.imports_only:
        return True
    if decl.parents and candidates:
        return True  # (a method's unproven uses are calls on receivers of unknown type)
    own = {m.key for m in index.package(home)}
    if info.key in own:
        return True
    if decl.parents and system.spans_files:  # (another file of its package may import it,
        # and one of its functions return the class; asked of the package's first file,
        # whose answer all its files share, once)
        return leads_to(index, index.package(info)[0], own)
    modules = index.module_names_of(home)
    target = (home.key, decl.qualname)

    def means(found: tuple[FileInfo, Decl] | None) -> bool:
        return found is not None and (found[0].key, found[1].qualname) == target

    for imp, absolute, src in resolved_imports(index, info):
        if src is not None and src.key in own:
            return True
        name = imp.name if imp.name != "*" else None  # None: a namespace or star import
        named = f"{absolute}.{name}" if name else absolute
        if any(m == named or m.startswith(f"{named}.") for m in modules):
            return True  # `import pkg` then `pkg.sub.f()`; `from pkg import sub`
        if src is None:
            continue
        if decl.parents:  # a receiver's class comes through bases and return types
            if leads_to(index, src, own):
                return True
            continue
        if means(index.imported(info, imp)) if name else any(
                means(index.export(src, n)) for n in names):
            return True
        if candidates and may_reach(index, src, name or decl.name, home):
            return True
    return False


def leads_to(index: RefIndex, start: FileInfo, own: set[str]) -> bool:
    """Whether ``start`` is one of the files ``own`` (a module's) or imports, directly or
    through other workspace modules, one of them (a module that spans files imports what
    any of its files does). Every file the search meets is settled
    with its strongly connected component (modules import each other in cycles), and
    remembered until the index changes: thousands of test files import the same few
    modules, and each is then asked of one or two of them."""
    shared: dict[str, bool] = index.remembered("leads", min(own), dict)
    if start.key in shared:
        return shared[start.key]
    # settled here, shared once the search is over: requests on other threads read only
    # what a whole search settled
    memo: dict[str, bool] = {}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    reached: dict[str, bool] = {}
    stack: list[str] = []
    frames: list[tuple[FileInfo, Iterator[FileInfo]]] = []

    def enter(info: FileInfo) -> None:
        order[info.key] = low[info.key] = len(order)
        reached[info.key] = info.key in own
        stack.append(info.key)
        frames.append((info, (t for m in index.package(info)  # (a Go package's: all files')
                              for _, _, t in resolved_imports(index, m) if t is not None)))

    enter(start)
    while frames:
        info, targets = frames[-1]
        for target in targets:
            known = memo.get(target.key, shared.get(target.key))
            if known is not None:
                reached[info.key] |= known
            elif target.key not in order:
                enter(target)
                break
            else:  # met in this search and not settled: on the stack
                low[info.key] = min(low[info.key], order[target.key])
        else:
            frames.pop()
            key = info.key
            if low[key] == order[key]:  # the root of a component: settle all of it
                members = stack[stack.index(key):]
                del stack[len(stack) - len(members):]
                value = any(reached[m] for m in members)
                memo.update(dict.fromkeys(members, value))
            if frames:
                parent = frames[-1][0].key
                low[parent] = min(low[parent], low[key])
                reached[parent] |= memo.get(key, False)
    shared.update(memo)
    return memo[start.key]
