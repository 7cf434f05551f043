"""Who calls what: resolving calls to declarations across the workspace.

Pure functions over a ``RefIndex`` (per-file outlines and reference tables, a module map,
and an inverted index from called or imported names to files). How a path becomes a
module name and what module an import names belong to the file's module system
(``index/modules/``), chosen by its language's data; nothing here names a language.

Every answer separates what is proven (``resolved``) from what only matches by name
(``candidates``) and counts the files that could not be read, because "no callers" and
"callers unknown" are different answers.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from ctxls.index import modules
from ctxls.index.modules import ModuleSystem
from ctxls.index.refs import Binding, Call, Import, Refs
from ctxls.index.tables import Tables
from ctxls.syntax import languages
from ctxls.syntax.outline import Decl, Outline
from ctxls.syntax.symbols import at_row

SELF_NAMES = frozenset({"self", "cls"})
CONSTRUCTED = re.compile(r"^(?:new\s+)?([A-Za-z_$][\w.$]*)\(.*\)$", re.S)
SUPER = frozenset({"super()", "super"})
CLASS_KINDS = frozenset({"class", "struct", "interface", "type", "enum", "object"})
CHAINED = re.compile(r"^([A-Za-z_$][\w.$]*)\(.*\)$", re.S)  # a call used as a receiver
MAX_HOPS = 6  # re-export chains followed at most this deep


class FileInfo(NamedTuple):
    key: str  # absolute path
    path: str  # workspace-relative POSIX path
    tables: Tables  # with reference tables (refs is not None)

    @property
    def outline(self) -> Outline:
        return self.tables.outline

    @property
    def refs(self) -> Refs:
        refs = self.tables.refs
        assert refs is not None
        return refs


def _system(path: str) -> ModuleSystem:
    """The module system of the file's language (``NONE`` without reference tables)."""
    name = languages.module_system(path)
    return modules.named(name) if name is not None else modules.NONE


def _implicit_self(info: FileInfo) -> bool:
    lang = languages.for_path(info.path)
    return lang is not None and lang.implicit_self


def _self_names(info: FileInfo) -> frozenset[str]:
    lang = languages.for_path(info.path)
    return frozenset(lang.self_names) if lang is not None else SELF_NAMES


def module_name(path: str) -> str | None:
    """The name imports use for a file (``pkg/sub/mod.py`` -> ``pkg.sub.mod``,
    ``billing/pricing.ts`` -> ``billing/pricing``), by its module system."""
    return _system(path).module_name(path)


