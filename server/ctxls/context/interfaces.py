"""What the target uses, and the interfaces of the modules it can reach.

Three kinds of item: each definition the target's body uses (its signature; a class from
another file brings the definition lines of a few public members, the ones the target's
file names first; an overloaded function brings its implementation's signature); the
names the file's header binds from other project files (signatures: the header is where a
name gets its meaning); and the modules the file uses by attribute (``import m``, ``from
pkg import m``), each as the definition lines of its public interface.
"""

from __future__ import annotations

from collections.abc import Callable

from ctxls.context.items import Collected, cut, name_line, sig_rows
from ctxls.context.limits import (
    MAX_CLASS_MEMBERS,
    MAX_INTERFACE_LINES,
    MAX_MODULES,
)
from ctxls.context.model import Evidence, Text
from ctxls.index.related import Dependency
from ctxls.index.resolve import FileInfo
from ctxls.index.search import IDENT, words
from ctxls.snapshot import Snapshot, View
from ctxls.syntax.languages import is_test_path
from ctxls.syntax.outline import Decl

CLASS_LIKE = ("class", "interface", "struct")


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def task_match(task: str) -> Callable[[str], bool]:
    """Whether a name shares two words with the task (``allow_empty_first_line_in_block``
    and "Allow empty lines at ..."): what the edit is about, though nothing uses it yet."""
    stems = {_stem(w) for w in words(task).split() if len(w) > 2}
    return lambda name: sum(_stem(w) in stems for w in set(words(name).split())
                            if len(w) > 2) >= 2


def interfaces(snap: Snapshot, out: Collected, v: View, info: FileInfo | None, decl: Decl,
               deps: list[Dependency], file_words: set[str], task: str = "") -> None:
    items = out.items
    about = task_match(task)
    body_words = set(IDENT.findall(" ".join(v.lines[decl.span.start_row : decl.span.last_row
                                                    + 1])))
    for dep in deps:
        dv = v if dep.key == (info.key if info else "") else snap.view_at(dep.key)
        d = dep.decl
        # Overloads share a qualified name; the last definition is the implementation, whose
        # signature accepts every overload's arguments.
        twins = [x for x in (dv.outline.decls if dv.outline else ())
                 if x.qualname == d.qualname and x is not d]
        members: list[tuple[int, int]] = sig_rows(twins[-1])[:1] \
            if twins and twins[-1].span.start_row > d.span.start_row else []
        if d.kind in CLASS_LIKE and dv is not v and dv.outline:
            # A class from another file, a few public members: the ones the target uses,
            # then those the task is about, then those its file names.
            listed = [m for m in dv.outline.decls
                      if m.parents[-1:] == (d.qualname,) and not m.name.startswith("_")]
            listed.sort(key=lambda m: (m.name not in body_words, not about(m.name),
                                       m.name not in file_words))
            members += [(m.name_span.start_row, m.name_span.start_row)
                        for m in listed[:MAX_CLASS_MEMBERS]]
        items.append(Evidence(
            relation="dependency", provenance=f"03: {decl.name} uses it ({dep.relation}, line "
            f"{dep.row + 1})",
            renderings={"verbatim": cut(snap, dv, [(d.span.start_row, d.span.last_row)]),
                        "signature": cut(snap, dv, sig_rows(d) + members),
                        "name": name_line(dv, d)},
            path=dv.loc.path, symbol=d.qualname, rows=(d.span.start_row, d.span.last_row),
            key=f"{dv.loc.path}::{d.qualname}"))
    imported: dict[str, list[Decl]] = {}
    modules: dict[str, None] = {}  # files, in first-import order
    if info is not None:
        for imp in info.refs.imports:
            mod_file = snap.refs.module_file(snap.refs.absolute(info, imp), info)
            if imp.name and imp.name != "*":
                found_imp = snap.refs.imported(info, imp)
                if found_imp is not None and found_imp[0].key != info.key:
                    imported.setdefault(found_imp[0].key, []).append(found_imp[1])
                    continue
                mod_file = snap.refs.module_file(
                    f"{snap.refs.absolute(info, imp)}.{imp.name}", info)
            if mod_file is not None and snap.refs.module_system(mod_file).spans_files:
                # a Go package, a C# namespace: the file declaring most of the names this
                # one uses (chi's `NewRouter`: chi.go), not whichever sorts first, nor a test
                mod_file = snap.refs.tops(mod_file).most_naming(file_words, is_test_path)
            if mod_file is not None and mod_file.key != info.key:
                modules.setdefault(mod_file.key)
    for key, defs in imported.items():
        iv = snap.view_at(key)
        shown = [d for d in defs if f"{iv.loc.path}::{d.qualname}" not in
                 {e.key for e in items}]
        if not shown:
            continue
        items.append(Evidence(
            relation="import", provenance=f"03: what {v.loc.path} imports from {iv.loc.path}",
            renderings={
                "signature": cut(snap, iv, [r for d in shown for r in sig_rows(d)]),
                "name": Text(f"{iv.loc.path}: " + ", ".join(d.qualname for d in shown) + "\n")},
            path=iv.loc.path, key=f"{iv.loc.path}::imports"))
    for key in list(modules)[:MAX_MODULES]:
        mv = snap.view_at(key)
        if mv.outline is None:
            continue
        skip = {d.qualname for d in imported.get(key, [])}
        public = [d for d in mv.outline.decls
                  if d.qualname not in skip and not d.name.startswith("_")
                  and not any(part.startswith("_") for part in d.parents)
                  and d.kind not in ("field",)
                  and (not d.parents or d.kind in ("method", "function", "attribute"))]
        if not public:
            continue
        # What the target's body reads from it first, then what the task is about, then
        # what its file names (new code tends to reuse it), then the rest in file order, up
        # to a cap: a definition line each.
        public.sort(key=lambda d: (d.name not in body_words, not about(d.name),
                                   d.name not in file_words))
        rows = [(d.name_span.start_row, d.name_span.start_row)
                for d in public[:MAX_INTERFACE_LINES]]
        names = ", ".join(d.qualname for d in public[:60])
        items.append(Evidence(
            relation="module-interface", provenance=f"03: the public interface of "
            f"{mv.loc.path}, which {v.loc.path} imports",
            renderings={"signature": cut(snap, mv, rows),
                        "name": Text(f"{mv.loc.path}: {names}\n")},
            path=mv.loc.path, key=f"{mv.loc.path}::*"))
