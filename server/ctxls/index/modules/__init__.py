"""Module systems: how a language's imports name the files of a workspace.

Each system is a class registered under a name; a language picks one with the
``module_system`` key of its ``language.toml``. The reference index (``index/resolve.py``)
asks the importing file's system what module names a path answers to and which absolute
module an import names, and never compares language names itself. A system is one object
per process, so state that belongs to a workspace root (Go's ``go.mod`` module path) is
cached in it per root.

Adding one: a module in this package with a ``@register("name")`` subclass of
``ModuleSystem``, imported at the bottom of this file. The package imports nothing else of
ctxls but ``paths`` (to read ``go.mod`` safely), so both the language registry and the
reference index can use it.
"""

from __future__ import annotations

import os
import posixpath
import threading
from collections.abc import Callable, Iterator
from typing import ClassVar, TypeVar

from ctxls.once import once
from ctxls.paths import read_inside

V = TypeVar("V")
Indexed = Callable[[str], bool]  # whether a workspace-relative path is an indexed file
_READING: dict[str, threading.Lock] = {}  # system name -> its manifests' reader
SKIP_DIRS = frozenset({"target", "node_modules", ".git"})
MAX_MANIFESTS = 2000
MANIFEST_BYTES = 1 << 20  # a larger one is cut, and skipped when what is left does not parse


class ModuleSystem:
    """The defaults are those of dotted, absolute module paths (``import a.b``)."""

    name: ClassVar[str] = ""
    # A module is every file of its folder (Go and Java packages): a name it exports may
    # be declared in any of them.
    spans_files: ClassVar[bool] = False
    # A class name means that class wherever the workspace declares it (Ruby constants).
    global_classes: ClassVar[bool] = False
    # A function name means the one definition the program has, wherever it is (C).
    global_functions: ClassVar[bool] = False
    # A method the receiver's type lacks may come from a trait the file brings into scope,
    # declared there or imported (Rust: a trait's methods are callable only then).
    scoped_traits: ClassVar[bool] = False
    # A receiver spelled with a capital names a type (Rust's `Vec::new()`, by convention the
    # compiler checks): one the file neither imports nor declares comes from a prelude or a
    # glob import, and is not the workspace's class under another name.
    typed_by_case: ClassVar[bool] = False
    # Another module's top-level names are reachable only through an import of it (or of
    # a module re-exporting them): a file importing nothing that leads there cannot use one.
    imports_only: ClassVar[bool] = False
    # What a module imports it also exports (Python's `from m import x`, C's includes,
    # `export * from`): a name sought in a module reached through an import follows that
    # module's own imports too. Not where an import binds names in its own file alone
    # (Java's imports, C#'s `using`): following them there found nothing the
    # language allows, and a C# window followed the usings of namespace after namespace
    # (jellyfin's `LibraryController`: 26,000 lookups, 0.6 s).
    reexports: ClassVar[bool] = True
    # A module's name reaches its names (`pricing.total`, Go's `pkg.Name`). Not where a
    # package is only ever a prefix of a class's name (Java's `org.x.Cls`, which names the
    # class): a Java member's every use was sought in each file importing from a package
    # whose last part its own package shares (`common`: thousands of kafka's files).
    module_members: ClassVar[bool] = True
    # A module has a default export, which a default import (and CommonJS `require`) binds.
    default_exports: ClassVar[bool] = False
    # Objects whose members are the module's own top-level names (CommonJS `exports.f = ...`).
    export_objects: ClassVar[tuple[str, ...]] = ()
    # Files each includer gets a copy of (C headers): their file-local names (`static
    # inline`) are every includer's, so they count as the program's one function.
    included_files: ClassVar[tuple[str, ...]] = ()
    # Files that make a folder a package (Python's ``__init__.py``): a project nested in a
    # folder that is none (``proj/trunk/pkg/``) is imported from below that folder.
    package_files: ClassVar[tuple[str, ...]] = ()

    @property
    def global_names(self) -> bool:
        """Whether a name may mean a declaration of any file (``global_*``)."""
        return self.global_functions or self.global_classes

    def read_once(self, cache: dict[str, V], root: str, read: Callable[[], V]) -> V:
        """``read()`` for ``root``, kept in ``cache``, computed once: a request and the
        ``prepare`` thread asking together read the manifests once, the later waiting for
        the first (the first request after a warm start on 57,000 files read them a second
        time beside the thread, 1-2 s)."""
        return once(cache, root, _READING.setdefault(self.name, threading.Lock()), read)

    def module_name(self, path: str) -> str | None:
        """The name imports use for the file at workspace-relative ``path``; None: the
        file is no module (the base class: a language without reference tables)."""
        return None

    def prepare(self, root: str) -> None:
        """Read what this system reads once per root (manifests, configuration), ahead of
        the first request that needs it: after the scan, on a thread."""

    def module_names(self, path: str) -> list[str]:
        """Every name the file can be imported by, ``module_name`` first."""
        mod = self.module_name(path)
        return [mod] if mod is not None else []

    def rooted_names(self, path: str) -> list[tuple[str, str]]:
        """``(name, folder)``: the file also answers to ``name`` when ``folder`` (relative to
        the workspace) holds none of ``package_files``, so that the import path starts there."""
        return []

    def absolute(self, module: str, level: int, path: str, root: str,
                 indexed: Indexed | None = None) -> str:
        """The absolute module that an import of ``module`` (as written, after ``level``
        leading dots) in the file at ``path`` names; ``root`` is the workspace's folder;
        ``indexed`` tells whether a workspace-relative path is a file of the index (None:
        no file is known)."""
        return module

    def as_written(self, level: int) -> bool:
        """Whether ``absolute`` is the module as written whatever the importing file (a
        system that does not override it)."""
        return type(self).absolute is ModuleSystem.absolute

    def relative_level(self, source: str) -> int:
        """How many packages ``from <source> import x`` climbs (Python's leading dots)."""
        return 0

    def plain_local(self, module: str) -> str:
        """The name ``import <module>`` binds, without an alias: ``import a.b`` binds ``a``."""
        return module.split(".")[0]

    def plain_target(self, local: str, module: str, rest: str, absolute: str) -> str | None:
        """The module ``<local>.<rest>`` names when ``local`` is bound by a plain import of
        ``module`` (whose absolute name is ``absolute``), or None. ``import a.b`` binds
        ``a``, so ``a.b.c`` is module ``a.b.c``; ``import a.b as x`` binds x to ``a.b``."""
        base = local if local == module.split(".")[0] else module
        return ".".join(p for p in (base, rest) if p)

    def path_module(self, expr: str, path: str, root: str) -> str | None:
        """The absolute module a dotted expression names in the file at ``path`` when no
        import binds its head (Rust's ``crate.a``), or None: the head is a value."""
        return None


