"""A small static model of a Python project at one commit, built with the stdlib ``ast``.

It answers one question for the fact extraction: where is the definition a name refers to?
Module-level bindings (defs, classes, assignments, imports), class members (body-level defs
and assignments, and ``self.x`` fields stored by any method), module names from the file
layout (a folder is a package while it holds ``__init__.py``, so ``src/`` layouts work), and
imports followed through re-exports and star imports. It is deliberately independent of
ctxls's own resolver: the benchmark must not grade the server with the server's logic.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

MAX_HOPS = 8  # re-export chains longer than this are treated as unresolvable


@dataclass(frozen=True)
class Def:
    """A definition site: workspace-relative path, 1-based line, bound name."""

    path: str
    line: int
    name: str


@dataclass(frozen=True)
class ImportBinding:
    """``import a.b as m`` binds m to module ``a.b`` (``name`` None); ``from a import n`` binds
    to (``a``, ``n``), which may be a submodule or a name defined in ``a``."""

    module: str
    name: str | None
    line: int


@dataclass
class ClassInfo:
    qualname: str
    path: str
    node: ast.ClassDef
    members: dict[str, list[Def]] = field(default_factory=dict)  # class-body definitions
    fields: dict[str, list[tuple[Def, str]]] = field(default_factory=dict)  # self.x, method


@dataclass
class ModuleInfo:
    path: str
    dotted: str
    is_package: bool
    tree: ast.Module
    lines: list[str]
    bindings: dict[str, list[Def | ImportBinding]] = field(default_factory=dict)
    star_imports: list[str] = field(default_factory=list)
    classes: dict[str, ClassInfo] = field(default_factory=dict)


# ---- entities an expression can resolve to ------------------------------------------------
@dataclass(frozen=True)
class ModuleRef:
    dotted: str


@dataclass(frozen=True)
class DefRef:
    definition: Def
    cls: ClassInfo | None = None  # set when the definition is a class statement

    def __hash__(self) -> int:
        return hash(self.definition)


Entity = ModuleRef | DefRef


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return (any(p in ("tests", "test", "testing", "testsuite") for p in parts[:-1])
            or name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py")


def block_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a module or class body, looking inside ``if``/``try``/``with``/``for``
    blocks (conditional definitions) but not into functions or classes."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If | ast.For | ast.AsyncFor | ast.While | ast.With
                      | ast.AsyncWith):
            yield from block_statements(stmt.body)
            yield from block_statements(getattr(stmt, "orelse", []))
        elif isinstance(stmt, ast.Try | ast.TryStar):
            yield from block_statements(stmt.body)
            for handler in stmt.handlers:
                yield from block_statements(handler.body)
            yield from block_statements(stmt.orelse)
            yield from block_statements(stmt.finalbody)


def target_names(target: ast.expr) -> Iterator[ast.Name]:
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, ast.Tuple | ast.List):
        for elt in target.elts:
            yield from target_names(elt)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)


def assigned_targets(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, ast.AnnAssign | ast.AugAssign):
        return [stmt.target]
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return [stmt.target]
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return [item.optional_vars for item in stmt.items if item.optional_vars is not None]
    return []


def absolute_module(package: str, module: str | None, level: int) -> str:
    """The absolute dotted name ``from <level dots><module>`` means inside ``package``."""
    if level == 0:
        return module or ""
    parts = package.split(".") if package else []
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*base, module] if module else base)


def import_bindings(stmt: ast.Import | ast.ImportFrom, package: str
                    ) -> Iterator[tuple[str, ImportBinding]]:
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.asname:
                yield alias.asname, ImportBinding(alias.name, None, stmt.lineno)
            else:  # ``import a.b`` binds ``a``
                top = alias.name.split(".")[0]
                yield top, ImportBinding(top, None, stmt.lineno)
        return
    module = absolute_module(package, stmt.module, stmt.level)
    for alias in stmt.names:
        if alias.name != "*":
            yield alias.asname or alias.name, ImportBinding(module, alias.name, stmt.lineno)


def is_overload(stmt: ast.stmt) -> bool:
    """``@overload`` stubs are not where a function is defined: its implementation is."""
    for deco in getattr(stmt, "decorator_list", []):
        name = deco.attr if isinstance(deco, ast.Attribute) else getattr(deco, "id", None)
        if name == "overload":
            return True
    return False


def first_arg(func: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The receiver name of a method (``self``/``cls``), None for static methods."""
    for deco in func.decorator_list:
        if isinstance(deco, ast.Name) and deco.id == "staticmethod":
            return None
    args = [*func.args.posonlyargs, *func.args.args]
    return args[0].arg if args else None


