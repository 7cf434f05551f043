"""Call-site accuracy of ``ctx/references`` against jedi on real Python projects (issue 4).

For each project (a repository work tree, passed to ctxls as the workspace root), a
deterministic sample of module-level functions, classes and methods defined in the package
(not its tests) is taken. For each symbol:

- truth: ``jedi.Script(path, project=jedi.Project(root)).get_references(line, col)`` on the
  definition's name, keeping CALL SITES only: the name is followed by ``(`` (after optional
  whitespace) or is a bare decorator ``@name`` / ``@mod.name``; the definition itself and
  import statements are dropped. jedi's parsed-file cap (30 files per search) is lifted so
  that the truth is not truncated on bigger projects (``--jedi-parse-limit``).
- ctxls: ``ctx/references {path, name, line}`` through one real server per project
  (``CtxClient.start(root, wait_for_index=True)``); ``references`` (resolved) is the answer,
  ``candidates`` are scored separately (recall of resolved + candidates).

Sites are compared by (workspace-relative path, 0-based line, 0-based code-point column of
the called name), over the files both tools see (ctxls's walk, which honours .gitignore
like jedi). Two tables are printed, per project and overall, functions+classes and methods
apart (symbols, symbols with calls, truth sites, ctxls resolved, both, recall, precision,
mean per-symbol recall, candidates, recall of resolved + candidates):

  A. truth = jedi ``get_references`` call sites as jedi returns them;
  B. truth adjudicated by jedi ``goto`` from every site either tool reports: jedi's
     reference search misses calls through an import alias (``from m import A as B;
     B()``) that its own goto follows, and for a method it returns the calls of every
     override in the hierarchy (``UserSchema().dump()`` for ``SchemaABC.dump``), which goto
     sends to the override. See ``adjudicate``. B is the fairer figure.

Then ``ctx/references`` and jedi ``get_references`` latency p50/p95 in the same run and
their ratio (jedi with its parse cache warm after the first call), a tally of the
disagreements by how the call reaches its callee (``x.m()`` with ``x = C(...)``, a pytest
fixture, ``with ... as x``, ``super().m()``...), and the most informative disagreements
with file:line, ctxls's evidence, where jedi's goto lands, and the source line. Everything
per symbol goes to ``bench/out/references_vs_jedi.json``.

Usage: .venv/bin/python bench/references_vs_jedi.py [--corpora /tmp/corpora/py]
       [--per-project 50] [--seed 4] [--examples 10] [--only marshmallow,...]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import json
import random
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent))

try:
    import jedi  # type: ignore[import-untyped]
    import jedi.inference.references as jedi_refs  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - a set-up message, not a code path
    raise SystemExit("jedi is needed: .venv/bin/pip install jedi") from None

from common import pct
from ctxls.index.walk import walk
from ctxls_client import CtxClient

OUT = Path(__file__).resolve().parent / "out"

# project -> package directory inside the work tree
PROJECTS: dict[str, str] = {
    "marshmallow": "src/marshmallow",
    "starlette": "starlette",
    "tomlkit": "tomlkit",
    # never tuned on (git archive of the fetched repositories; see --every-use)
    "arrow": "arrow",
    "jinja": "src/jinja2",
    "structlog": "src/structlog",
    "boltons": "boltons",
}
EVERY_USE = False  # --every-use: every reference kind, through textDocument/references
# quota per kind in a project's sample (scaled to --per-project); short kinds are topped up
MIX = {"function": 0.30, "class": 0.25, "method": 0.45}
PROPERTY_DECORATORS = re.compile(r"(^|\.)(property|cached_property|setter|getter|deleter)$")

Site = tuple[str, int, int]  # (relative path, 0-based line, 0-based code-point column)


@dataclass
class Sym:
    project: str
    path: str  # workspace-relative
    qualname: str
    name: str
    kind: str  # function | class | method
    line: int  # 1-based line of the name
    col: int  # 0-based code-point column of the name
    jedi: list[Site] = field(default_factory=list)  # raw: get_references call sites
    truth: list[Site] = field(default_factory=list)  # adjudicated by jedi goto, see adjudicate
    goto: dict[str, str] = field(default_factory=dict)  # "path:line:col" -> where goto lands
    jedi_outside: list[Site] = field(default_factory=list)  # call sites in files ctxls skips
    ctx: list[Site] = field(default_factory=list)
    cand: list[Site] = field(default_factory=list)
    evidence: dict[str, str] = field(default_factory=dict)  # "path:line:col" -> evidence
    jedi_ms: float = 0.0
    ctx_ms: float = 0.0
    error: str | None = None

    @property
    def group(self) -> str:
        return "methods" if self.kind == "method" else "functions+classes"


# ---- sampling -----------------------------------------------------------------------------
def _decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[str]:
    out = []
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        out.append(ast.unparse(target))
    return out


def _name_col(line: str, keyword: str, name: str) -> int | None:
    m = re.search(rf"\b{keyword}\s+({re.escape(name)})\b", line)
    return m.start(1) if m else None


def definitions(project: str, root: Path, package: str) -> list[Sym]:
    """Module functions, classes and their methods in the package's .py files."""
    found: list[Sym] = []
    seen: Counter[tuple[str, str]] = Counter()
    for rel, path in walk(root):
        if not rel.startswith(package + "/") or not rel.endswith(".py"):
            continue
        if any(part in ("tests", "test") for part in rel.split("/")):
            continue
        text = Path(path).read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text)

        def add(node: ast.AST, qual: str, kind: str, rel: str = rel,
                lines: list[str] = lines) -> None:
            assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            seen[(rel, qual)] += 1
            name = node.name
            if name.startswith("__") and name.endswith("__"):
                return  # dunders are called by the language, not by name
            if len(name) <= 2:
                return  # jedi does not search other files for names of <= 2 characters
            decos = _decorator_names(node)
            if any(PROPERTY_DECORATORS.search(d) for d in decos):
                return  # properties are read, not called
            if any(d.endswith("overload") for d in decos):
                return
            keyword = "class" if kind == "class" else "def"
            col = _name_col(lines[node.lineno - 1], keyword, name)
            if col is None:
                return
            found.append(Sym(project, rel, qual, name, kind, node.lineno, col))

        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                add(node, node.name, "function")
            elif isinstance(node, ast.ClassDef):
                add(node, node.name, "class")
                for sub in node.body:
                    if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        add(sub, f"{node.name}.{sub.name}", "method")
    # a name defined twice in one scope (per-platform defs, conditional classes) is ambiguous
    # for both tools; leave it out
    return [s for s in found if seen[(s.path, s.qualname)] == 1]


