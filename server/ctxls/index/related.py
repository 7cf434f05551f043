"""What relates to one declaration besides its callers: the tests that exercise it, and
the project definitions its body uses. Built on the call resolution of ``index/resolve.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from ctxls.index.reach import same_system
from ctxls.index.refindex import FileInfo, RefIndex
from ctxls.index.resolve import (
    Reference,
    bounded_references,
    definition,
    enclosing_class,
    references,
)
from ctxls.index.tables import module_words, prefetch
from ctxls.syntax import languages
from ctxls.syntax.outline import Decl

# files judged for a caller's own callers (a test two hops away): bounded, as a window's
# call sites are (context/limits.py MAX_CALLER_FILES)
HOP_FILES = 100
# (compiled here, not by the first window)
IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
ATTRIBUTE = re.compile(r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)")
OWN_ATTRIBUTE = re.compile(r"\b(?:self|cls)\.([A-Za-z_][A-Za-z0-9_]*)")


class TestHit(NamedTuple):
    key: str
    path: str
    symbol: str | None  # the test function, or None for a whole file
    evidence: str
    # A file its test runner loads for every test in its folder and below (the language's
    # `[tests] injected`), however it was found.
    injected: bool = False


def tests_for(index: RefIndex, key: str, decl: Decl, is_test: Callable[[str], bool],
              callers: int = 20, found: tuple[list[Reference], list[Reference]] | None = None
              ) -> list[TestHit]:
    """Tests that exercise ``decl``, strongest evidence first, plus the files their test
    runner loads for them implicitly (no import points at those). ``found``: ``decl``'s
    references, when the caller has them already."""
    home = index.files[key]
    hits: dict[tuple[str, str | None], TestHit] = {}

    def add(hit: TestHit) -> None:
        if (hit.key, hit.symbol) not in hits:
            hits[hit.key, hit.symbol] = hit._replace(injected=_injected(hit.path))

    resolved, candidates = found if found is not None else references(index, key, decl)
    for ref in resolved:
        if is_test(ref.path):
            add(TestHit(ref.key, ref.path, ref.enclosing,
                        f"calls {decl.name} directly (line {ref.call.row + 1})"))
    # each calling function once, however often it calls
    once: dict[tuple[str, str | None], Reference] = {}
    for r in resolved:
        if not is_test(r.path):
            once.setdefault((r.key, r.enclosing), r)
    for ref in list(once.values())[:callers]:
        caller_info = index.files.get(ref.key)
        caller = next((d for d in caller_info.outline.decls if d.qualname == ref.enclosing),
                      None) if caller_info and ref.enclosing else None
        if caller is None or caller.kind not in ("function", "method", "class"):
            continue
        for hop in bounded_references(index, ref.key, caller, HOP_FILES)[0]:
            if is_test(hop.path):
                add(TestHit(hop.key, hop.path, hop.enclosing,
                            f"calls {caller.qualname}, a caller of {decl.name} "
                            f"(line {hop.call.row + 1})"))
    home_modules = set(index.module_names_of(home))
    # A file importing the module is filed under its name's last part or a name it defines
    # (``index_names``): only those files' imports are read, not every test file's; a star
    # import with no module to file it by is filed under ``*``.
    filed = {module_words(m)[-1] for m in home_modules if module_words(m)} | {"*"} | {
        d.name for d in home.outline.decls if not d.parents}
    # (only files of its module system can import it: `foo` is named by thousands of files
    # of every language in a monorepo, whose imports were all resolved here)
    importers = same_system(index, set().union(*(index.by_name.get(n, ()) for n in filed)),
                            home)
    tests = [i for i in sorted((index.files[k] for k in importers), key=lambda i: i.path)
             if is_test(i.path)]
    prefetch(i.tables for i in tests)  # (their imports are read next: one query, not one each)
    for info in tests:
        if (info.key, None) in hits or any(k == info.key for k, _ in hits):
            continue
        if index.imported_modules(info) & home_modules:
            add(TestHit(info.key, info.path, None, f"imports {home.path}'s module"))
    for ref in candidates:
        if is_test(ref.path) and not any(k == ref.key for k, _ in hits):
            add(TestHit(ref.key, ref.path, ref.enclosing,
                        f"matches by name only: {ref.why} (line {ref.call.row + 1})"))
    by_path = index.remembered("by_path", None,
                               lambda: {info.path: info for info in index.files.values()})
    for hit in list(hits.values()):
        spec = languages.spec_for(hit.path)
        if spec is None or not spec.tests.injected:
            continue
        folder = hit.path.rsplit("/", 1)[0] if "/" in hit.path else ""
        while True:  # the hit's folder, then each parent up to the root
            for name in spec.tests.injected:
                path = f"{folder}/{name}" if folder else name
                if path in by_path and path != hit.path:
                    add(TestHit(by_path[path].key, path, None,
                                f"{name} that {spec.tests.runner} loads for {hit.path}"))
            if not folder:
                break
            folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
    return list(hits.values())


def _injected(path: str) -> bool:
    """Whether the test runner of the file's language loads it implicitly."""
    spec = languages.spec_for(path)
    return spec is not None and path.rsplit("/", 1)[-1] in spec.tests.injected