class Project:
    """The project's Python files at one commit, parsed on demand.

    ``read`` returns a file's text (or None); ``files`` lists every path in the tree.
    """

    def __init__(self, files: list[str], read: Callable[[str], str | None]) -> None:
        self.read = read
        self.files = set(files)
        self.module_paths = self._module_paths([f for f in files if f.endswith(".py")])
        self.dotted_of = {path: dotted for dotted, path in self.module_paths.items()}
        self._modules: dict[str, ModuleInfo | None] = {}

    # ---- layout ------------------------------------------------------------------------
    def _module_paths(self, py_files: list[str]) -> dict[str, str]:
        """Dotted module name -> path; a file's import root is the first folder above it
        without ``__init__.py``. Files in packages win over loose scripts of the same name."""
        out: dict[str, str] = {}
        loose: dict[str, str] = {}
        for path in sorted(py_files):
            parts = path[:-3].split("/")
            depth = len(parts) - 1  # folders above the file
            root = depth
            while root > 0 and "/".join(parts[:root]) + "/__init__.py" in self.files:
                root -= 1
            dotted_parts = parts[root:]
            if dotted_parts[-1] == "__init__":
                dotted_parts = dotted_parts[:-1]
            if not dotted_parts:
                continue
            dotted = ".".join(dotted_parts)
            if root < depth or parts[-1] == "__init__":
                out.setdefault(dotted, path)
            else:
                loose.setdefault(dotted, path)
        for dotted, path in loose.items():
            out.setdefault(dotted, path)
        return out

    # ---- parsing -----------------------------------------------------------------------
    def module(self, path: str) -> ModuleInfo | None:
        if path not in self._modules:
            self._modules[path] = self._parse(path)
        return self._modules[path]

    def module_by_name(self, dotted: str) -> ModuleInfo | None:
        path = self.module_paths.get(dotted)
        return self.module(path) if path else None

    def _parse(self, path: str) -> ModuleInfo | None:
        text = self.read(path)
        if text is None:
            return None
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return None
        is_package = path.endswith("/__init__.py")
        dotted = self.dotted_of.get(path, path[:-3].replace("/", "."))
        info = ModuleInfo(path, dotted, is_package, tree, text.splitlines())
        package = dotted if is_package else dotted.rpartition(".")[0]
        for stmt in block_statements(tree.body):
            self._bind_module_stmt(info, stmt, package)
        for node, qual in self._walk_classes(tree.body, ""):
            info.classes[qual] = self._class_info(path, node, qual)
        return info

    def _bind_module_stmt(self, info: ModuleInfo, stmt: ast.stmt, package: str) -> None:
        def bind(name: str, binding: Def | ImportBinding) -> None:
            info.bindings.setdefault(name, []).append(binding)

        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if not is_overload(stmt):
                bind(stmt.name, Def(info.path, stmt.lineno, stmt.name))
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
                info.star_imports.append(absolute_module(package, stmt.module, stmt.level))
            for name, binding in import_bindings(stmt, package):
                bind(name, binding)
        else:
            for target in assigned_targets(stmt):
                for name in target_names(target):
                    bind(name.id, Def(info.path, name.lineno, name.id))

    def _walk_classes(self, body: list[ast.stmt], prefix: str
                      ) -> Iterator[tuple[ast.ClassDef, str]]:
        for stmt in block_statements(body):
            if isinstance(stmt, ast.ClassDef):
                qual = prefix + stmt.name
                yield stmt, qual
                yield from self._walk_classes(stmt.body, qual + ".")

    def _class_info(self, path: str, node: ast.ClassDef, qual: str) -> ClassInfo:
        info = ClassInfo(qual, path, node)
        for stmt in block_statements(node.body):
            if (isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                    and not is_overload(stmt)):
                info.members.setdefault(stmt.name, []).append(Def(path, stmt.lineno, stmt.name))
            for target in assigned_targets(stmt):
                for name in target_names(target):
                    info.members.setdefault(name.id, []).append(Def(path, name.lineno, name.id))
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                receiver = first_arg(stmt)
                if receiver is None:
                    continue
                for sub in ast.walk(stmt):
                    if (isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store)
                            and isinstance(sub.value, ast.Name) and sub.value.id == receiver):
                        info.fields.setdefault(sub.attr, []).append(
                            (Def(path, sub.lineno, sub.attr), stmt.name))
        return info

    # ---- resolution --------------------------------------------------------------------
    def lookup_global(self, mod: ModuleInfo, name: str, hops: int = 0) -> Entity | None:
        """What module-level ``name`` of ``mod`` is: the first binding in source order,
        imports followed to their definition; star imports searched last."""
        if hops > MAX_HOPS:
            return None
        bindings = mod.bindings.get(name)
        if bindings:
            first = min(bindings, key=lambda b: b.line)
            if isinstance(first, Def):
                return DefRef(first, self._class_at(mod, first))
            return self.resolve_import(first, hops + 1)
        for star in mod.star_imports:
            target = self.module_by_name(star)
            if target is not None and target.path != mod.path:
                found = self.lookup_global(target, name, hops + 1)
                if found is not None:
                    return found
        if mod.is_package and f"{mod.dotted}.{name}" in self.module_paths:
            return ModuleRef(f"{mod.dotted}.{name}")
        return None

    def _class_at(self, mod: ModuleInfo, definition: Def) -> ClassInfo | None:
        """The module-level class a definition is, if it is a ``class`` statement."""
        info = mod.classes.get(definition.name)
        return info if info is not None and info.node.lineno == definition.line else None

    def resolve_import(self, binding: ImportBinding, hops: int = 0) -> Entity | None:
        if binding.name is None:
            return ModuleRef(binding.module) if self._is_project_module(binding.module) else None
        sub = f"{binding.module}.{binding.name}" if binding.module else binding.name
        if sub in self.module_paths:
            return ModuleRef(sub)
        mod = self.module_by_name(binding.module)
        return self.lookup_global(mod, binding.name, hops) if mod is not None else None

    def _is_project_module(self, dotted: str) -> bool:
        return dotted in self.module_paths or any(
            m.startswith(dotted + ".") for m in self.module_paths)

    def member(self, entity: Entity, attr: str, hops: int = 0) -> Entity | None:
        """``entity.attr`` for a module or a class; anything else has no known members."""
        if isinstance(entity, ModuleRef):
            sub = f"{entity.dotted}.{attr}"
            if sub in self.module_paths:
                return ModuleRef(sub)
            mod = self.module_by_name(entity.dotted)
            return self.lookup_global(mod, attr, hops) if mod is not None else None
        if entity.cls is not None:
            found = self.class_member(entity.cls, attr)
            return found[0] if found else None
        return None

    def class_member(self, cls: ClassInfo, attr: str, avoid: tuple[int, int] | None = None,
                     include_self: bool = True, seen: frozenset[str] = frozenset()
                     ) -> tuple[DefRef, ClassInfo] | None:
        """``attr`` looked up on ``cls`` then its project base classes (depth first, as the
        MRO does for single inheritance). Class-body definitions come before ``self.x``
        fields; among fields, ``__init__``'s first, then source order. ``avoid`` is a line
        span (the edited function) whose field sites do not count as definitions."""
        key = f"{cls.path}:{cls.qualname}"
        if key in seen:
            return None
        if include_self:
            found = self._own_member(cls, attr, avoid)
            if found is not None:
                return DefRef(found, self._nested_class(cls, found)), cls
        for base in self.bases(cls):
            result = self.class_member(base, attr, avoid, True, seen | {key})
            if result is not None:
                return result
        return None

    def _own_member(self, cls: ClassInfo, attr: str, avoid: tuple[int, int] | None
                    ) -> Def | None:
        def outside(d: Def) -> bool:
            return avoid is None or not (avoid[0] <= d.line <= avoid[1])

        members = [d for d in cls.members.get(attr, []) if outside(d)]
        if members:
            return members[0]
        fields = [(d, m) for d, m in cls.fields.get(attr, []) if outside(d)]
        if not fields:
            return None
        in_init = [d for d, m in fields if m == "__init__"]
        return in_init[0] if in_init else min((d for d, _ in fields), key=lambda d: d.line)

    def _nested_class(self, cls: ClassInfo, definition: Def) -> ClassInfo | None:
        mod = self.module(cls.path)
        return mod.classes.get(f"{cls.qualname}.{definition.name}") if mod else None

    def bases(self, cls: ClassInfo) -> list[ClassInfo]:
        mod = self.module(cls.path)
        if mod is None:
            return []
        out = []
        for base in cls.node.bases:
            entity = self.resolve_static(mod, base)
            if isinstance(entity, DefRef) and entity.cls is not None:
                out.append(entity.cls)
        return out

    def resolve_static(self, mod: ModuleInfo, expr: ast.expr) -> Entity | None:
        """A module-level expression (a base class): names and attribute chains only."""
        if isinstance(expr, ast.Name):
            return self.lookup_global(mod, expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.resolve_static(mod, expr.value)
            return self.member(base, expr.attr) if base is not None else None
        return None