def sample(defs: list[Sym], n: int, seed: str) -> list[Sym]:
    rng = random.Random(seed)
    by_kind: dict[str, list[Sym]] = defaultdict(list)
    for d in defs:
        by_kind[d.kind].append(d)
    chosen: list[Sym] = []
    for kind, share in MIX.items():
        pool = by_kind[kind]
        chosen += rng.sample(pool, min(len(pool), round(n * share)))
    rest = [d for d in defs if d not in chosen]
    if len(chosen) < n:
        chosen += rng.sample(rest, min(len(rest), n - len(chosen)))
    return sorted(chosen, key=lambda s: (s.path, s.line))


# ---- jedi ---------------------------------------------------------------------------------
class Sources:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._lines: dict[str, list[str]] = {}
        self._trees: dict[str, ast.Module | None] = {}

    def lines(self, rel: str) -> list[str]:
        if rel not in self._lines:
            try:
                text = (self.root / rel).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._lines[rel] = text.splitlines()
        return self._lines[rel]

    def tree(self, rel: str) -> ast.Module | None:
        if rel not in self._trees:
            try:
                self._trees[rel] = ast.parse("\n".join(self.lines(rel)))
            except SyntaxError:
                self._trees[rel] = None
        return self._trees[rel]

    def line(self, rel: str, row: int) -> str:
        lines = self.lines(rel)
        return lines[row] if 0 <= row < len(lines) else ""