class RefIndex:
    """Reference tables of every indexed file, kept current by the engine."""

    def __init__(self) -> None:
        self.files: dict[str, FileInfo] = {}
        self.modules: dict[str, list[str]] = {}  # module name -> keys (a Go package: many)
        self.by_name: dict[str, set[str]] = {}  # called or imported name -> keys
        self._imported: dict[str, frozenset[str]] = {}  # key -> modules its imports name
        self._scopes: dict[str, list[str | None]] = {}  # key -> row -> enclosing function

    def _names(self, info: FileInfo) -> frozenset[str]:
        return info.tables.name_set()

    def put(self, info: FileInfo) -> None:
        self.remove(info.key)
        self.files[info.key] = info
        for mod in _module_names(info.path):
            self.modules.setdefault(mod, []).append(info.key)
        for name in self._names(info):
            self.by_name.setdefault(name, set()).add(info.key)

    def imported_modules(self, info: FileInfo) -> frozenset[str]:
        """Every module ``info``'s imports can name (``a.b`` and ``a.b.c`` for ``from a.b
        import c``), kept until the file changes: test discovery asks for all test files."""
        found = self._imported.get(info.key)
        if found is None:
            found = frozenset(m for i in info.refs.imports
                              for a in (self.absolute(info, i),)
                              for m in (a, f"{a}.{i.name}" if i.name and a else a or i.name)
                              if m)
            self._imported[info.key] = found
        return found

    def scopes(self, info: FileInfo) -> list[str | None]:
        """Row -> innermost enclosing function, per file, kept until the file changes."""
        found = self._scopes.get(info.key)
        if found is None:
            found = self._scopes[info.key] = _scopes(info)
        return found

    def remove(self, key: str) -> None:
        self._imported.pop(key, None)
        self._scopes.pop(key, None)
        old = self.files.pop(key, None)
        if old is None:
            return
        for mod in _module_names(old.path):
            members = self.modules.get(mod)
            if members is not None and key in members:
                members.remove(key)
                if not members:
                    del self.modules[mod]
        for name in self._names(old):
            keys = self.by_name.get(name)
            if keys is not None:
                keys.discard(key)

    # ---- resolution ---------------------------------------------------------------------
    def module_file(self, module: str) -> FileInfo | None:
        keys = self.modules.get(module)
        return self.files.get(keys[0]) if keys else None

    def package(self, info: FileInfo) -> list[FileInfo]:
        """Every file of ``info``'s module: itself, or all files of a Go or Java package."""
        system = _system(info.path)
        mod = system.module_name(info.path)
        if mod is None or not system.spans_files:
            return [info]
        return [self.files[k] for k in self.modules.get(mod, []) if k in self.files] or [info]

    def absolute(self, info: FileInfo, imp: Import) -> str:
        """The absolute module an import names."""
        root = info.key[: len(info.key) - len(info.path)]
        return _system(info.path).absolute(imp, info.path, root)

    def export(self, info: FileInfo, name: str, hops: int = 0) -> tuple[FileInfo, Decl] | None:
        """The declaration ``name`` means at the top of ``info``'s module, re-exports followed."""
        for member in self.package(info):
            for d in member.outline.decls:
                if d.name == name and not d.parents:
                    return member, d
        if hops >= MAX_HOPS:
            return None
        for imp in info.refs.imports:
            if imp.local == name and imp.name:
                target = self.imported(info, imp, hops + 1)
                if target is not None:
                    return target
        for imp in info.refs.imports:
            if imp.name == "*":
                src = self.module_file(self.absolute(info, imp))
                if src is not None and (found := self.export(src, name, hops + 1)):
                    return found
        return None

    def imported(self, info: FileInfo, imp: Import,
                 hops: int = 0) -> tuple[FileInfo, Decl] | None:
        """What ``from m import name`` binds, when it is a declaration (not a module)."""
        if imp.name is None or imp.name == "*":
            return None
        src = self.module_file(self.absolute(info, imp))
        return self.export(src, imp.name, hops) if src is not None else None

    def module_of(self, info: FileInfo, expr: str) -> FileInfo | None:
        """The workspace module an expression such as ``pricing`` or ``a.b`` names in a file."""
        head, _, rest = expr.partition(".")
        for imp in info.refs.imports:
            if imp.local != head:
                continue
            if imp.name is None:  # a plain import: what it binds is the system's rule
                target = _system(info.path).plain_target(imp, rest, self.absolute(info, imp))
                return self.module_file(target) if target is not None else None
            if imp.name != "*":  # from pkg import mod [as x]
                return self.module_file(
                    ".".join(p for p in (self.absolute(info, imp), imp.name, rest) if p))
        return None

    def class_named(self, info: FileInfo, expr: str,
                    around: Decl | None = None) -> tuple[FileInfo, Decl] | None:
        """The class an expression names in a file: nested in an enclosing scope, local,
        imported, or ``module.Class``; ``Class(...)`` names its instance's class."""
        expr = expr.strip()
        if expr.startswith("(") and expr.endswith(")"):  # Go (*T, error): the first result
            expr = expr[1:-1].split(",", 1)[0]
        expr = re.sub(r"^(?:[&*]|mut\s+|dyn\s+|impl\s+)+", "", expr.strip())
        expr = re.split(r"[\[<]", expr, maxsplit=1)[0].strip("\"' ")
        if expr == "Self" and around is not None and around.parents:  # Rust: the impl's type
            expr = around.parents[-1]
            for d in info.outline.decls:
                if d.qualname == expr and d.kind in CLASS_KINDS:
                    return info, d
        if m := CONSTRUCTED.match(expr):
            expr = m.group(1)
        if around is not None and "." not in expr:
            scopes = (*around.parents, around.qualname)
            for scope in reversed(scopes):  # innermost visible definition wins
                for d in info.outline.decls:
                    if d.kind == "class" and d.qualname == f"{scope}.{expr}":
                        return info, d
        if "." in expr:
            mod, _, cls = expr.rpartition(".")
            src = self.module_of(info, mod)
            found = self.export(src, cls) if src is not None else None
        else:
            found = self.export(info, expr)
        if found is not None and found[1].kind in CLASS_KINDS:
            return found
        if _system(info.path).global_classes:  # any file may define it
            return self.global_class(expr)
        return None

    def global_class(self, expr: str) -> tuple[FileInfo, Decl] | None:
        """A class or module by (qualified) name in any file whose module system makes
        class names global (Ruby constants)."""
        found = [(f, d) for f in self.files.values() if _system(f.path).global_classes
                 for d in f.outline.decls
                 if d.kind in ("class", "module") and (d.qualname == expr or d.name == expr)]
        exact = [x for x in found if x[1].qualname == expr]
        return (exact or found)[0] if len(exact or found) == 1 else None

    def ancestors(self, info: FileInfo, cls: Decl, hops: int = 0) -> Iterator[tuple[str, str]]:
        """(file key, class qualname) of a class and its bases, as far as they resolve."""
        yield info.key, cls.qualname
        if hops >= MAX_HOPS:
            return
        for row, bases in info.refs.bases:
            if row != cls.name_span.start_row:
                continue
            for base in bases:
                found = self.class_named(info, base, cls)
                if found is not None:
                    yield from self.ancestors(found[0], found[1], hops + 1)


