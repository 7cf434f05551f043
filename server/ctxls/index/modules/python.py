"""Python packages: dotted modules from paths, ``__init__.py``, relative imports."""

from __future__ import annotations

from ctxls.index.modules import Indexed, ModuleSystem, register, src_layout

INIT_FILES = ("__init__.py", "__init__.pyi")


@register("python")
class PythonPackages(ModuleSystem):
    package_files = INIT_FILES
    imports_only = True

    def module_name(self, path: str) -> str | None:
        """``pkg/sub/mod.py`` -> ``pkg.sub.mod``, ``pkg/__init__.py`` -> ``pkg``."""
        parts = path.rsplit(".", 1)[0].split("/")
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join(parts) if parts else None

    def module_names(self, path: str) -> list[str]:
        mod = self.module_name(path)
        return src_layout(mod) if mod is not None else []

    def rooted_names(self, path: str) -> list[tuple[str, str]]:
        """``a/b/c.py`` is also ``b.c`` below ``a`` and ``c`` below ``a/b``."""
        mod = self.module_name(path)
        parts = mod.split(".") if mod else []
        return [(".".join(parts[i:]), "/".join(parts[:i])) for i in range(1, len(parts))]

    def relative_level(self, source: str) -> int:
        return len(source) - len(source.lstrip("."))

    def as_written(self, level: int) -> bool:
        return level == 0

    def absolute(self, module: str, level: int, path: str, root: str,
                 indexed: Indexed | None = None) -> str:
        """``from ..a import b`` in ``p/q/m.py`` names ``p.a``: one dot is the file's own
        package (a package's ``__init__`` is its package), each further dot its parent."""
        if level == 0:
            return module
        own = self.module_name(path) or ""
        package = own.split(".") if path.endswith(INIT_FILES) else own.split(".")[:-1]
        base = package[: len(package) - (level - 1)] if level > 1 else package
        return ".".join([*base, *([module] if module else [])])