CALL_AFTER = re.compile(r"\s*\(")
DECORATOR_BEFORE = re.compile(r"\s*@[\w.]*")


def is_call_site(line: str, col: int, name: str) -> bool:
    if line[col:col + len(name)] != name:
        return False
    if CALL_AFTER.match(line, col + len(name)):
        return True
    return DECORATOR_BEFORE.fullmatch(line[:col]) is not None


def jedi_sites(sym: Sym, root: Path, project: jedi.Project, src: Sources,
               universe: set[str]) -> None:
    script = jedi.Script(path=str(root / sym.path), project=project)
    start = time.perf_counter()
    refs = script.get_references(sym.line, sym.col)
    sym.jedi_ms = (time.perf_counter() - start) * 1000
    out: set[Site] = set()
    outside: set[Site] = set()
    for r in refs:
        if r.module_path is None or r.line is None or r.column is None:
            continue
        try:
            rel = Path(r.module_path).resolve().relative_to(root).as_posix()
        except ValueError:
            continue  # outside the workspace (typeshed, site-packages)
        row, col = r.line - 1, r.column
        if rel == sym.path and r.line == sym.line and col == sym.col:
            continue  # the definition
        if r.is_definition():
            continue
        text = src.line(rel, row)
        if not EVERY_USE and (text.lstrip().startswith(("import ", "from "))
                              or not is_call_site(text, col, r.name)):
            continue
        (out if rel in universe else outside).add((rel, row, col))
    sym.jedi = sorted(out)
    sym.jedi_outside = sorted(outside)


def _key(site: Site) -> str:
    return f"{site[0]}:{site[1] + 1}:{site[2]}"


class Gotos:
    """jedi ``goto`` (imports followed) from a call site, one reusable Script per file."""

    def __init__(self, root: Path, project: jedi.Project) -> None:
        self.root = root
        self.project = project
        self._scripts: dict[str, jedi.Script] = {}
        self._cache: dict[Site, set[tuple[str, int, int]]] = {}

    def __call__(self, site: Site) -> set[tuple[str, int, int]]:
        if site not in self._cache:
            rel, row, col = site
            script = self._scripts.get(rel)
            if script is None:
                script = self._scripts[rel] = jedi.Script(path=str(self.root / rel),
                                                          project=self.project)
            found: set[tuple[str, int, int]] = set()
            try:
                for g in script.goto(row + 1, col, follow_imports=True):
                    if g.module_path is None or g.line is None or g.column is None:
                        continue
                    try:
                        where = Path(g.module_path).resolve().relative_to(self.root).as_posix()
                    except ValueError:
                        where = str(g.module_path)
                    found.add((where, g.line, g.column))
            except Exception:  # jedi crashing on a site means it has no answer
                pass
            self._cache[site] = found
        return self._cache[site]


def adjudicate(sym: Sym, gotos: Gotos) -> None:
    """Truth = jedi's call sites whose jedi ``goto`` lands on the definition (among others) or
    nowhere, plus ctxls's sites (candidates included) whose goto lands on it and nowhere else.

    This corrects jedi's reference search both ways: it misses calls through an import alias
    (``from m import A as B; B()``) that its own goto follows, and for a method it includes
    the calls of every override in the hierarchy (``UserSchema().dump()`` for
    ``SchemaABC.dump``), which goto sends to the override. A site jedi's search missed is
    added only when goto is unambiguous (``item(x).as_string()`` with ``item() -> Item``
    lands on a dozen overrides: a candidate, not a call of each).
    """
    me = (sym.path, sym.line, sym.col)
    truth: set[Site] = set()
    for site in set(sym.jedi) | set(sym.ctx) | set(sym.cand):
        lands = gotos(site)
        if lands:
            sym.goto[_key(site)] = ", ".join(f"{p}:{ln}" for p, ln, _ in sorted(lands))
        if (site in sym.jedi and (me in lands or not lands)) or lands == {me}:
            truth.add(site)
    sym.truth = sorted(truth)