class Reference(NamedTuple):
    key: str
    path: str
    call: Call
    enclosing: str | None
    why: str  # how it was resolved, or why it is only a candidate


def references(index: RefIndex, key: str, decl: Decl) -> tuple[list[Reference], list[Reference]]:
    """(resolved, candidates) call sites of ``decl`` defined in file ``key``."""
    home = index.files.get(key)
    if home is None:
        return [], []
    resolved: list[Reference] = []
    candidates: list[Reference] = []
    owner = decl.parents[-1] if decl.parents else None
    for other_key in sorted(index.by_name.get(decl.name, set())):
        info = index.files.get(other_key)
        if info is None:
            continue
        local_names = {decl.name} | {i.local for i in info.refs.imports if i.name == decl.name}
        for call in info.refs.calls:
            if call.name not in local_names:
                continue
            if (call.row == decl.name_span.start_row and other_key == key
                    and call.col == decl.name_span.start_col):
                continue  # the definition itself
            around = at_row(info.outline, call.row)
            enclosing = around.qualname if around is not None else None
            verdict = _judge(index, info, call, around, home, decl, owner)
            if verdict is None:
                continue
            ref = Reference(other_key, info.path, call, enclosing, verdict[1])
            (resolved if verdict[0] else candidates).append(ref)
    return resolved, candidates


