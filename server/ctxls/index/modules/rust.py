"""Rust crates: ``crate::a::b`` is ``src/a/b.rs`` or ``src/a/b/mod.rs``; ``self::`` and
``super::`` are relative to the file's own module. Paths arrive dotted (``crate.a.b``)."""

from __future__ import annotations

from ctxls.index.modules import ModuleSystem, register

ROOT_FILES = ("mod", "lib", "main")  # a folder's (or the crate's) own module
PATH_HEADS = ("crate", "self", "super")  # paths that name this crate's modules without `use`


@register("rust")
class RustCrates(ModuleSystem):
    def module_name(self, path: str) -> str | None:
        """``src/a/b.rs``, ``src/a/b/mod.rs`` -> ``crate.a.b``; ``src/lib.rs`` -> ``crate``."""
        stem = path.rsplit(".", 1)[0]
        tail = stem.rsplit("src/", 1)[-1] if "src/" in stem else stem
        parts = [p for p in tail.split("/") if p]
        if parts and parts[-1] in ROOT_FILES:
            parts.pop()
        return ".".join(["crate", *parts])

    def absolute(self, module: str, level: int, path: str, root: str) -> str:
        own = self.module_name(path) or "crate"
        parts = module.split(".")
        if parts[0] == "self":
            return ".".join([own, *parts[1:]])
        if parts[0] == "super":
            base = own.split(".")
            while parts and parts[0] == "super":
                base = base[:-1] or ["crate"]
                parts = parts[1:]
            return ".".join([*base, *parts])
        return module  # crate.… as is; another crate does not resolve

    def path_module(self, expr: str, path: str, root: str) -> str | None:
        """``crate::a::f()``, ``super::f()``, ``self::a::f()``, and ``a::f()`` for a child
        module ``a`` of the file's own (``mod a;``): files are modules, so the path names
        one (a ``mod`` block inside a file is not followed)."""
        if expr.split(".")[0] in PATH_HEADS:
            return self.absolute(expr, 0, path, root)
        return f"{self.module_name(path) or 'crate'}.{expr}"