# ---- ctxls --------------------------------------------------------------------------------
def _codepoint_col(line: str, utf16: int) -> int:
    units = 0
    for i, ch in enumerate(line):
        if units >= utf16:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


def _site(s: dict[str, Any], root: Path, src: Sources) -> Site:
    rel = s["path"]
    if Path(rel).is_absolute():
        rel = Path(rel).relative_to(root).as_posix()
    row = s["range"]["start"]["line"]
    return rel, row, _codepoint_col(src.line(rel, row), s["range"]["start"]["character"])


async def ctx_sites(client: CtxClient, sym: Sym, root: Path, src: Sources) -> None:
    if EVERY_USE:
        return await ctx_uses(client, sym, root, src)
    start = time.perf_counter()
    try:
        r = await client.request("ctx/references", {
            "path": sym.path, "name": sym.qualname, "line": sym.line,
            "includeCandidates": True, "limit": 100_000})
    except Exception as e:
        sym.ctx_ms = (time.perf_counter() - start) * 1000
        sym.error = f"ctx/references: {e}"
        return
    sym.ctx_ms = (time.perf_counter() - start) * 1000
    for key, dest in (("references", sym.ctx), ("candidates", sym.cand)):
        for s in r.get(key, []):
            site = _site(s, root, src)
            dest.append(site)
            sym.evidence[_key(site)] = f"{key}: {s.get('evidence', '')}"
    sym.ctx.sort()
    sym.cand.sort()


async def ctx_uses(client: CtxClient, sym: Sym, root: Path, src: Sources) -> None:
    """textDocument/references at the definition's name (ASCII columns: code points are
    UTF-16 units)."""
    start = time.perf_counter()
    try:
        found = await client.request("textDocument/references", {
            "textDocument": {"uri": (root / sym.path).as_uri()},
            "position": {"line": sym.line - 1, "character": sym.col},
            "context": {"includeDeclaration": False}})
    except Exception as e:
        sym.ctx_ms = (time.perf_counter() - start) * 1000
        sym.error = f"textDocument/references: {e}"
        return
    sym.ctx_ms = (time.perf_counter() - start) * 1000
    for loc in found or []:
        path = Path(unquote(urlparse(loc["uri"]).path)).relative_to(root).as_posix()
        site = _site({"path": path, "range": loc["range"]}, root, src)
        sym.ctx.append(site)
        sym.evidence[_key(site)] = "textDocument/references"
    sym.ctx.sort()


# ---- scoring ------------------------------------------------------------------------------
@dataclass
class Score:
    symbols: int = 0
    with_calls: int = 0
    truth: int = 0
    resolved: int = 0
    hit: int = 0
    hit_cand: int = 0
    candidates: int = 0
    errors: int = 0
    per_symbol: list[float] = field(default_factory=list)  # recall of symbols with calls

    def add(self, s: Sym, raw: bool) -> None:
        truth, got, cand = set(s.jedi if raw else s.truth), set(s.ctx), set(s.cand)
        self.symbols += 1
        self.with_calls += bool(truth)
        self.truth += len(truth)
        self.resolved += len(got)
        self.hit += len(truth & got)
        self.hit_cand += len(truth & (got | cand))
        self.candidates += len(cand)
        self.errors += s.error is not None
        if truth:
            self.per_symbol.append(len(truth & got) / len(truth))

    def row(self, label: str) -> str:
        recall = self.hit / self.truth if self.truth else float("nan")
        precision = self.hit / self.resolved if self.resolved else float("nan")
        recall_c = self.hit_cand / self.truth if self.truth else float("nan")
        macro = statistics.fmean(self.per_symbol) if self.per_symbol else float("nan")
        return (f"{label:<30} {self.symbols:>4} {self.with_calls:>5} {self.truth:>6} "
                f"{self.resolved:>6} {self.hit:>5} {recall:>7.3f} {precision:>7.3f} "
                f"{macro:>7.3f} {self.candidates:>6} {recall_c:>8.3f} {self.errors:>4}")