def _judge(index: RefIndex, info: FileInfo, call: Call, around: Decl | None, home: FileInfo,
           decl: Decl, owner: str | None) -> tuple[bool, str] | None:
    """(resolved?, why) for one call with the right name, or None when it is not one."""
    target = (home.key, decl.qualname)

    def means(found: tuple[FileInfo, Decl] | None) -> bool:
        return found is not None and (found[0].key, found[1].qualname) == target

    if call.obj is None:
        if owner is not None and _implicit_self(info):  # Java: helper() is this.helper()
            klass = _enclosing_class(info, around)
            if klass is None:
                return None
            return (True, f"{call.name}() in {klass.qualname}") if means(
                _method(index, info, klass, call.name)) else None
        if owner is not None or not means(_bare(index, info, call.name)):
            return None  # a method, another declaration of the name, or a builtin
        return True, "imported name" if info.key != home.key else "name in its own module"
    head = call.obj.split(".")[0]
    if owner is None and head in _self_names(info):
        return None  # self.f() cannot reach a module-level function
    cls = _receiver_class(index, info, call, around)
    if cls is not None:
        if owner is None:
            return None
        found = _method(index, cls[0], cls[1], call.name)
        if found is None:  # defined in a base we could not resolve: not proven either way
            return False, f"`{call.obj}` is a {cls[1].qualname}; {call.name} not found in it"
        return (True, f"{call.obj}: {cls[1].qualname}") if means(found) else None
    module = index.module_of(info, call.obj)
    if module is not None:
        found = index.export(module, call.name)
        if not means(found):
            return None
        assert found is not None
        own = {m.key for m in index.package(module)}
        return True, (f"module attribute {call.obj}.{call.name}"
                      + ("" if found[0].key in own else " (re-exported)"))
    if _external(index, info, head):
        return None  # an attribute of a module outside the workspace
    return False, f"`{call.obj}` has no known type"


def _receiver_class(index: RefIndex, info: FileInfo, call: Call,
                    around: Decl | None, depth: int = 0) -> tuple[FileInfo, Decl] | None:
    """The class of a call's receiver, when the file says what it is."""
    obj = call.obj or ""
    selves = _self_names(info)
    if obj in selves:
        cls = _enclosing_class(info, around)
        return (info, cls) if cls is not None else None
    if obj in SUPER:
        cls = _enclosing_class(info, around)
        if cls is None:
            return None
        for row, bases in info.refs.bases:
            if row == cls.name_span.start_row:
                for base in bases:
                    found = index.class_named(info, base, cls)
                    if found is not None and _method(index, found[0], found[1], call.name):
                        return found
        return None
    head, _, rest = obj.partition(".")
    if head in selves and rest and "." not in rest:  # self.router.add_route(...)
        cls = _enclosing_class(info, around)
        if cls is None:
            return None
        typed = [b for b in info.refs.bindings if b.name == obj and b.type
                 and cls.span.start_row <= b.row <= cls.span.last_row]
        return index.class_named(info, typed[-1].type, cls) if typed else None
    found = index.class_named(info, obj, around)
    if found is not None:
        return found
    chained = CHAINED.match(obj)
    if chained and depth < MAX_HOPS:  # ledger.add(x).total(): what add() says it returns
        return _returned(index, info, Binding(call.row + 1, "", chained.group(1)), around,
                         depth + 1)
    if "." in obj or "(" in obj:
        return None
    binding = _binding(index, info, obj, call.row)
    if binding is None and _implicit_self(info) and selves and around is not None:
        # repo.save() is this.repo.save(), or a field of an enclosing class (inner classes)
        member = f"{sorted(selves)[0]}.{obj}"
        classes = {d.qualname: d for d in info.outline.decls if d.kind in CLASS_KINDS}
        for scope in reversed((*around.parents, around.qualname)):
            cls = classes.get(scope)
            typed = [b for b in info.refs.bindings if b.name == member and b.type
                     and cls is not None and cls.span.start_row <= b.row <= cls.span.last_row]
            if typed:
                return index.class_named(info, typed[-1].type, cls)
        return None
    if binding is None or not binding.type:
        return None
    return index.class_named(info, binding.type, around) or (
        _returned(index, info, binding, around, depth) if depth < MAX_HOPS else None)


def _returned(index: RefIndex, info: FileInfo, binding: Binding,
              around: Decl | None, depth: int) -> tuple[FileInfo, Decl] | None:
    """The class a binding holds when it was assigned a call of a function that declares
    its return type (``doc = parse(text)`` with ``def parse(...) -> TOMLDocument``)."""
    callee = binding.type
    # Evaluated just before the assignment: `x = x.next()` asks what x was.
    fake = Call(binding.row - 1, 0, 0, callee.rpartition(".")[2],
                callee.rpartition(".")[0] or None)
    if fake.obj is None:
        found = _bare(index, info, fake.name)
    else:
        cls = _receiver_class(index, info, fake, around, depth + 1)
        module = index.module_of(info, fake.obj) if cls is None else None
        found = (_method(index, cls[0], cls[1], fake.name) if cls is not None
                 else index.export(module, fake.name) if module is not None else None)
    if found is None:
        return None
    owner, fn = found
    annotation = next((t for row, t in owner.refs.returns if row == fn.name_span.start_row),
                      None)
    return index.class_named(owner, annotation, fn) if annotation else None


