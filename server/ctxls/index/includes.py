"""C's includes, as the reference index reads them: which files include a module, directly
or through other headers (what a header declares is in scope there)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxls.index.refindex import FileInfo, RefIndex


def includers(index: RefIndex, infos: Iterable[FileInfo]) -> set[str]:
    """Keys of the files that include one of ``infos``' modules, directly or through other
    headers (C), where what it declares is in scope; none for other systems. One walk for
    all: protobuf's `Super_`, declared in 129 files, walked their shared headers' includers
    once per file (48,000 module names of files already seen)."""
    todo = [m for info in infos if index.module_system(info).included_files
            for m in index.module_names_of(info)]
    if not todo:
        return set()
    rev = index.remembered("includes", None, lambda: _included_by(index))
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
