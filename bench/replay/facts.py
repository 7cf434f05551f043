"""The facts an edit needed: definitions that the lines it added refer to.

A fact is a definition site in the PARENT tree, ``(path, 1-based line, name)``, that a name on
an added line resolves to: a module-level definition of the edited file (``module``), a
member of the enclosing class or of its project base classes reached through ``self``,
``cls`` or ``super()`` (``member``), or a definition in another project file reached through
an import (``imported``). Only loads count (reading ``self.x``, calling ``f``; ``+=``
reads too); builtins, third-party names, locals and parameters of the edited function,
and the edited function itself are not facts, and neither is anything defined only inside
it. Attribute chains are followed while their base is a module, a class or ``self``:
``fields.Field.default_error_messages`` gives ``Field`` and ``default_error_messages``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from gitrepo import GitRepo
from mining import Edit
from pyindex import (
    ClassInfo,
    DefRef,
    Entity,
    ImportBinding,
    ModuleInfo,
    Project,
    first_arg,
    import_bindings,
)


@dataclass(frozen=True)
class Fact:
    path: str
    line: int  # 1-based, in the parent
    name: str
    kind: str  # module | member | imported
    via: str  # the expression on the added line that needs it
    detail: str  # what the definition is: function, method, class, self field, ...
    used_before: bool = False  # the parent's version of the function already used it


@dataclass(frozen=True)
class _Receiver:
    """``self``/``cls`` (or ``super()`` when ``skip_own``) inside a method of ``cls``."""

    cls: ClassInfo
    skip_own: bool = False


Resolved = Entity | _Receiver


def find_function(tree: ast.Module, qualname: str
                  ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, list[ast.ClassDef]] | None:
    """The function ``Class.method`` names, with its enclosing classes (outermost first)."""
    parts = qualname.split(".")

    def search(body: list[ast.stmt], depth: int, classes: list[ast.ClassDef]
               ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, list[ast.ClassDef]] | None:
        for stmt in _flat(body):
            if stmt_name(stmt) != parts[depth]:
                continue
            if depth == len(parts) - 1 and isinstance(stmt, ast.FunctionDef
                                                       | ast.AsyncFunctionDef):
                return stmt, classes
            if depth < len(parts) - 1 and isinstance(stmt, ast.ClassDef):
                found = search(stmt.body, depth + 1, [*classes, stmt])
                if found:
                    return found
        return None

    return search(tree.body, 0, [])


def stmt_name(stmt: ast.stmt) -> str | None:
    return stmt.name if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef
                                   | ast.ClassDef) else None


def _flat(body: list[ast.stmt]) -> list[ast.stmt]:
    out = []
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, ast.If):
            out += _flat(stmt.body) + _flat(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            out += _flat(stmt.body) + _flat(stmt.orelse)
            for handler in stmt.handlers:
                out += _flat(handler.body)
    return out


class _Scope:
    """The edited function's own names: what a bare name on an added line does NOT mean
    globally. Function-local imports are kept apart, as they still lead to a definition."""

    def __init__(self, func: ast.FunctionDef | ast.AsyncFunctionDef, package: str) -> None:
        self.locals: set[str] = set()
        self.imports: dict[str, ImportBinding] = {}
        declared_global: set[str] = set()
        args = func.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                self.locals.add(arg.arg)
        for node in ast.walk(func):
            if node is func:
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
                self.locals.add(node.id)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.locals.add(node.name)
                if not isinstance(node, ast.ClassDef):
                    a = node.args
                    for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                        if arg is not None:
                            self.locals.add(arg.arg)
            elif isinstance(node, ast.Lambda):
                for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
                    self.locals.add(arg.arg)
            elif (isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar)
                  and node.name):
                self.locals.add(node.name)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                for name, binding in import_bindings(node, package):
                    self.imports[name] = binding
            elif isinstance(node, ast.Global):
                declared_global.update(node.names)
        self.locals -= declared_global
        self.locals -= set(self.imports)


class FactFinder:
    """Facts for one edit: the child's added lines read against the parent's definitions."""

    def __init__(self, project: Project, edit: Edit, child_text: str) -> None:
        self.project = project
        self.edit = edit
        self.child_text = child_text
        self.module: ModuleInfo | None = project.module(edit.path)
        self.facts: dict[tuple[str, int, str], Fact] = {}

    def run(self) -> list[Fact]:
        if self.module is None:
            raise ValueError(f"{self.edit.path} does not parse at the parent")
        found = find_function(ast.parse(self.child_text), self.edit.symbol)
        if found is None:
            raise ValueError(f"{self.edit.symbol} not found in the child")
        func, classes = found
        package = (self.module.dotted if self.module.is_package
                   else self.module.dotted.rpartition(".")[0])
        self.scope = _Scope(func, package)
        self.cls: ClassInfo | None = None
        self.receiver: str | None = None
        if classes:
            self.cls = self.module.classes.get(".".join(c.name for c in classes))
            self.receiver = first_arg(func)
        added = set(self.edit.added)
        # ``x += 1`` reads its target before writing it
        augmented = {id(n.target) for n in ast.walk(func) if isinstance(n, ast.AugAssign)}
        for node in ast.walk(func):
            if not isinstance(node, ast.Name | ast.Attribute):
                continue
            if not (isinstance(node.ctx, ast.Load) or id(node) in augmented):
                continue
            line = node.lineno if isinstance(node, ast.Name) else node.end_lineno
            if line in added:
                self._record(self._resolve(node), node)
        return sorted(self.facts.values(), key=lambda f: (f.path, f.line, f.name))

    def _resolve(self, expr: ast.expr) -> tuple[Resolved | None, bool]:
        """What ``expr`` denotes, and whether it was reached through ``self``/``super()``."""
        if isinstance(expr, ast.Name):
            if expr.id == self.receiver and self.cls is not None:
                return _Receiver(self.cls), True
            if expr.id in self.scope.imports:
                return self.project.resolve_import(self.scope.imports[expr.id]), False
            if expr.id in self.scope.locals:
                return None, False
            assert self.module is not None
            return self.project.lookup_global(self.module, expr.id), False
        if isinstance(expr, ast.Attribute):
            base, via_self = self._resolve(expr.value)
            if isinstance(base, _Receiver):
                span = (self.edit.start_line, self.edit.end_line)
                hit = self.project.class_member(base.cls, expr.attr, avoid=span,
                                                include_self=not base.skip_own)
                return (hit[0] if hit else None), True
            if base is None:
                return None, False
            return self.project.member(base, expr.attr), via_self
        if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)
                and expr.func.id == "super" and self.cls is not None):
            return _Receiver(self.cls, skip_own=True), True
        return None, False

    def _record(self, resolved: tuple[Resolved | None, bool], node: ast.expr) -> None:
        entity, via_self = resolved
        if not isinstance(entity, DefRef):
            return
        d = entity.definition
        if d.path == self.edit.path and self.edit.start_line <= d.line <= self.edit.end_line:
            return  # the edited function itself, or something defined inside it
        kind = "member" if via_self else "module" if d.path == self.edit.path else "imported"
        detail = self._detail(entity)
        if via_self and self.cls is not None and not (
                d.path == self.cls.path
                and self.cls.node.lineno <= d.line <= (self.cls.node.end_lineno or 0)):
            detail += " (inherited)"
        key = (d.path, d.line, d.name)
        if key not in self.facts:
            self.facts[key] = Fact(d.path, d.line, d.name, kind, ast.unparse(node)[:80], detail)

    def _detail(self, entity: DefRef) -> str:
        """What kind of definition the line is, read off its source text."""
        if entity.cls is not None:
            return "class"
        mod = self.project.module(entity.definition.path)
        text = mod.lines[entity.definition.line - 1] if mod else ""
        code = text.lstrip()
        indented = code != text
        if code.startswith(("def ", "async def ")):
            return "method" if indented else "function"
        if code.startswith("class "):
            return "class"
        if not indented or (mod and entity.definition in mod.bindings.get(
                entity.definition.name, [])):
            return "module assignment"
        head = code.split("=", 1)[0].split(":", 1)[0]
        return "self field" if "." in head else "class attribute"


def needed_facts(project: Project, edit: Edit, child_text: str, parent_text: str
                 ) -> list[Fact]:
    """The edit's facts, each marked ``used_before`` when the function's parent version
    already referred to the same definition: a window built from the current body can find
    those, the others it has to anticipate."""
    facts = FactFinder(project, edit, child_text).run()
    whole_body = replace(edit, added=list(range(edit.start_line, edit.end_line + 1)))
    before = {(f.path, f.line, f.name) for f in FactFinder(project, whole_body, parent_text).run()}
    return [replace(f, used_before=(f.path, f.line, f.name) in before) for f in facts]


def git_project(repo: GitRepo, rev: str) -> Project:
    """The project at ``rev`` read straight from git: facts need no work tree."""

    def read(path: str) -> str | None:
        try:
            return repo.show(rev, path)
        except Exception:
            return None

    return Project(repo.tree_files(rev), read)


def facts_of(repo: GitRepo, edit: Edit) -> list[Fact]:
    return needed_facts(git_project(repo, edit.parent), edit, repo.show(edit.sha, edit.path),
                        repo.show(edit.parent, edit.path))


def relevant_lines(project: Project, edit: Edit, facts: list[Fact]) -> dict[str, set[int]]:
    """The 0-based parent lines a window should spend tokens on: each fact's definition line
    (a ``def`` or ``class`` fact: its whole statement, ``lineno`` to ``end_lineno``, as
    ``ast`` gives it, decorators left out) and the edited function, decorators included."""
    out: dict[str, set[int]] = {edit.path: set(range(edit.start_line - 1, edit.end_line))}
    ends: dict[str, dict[tuple[int, str], int]] = {}
    for fact in facts:
        if fact.path not in ends:
            mod = project.module(fact.path)
            ends[fact.path] = {(n.lineno, n.name): n.end_lineno or n.lineno
                               for n in (ast.walk(mod.tree) if mod else [])
                               if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef
                                             | ast.ClassDef)}
        end = ends[fact.path].get((fact.line, fact.name), fact.line)
        out.setdefault(fact.path, set()).update(range(fact.line - 1, end))
    return out
