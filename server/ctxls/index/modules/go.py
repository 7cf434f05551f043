"""Go packages: a package is a folder, and import paths under the module path that
``go.mod`` declares name folders of the workspace."""

from __future__ import annotations

import posixpath

from ctxls.index.modules import Indexed, ModuleSystem, register
from ctxls.paths import read_inside


@register("go")
class GoPackages(ModuleSystem):
    spans_files = True
    # A package's names are its own files' and, elsewhere, an import's: Go has no fully
    # qualified name that needs no import (Java's `com.x.Y`, C#'s `global using`).
    imports_only = True

    def __init__(self) -> None:
        self._module_paths: dict[str, str | None] = {}  # workspace root -> go.mod module path

    def module_name(self, path: str) -> str | None:
        return posixpath.dirname(path) or "."

    def absolute(self, module: str, level: int, path: str, root: str,
                 indexed: Indexed | None = None) -> str:
        """``"example.com/app/billing"`` is the folder ``billing`` when ``go.mod`` says
        ``module example.com/app``; the standard library and other modules stay as written."""
        prefix = self.module_path(root)
        if prefix and (module == prefix or module.startswith(prefix + "/")):
            return module[len(prefix) + 1 :] or "."
        return module

    def plain_local(self, module: str) -> str:
        """``import "example.com/app/billing"`` is used as ``billing``."""
        return module.rsplit("/", 1)[-1]

    def plain_target(self, local: str, module: str, rest: str, absolute: str) -> str | None:
        return None if rest else absolute  # a package has no sub-packages by attribute

    def module_path(self, root: str) -> str | None:
        """The ``module`` line of ``root``'s go.mod, read once per root."""
        if root not in self._module_paths:
            prefix = None
            try:  # (a go.mod that leads outside the workspace is not read)
                text = read_inside(posixpath.join(root, "go.mod"), root).decode(
                    "utf-8", errors="replace")
                prefix = next((line.split()[1].strip('"') for line in text.splitlines()
                               if line.startswith("module ") and len(line.split()) > 1), None)
            except OSError:
                pass
            self._module_paths[root] = prefix
        return self._module_paths[root]