# The files the scan listed, per root: manifests are found among them rather than by a
# second walk of the tree (57,000 files: 3.7 s, paid by the first request that resolved a
# bare import).
_LISTINGS: dict[str, list[str]] = {}


def listed(root: str, paths: list[str]) -> None:
    """The scan's listing of ``root`` (workspace-relative POSIX paths)."""
    _LISTINGS[root.rstrip("/") or "/"] = paths


def _folders(root: str, names: tuple[str, ...]) -> Iterator[tuple[str, list[str]]]:
    """(folder, the file names of ``names`` in it), from the listing or a walk."""
    top = root.rstrip("/") or "/"
    listing = _LISTINGS.get(top)
    if listing is None:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
            yield folder, [n for n in names if n in files]
        return
    wanted = set(names)
    found: dict[str, list[str]] = {}
    for rel in listing:
        folder, _, name = rel.rpartition("/")
        if name in wanted and not any(part in SKIP_DIRS or part.startswith(".")
                                      for part in folder.split("/") if part):
            found.setdefault(folder, []).append(name)
    for folder in sorted(found, key=lambda f: f.split("/")):  # in the order a walk visits
        yield os.path.join(top, folder) if folder else top, [
            n for n in names if n in found[folder]]


def manifests(root: str, names: tuple[str, ...]) -> Iterator[tuple[str, str, str]]:
    """``(folder relative to root, "." for root; file name; text)`` of each file named one
    of ``names`` under ``root`` (build output, ``node_modules`` and dot-folders skipped; at
    most MAX_MANIFESTS; a file that leads outside ``root`` or cannot be read is skipped)."""
    seen = 0
    top = root.rstrip("/") or "/"
    for folder, present in _folders(root, names):
        for name in present:
            seen += 1
            if seen > MAX_MANIFESTS:
                return
            try:
                data = read_inside(os.path.join(folder, name), root, MANIFEST_BYTES)
            except OSError:
                continue
            yield (posixpath.relpath(folder.replace(os.sep, "/"), top), name,
                   data.decode("utf-8", errors="replace"))


def src_layout(mod: str) -> list[str]:
    """A dotted module under a ``src/`` folder also answers to the name below it."""
    return [mod, mod[len("src."):]] if mod.startswith("src.") else [mod]


NONE = ModuleSystem()  # files of languages without reference tables are no modules
_SYSTEMS: dict[str, ModuleSystem] = {}
S = TypeVar("S", bound=type[ModuleSystem])


def register(name: str) -> Callable[[S], S]:
    """Class decorator: the system ``language.toml`` names ``name``."""

    def add(cls: S) -> S:
        if name in _SYSTEMS:
            raise ValueError(f"module system {name!r} registered twice")
        cls.name = name
        _SYSTEMS[name] = cls()
        return cls

    return add


def named(name: str) -> ModuleSystem:
    """The system registered as ``name`` (KeyError when there is none)."""
    return _SYSTEMS[name]


def names() -> list[str]:
    return sorted(_SYSTEMS)


# Each system registers itself when its module is imported.
from ctxls.index.modules import c, ecmascript, go, java, namespaces, python, ruby, rust  # noqa: E402, F401
