"""Namespaces not tied to files (C#, PHP): ``using A.B;`` or ``use A\\B\\C;`` names a
namespace or a type in one, and a namespace spans any files in any folders, so types are
found by name across the workspace; a file's module is its folder (dotted), for the rare
path-based lookups."""

from __future__ import annotations

import posixpath

from ctxls.index.modules import ModuleSystem, register


@register("namespaces")
class Namespaces(ModuleSystem):
    spans_files = True
    global_classes = True
    reexports = False

    def module_name(self, path: str) -> str | None:
        return posixpath.dirname(path).replace("/", ".") or "."
