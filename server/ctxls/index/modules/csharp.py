"""C# namespaces: ``using A.B;`` brings every type of namespace ``A.B`` into scope, and a
namespace is not tied to a file or folder, so types are found by name across the
workspace; a file's module is its folder (dotted), for the rare path-based lookups."""

from __future__ import annotations

import posixpath

from ctxls.index.modules import ModuleSystem, register


@register("csharp")
class CSharpNamespaces(ModuleSystem):
    spans_files = True
    global_classes = True

    def module_name(self, path: str) -> str | None:
        return posixpath.dirname(path).replace("/", ".") or "."
