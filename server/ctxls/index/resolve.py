"""Who calls what: resolving calls to declarations across the workspace.

Pure functions over a ``RefIndex`` (``index/refindex.py``: per-file outlines and reference
tables, a module map, and an inverted index from called or imported names to files). What
an import names is the file's module system's answer (``index/modules/``); nothing here
names a language.

Every answer separates what is proven (``resolved``) from what only matches by name
(``candidates``) and counts the files that could not be read, because "no callers" and
"callers unknown" are different answers.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ctxls.index import derived, spelling
from ctxls.index.globals import CLASS_KINDS, PATH_SEP, in_namespace
from ctxls.index.reach import aliases, may_reach, may_use, nearest, same_system
from ctxls.index.refindex import MAX_HOPS
from ctxls.index.refindex import FileInfo as FileInfo
from ctxls.index.refindex import RefIndex as RefIndex
from ctxls.index.refs import Binding, Call
from ctxls.syntax import arity, languages
from ctxls.syntax.outline import Decl

SELF_NAMES = frozenset({"self", "cls"})
WORD = re.compile(r"(?<![\w$])[^\W\d][\w$]*|\$[\w$]*")  # an identifier, not 0x1F's x1F
LINK = re.compile(r"(?<![\w$])([^\W\d][\w$]*|\$[\w$]*)\s*(?:\.|::)\s*\Z")  # `a.`, `a::`
# What a candidate's resolution stopped at, in the words of the `incomplete:` note.
UNKNOWN_RECEIVER = "receiver of unknown type"
NOT_IN_CLASS = "not found in the receiver's class"
NOT_IN_MODULE = "not found in the module it names"
IMPORT = "import not followed"
INHERITED = "may be inherited from an unresolved base"
SELF_PATH = "a self:: path or a method on self"


def _linked(index: RefIndex, info: FileInfo, decl: Decl) -> bool:
    """A top-level function the linker joins across files (not C's `static`)."""
    return decl.kind == "function" and not decl.parents and decl.name not in index.internal(info)


def _implicit_self(info: FileInfo) -> bool:
    lang = languages.for_path(info.path)
    return lang is not None and lang.implicit_self


def _super_names(info: FileInfo) -> tuple[str, ...]:
    lang = languages.for_path(info.path)
    return lang.super_names if lang is not None else ("super", "super()")


def _self_names(info: FileInfo) -> frozenset[str]:
    lang = languages.for_path(info.path)
    return frozenset(lang.self_names) if lang is not None else SELF_NAMES


class Reference(NamedTuple):
    key: str
    path: str
    call: Call
    enclosing: str | None
    why: str  # how it was resolved, or why it is only a candidate
    unresolved: str = ""  # a candidate's reason, one of the few above


def references(index: RefIndex, key: str, decl: Decl, proven: bool = False,
               within: set[str] | None = None) -> tuple[list[Reference], list[Reference]]:
    """(resolved, candidates) call sites of ``decl`` defined in file ``key``; ``proven``: the
    resolved alone (files only candidates can be in are not judged); ``within``: in these."""
    resolved, candidates, _, _ = _bounded_references(index, key, decl, None, proven, within)
    return resolved, candidates


def bounded_references(index: RefIndex, key: str, decl: Decl, max_files: int | None
                       ) -> tuple[list[Reference], list[Reference], int, int]:
    """``_bounded_references``, remembered until the index changes when bounded: a window
    asks it for the target, then for each caller twice (its tests, the second-hop count)."""
    if max_files is None:
        return _bounded_references(index, key, decl, None)
    span = decl.name_span
    resolved, candidates, judged, naming = index.remembered(
        "references", (key, decl.qualname, span.start_row, span.start_col, max_files),
        lambda: _bounded_references(index, key, decl, max_files))
    return list(resolved), list(candidates), judged, naming


def _bounded_references(index: RefIndex, key: str, decl: Decl, max_files: int | None,
                        proven: bool = False, within: set[str] | None = None
                        ) -> tuple[list[Reference], list[Reference], int, int]:
    """``references``, judging the calls of at most ``max_files`` of the files that name it,
    the nearest to its own file first; with how many were judged, and of how many. A name
    that thousands of files use (a helper copied into every test fixture) costs seconds
    to judge in full; a window needs a few call sites and says the count is partial."""
    home = index.files.get(key)
    if home is None:
        return [], [], 0, 0
    resolved: list[Reference] = []
    candidates: list[Reference] = []
    owner = index.owner(home, decl)
    names = aliases(index, home, decl, max_files)
    naming = sorted(same_system(index, set().union(*(index.by_name.get(n, set())
                                                     for n in names)), home))
    judged = naming if max_files is None else nearest(naming, key, max_files)
    for other_key in judged if within is None else [k for k in judged if k in within]:
        info = index.files.get(other_key)
        if info is None:
            continue
        if not may_use(index, info, home, decl, names, candidates=not proven):
            continue
        local_names = names | {i.local for i in info.imports if i.name in names}
        if owner is not None and spelling.no_use(index, info, local_names, home, owner):
            continue
        for call in info.refs.calls:
            if call.name not in local_names:
                continue
            if (call.row == decl.name_span.start_row and other_key == key
                    and call.col == decl.name_span.start_col):
                continue  # the definition itself
            if owner is not None and call.obj is not None and spelling.another_type(
                    index, info, call.obj, home, owner):
                continue  # (``judge``'s first word; before the row's declaration is found)
            around = index.at_row(info, call.row)
            enclosing = around.qualname if around is not None else None
            verdict = judge(index, info, call, around, home, decl, owner)
            if verdict is None or (not verdict[0] and call.name not in (
                    decl.name, *(i.local for i in info.refs.imports if i.name == decl.name))):
                continue  # another name's unproven uses are that name's, not this one's
            ref = Reference(other_key, info.path, call, enclosing, verdict[1], verdict[2])
            (resolved if verdict[0] else candidates).append(ref)
    return resolved, candidates, len(judged), len(naming)


def judge(index: RefIndex, info: FileInfo, call: Call, around: Decl | None, home: FileInfo,
           decl: Decl, owner: str | None) -> tuple[bool, str, str] | None:
    """(resolved?, why, what stopped a candidate) for one call with the right name, or None
    when it is proven not one: another declaration, a builtin, outside the workspace."""
    target = (home.key, decl.qualname)

    def means(found: tuple[FileInfo, Decl] | None) -> bool:
        return found is not None and (found[0].key, found[1].qualname) == target

    if call.obj is None:
        imported = next((i for i in info.refs.imports if i.local == call.name and i.name
                         and i.name != "*"), None)
        if owner is not None and imported is not None:  # Java's `import static pkg.Util.f`
            return (True, "imported name", "") if means(index.imported(info, imported)) \
                else None
        if owner is not None and _implicit_self(info):  # Java: helper() is this.helper()
            klass = enclosing_class(info, around, ("module",)) or _declared_class(
                index, info, around)  # Ruby: a mixin's own calls; C++: Cache::get's class
            if klass is None:
                return None
            # The class, then the classes it is nested in (Java: an inner class calls its
            # outer class's methods unqualified), each with its bases.
            nest = [klass, *reversed(_enclosing_classes(info, klass))]
            for k in nest:
                found = _method(index, info, k, call.name)
                if found is not None:
                    return (True, f"{call.name}() in {k.qualname}", "") if means(found) else None
            base = next((b for k in nest if (b := _open_base(index, info, k))), None)
            if base is None:
                return None  # the classes and every base are known, and none declares it
            return (False, f"{call.name}() in {klass.qualname}, which {base} may supply",
                    INHERITED)
        if owner is not None:
            return None  # a bare name is no method here
        found = _bare(index, info, call.name)
        if index.global_functions(info) and _linked(index, home, decl):
            # C links one function per name: every prototype and definition of it (a
            # platform's variant too) is what the call means, unless a static function
            # the caller sees shadows it
            if found is None or _linked(index, *found):
                return True, "the global function of that name (one per program)", ""
            if found[1].kind == "function":
                return None
        if (found is None or found[1].body is None) and index.global_functions(info):
            # C: a function is global; a prototype (or nothing) here means the one
            # definition the workspace has, wherever it is
            defined = index.global_function(info, call.name)
            if defined is not None:
                found = defined
                if means(found):
                    return True, "the workspace's one definition of a global function", ""
        if found is None:  # a builtin or undeclared, unless a workspace module was asked
            source = _workspace_import(index, info, call.name)
            if source is None or not may_reach(index, source[1], source[2], home):
                return None
            return (False, f"imported from {source[0]}, where {call.name} was not found",
                    IMPORT)
        if not means(found):
            return None  # another declaration of the name
        return True, "imported name" if info.key != home.key else "name in its own module", ""
    head = call.obj.split(".")[0]
    if owner is None and head in _self_names(info):
        # self.f() cannot reach a module-level function, but Rust's self::f() can, and the
        # tables write both `self.f`: a candidate only when the path would name this one
        module = index.module_of(info, call.obj)
        if module is None or not means(index.export(module, call.name)):
            return None
        return False, f"`{call.obj}.{call.name}` may be a module path or a method", SELF_PATH
    if owner is not None and spelling.another_type(index, info, call.obj, home, owner):
        return None  # `Vec::new()`, `Vec2::new()`: a prelude's or a glob's type
    cls = _receiver_class(index, info, call, around)
    if cls is not None:
        if owner is None:
            return None
        found = _method(index, cls[0], cls[1], call.name) or _trait_method(
            index, info, call.name)
        if found is None:  # defined in a base we could not resolve: not proven either way
            return (False, f"`{call.obj}` is a {cls[1].qualname}; {call.name} not found in it",
                    NOT_IN_CLASS)
        if means(found):
            return True, f"{call.obj}: {cls[1].qualname}", ""
        if index.calls_through_bases(info) and overridden(index, home, decl, found):
            return True, f"{call.obj}: {cls[1].qualname}, whose {call.name} it overrides", ""
        return None
    module = index.module_of(info, call.obj)
    if module is not None:
        found = index.export(module, call.name)
        if found is None:  # a re-export or a definition the tables do not follow
            return (False, f"`{call.obj}` is {module.path}; {call.name} not found in it",
                    NOT_IN_MODULE)
        if not means(found):
            return None
        own = {m.key for m in index.package(module)}
        return True, (f"module attribute {call.obj}.{call.name}"
                      + ("" if found[0].key in own else " (re-exported)")), ""
    if _external(index, info, head):
        return None  # an attribute of a module outside the workspace
    return False, f"`{call.obj}` has no known type", UNKNOWN_RECEIVER


def _receiver_class(index: RefIndex, info: FileInfo, call: Call,
                    around: Decl | None, depth: int = 0) -> tuple[FileInfo, Decl] | None:
    """The class of a call's receiver, when the file says what it is; remembered until
    the index changes (each overload's references judge the same calls again)."""
    if depth:
        return _receiver_of(index, info, call, around, depth)
    return index.remembered("receiver", (info.key, call, around.span if around else None),
                            lambda: _receiver_of(index, info, call, around, 0))


def _receiver_of(index: RefIndex, info: FileInfo, call: Call,
                 around: Decl | None, depth: int) -> tuple[FileInfo, Decl] | None:
    obj = call.obj or ""
    selves = _self_names(info)
    if obj in selves:
        cls = enclosing_class(info, around)
        return (info, cls) if cls is not None else None
    if obj in _super_names(info):
        cls = enclosing_class(info, around)
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
        cls = enclosing_class(info, around)
        if cls is None:
            return None
        typed = [b for b in info.refs.bindings if b.name == obj and b.type
                 and cls.span.start_row <= b.row <= cls.span.last_row]
        return index.class_named(info, typed[-1].type, cls) if typed else None
    found = index.class_named(info, obj, around) if _may_name_class(index, info, obj) \
        else None
    if found is not None:
        return found
    chained = arity.callee(obj)  # ledger.add(x).total(): what total() says it returns
    if chained and depth < MAX_HOPS:
        return _returned(index, info, Binding(call.row + 1, "", chained), around, depth + 1)
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


def _may_name_class(index: RefIndex, info: FileInfo, obj: str) -> bool:
    """Whether a receiver's text may name a class rather than a value: never where
    receivers are values (``receivers_are_values``: C's `values->nr`, each sought through
    every include); where types are spelled with a capital (``typed_by_case``), not when
    its last part is not (polars' `s.len()`, `ca.len()`: each sought as a type through
    every glob import of a prelude, 2,000 texts for one textDocument/references)."""
    lang = languages.for_path(info.path)
    if lang is not None and lang.receivers_are_values:
        return False
    if not index.module_system(info).typed_by_case:
        return True
    last = PATH_SEP.split(obj.split("<", 1)[0].rstrip(":."))[-1]
    return last[:1].isupper() and last.isidentifier()


def _returned(index: RefIndex, info: FileInfo, binding: Binding,
              around: Decl | None, depth: int) -> tuple[FileInfo, Decl] | None:
    """The class a binding holds when it was assigned a call of a function that declares
    its return type (``doc = parse(text)`` with ``def parse(...) -> TOMLDocument``)."""
    annotated = return_annotation(index, info, binding, around, depth)
    return index.class_named(annotated[0], annotated[2], annotated[1]) if annotated else None


def return_annotation(index: RefIndex, info: FileInfo, binding: Binding,
                       around: Decl | None, depth: int) -> tuple[FileInfo, Decl, str] | None:
    """(its file, the function, its return annotation: a type variable's bound, Java's `U
    extends Base<T, U>`) of the function a binding was assigned a call of (a call at row
    r whose callee is `a.f`: ``Binding(r + 1, "", "a.f")``)."""
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
    row = fn.name_span.start_row
    annotation = next((t for r, t in owner.refs.returns if r == row), None)
    bound = _binding(index, owner, annotation, row) if annotation and annotation.isupper() else None
    return (owner, fn, bound.type if bound and bound.type else annotation) if annotation else None


def _external(index: RefIndex, info: FileInfo, head: str) -> bool:
    """Whether ``head`` is bound by an import of a module the workspace does not have."""
    for imp in info.refs.imports:
        if imp.local == head:
            module = imp.module if imp.name is None else index.absolute(info, imp)
            return index.module_file(module, info) is None and index.module_file(
                module.split(".")[0], info) is None
    return False


def _workspace_import(index: RefIndex, info: FileInfo, name: str
                      ) -> tuple[str, FileInfo, str] | None:
    """The module, as written, from which the file imports ``name``, its file, and the name
    it exports it by, when the workspace has that module (so a name not found there is not
    proven absent)."""
    for imp in info.refs.imports:
        if imp.local == name and imp.name and imp.name != "*":
            src = index.module_file(index.absolute(info, imp), info)
            return (imp.module, src, imp.name) if src is not None else None
    return None


def _open_base(index: RefIndex, info: FileInfo, cls: Decl, hops: int = 0) -> str | None:
    """A base (or mixin) of the class or of its bases that resolves to no workspace class
    and is not proven to come from outside the workspace: it may supply any method."""
    for row, bases in info.refs.bases:
        if row != cls.name_span.start_row:
            continue
        for base in bases:
            found = index.class_named(info, base, cls)
            if found is None:
                if not _external(index, info, PATH_SEP.split(base)[0]) and \
                        index.may_be_workspace_class(info, base):
                    return base
            elif hops < MAX_HOPS and (deeper := _open_base(index, *found, hops + 1)):
                return deeper
    return None


def _binding(index: RefIndex, info: FileInfo, name: str, row: int) -> Binding | None:
    """The latest binding of ``name`` visible at ``row``: in the same function before it,
    else at module level. An untyped rebinding hides older typed ones."""
    same = index.bindings_named(info, name)
    scopes = index.scopes(info)
    here = scopes[row] if 0 <= row < len(scopes) else None
    local = [b for b in same if b.row <= row and scopes[b.row] == here]
    if local:
        return local[-1]
    if here is None and same:
        return None
    for member in index.binders(info, name):  # module level, or another file of a Go package
        outer = index.scopes(member)
        module = [b for b in index.bindings_named(member, name) if outer[b.row] is None]
        if module and (member is info or not same):
            return module[-1]
    return None


def _bare(index: RefIndex, info: FileInfo, name: str) -> tuple[FileInfo, Decl] | None:
    """What a bare name means in a file (remembered: C follows every include for it)."""
    return index.remembered("bare", (info.key, name), lambda: _bare_of(index, info, name))


def _bare_of(index: RefIndex, info: FileInfo, name: str) -> tuple[FileInfo, Decl] | None:
    for imp in info.refs.imports:
        if imp.local == name and imp.name and imp.name != "*":
            return index.imported(info, imp)
    found = index.export(info, name)
    if found is None and index.module_system(info).global_classes:
        return _in_namespaces(index, info, name)
    return found


def _in_namespaces(index: RefIndex, info: FileInfo, name: str) -> tuple[FileInfo, Decl] | None:
    """Where class names are global, the class ``name`` of a namespace the file is in (and
    those around it) or brings into scope (C#'s `using A.B;`), when one alone is found: a
    namespace need not be its folder (orleans' `UnitTests.GrainInterfaces` in
    test/Grains/TestGrainInterfaces), which the module lookup goes by."""
    classes = index.classes_named(name)
    if not classes or any(d.name == name for f, d in classes if f.key == info.key):
        return None  # (a method, a library's type; or a nested class of the file's own)
    spaces = {i.module for i in info.refs.imports if i.name == "*"}
    for space in [n for _, n in info.refs.namespaces] + [
            d.qualname.replace("\\", ".") for d in info.outline.decls if d.kind == "namespace"]:
        parts = space.split(".")
        spaces.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
    wanted = {f"{space}.{name}" for space in spaces}
    found = {(f.key, d.qualname): (f, d) for f, d in classes if in_namespace(f, d) in wanted}
    return next(iter(found.values())) if len(found) == 1 else None


def enclosing_class(info: FileInfo, around: Decl | None,
                     also: tuple[str, ...] = ()) -> Decl | None:
    if around is None:
        return None
    named = info.tables.derived("by_qualname", derived.by_qualname)
    for parent in reversed((*around.parents, around.qualname)):
        for d in reversed(named.get(parent, ())):  # (the last of a name, as a dict keeps)
            if d.kind in CLASS_KINDS or d.kind in ("impl", "trait", *also):
                return d
    return None


def _declared_class(index: RefIndex, info: FileInfo, around: Decl | None) -> Decl | None:
    """The class a member defined outside it belongs to, declared in another file of the
    module (C++'s ``int Cache::get()`` in cache.cpp, the class in cache.hpp)."""
    if around is None or not around.parents:
        return None
    return next((d for _, d in index.members(info, around.parents[-1])
                 if d.kind in CLASS_KINDS), None)


def _enclosing_classes(info: FileInfo, klass: Decl) -> list[Decl]:
    """The classes ``klass`` is declared in, outermost first."""
    names = {d.qualname: d for d in info.outline.decls
             if d.kind in CLASS_KINDS or d.kind in ("module",)}
    return [names[p] for p in klass.parents if p in names]


def _method(index: RefIndex, info: FileInfo, cls: Decl, name: str) -> tuple[FileInfo, Decl] | None:
    """The method ``name`` of a class or its nearest base that has it (remembered)."""
    return index.remembered("method", (info.key, cls.qualname, cls.span, name),
                            lambda: _method_of(index, info, cls, name))


def _method_of(index: RefIndex, info: FileInfo, cls: Decl,
               name: str) -> tuple[FileInfo, Decl] | None:
    """The nearest declaration with a body, else the nearest without one: a C++ header's
    prototype yields to its definition, an interface's method to a trait's or a base's
    implementation (what `$this->getFormatter()` runs)."""
    prototype: tuple[FileInfo, Decl] | None = None
    for key, qual in index.ancestors(info, cls):
        owner = index.files.get(key)
        if owner is None:
            continue
        mine: tuple[FileInfo, Decl] | None = None
        value: tuple[FileInfo, Decl] | None = None  # a field of the name, a method's first
        for member, d in index.members(owner, f"{qual}.{name}"):  # Go: any file of the package
            if mine is not None and member is mine[0]:
                continue  # (an overload stub's implementation is its own file's)
            if d.kind not in ("function", "method"):
                value = value or (member, d)  # (Java: a builder's `timeout` and `timeout()`)
            elif d.body is None:
                mine = mine or (member, d)  # C++: declared in the header
            else:
                return member, d
        if value is not None and mine is None:
            return value
        prototype = prototype or mine
    return prototype


def overridden(index: RefIndex, home: FileInfo, decl: Decl,
               called: tuple[FileInfo, Decl]) -> bool:
    """Whether the method called is declared in a base or interface of ``decl``'s class,
    so the call may dispatch to ``decl``."""
    cls = enclosing_class(home, decl) if decl.parents else None
    lang = languages.for_path(home.path)
    if cls is None or not called[1].parents or (lang is not None
                                                 and decl.name in lang.constructors):
        return False  # a constructor is its class's own, never dispatched to
    bases = set(index.ancestors(home, cls))
    if (called[0].key, called[1].parents[-1]) in bases - {(home.key, cls.qualname)}:
        return True
    # or both override one declaration (two implementations of an interface's method), or
    # the call runs an override of it: one family, as tsserver and intelephense count it
    other = enclosing_class(called[0], called[1])
    return other is not None and bool(
        _declaring(index, home, cls, decl.name) & _declaring(index, called[0], other, decl.name))


def _declaring(index: RefIndex, info: FileInfo, cls: Decl, name: str) -> set[tuple[str, str]]:
    """A class and its ancestors that declare a method ``name``."""
    return {(key, qual) for key, qual in index.ancestors(info, cls)
            if key in index.files and index.members(index.files[key], f"{qual}.{name}")}


def _trait_method(index: RefIndex, info: FileInfo, name: str) -> tuple[FileInfo, Decl] | None:
    """The method of the one trait in the file's scope that declares ``name``."""
    found = {(m[0].key, m[1].qualname): m for owner, trait in index.traits_in_scope(info)
             if (m := _method(index, owner, trait, name)) is not None}
    return next(iter(found.values())) if len(found) == 1 else None


def definition(index: RefIndex, info: FileInfo, row: int, col: int,
               line: bytes | None = None) -> tuple[FileInfo, Decl] | None:
    """The declaration the name at (row, byte column) of a file refers to, if it resolves.

    Calls, imports and declarations are in the reference tables; any other name (a constant
    in an expression, a type in an annotation, ``mod.CONST``) is read from ``line``, the
    row's text, when the caller has checked it is code, not a string."""
    names, calls = info.tables.derived("by_row", derived.by_row)
    for d in names.get(row, ()):
        if d.name_span.start_col <= col <= d.name_span.end_col:
            return info, d  # on a declaration's own name
    call = next((c for c in calls.get(row, ()) if c.col <= col <= c.end_col), None)
    if call is None:
        imp = next((i for i in info.refs.imports if i.row == row and i.name and i.name != "*"),
                   None)
        if imp is not None:
            return index.imported(info, imp)
        return _named(index, info, row, col, line) if line is not None else None
    around = index.at_row(info, call.row)
    if call.obj is None:
        return _bare(index, info, call.name)
    return _member(index, info, call, around)


def _member(index: RefIndex, info: FileInfo, call: Call,
            around: Decl | None) -> tuple[FileInfo, Decl] | None:
    """What ``obj.name`` means: a member of the receiver's class, or a module attribute."""
    assert call.obj is not None
    cls = _receiver_class(index, info, call, around)
    if cls is not None:
        return _method(index, cls[0], cls[1], call.name) or _trait_method(
            index, info, call.name)
    module = index.module_of(info, call.obj)
    return index.export(module, call.name) if module is not None else None


def _named(index: RefIndex, info: FileInfo, row: int, col: int,
           line: bytes) -> tuple[FileInfo, Decl] | None:
    """The declaration a name that is not a call means: ``NAME``, ``a.b.NAME``, ``a::NAME``
    (the chain up to the word under the cursor), resolved as a call of it would be."""
    text = line.decode("utf-8", errors="replace")  # characters: identifiers may be é
    at = len(line[:col].decode("utf-8", errors="replace"))
    word = next((m for m in WORD.finditer(text) if m.start() <= at <= m.end()), None)
    if word is None:
        return None
    parts, start = [word.group()], word.start()
    while link := LINK.search(text, 0, start):
        parts.insert(0, link.group(1))
        start = link.start()
    before = text[:start].rstrip()
    if before.endswith((".", "::")) and not before.endswith("..."):  # `...xs` spreads
        return None  # an attribute of a call or an index: its type is not known here
    *prefix, last = parts
    around = index.at_row(info, row)
    if prefix:
        return _member(index, info, Call(row, col, col, last, ".".join(prefix)), around)
    binding = _binding(index, info, last, row)
    scopes = index.scopes(info)
    if binding is not None and 0 <= binding.row < len(scopes) and scopes[binding.row]:
        return None  # a local variable, even where a module-level name is spelled the same
    if _implicit_self(info):  # Java: `limit` in a method may be this.limit
        cls = enclosing_class(info, around)
        found = _method(index, info, cls, last) if cls is not None else None
        if found is not None:
            return found
    return _bare(index, info, last) or index.class_named(info, last, around)
