"""Java packages: a package is a folder, named from the path below the source root
(the last ``java/`` folder, as in Maven's ``src/main/java``)."""

from __future__ import annotations

import posixpath

from ctxls.index.modules import ModuleSystem, register, src_layout


@register("java")
class JavaPackages(ModuleSystem):
    spans_files = True

    def module_name(self, path: str) -> str | None:
        folder = posixpath.dirname(path)
        tail = folder.rsplit("java/", 1)[-1] if "java/" in folder else folder
        return tail.replace("/", ".") or "."

    def module_names(self, path: str) -> list[str]:
        mod = self.module_name(path)
        return src_layout(mod) if mod is not None else []
