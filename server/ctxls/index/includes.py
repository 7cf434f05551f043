"""C's includes, as the reference index reads them: which files include a module, directly
or through other headers (what a header declares is in scope there)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxls.index.refindex import FileInfo, RefIndex


def includers(index: RefIndex, info: FileInfo) -> set[str]:
    """Keys of the files that include ``info``'s module, directly or through other headers
    (C), where what it declares is in scope; empty for other systems."""
    if not index.module_system(info).included_files:
        return set()
    rev = index.remembered("includes", None, lambda: _included_by(index))
    todo = list(index.module_names_of(info))
    modules, out = set(todo), set()
    while todo:
        for key in rev.get(todo.pop(), ()):
            if key in out or key not in index.files:
                continue
            out.add(key)
            for mod in index.module_names_of(index.files[key]):
                if mod not in modules:
                    modules.add(mod)
                    todo.append(mod)
    return out


def _included_by(index: RefIndex) -> dict[str, set[str]]:
    """Module -> the files that include it (C)."""
    rev: dict[str, set[str]] = {}
    for f in index.files.values():
        if index.module_system(f).included_files:
            for mod in index.imported_modules(f):
                rev.setdefault(mod, set()).add(f.key)
    return rev