class Dependency(NamedTuple):
    key: str
    path: str
    decl: Decl
    relation: str  # call | constant | name | import | attribute | name-match
    row: int  # where the body uses it


def dependencies(index: RefIndex, key: str, decl: Decl, lines: list[str]) -> list[Dependency]:
    """Project definitions the body of ``decl`` uses: what it calls (resolved), the module
    constants and imported names it mentions, what it reads from an imported module
    (``log.msg``, re-exports followed), and the attributes of its class it reads."""
    info = index.files[key]
    first, last = decl.span.start_row, decl.span.last_row
    out: dict[tuple[str, str], Dependency] = {}

    def add(found: tuple[FileInfo, Decl] | None, relation: str, row: int) -> None:
        if found is None or (found[0].key == key and found[1].qualname == decl.qualname):
            return
        out.setdefault((found[0].key, found[1].qualname),
                       Dependency(found[0].key, found[0].path, found[1], relation, row))

    for call in info.refs.calls:
        if first <= call.row <= last:
            found = definition(index, info, call.row, call.col)
            if found is None and call.obj is None and (only := index.only_method(info, call.name)):
                add(only, "name-match", call.row)
            else:
                add(found, "call", call.row)
    body = "\n".join(lines[first : last + 1])
    words = set(IDENTIFIER.findall(body))
    for d in info.outline.decls:
        if not d.parents and d.name in words:  # named, not called: a value, a class in
            add((info, d), "constant" if d.kind in ("variable", "constant", "type")
                else "name", first)  # an isinstance() tuple, a default factory

    for imp in info.refs.imports:
        if imp.local in words and imp.name and imp.name != "*":
            add(index.imported(info, imp), "import", imp.row)
    if index.sees_unimported_classes(info):  # a type of the same package, a Ruby constant
        for word in sorted(w for w in words if w[:1].isupper()):
            add(index.class_named(info, word, decl), "name", first)
    bound = {imp.local for imp in info.refs.imports}
    modules: dict[str, FileInfo | None] = {}
    for head, attr in sorted(set(ATTRIBUTE.findall(body))):
        if head in bound:  # ``module.name``: what the module defines or re-exports
            if head not in modules:
                modules[head] = index.module_of(info, head)
            mod = modules[head]
            if mod is not None and mod.key != key:
                add(index.export(mod, attr), "attribute", first)
    cls = enclosing_class(info, decl)
    if cls is not None:
        for attr in set(OWN_ATTRIBUTE.findall(body)):
            member = next((d for d in info.outline.decls
                           if d.qualname == f"{cls.qualname}.{attr}"), None)
            if member is not None:
                add((info, member), "attribute", first)
    return sorted(out.values(), key=lambda d: (d.path != info.path, d.path, d.decl.span))
