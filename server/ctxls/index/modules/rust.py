"""Rust crates: each package of a Cargo workspace is a crate named by its ``Cargo.toml``;
inside one, ``src/a/b.rs`` or ``src/a/b/mod.rs`` is module ``a::b``, and each integration
test, example and bench is a crate of its own (``tests/cli.rs``, or ``tests/cli/main.rs``
with its modules beside it). ``crate::``, ``self::`` and ``super::`` are relative to the
file; any other head is a workspace crate's name or a child module of the file's own.
Paths arrive dotted (``crate.a.b``).

Module names are ``@<package folder>`` for a package's library (``@`` at the workspace's
root, ``@clap_builder``), ``@<package folder>#tests`` for its tests folder, then the module
path: ``@clap_builder.builder.command``. They are found from the path alone; only a
crate's own name (``use clap_builder::builder``) needs the manifests, read once per root.
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache

from ctxls.index.modules import Indexed, ModuleSystem, manifests, register

ROOT_FILES = ("mod", "lib", "main")  # a folder's (or the crate's) own module
TARGET_DIRS = ("tests", "examples", "benches")  # each file or folder in them: a crate
# The `name` line of a manifest's [package] or [lib] table, as cargo writes it: a line scan
# where a whole TOML parse took 2.5 ms a manifest (a workspace of 150 crates: 0.4 s in the
# first request that resolves a crate). Anything else is parsed.
_TABLE = re.compile(r"^\[(?:package|lib)\][ \t]*(?:#.*)?$((?:\n(?!\s*\[).*)*)", re.M)
_NAME = re.compile(r"""^[ \t]*name[ \t]*=[ \t]*(?:"([\w.-]+)"|'([\w.-]+)')[ \t]*(?:#.*)?$""",
                   re.M)
_MENTION = re.compile(r"^[ \t]*\[*[ \t]*[\"']?(?:package|lib)\b", re.M)
_SUBTABLE = re.compile(r"^\[{1,2}(?:package|lib)\.", re.M)


@lru_cache(maxsize=1 << 16)
def _parts(path: str) -> tuple[str, tuple[str, ...], bool]:
    """(crate key, module path below it, whether the file is a crate root of a target
    folder: ``tests/cli.rs``, whose modules are its siblings); per path, once (a window's
    receivers ask it of the same files thousands of times)."""
    parts = path.rsplit(".", 1)[0].split("/")
    if "src" in parts[:-1]:
        i = len(parts) - 1 - parts[::-1].index("src")
        key, rest = "@" + "/".join(parts[:i]), parts[i + 1:]
        single = False
    elif any(p in TARGET_DIRS for p in parts[:-1]):
        i = next(i for i, p in enumerate(parts) if p in TARGET_DIRS)
        key, rest = "@" + "/".join(parts[:i]) + "#" + parts[i], parts[i + 1:]
        single = len(rest) == 1
    else:  # a manifest that points its library elsewhere (`foo/lib.rs`), or build.rs
        key, rest, single = "@" + "/".join(parts[:-1]), parts[-1:], False
    if rest and rest[-1] in ROOT_FILES:
        rest = rest[:-1]
    return key.replace(".", "_"), tuple(rest), single


@register("rust")
class RustCrates(ModuleSystem):
    scoped_traits = True
    typed_by_case = True

    def __init__(self) -> None:
        self._crates: dict[str, dict[str, str]] = {}  # workspace root -> crate name -> key

    def module_name(self, path: str) -> str | None:
        """``src/a/b.rs``, ``src/a/b/mod.rs`` -> ``@.a.b``; ``src/lib.rs`` -> ``@``;
        ``clap_builder/src/lib.rs`` -> ``@clap_builder``; ``tests/cli.rs`` -> ``@#tests.cli``."""
        key, rest, _ = _parts(path)
        return ".".join([key, *rest])

    def _crate(self, path: str) -> str:
        """What ``crate`` names in the file: its package's library, or its test's root."""
        key, rest, single = _parts(path)
        return key if single or "#" not in key or not rest else f"{key}.{rest[0]}"

    def _children(self, path: str) -> str:
        """The module whose children ``mod a;`` declares in the file (``self``)."""
        key, rest, single = _parts(path)
        return key if single else ".".join([key, *rest])

    def absolute(self, module: str, level: int, path: str, root: str,
                 indexed: Indexed | None = None) -> str:
        parts = module.split(".")
        head = parts[0]
        if head == "crate":
            return ".".join([self._crate(path), *parts[1:]])
        if head == "self":
            return ".".join([self._children(path), *parts[1:]])
        if head == "super":
            base = self.module_name(path).split(".")  # type: ignore[union-attr]
            while parts and parts[0] == "super":
                base = base[:-1] or base
                parts = parts[1:]
            return ".".join([*base, *parts])
        crate = self.crates(root).get(head)
        if crate is not None:
            return ".".join([crate, *parts[1:]])
        # 2018 paths: a child module of the file's own (`use ty::Ty` beside `mod ty;`);
        # an outside crate (`std`, `serde`) names no workspace file either way.
        return ".".join([self._children(path), *parts])

    def plain_local(self, module: str) -> str:
        """``use a::b;`` binds ``b``."""
        return module.rsplit(".", 1)[-1]

    def plain_target(self, local: str, module: str, rest: str, absolute: str) -> str | None:
        return ".".join(p for p in (absolute, rest) if p)

    def path_module(self, expr: str, path: str, root: str) -> str | None:
        """``crate::a::f()``, ``super::f()``, ``other_crate::a::f()``, and ``a::f()`` for a
        child module ``a`` of the file's own (``mod a;``): files are modules, so the path
        names one (a ``mod`` block inside a file is not followed)."""
        return self.absolute(expr, 0, path, root)

    def prepare(self, root: str) -> None:
        self.crates(root)

    def crates(self, root: str) -> dict[str, str]:
        """Crate name -> key for every package under ``root`` (its manifests read once; a
        manifest that leads outside the workspace is not read)."""
        return self.read_once(self._crates, root, lambda: self._read(root))

    def _read(self, root: str) -> dict[str, str]:
        found: dict[str, str] = {}
        for rel, _, text in manifests(root, ("Cargo.toml",)):
            key = "@" + ("" if rel == "." else rel).replace(".", "_")
            for name in _crate_names(text):
                found.setdefault(name.replace("-", "_"), key)
        return found


def _crate_names(text: str) -> list[str]:
    """The names a manifest's [package] and [lib] tables give, in that order."""
    found = [(m.group(0).split("]", 1)[0][1:], m.group(1)) for m in _TABLE.finditer(text)]
    tables = dict(found)
    names = [m.group(1) or m.group(2) for t in ("package", "lib") if t in tables
             for m in [_NAME.search(tables[t])] if m is not None]
    # every other mention of the two tables a subtable's header ([package.metadata])
    plain = len(tables) == len(found) == len(names) and \
        len(_MENTION.findall(text)) == len(found) + len(_SUBTABLE.findall(text))
    if plain:
        return names
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    return [name for table in ("package", "lib") if isinstance(data.get(table), dict)
            for name in [data[table].get("name")] if isinstance(name, str)]
