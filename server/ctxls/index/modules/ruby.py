"""Ruby: ``require`` names a file by its path without the extension, and constants
(classes and modules) are global, so a class is found by name anywhere."""

from __future__ import annotations

from ctxls.index.modules import ModuleSystem, register


@register("ruby")
class RubyRequires(ModuleSystem):
    global_classes = True

    def module_name(self, path: str) -> str | None:
        return path.rsplit(".", 1)[0]