HEADER = (f"{'':<30} {'syms':>4} {'w/cal':>5} {'jedi':>6} {'ctxls':>6} {'both':>5} "
          f"{'recall':>7} {'prec':>7} {'sym-rec':>7} {'cands':>6} {'rec+cand':>8} {'err':>4}")


SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """Nodes of a scope, not descending into nested scopes."""
    out: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        n = stack.pop()
        out.append(n)
        if not isinstance(n, SCOPES):
            stack.extend(ast.iter_child_nodes(n))
    return out


def _scopes_at(tree: ast.Module, row: int) -> list[ast.AST]:
    """The module and every function or class whose lines include ``row`` (1-based)."""
    inner = [n for n in ast.walk(tree) if isinstance(n, SCOPES)
             and n.lineno <= row <= (n.end_lineno or n.lineno)]
    return [tree, *sorted(inner, key=lambda n: n.lineno)]


def _names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _binding(tree: ast.Module, row: int, name: str) -> tuple[bool, str, ast.AST | None]:
    """(module level?, how, value) of the last binding of ``name`` visible at ``row``."""
    for scope in reversed(_scopes_at(tree, row)):
        if isinstance(scope, ast.ClassDef):
            continue
        found: list[tuple[int, str, ast.AST | None]] = []
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = scope.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                if arg.arg == name:
                    found.append((scope.lineno, "param annotated" if arg.annotation
                                  else "param unannotated (pytest fixture?)", None))
        for n in _own_nodes(scope):
            line = getattr(n, "lineno", 0)
            if line > row:
                continue
            if isinstance(n, ast.ExceptHandler) and n.name == name:
                found.append((line, "except C as x", None))
            elif isinstance(n, ast.withitem) and n.optional_vars is not None \
                    and name in _names(n.optional_vars):
                found.append((n.context_expr.lineno, "with ... as x", None))
            elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) \
                    and name in _names(n.target):
                found.append((getattr(n.target, "lineno", line), "loop variable", None))
            elif isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                   for t in n.targets):
                found.append((line, "assign", n.value))
            elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) \
                    and n.target.id == name:
                found.append((line, "annotated", n.annotation))
            elif isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and n.name == name:
                found.append((line, "class" if isinstance(n, ast.ClassDef) else "def", None))
            elif isinstance(n, (ast.Import, ast.ImportFrom)) and any(
                    (al.asname or al.name.split(".")[0]) == name for al in n.names):
                found.append((line, "import", None))
        if found:
            _, how, value = max(found, key=lambda f: f[0])
            return scope is tree, how, value
    return False, "unbound", None


def _callee_before(before: str) -> str | None:
    """For text ending in ``f(...)`` or ``f(...).``, the dotted name ``f``."""
    i = len(before) - 1 - before.endswith(".")
    if i < 0 or before[i] != ")":
        return None
    depth = 0
    while i >= 0:
        depth += {")": 1, "(": -1}.get(before[i], 0)
        if depth == 0:
            break
        i -= 1
    m = re.search(r"([\w.]+)$", before[:max(i, 0)])
    return m.group(1) if m else None


def _local_classes(tree: ast.Module, row: int) -> set[str]:
    """Classes defined in the functions enclosing ``row`` (invisible to a module export)."""
    return {n.name for scope in _scopes_at(tree, row)[1:]
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef))
            for n in _own_nodes(scope) if isinstance(n, ast.ClassDef)}


