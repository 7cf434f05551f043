"""The reference index: every indexed file's outline and reference tables, the module
names they answer to, and an inverted index from called or imported names to files.

Kept current by the engine as files change; ``index/resolve.py`` answers questions over it.
Module names, what an import names and how far a module spans come from the file's module
system (``index/modules/``), chosen by its language's ``module_system``.
"""

from __future__ import annotations

import re
from bisect import insort
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any, NamedTuple, TypeVar

from ctxls.index import derived, modules
from ctxls.index.globals import CLASS_KINDS, PATH_SEP, Globals
from ctxls.index.memo import Memo, Recent
from ctxls.index.modules import ModuleSystem
from ctxls.index.refs import DEFAULT, Binding, Import, Refs
from ctxls.index.tables import Tables
from ctxls.index.tops import Tops
from ctxls.syntax import languages
from ctxls.syntax.outline import Decl, Outline
from ctxls.syntax.symbols import at_row
from ctxls.syntax.symbols import tops as top_decls

CONSTRUCTED = re.compile(r"^(?:new\s+)?([A-Za-z_$][\w.$]*)\(.*\)$", re.S)
GO_PARAM = re.compile(r"[A-Za-z_]\w*\s+([*\[\]\w.]+)$")  # (c *Context, ...)
# &mut Vec<T> -> Vec, &'a Path -> Path (every part optional: it always matches)
CALL_TEXT = re.compile(r"[\s()]")
TYPE_NAME = re.compile(r"(?:[&*]|mut\s+|dyn\s+|impl\s+|'\w+\s+)*([^\[<]*)")
MAX_HOPS = 6  # re-export chains followed at most this deep
T = TypeVar("T")


class FileInfo(NamedTuple):
    key: str  # absolute path
    path: str  # workspace-relative POSIX path
    tables: Tables  # with reference tables (refs is not None)

    @property
    def outline(self) -> Outline:
        return self.tables.outline

    @property
    def imports(self) -> tuple[Import, ...]:  # without decoding the file's other tables
        return self.tables.imports()

    @property
    def refs(self) -> Refs:
        refs = self.tables.refs
        assert refs is not None
        return refs


@lru_cache(maxsize=1 << 16)
def _system(path: str) -> ModuleSystem:
    """The module system of the file's language (``NONE`` without reference tables)."""
    name = languages.module_system(path)
    return modules.named(name) if name is not None else modules.NONE


@lru_cache(maxsize=1 << 16)
def _package_tag(path: str) -> str | None:
    """``module:<name>`` for a file of a module that spans files (a Go or Java package)."""
    system = _system(path)
    mod = system.module_name(path) if system.spans_files else None
    return f"module:{mod}" if mod is not None else None


