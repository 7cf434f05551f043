"""Java and Kotlin packages: a package is a folder, named from the path below the source
root (the last ``java/`` or ``kotlin/`` folder, as in Maven's ``src/main/java`` and Gradle's
``src/main/kotlin``)."""

from __future__ import annotations

import posixpath

from ctxls.index.modules import ModuleSystem, register, src_layout

SOURCE_ROOTS = ("java", "kotlin")


@register("java")
class JavaPackages(ModuleSystem):
    spans_files = True
    reexports = False
    module_members = False

    def module_name(self, path: str) -> str | None:
        folder = posixpath.dirname(path)
        parts = folder.split("/") if folder else []
        roots = [i for i, part in enumerate(parts) if part in SOURCE_ROOTS]
        return ".".join(parts[roots[-1] + 1 :] if roots else parts) or "."

    def module_names(self, path: str) -> list[str]:
        mod = self.module_name(path)
        return src_layout(mod) if mod is not None else []