def receiver(src: Sources, rel: str, row: int, col: int, classes: set[str]) -> str:
    """How a call site reaches its callee: the spelling, and for ``x.m()`` how x is bound.

    ``classes`` are the names of every class defined in the workspace."""
    line = src.line(rel, row)
    before = line[:col]
    if DECORATOR_BEFORE.fullmatch(before):
        return "decorator"
    if not before.endswith("."):
        return "bare name"
    if before.endswith("super()."):
        return "super().m()"
    tree = src.tree(rel)
    local = _local_classes(tree, row + 1) if tree is not None else set()

    def made_by(callee: str) -> str:
        last = callee.rsplit(".", 1)[-1]
        if last in local:
            return "C(...), C a class local to the function"
        if last in classes:
            return "C(...), C a workspace class"
        return "f(...), needs f's return annotation"

    callee = _callee_before(before)
    if callee is not None:
        return "super().m()" if callee == "super" else f"receiver {made_by(callee)}: X(...).m()"
    m = re.search(r"([\w.]+)\.$", before)
    if m is None:
        return "subscript or other receiver: e[...].m()"
    obj = m.group(1)
    head = obj.split(".")[0]
    if head in ("self", "cls"):
        return f"{head}.m()" if obj == head else f"{head}.attr.m()"
    if "." in obj:
        return "a.b.m()"
    if tree is None:
        return "x.m()"
    module_level, how, value = _binding(tree, row + 1, obj)
    where = "module-level " if module_level else ""
    if how == "assign" and isinstance(value, ast.Await):
        value = value.value
    if how == "assign" and isinstance(value, ast.Call):
        callee = ast.unparse(value.func)
        if isinstance(value.func, ast.Name) and not module_level and obj != callee and \
                _binding(tree, row + 1, callee)[1].startswith("param"):
            return "x.m(), x = fixture(...), a pytest fixture parameter"
        return f"x.m(), {where}x = {made_by(callee)}"
    if how == "assign":
        return f"x.m(), {where}x = {type(value).__name__} expression"
    if how == "annotated":
        text = ast.unparse(value) if value is not None else ""
        union = "|" in text or "Optional" in text or "Union" in text
        return f"x.m(), {where}x: annotation{' (a union)' if union else ''}"
    if how in ("class", "import") and obj in classes | local:
        return "C.m() on a class"
    return f"x.m(), {where}x: {how}"


def disagreements(syms: list[Sym], src_of: dict[str, Sources],
                  classes: dict[str, set[str]]) -> list[dict[str, Any]]:
    out = []
    for s in syms:
        src = src_of[s.project]
        truth, got, cand = set(s.truth), set(s.ctx), set(s.cand)
        for side, sites in (("missed by ctxls", truth - got), ("extra in ctxls", got - truth)):
            for rel, row, col in sorted(sites):
                line = src.line(rel, row)
                out.append({
                    "side": side, "project": s.project, "symbol": f"{s.path}::{s.qualname}",
                    "kind": s.kind, "where": f"{rel}:{row + 1}:{col}",
                    "pattern": receiver(src, rel, row, col, classes[s.project]),
                    "called_as": re.match(r"\w*", line[col:]).group(0),  # type: ignore[union-attr]
                    "in_candidates": (rel, row, col) in cand,
                    "in_jedi_references": (rel, row, col) in s.jedi,
                    "jedi_goto": s.goto.get(_key((rel, row, col)), "nothing"),
                    "evidence": s.evidence.get(_key((rel, row, col)), ""),
                    "source": line.strip(),
                })
    return out


