"""C and C++: ``#include "billing/cache.h"`` names a file beside the includer or below the
workspace root; a header and its source (``cache.h``, ``cache.c``) are one module (named by
the path without its extension), so a prototype and its definition answer together."""

from __future__ import annotations

import posixpath

from ctxls.index.modules import Indexed, ModuleSystem, register

HEADER_EXTENSIONS = (".h", ".hh", ".hpp", ".hxx", ".inl")


@register("c")
class CIncludes(ModuleSystem):
    spans_files = True  # cache.h and cache.c
    global_functions = True  # the linker joins every file's functions
    included_files = HEADER_EXTENSIONS

    def module_name(self, path: str) -> str | None:
        return posixpath.splitext(path)[0]

    def module_names(self, path: str) -> list[str]:
        """Also below any ``include/`` or ``src/`` folder (``-Iinclude``)."""
        mod = posixpath.splitext(path)[0]
        names = [mod]
        for root in ("include/", "src/"):
            if root in mod:
                names.append(mod.rsplit(root, 1)[1])
        return names

    def absolute(self, module: str, level: int, path: str, root: str,
                 indexed: Indexed | None = None) -> str:
        """``"cache.h"`` in ``billing/ledger.c`` is ``billing/cache`` when the index holds
        that file (the disk is not asked: test discovery stat'ed six paths per include of
        every test file), else the path as written (below the root or an include folder)."""
        stem = posixpath.splitext(module)[0]
        beside = posixpath.normpath(posixpath.join(posixpath.dirname(path), stem))
        if indexed is not None and not beside.startswith("..") and any(
                indexed(f"{beside}{ext}")
                for ext in (posixpath.splitext(module)[1], *HEADER_EXTENSIONS)):
            return beside
        return posixpath.normpath(stem)