def _external(index: RefIndex, info: FileInfo, head: str) -> bool:
    """Whether ``head`` is bound by an import of a module the workspace does not have."""
    for imp in info.refs.imports:
        if imp.local == head:
            module = imp.module if imp.name is None else index.absolute(info, imp)
            return index.module_file(module) is None and index.module_file(
                module.split(".")[0]) is None
    return False


def _scopes(info: FileInfo) -> list[str | None]:
    """The innermost function around each row (its qualname), None at module level."""
    rows: list[str | None] = [None] * (info.outline.line_count + 1)
    functions = sorted((d for d in info.outline.decls
                        if d.body is not None and d.kind in ("function", "method")),
                       key=lambda d: d.span.start_row)
    for d in functions:  # later starts are nested deeper: they overwrite their parents
        for r in range(d.span.start_row, min(d.span.last_row, len(rows) - 1) + 1):
            rows[r] = d.qualname
    return rows


def _binding(index: RefIndex, info: FileInfo, name: str, row: int) -> Binding | None:
    """The latest binding of ``name`` visible at ``row``: in the same function before it,
    else at module level. An untyped rebinding hides older typed ones."""
    same = [b for b in info.refs.bindings if b.name == name]
    if not same:
        return None
    scopes = index.scopes(info)

    def scope(r: int) -> str | None:
        return scopes[r] if 0 <= r < len(scopes) else None

    here = scope(row)
    local = [b for b in same if b.row <= row and scope(b.row) == here]
    if local:
        return local[-1]
    if here is not None:
        module = [b for b in same if scope(b.row) is None]
        return module[-1] if module else None
    return None


def _bare(index: RefIndex, info: FileInfo, name: str) -> tuple[FileInfo, Decl] | None:
    for imp in info.refs.imports:
        if imp.local == name and imp.name and imp.name != "*":
            return index.imported(info, imp)
    return index.export(info, name)


def _enclosing_class(info: FileInfo, around: Decl | None) -> Decl | None:
    if around is None:
        return None
    names = {d.qualname: d for d in info.outline.decls
             if d.kind in CLASS_KINDS or d.kind in ("impl", "trait")}
    for parent in reversed((*around.parents, around.qualname)):
        if parent in names:
            return names[parent]
    return None


def _module_names(path: str) -> list[str]:
    """Names a file can be imported by (a ``src/`` layout, a folder's ES ``index`` file)."""
    return _system(path).module_names(path)


def _method(index: RefIndex, info: FileInfo, cls: Decl, name: str) -> tuple[FileInfo, Decl] | None:
    for key, qual in index.ancestors(info, cls):
        owner = index.files.get(key)
        if owner is None:
            continue
        for member in index.package(owner):  # Go methods live in any file of the package
            for d in member.outline.decls:
                if d.qualname == f"{qual}.{name}":
                    return member, d
    return None


def definition(index: RefIndex, info: FileInfo, row: int, col: int
               ) -> tuple[FileInfo, Decl] | None:
    """The declaration the name at (row, byte column) of a file refers to, if it resolves."""
    for d in info.outline.decls:
        s = d.name_span
        if s.start_row == row and s.start_col <= col <= s.end_col:
            return info, d  # on a declaration's own name
    call = next((c for c in info.refs.calls if c.row == row and c.col <= col <= c.end_col),
                None)
    if call is None:
        imp = next((i for i in info.refs.imports if i.row == row and i.name and i.name != "*"),
                   None)
        return index.imported(info, imp) if imp is not None else None
    around = at_row(info.outline, call.row)
    if call.obj is None:
        return _bare(index, info, call.name)
    cls = _receiver_class(index, info, call, around)
    if cls is not None:
        return _method(index, cls[0], cls[1], call.name)
    module = index.module_of(info, call.obj)
    return index.export(module, call.name) if module is not None else None