def informative(diffs: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """Up to ``n`` disagreements, one per (side, kind group, pattern) first, biggest first."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for d in diffs:
        groups[(d["side"], "method" if d["kind"] == "method" else "fn/class",
                d["pattern"])].append(d)
    # functions+classes first (the target), then by how many sites a pattern explains
    order = sorted(groups, key=lambda k: (k[1] == "method", -len(groups[k])))
    picked: list[dict[str, Any]] = []
    depth = 0
    while len(picked) < n and any(len(groups[k]) > depth for k in order):
        for k in order:
            if len(groups[k]) > depth and len(picked) < n:
                # spread over symbols: the depth-th distinct symbol of the group
                by_symbol: dict[str, dict[str, Any]] = {}
                for d in groups[k]:
                    by_symbol.setdefault(d["symbol"], d)
                firsts = list(by_symbol.values()) + [d for d in groups[k]
                                                     if d not in by_symbol.values()]
                picked.append(firsts[depth] | {"group_size": len(groups[k])})
        depth += 1
    return picked


# ---- run ----------------------------------------------------------------------------------
async def run_project(name: str, root: Path, package: str, n: int, seed: int,
                      ) -> tuple[list[Sym], Sources, dict[str, float]]:
    universe = {rel for rel, _ in walk(root) if rel.endswith((".py", ".pyi"))}
    defs = definitions(name, root, package)
    syms = sample(defs, n, f"{seed}:{name}")
    src = Sources(root)
    extra: dict[str, float] = {"defs": len(defs), "files": len(universe)}
    sys_path = [str(root / "src")] if (root / "src").is_dir() else []
    project = jedi.Project(root, added_sys_path=sys_path)
    for s in syms:
        try:
            jedi_sites(s, root, project, src, universe)
        except Exception as e:
            s.error = f"jedi: {e!r}"
    start = time.perf_counter()
    client = await CtxClient.start(root, wait_for_index=True, timeout=120)
    extra["ctx_ready_s"] = time.perf_counter() - start
    try:
        for s in syms:
            await ctx_sites(client, s, root, src)
    finally:
        await client.close()
    gotos = Gotos(root, project)
    for s in syms:
        adjudicate(s, gotos)
    return syms, src, extra


def workspace_classes(root: Path, src: Sources) -> set[str]:
    names: set[str] = set()
    for rel, _ in walk(root):
        tree = src.tree(rel) if rel.endswith(".py") else None
        if tree is not None:
            names |= {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    return names


def latency(label: str, syms: list[Sym]) -> str:
    j = [s.jedi_ms for s in syms]
    c = [s.ctx_ms for s in syms]
    return (f"{label:<12} ctx/references p50 {pct(c, 50):7.2f} ms p95 {pct(c, 95):7.2f} ms | "
            f"jedi get_references p50 {pct(j, 50):8.1f} ms p95 {pct(j, 95):8.1f} ms | "
            f"jedi/ctxls p50 {pct(j, 50) / pct(c, 50):6.0f}x p95 "
            f"{pct(j, 95) / pct(c, 95):6.0f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default="/tmp/corpora/py")
    ap.add_argument("--per-project", type=int, default=50)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--examples", type=int, default=10)
    ap.add_argument("--only", default="", help="comma-separated project names")
    ap.add_argument("--every-use", action="store_true",
                    help="every reference kind (annotations, imports, attribute reads...) "
                         "through textDocument/references, against all of jedi's references")
    ap.add_argument("--jedi-parse-limit", type=int, default=100_000,
                    help="jedi's cap on files parsed per reference search (jedi default 30)")
    args = ap.parse_args()
    global EVERY_USE
    EVERY_USE = args.every_use
    jedi_refs._PARSED_FILE_LIMIT = args.jedi_parse_limit

    names = [p for p in PROJECTS if not args.only or p in args.only.split(",")]
    all_syms: list[Sym] = []
    srcs: dict[str, Sources] = {}
    info: dict[str, dict[str, float]] = {}
    classes: dict[str, set[str]] = {}
    for name in names:
        root = Path(args.corpora, name).resolve()
        syms, src, extra = asyncio.run(
            run_project(name, root, PROJECTS[name], args.per_project, args.seed))
        all_syms += syms
        srcs[name] = src
        info[name] = extra
        classes[name] = workspace_classes(root, src)

    print(f"jedi {jedi.__version__} (parse limit {args.jedi_parse_limit}); seed {args.seed}; "
          f"{args.per_project} symbols per project; "
          + ("every use (textDocument/references)" if EVERY_USE else "call sites")
          + " compared by (path, line, column)")
    for name in names:
        e = info[name]
        print(f"  {name}: {int(e['files'])} .py files, {int(e['defs'])} eligible definitions, "
              f"server ready in {e['ctx_ready_s']:.2f} s")
    for raw in (True, False):
        print("\n" + ("A. truth = jedi get_references call sites, as jedi returns them" if raw
                      else "B. truth adjudicated by jedi goto from each site (jedi's and "
                           "ctxls's): aliases added, other overrides' calls removed"))
        print(HEADER)
        for scope in [*names, "overall"]:
            syms = [s for s in all_syms if scope in ("overall", s.project)]
            for group in ("functions+classes", "methods", "all"):
                sc = Score()
                for s in syms:
                    if group in ("all", s.group):
                        sc.add(s, raw)
                print(sc.row(f"{scope} / {group}"))
            if scope != "overall":
                print()
    added = sum(len(set(s.truth) - set(s.jedi)) for s in all_syms)
    dropped = sum(len(set(s.jedi) - set(s.truth)) for s in all_syms)
    print(f"adjudication: {added} sites added (goto lands on the symbol, jedi's references "
          f"missed them), {dropped} removed (goto lands on another definition)")
    kinds = Counter(s.kind for s in all_syms)
    print(f"\nsampled kinds: {dict(kinds)}")
    outside = sum(len(s.jedi_outside) for s in all_syms)
    print(f"jedi call sites in files ctxls does not index (left out of the scores): {outside}")
    errors = [s for s in all_syms if s.error]
    for s in errors:
        print(f"  error {s.project} {s.path}::{s.qualname}: {s.error}")
    print()
    for scope in [*names, "overall"]:
        print(latency(scope, [s for s in all_syms if scope in ("overall", s.project)]))
    first = {name: next(s.jedi_ms for s in all_syms if s.project == name) for name in names}
    print("jedi first call per project (cold parse cache): "
          + ", ".join(f"{k} {v:.0f} ms" for k, v in first.items()))

    diffs = disagreements(all_syms, srcs, classes)
    tally = Counter((d["side"], "method" if d["kind"] == "method" else "fn/class",
                     d["pattern"]) for d in diffs)
    print("\ndisagreements by pattern (side, kind, how the callee is spelled): count")
    for (side, kind, pattern), count in tally.most_common():
        print(f"  {side:<16} {kind:<8} {pattern:<26} {count}")
    aliased = sum(1 for d in diffs if d["side"] == "extra in ctxls"
                  and d["called_as"] != d["symbol"].rsplit(".", 1)[-1].rsplit(":", 1)[-1])
    print(f"  (extra in ctxls where the call spells another name, i.e. an alias: {aliased})")
    print(f"\n{args.examples} most informative disagreements (against B):")
    for d in informative(diffs, args.examples):
        flag = " [in candidates]" if d["in_candidates"] else ""
        ev = f" [{d['evidence']}]" if d["evidence"] else ""
        jr = "in" if d["in_jedi_references"] else "not in"
        print(f"- {d['side']} ({d['pattern']}, {d['group_size']} like it): {d['symbol']}"
              f"\n    {d['where']}{flag}{ev}\n    jedi: {jr} get_references, goto -> "
              f"{d['jedi_goto']}\n    | {d['source']}")

    OUT.mkdir(exist_ok=True)
    dest = OUT / "references_vs_jedi.json"
    dest.write_text(json.dumps({"symbols": [asdict(s) for s in all_syms],
                                "disagreements": diffs}, indent=1))
    print(f"\nper-symbol results and every disagreement: {dest}")


if __name__ == "__main__":
    main()