class RefIndex:
    """Reference tables of every indexed file, kept current by the workspace.

    ``frozen()`` hands out a view for a request that runs on another thread: the view
    shares the index's tables as they are, and the next change copies what it touches
    first (the top-level tables once, then each name's or module's set the first time it
    changes): a view never changes under its reader, a change costs nothing while none is."""

    def __init__(self) -> None:
        self.files: dict[str, FileInfo] = {}
        self.modules: dict[str, list[str]] = {}  # module name -> keys (a Go package: many)
        # name below a folder -> keys; valid when the folder is no package (``rooted_names``)
        self.rooted: dict[str, list[str]] = {}
        self.by_name: dict[str, set[str]] = {}  # called or imported name -> keys
        # declared name -> keys, of the files whose module system makes names global (C's
        # functions, PHP's and Ruby's classes): any file may mean them (``_globals``)
        self.declared_by: dict[str, list[str]] = {}
        self._declared: dict[str, tuple[str, ...]] = {}  # key -> its names in declared_by
        # Derived per file, shared by the index and its views: (tables, modules, ``_listed``),
        # never taken for a newer file (C's includes name the header the index holds)
        self._imported: dict[str, tuple[Tables, frozenset[str], int]] = Recent()
        self._memo = Memo()
        # (index version, value): a value that reads other files is stale after any change
        self._traits: dict[str, tuple[int, list[tuple[FileInfo, Decl]]]] = Recent()
        # module tag -> (its files' tables, Tops); those this view found current (``tops``)
        self._exports: dict[str, tuple[tuple[Tables, ...], Tops[FileInfo]]] = Recent()
        self._checked: dict[str, Tops[FileInfo]] = {}
        self._version, self._listed = 0, 0  # any change; a file joining or leaving
        self._shared = False  # a view holds the current tables
        self._owned: set[str] | None = None  # names and modules copied since; None: all
        self.view = False
        self.pending: list[FileInfo] = []  # added, not filed yet (``add_later``)

    def frozen(self, settle: bool = True) -> RefIndex:
        """A view. Unsettled, for a request that reads no references (``ctx/status``), an
        empty one while files wait to be filed (a view out makes filing copy each set)."""
        if settle:
            self.settle()
        if self.pending:  # (unsettled)
            view = RefIndex()
        else:
            view = RefIndex.__new__(RefIndex)
            view.__dict__.update(self.__dict__)
            self._shared = True
        view.view, view._checked = True, {}
        return view

    def _own(self) -> None:
        assert not self.view, "a view of the index is read-only"
        self._checked = {}  # (a change is coming)
        if self._shared:
            self.files, self.modules = dict(self.files), dict(self.modules)
            self.by_name, self.rooted = dict(self.by_name), dict(self.rooted)
            self.declared_by = dict(self.declared_by)
            self._shared, self._owned = False, set()

    def _names_of(self, name: str) -> set[str]:
        """The set of files filed under ``name``, safe to change."""
        keys = self.by_name.get(name)
        if keys is None or (self._owned is not None and name not in self._owned):
            keys = self.by_name[name] = set(keys or ())
            if self._owned is not None:
                self._owned.add(name)
        return keys

    def _members_of(self, mod: str, table: str = "modules") -> list[str]:
        keys: dict[str, list[str]] = getattr(self, table)
        members = keys.get(mod)
        tag = f"{table}:{mod}"
        if members is None or (self._owned is not None and tag not in self._owned):
            members = keys[mod] = list(members or ())
            if self._owned is not None:
                self._owned.add(tag)
        return members

    def add_later(self, infos: list[FileInfo]) -> None:
        """Files new to the index, filed at the next ``settle`` (each change and view settles
        first): a start restores thousands, and filing their names (Django's 66,000) was a
        fifth of a warm restart, which ``ctx/status`` need not wait for."""
        self.pending.extend(infos)

    def settle(self) -> None:
        if self.pending:
            infos, self.pending = self.pending, []
            for info in infos:
                self._file(info)

    def put(self, info: FileInfo) -> None:
        self.settle()
        self._file(info)

    def _file(self, info: FileInfo) -> None:
        key = info.key
        if key in self.files:
            self.remove(key, replacing=True)
        else:  # (what ``remove`` does of a file the index lacks)
            self._own()
            self._version += 1
            self._listed += 1
        self.files[key] = info
        system = _system(info.path)
        # (lists in key order: a module's first file is what an import of it shows)
        for mod in system.module_names(info.path):
            insort(self._members_of(mod), key)
        for mod, _ in system.rooted_names(info.path):
            insort(self._members_of(mod, "rooted"), key)
        # global names: all (a Ruby class nests in a module), or C's top ones (no field)
        head = info.tables.head_names() if system.global_names else None
        declared = () if head is None else head.declared if system.global_classes else head.tops
        for name in declared:
            insort(self._members_of(name, "declared_by"), key)
        if declared:  # (what a removal takes out: the old payload may be gone by then)
            self._declared[key] = declared
        names = info.tables.names.split("\n") if info.tables.names else ()
        if self._owned is None:  # no view shares the sets: a start files 500,000 names
            by_name = self.by_name
            for name in names:
                keys = by_name.get(name)
                if keys is None:
                    by_name[name] = {key}
                else:
                    keys.add(key)
        else:
            for name in names:
                self._names_of(name).add(key)

    def imported_modules(self, info: FileInfo) -> frozenset[str]:
        """Every module ``info``'s imports can name (``a.b`` and ``a.b.c`` for ``from a.b
        import c``), kept until the file changes or a file joins or leaves the index (a C
        include names the header the index holds): test discovery asks for all test files."""
        cached = self._imported.get(info.key)
        if cached is not None and cached[0] is info.tables and cached[2] == self._listed:
            return cached[1]
        found = frozenset(m for i in info.imports for a in (self.absolute(info, i),)
                          for m in (a, f"{a}.{i.name}" if i.name and a else a or i.name) if m)
        self._imported[info.key] = (info.tables, found, self._listed)
        return found

    def scopes(self, info: FileInfo) -> list[str | None]:
        """Row -> innermost enclosing function, per file, kept while its tables are
        decoded."""
        return info.tables.derived("scopes", derived.scopes)

    def remembered(self, table: str, key: Any, compute: Callable[[], T]) -> T:
        """``compute()``, remembered under ``key`` in the table named ``table`` until the
        index changes, for every view of this version (``Memo``)."""
        return self._memo.answer(self._version, table, key, compute)

    def bindings_named(self, info: FileInfo, name: str) -> list[Binding]:
        """The file's bindings of ``name``, in row order, from a table kept while its tables
        are decoded (a common method name is judged thousands of times per request)."""
        return info.tables.derived("bindings", derived.bindings_by_name).get(name, [])

    def at_row(self, info: FileInfo, row: int) -> Decl | None:
        """The innermost declaration whose lines include ``row`` (``symbols.at_row``), from
        a table of every row kept while its tables are decoded: a search asks it for every
        call."""
        rows = info.tables.derived("rows", derived.rows)
        return rows[row] if 0 <= row < len(rows) else at_row(info.outline, row)

    def remove(self, key: str, replacing: bool = False) -> None:
        self.settle()
        self._own()
        self._version += 1
        self._imported.pop(key, None)
        old = self.files.pop(key, None)
        if old is None:
            return
        if not replacing:
            self._listed += 1
        for table, mods in (("modules", module_names(old.path)),
                            ("rooted", [m for m, _ in _system(old.path).rooted_names(old.path)]),
                            ("declared_by", self._declared.pop(key, ()))):
            for mod in mods:
                if key in getattr(self, table).get(mod, ()):
                    members = self._members_of(mod, table)
                    members.remove(key)
                    if not members:
                        del getattr(self, table)[mod]
        for name in old.tables.name_set():
            if key in self.by_name.get(name, ()):
                self._names_of(name).discard(key)

    # ---- resolution ---------------------------------------------------------------------
    def module_file(self, module: str, like: FileInfo | None = None) -> FileInfo | None:
        """The file a module name means; for an import in ``like``, one of its module system
        first (a TypeScript import of `./store` took `store.py` when it was filed first)."""
        keys = self.modules.get(module)
        if keys:
            if len(keys) > 1 and like is not None:  # a top-level `store.py` and `store.ts`
                system = _system(like.path)  # (its first: a namespace has hundreds)
                return self.files.get(next((k for k in keys if _system(k) is system), keys[0]))
            return self.files.get(keys[0])
        if module not in self.rooted:
            return None
        # (remembered: "test" or "utils" is a rooted name of hundreds of files, each
        # checked for package markers, and thousands of imports ask for the same few)
        mine = _system(like.path) if like is not None else None
        return self.remembered("module_file", (module, mine), lambda: min(
            (info for k in self.rooted[module] if (info := self.files.get(k))
             and module in self._rooted_valid(info)),
            key=lambda i: (mine is not None and _system(i.path) is not mine, len(i.path)),
            default=None))

    def _rooted_valid(self, info: FileInfo) -> list[str]:
        """The names below a folder that is no package (the project's import root)."""
        system = _system(info.path)
        root = info.key[: len(info.key) - len(info.path)]
        return [name for name, folder in system.rooted_names(info.path)
                if not any(f"{root}{folder}/{marker}" in self.files
                           for marker in system.package_files)]

    def module_names_of(self, info: FileInfo) -> list[str]:
        """Every name the file is imported by, its import root's name included."""
        return [*module_names(info.path), *self._rooted_valid(info)]

    def package(self, info: FileInfo) -> list[FileInfo]:
        """Every file of ``info``'s module: itself, or all files of a Go or Java package."""
        system = _system(info.path)
        mod = system.module_name(info.path)
        if mod is None or not system.spans_files:
            return [info]
        return [self.files[k] for k in self.modules.get(mod, []) if k in self.files] or [info]

    def absolute(self, info: FileInfo, imp: Import) -> str:
        """The absolute module an import names (remembered until the index changes: C's
        includes look for the header among the index's files, and a header added is
        indexed); where that is the module as written, at once (a Java test file's
        imports, for each of a package's 1,370 test files: 70 ms)."""
        system, root = _system(info.path), info.key[: len(info.key) - len(info.path)]
        return imp.module if system.as_written(imp.level) else self.remembered(
            "absolute", (info.key, imp.module, imp.level), lambda: system.absolute(
                imp.module, imp.level, info.path, root, lambda rel: f"{root}{rel}" in self.files))

    def tops(self, info: FileInfo) -> Tops[FileInfo]:
        """What each name means at the top of ``info``'s module (``Tops``), kept while its
        files are (not until any change: after an edit, commons-lang's windows 11 -> 23 ms);
        checked once per view, which uses what it checked (another may replace it)."""
        tag = _package_tag(info.path) or info.key
        found = self._checked.get(tag)
        if found is None:
            members = self.package(info)
            tables = tuple(m.tables for m in members)
            cached = self._exports.get(tag)
            if cached is not None and len(tables) == len(cached[0]) and all(
                    a is b for a, b in zip(tables, cached[0], strict=True)):
                found = cached[1]
            else:
                found = Tops(members, _system(info.path).export_objects, cached and cached[1])
                self._exports[tag] = (tables, found)
            self._checked[tag] = found
        return found

    def binders(self, info: FileInfo, name: str) -> list[FileInfo]:
        """The files of ``info``'s module that may bind ``name``, in file order."""
        return self.tops(info).binders(name)

    def members(self, info: FileInfo, qualname: str) -> list[tuple[FileInfo, Decl]]:
        """The declarations of ``info``'s module with this dotted qualname (a Go method
        may be in any file of its package), in file then source order."""
        return [(m, d) for m, d in self.tops(info).get(qualname, ()) if d.qualname == qualname]

    def export(self, info: FileInfo, name: str, hops: int = 0) -> tuple[FileInfo, Decl] | None:
        """The declaration ``name`` means at the top of ``info``'s module, re-exports followed;
        a definition before a prototype (C's header and source are one module). Remembered
        until the index changes: barrels of `export * from` each other made the search of a
        name no module declares grow as their fan-out to the power of the hops (babel:
        minutes for one textDocument/references)."""
        # what a search with more hops to go found nothing for, one with fewer cannot
        # find (an include reached again deeper was searched again, once per depth)
        missed: list[int] | None = None
        if hops:
            missed = self.remembered("missed", (info.key, name), lambda: [MAX_HOPS + 1])
            if hops >= missed[0]:
                return None
        found = self.remembered("export", (info.key, name, hops),
                                lambda: self._export(info, name, hops))
        if found is None and missed is not None:
            missed[0] = min(missed[0], hops)
        return found

    def _export(self, info: FileInfo, name: str, hops: int) -> tuple[FileInfo, Decl] | None:
        system = _system(info.path)
        parts = PATH_SEP.split(name)  # (C files top names alone: not a class's `A.f`)
        if system.global_names and parts[-1] not in self.declared_by and (
                system.global_classes or len(parts) == 1):
            return None  # no file declares it (a libc call sought through git's includes)
        prototype: tuple[FileInfo, Decl] | None = None
        for member, d in self.tops(info).get(name, ()):
            if prototype is not None and member is prototype[0]:
                continue  # (an overload signature stands for its own file's implementation)
            if d.body is None and d.kind in ("function", "method") and prototype is None:
                prototype = (member, d)  # its definition may be in another file
                continue
            if prototype is None or d.body is not None:
                return member, d
        if prototype is not None:
            return prototype
        if hops >= MAX_HOPS or (hops and not system.reexports) or (
                system.included_files and parts[0] not in self.declared_by):
            return None  # (a name an include may bring starts with one some file declares)
        if name == DEFAULT and system.default_exports:  # `export default View`
            named = next((b.type for b in info.refs.bindings if b.name == DEFAULT), None)
            return self.export(info, named, hops + 1) if named else None
        for imp in info.tables.derived("imports", derived.imports_by_local).get(name, ()):
            if imp.name:
                target = self.imported(info, imp, hops + 1)
                if target is not None:
                    return target
            elif imp.name is None and system.default_exports:
                # `const View = require('./view')`: what the module exports as a whole
                src = self.module_of(info, name)
                if src is not None and (target := self.export(src, DEFAULT, hops + 1)):
                    return target
        for src in self.remembered("stars", info.key, lambda: self._stars(info)):
            if found := self.export(src, name, hops + 1):
                return found
        return None

    def _stars(self, info: FileInfo) -> tuple[FileInfo, ...]:
        """The workspace modules ``info``'s star imports name, in import order (a glob
        walk asks them of each module it passes, for every name)."""
        return tuple(src for imp in info.refs.imports if imp.name == "*"
                     and (src := self.module_file(self.absolute(info, imp), info)) is not None)

    def imported(self, info: FileInfo, imp: Import,
                 hops: int = 0) -> tuple[FileInfo, Decl] | None:
        """What ``from m import name`` binds, when it is a declaration (not a module)."""
        if imp.name is None or imp.name == "*":
            return None
        module = self.absolute(info, imp)
        src = self.module_file(module, info)
        if src is None and _system(info.path).global_classes:  # `use App\Money`: by name
            return self.global_class(f"{module}.{imp.name}") or self.global_class(imp.name)
        if src is None and "." in module:  # a member through its class (Java's static
            package, _, cls = module.rpartition(".")  # import of `pkg.Util.check`)
            src = self.module_file(package, info)
            return self.export(src, f"{cls}.{imp.name}", hops) if src is not None else None
        return self.export(src, imp.name, hops) if src is not None else None

    def module_of(self, info: FileInfo, expr: str) -> FileInfo | None:
        """The workspace module an expression such as ``pricing`` or ``a.b`` names in a file,
        remembered until the index changes (cargo's `compile`: 14,000 asks, 4,500 answers);
        none for a call or a space in it (a builder chain's text, `project().file(...)`)."""
        return None if CALL_TEXT.search(expr) else self.remembered(
            "module_of", (info.key, expr), lambda: self._module_of(info, expr))

    def _module_of(self, info: FileInfo, expr: str) -> FileInfo | None:
        head, _, rest = expr.partition(".")
        for imp in info.refs.imports:
            if imp.local != head:
                continue
            if imp.name is None:  # a plain import: what it binds is the system's rule
                target = _system(info.path).plain_target(imp.local, imp.module, rest,
                                                         self.absolute(info, imp))
                return self.module_file(target, info) if target is not None else None
            if imp.name != "*":  # from pkg import mod [as x]
                return self.module_file(
                    ".".join(p for p in (self.absolute(info, imp), imp.name, rest) if p), info)
        # No import binds it: a path the language resolves without one (Rust's crate::a),
        # else a module a glob import brings (`use tracing_mock::*;` then `expect::f()`)
        root = info.key[: len(info.key) - len(info.path)]
        target = _system(info.path).path_module(expr, info.path, root)
        found = self.module_file(target, info) if target is not None else None
        for imp in info.refs.imports if found is None else ():
            if imp.name == "*":
                found = self.module_file(f"{self.absolute(info, imp)}.{expr}", info)
                if found is not None:
                    break
        return found

    def class_named(self, info: FileInfo, expr: str,
                    around: Decl | None = None) -> tuple[FileInfo, Decl] | None:
        """The class an expression names in a file: nested in an enclosing scope, local,
        imported, or ``module.Class``; ``Class(...)`` names its instance's class."""
        expr = expr.strip()
        if expr.startswith("(") and expr.endswith(")"):  # Go (*T, error): the first result
            expr = expr[1:-1].split(",", 1)[0].strip()
            named = GO_PARAM.match(expr)
            expr = named[1] if named else expr
        expr = TYPE_NAME.match(expr.strip())[1].strip("\"' ")  # type: ignore[index]
        if not expr:  # (a slice, `&[u8]`)
            return None
        if expr == "Self" and around is not None and around.parents:  # Rust: the impl's type
            expr = around.parents[-1]
            for d in info.outline.decls:
                if d.qualname == expr and d.kind in CLASS_KINDS:
                    return info, d
        if m := CONSTRUCTED.match(expr):
            expr = m.group(1)
        if around is not None and "." not in expr:
            scopes = (*around.parents, around.qualname)
            tops = self.tops(info)
            for scope in reversed(scopes):  # innermost visible definition wins
                for member, d in tops.get(f"{scope}.{expr}", ()):
                    if member is info and d.kind in CLASS_KINDS and d.qualname == f"{scope}.{expr}":
                        return info, d
        if "." in expr:
            mod, _, cls = expr.rpartition(".")
            src = self.module_of(info, mod)
            # not a module: a namespace's class (`billing.Ledger`), through the file's scope
            found = self.export(src, cls) if src is not None else self.export(info, expr)
        else:
            found = self.export(info, expr)
        head, _, inner = expr.partition(".")  # `Money.Rounding`: a class nested in a class
        if found is None and inner[:1].isupper() and (o := self.class_named(info, head, around)):
            found = next(((o[0], d) for d in o[0].outline.decls
                          if d.qualname == f"{o[1].qualname}.{inner}"), None)
        if found is not None and found[1].kind in CLASS_KINDS:
            return found
        if _system(info.path).global_classes:  # any file may define it
            return self.global_class(expr)
        return None

    def may_be_workspace_class(self, info: FileInfo, expr: str) -> bool:
        """Whether a class name that ``class_named`` did not resolve may still be a class of
        the workspace: not where class names are global and no workspace file declares it."""
        if not _system(info.path).global_classes:
            return True
        return bool(self.classes_named(PATH_SEP.split(expr)[-1]))

    def traits_in_scope(self, info: FileInfo) -> list[tuple[FileInfo, Decl]]:
        """The traits whose methods the file may call on any type: its own, those it
        imports by name and those of the modules it glob-imports (Rust), kept until the
        index changes; none where the module system has no such rule."""
        if not _system(info.path).scoped_traits:
            return []
        cached = self._traits.get(info.key)
        if cached is not None and cached[0] == self._version:
            return cached[1]
        found = [(info, d) for d in info.outline.decls if d.kind == "trait"]
        for imp in info.refs.imports:
            if imp.name == "*":
                src = self.module_file(self.absolute(info, imp), info)
                found += [(src, d) for d in src.outline.decls
                          if d.kind == "trait" and not d.parents] if src is not None else []
            elif imp.name and (hit := self.imported(info, imp)) and hit[1].kind == "trait":
                found.append(hit)
        self._traits[info.key] = (self._version, found)
        return found

    def owner(self, info: FileInfo, decl: Decl) -> str | None:
        """The class a declaration is a member of; None for a module's own names (CommonJS
        ``exports.f``; where classes are global, C#'s `namespace A { class C }`'s `C`)."""
        system = _system(info.path)
        if not decl.parents or all(p in system.export_objects for p in decl.parents) or (
                system.global_classes and decl in top_decls(info.outline)):
            return None
        return decl.parents[-1]

    def calls_through_bases(self, info: FileInfo) -> bool:
        """Whether a call of a base's or interface's method counts as a use of each
        override, as the language's own server counts it (``calls_through_bases``)."""
        lang = languages.for_path(info.path)
        return lang is not None and lang.calls_through_bases

    def sees_unimported_classes(self, info: FileInfo) -> bool:
        """Whether a class name in the file may mean a class no import names: one of its
        package's other files (Go, Java) or any file (Ruby's global constants)."""
        system = _system(info.path)
        return system.spans_files or system.global_classes

    def global_functions(self, info: FileInfo) -> bool:
        return _system(info.path).global_functions

    def module_system(self, info: FileInfo) -> ModuleSystem:
        return _system(info.path)

    def internal(self, info: FileInfo) -> tuple[str, ...]:
        """The file's own top-level names no other file calls (C's `static`), none in a
        file its includers copy (a header's `static inline` is each includer's)."""
        return () if info.path.endswith(_system(info.path).included_files) \
            else info.refs.internal

    def _globals(self) -> Globals[FileInfo]:
        """Names every file may mean wherever they are declared (C's top-level functions,
        Ruby's classes and modules), looked up name by name and kept until the index
        changes (``Globals``)."""
        return self.remembered("globals", None, lambda: Globals(self))

    def declaring(self, info: FileInfo, name: str) -> list[FileInfo]:
        """The files that declare the global function ``name`` (prototypes too)."""
        return [f for f, _ in self._globals().get("decl", name, _system(info.path).name)]

    def global_function(self, info: FileInfo, name: str) -> tuple[FileInfo, Decl] | None:
        """The one top-level function definition (with a body) named ``name`` in the files
        of ``info``'s module system (C links every such name across the program)."""
        found = self._globals().get("fn", name, _system(info.path).name)
        return found[0] if len(found) == 1 else None

    def only_method(self, info: FileInfo, name: str) -> tuple[FileInfo, Decl] | None:
        """The one method of the workspace named ``name``, where class names are global
        (Ruby: a bare call in a mixin may mean any including class's method, so the name
        is all there is to go on)."""
        if not _system(info.path).global_classes:
            return None
        found = self._globals().get("def", name)
        return found[0] if len(found) == 1 else None

    def classes_named(self, name: str) -> list[tuple[FileInfo, Decl]]:
        """The classes (Ruby's modules too) of that name where class names are global."""
        return self._globals().get("class", name)

    def global_class(self, expr: str) -> tuple[FileInfo, Decl] | None:
        """A class or module by (qualified) name in any file whose module system makes
        class names global (Ruby constants)."""
        found = list({(f.key, d.qualname, d.span): (f, d)
                      for f, d in self._globals().get("class", expr)}.values())
        exact = [x for x in found if x[1].qualname == expr]
        return (exact or found)[0] if len(exact or found) == 1 else None

    def ancestors(self, info: FileInfo, cls: Decl, hops: int = 0) -> Iterator[tuple[str, str]]:
        """(file key, class qualname) of a class and its bases, as far as they resolve."""
        yield info.key, cls.qualname
        if hops >= MAX_HOPS:
            return
        for row, bases in info.refs.bases:
            if row != cls.name_span.start_row:
                continue
            for base in bases:
                found = self.class_named(info, base, cls)
                if found is not None:
                    yield from self.ancestors(found[0], found[1], hops + 1)


def module_names(path: str) -> list[str]:
    """Names a file can be imported by (a ``src/`` layout, a folder's ES ``index`` file)."""
    return _system(path).module_names(path)