class TestHit(NamedTuple):
    key: str
    path: str
    symbol: str | None  # the test function, or None for a whole file
    evidence: str
    # A file its test runner loads for every test in its folder and below (the language's
    # `[tests] injected`), however it was found.
    injected: bool = False


def tests_for(index: RefIndex, key: str, decl: Decl, is_test: Callable[[str], bool],
              callers: int = 20) -> list[TestHit]:
    """Tests that exercise ``decl``, strongest evidence first, plus the files their test
    runner loads for them implicitly (no import points at those)."""
    home = index.files[key]
    hits: dict[tuple[str, str | None], TestHit] = {}

    def add(hit: TestHit) -> None:
        if (hit.key, hit.symbol) not in hits:
            hits[hit.key, hit.symbol] = hit._replace(injected=_injected(hit.path))

    resolved, candidates = references(index, key, decl)
    for ref in resolved:
        if is_test(ref.path):
            add(TestHit(ref.key, ref.path, ref.enclosing,
                        f"calls {decl.name} directly (line {ref.call.row + 1})"))
    for ref in [r for r in resolved if not is_test(r.path)][:callers]:
        caller_info = index.files.get(ref.key)
        caller = next((d for d in caller_info.outline.decls if d.qualname == ref.enclosing),
                      None) if caller_info and ref.enclosing else None
        if caller is None or caller.kind not in ("function", "method", "class"):
            continue
        for hop in references(index, ref.key, caller)[0]:
            if is_test(hop.path):
                add(TestHit(hop.key, hop.path, hop.enclosing,
                            f"calls {caller.qualname}, a caller of {decl.name} "
                            f"(line {hop.call.row + 1})"))
    home_modules = set(_module_names(home.path))
    for info in index.files.values():
        if not is_test(info.path) or (info.key, None) in hits or any(
                k == info.key for k, _ in hits):
            continue
        if index.imported_modules(info) & home_modules:
            add(TestHit(info.key, info.path, None, f"imports {home.path}'s module"))
    for ref in candidates:
        if is_test(ref.path) and not any(k == ref.key for k, _ in hits):
            add(TestHit(ref.key, ref.path, ref.enclosing,
                        f"matches by name only: {ref.why} (line {ref.call.row + 1})"))
    by_path = {info.path: info for info in index.files.values()}
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
    relation: str  # call | constant | name | import | attribute
    row: int  # where the body uses it


def dependencies(index: RefIndex, key: str, decl: Decl, lines: list[str]) -> list[Dependency]:
    """Project definitions the body of ``decl`` uses: what it calls (resolved), the module
    constants and imported names it mentions, and the attributes of its class it reads."""
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
            add(definition(index, info, call.row, call.col), "call", call.row)
    body = "\n".join(lines[first : last + 1])
    words = set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", body))
    for d in info.outline.decls:
        if not d.parents and d.name in words:  # named, not called: a value, a class in
            add((info, d), "constant" if d.kind in ("variable", "constant", "type")
                else "name", first)  # an isinstance() tuple, a default factory

    for imp in info.refs.imports:
        if imp.local in words and imp.name and imp.name != "*":
            add(index.imported(info, imp), "import", imp.row)
    cls = _enclosing_class(info, decl)
    if cls is not None:
        for attr in set(re.findall(r"\b(?:self|cls)\.([A-Za-z_][A-Za-z0-9_]*)", body)):
            member = next((d for d in info.outline.decls
                           if d.qualname == f"{cls.qualname}.{attr}"), None)
            if member is not None:
                add((info, member), "attribute", first)
    return sorted(out.values(), key=lambda d: (d.path != info.path, d.path, d.decl.span))
