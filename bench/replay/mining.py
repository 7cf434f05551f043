"""Mine single-function edits from a repository's history.

An edit qualifies when, over the commit's non-test ``.py`` files, exactly one file is
modified (no file added, deleted or renamed) and every removed line (in the parent) and
every added line (in the child) lies inside the body of one and the same function or
method, which exists under the same qualified name (``Class.method``) in both versions.
Signature and decorator changes do not qualify: the body is what an agent is asked to
rewrite when it is given a function to change. Test files may change beside it: the
edit records them, and which of them name the function.
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from gitrepo import Commit, GitRepo
from pyindex import is_test_path

_COMMENT = re.compile(r"\s+#.*$")


@dataclass
class Edit:
    repo: str
    sha: str
    parent: str
    message: str
    path: str
    symbol: str  # qualified: Class.method or function
    def_line: int  # 1-based ``def`` line in the parent
    start_line: int  # 1-based first line in the parent, decorators included
    end_line: int  # 1-based last line in the parent
    added: list[int]  # 1-based child lines the commit added to the file
    removed: list[int]  # 1-based parent lines it removed
    parent_lines: int  # length of the edited file in the parent
    tests: list[str] = field(default_factory=list)  # test .py files the commit changed/added
    tests_naming: list[str] = field(default_factory=list)  # those whose child names the target


@dataclass(frozen=True)
class Span:
    """A function's lines: the whole declaration and the part after its header."""

    def_line: int
    start: int  # decorators included
    body_start: int
    end: int


def functions(tree: ast.Module, lines: list[str]) -> dict[str, list[Span]]:
    """Functions and methods reachable through classes only (no nested functions), by
    qualified name; a list because a name can be defined twice (property setters)."""
    out: dict[str, list[Span]] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for stmt in _statements(body):
            if isinstance(stmt, ast.ClassDef):
                visit(stmt.body, f"{prefix}{stmt.name}.")
            elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                out.setdefault(prefix + stmt.name, []).append(_span(stmt, lines))

    visit(tree.body, "")
    return out


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):  # ``if TYPE_CHECKING`` / version-dependent defs
            yield from _statements(stmt.body)
            yield from _statements(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            yield from _statements(stmt.body)
            for handler in stmt.handlers:
                yield from _statements(handler.body)
            yield from _statements(stmt.orelse)


def _span(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> Span:
    """The header ends on the first line from the last signature element on whose code
    (comment stripped) ends with ``:``; the body starts on the line after it."""
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    sig_nodes: list[ast.AST] = [*node.args.posonlyargs, *node.args.args,
                                *node.args.kwonlyargs, *node.args.defaults,
                                *(d for d in node.args.kw_defaults if d is not None)]
    for extra in (node.args.vararg, node.args.kwarg, node.returns):
        if extra is not None:
            sig_nodes.append(extra)
    last = max([node.lineno, *(getattr(n, "end_lineno", node.lineno) or node.lineno
                               for n in sig_nodes)])
    first_body = _stmt_start(node.body[0])
    header_end = last
    while header_end < first_body and not _COMMENT.sub("", lines[header_end - 1]).rstrip(
            ).endswith(":"):
        header_end += 1
    body_start = header_end + 1  # a one-line body shares the header: not an editable body
    return Span(node.lineno, start, body_start, node.end_lineno or node.lineno)


def _stmt_start(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", [])
    return min([stmt.lineno, *(d.lineno for d in decorators)])


def _owner(spans: dict[str, list[Span]], lines: list[int]) -> str | None:
    """The one uniquely named function whose body holds every line, or None."""
    owners = set()
    for line in lines:
        hits = [name for name, found in spans.items()
                for s in found if s.body_start <= line <= s.end]
        if len(hits) != 1 or len(spans[hits[0]]) != 1:
            return None
        owners.add(hits[0])
    return owners.pop() if len(owners) == 1 else None


def candidate_commits(repo: GitRepo) -> list[tuple[Commit, str]]:
    """Commits whose only non-test Python change is one modified file."""
    out = []
    for commit in repo.commits():
        py = [(s, p) for s, p in commit.files if p.endswith(".py") and not is_test_path(p)]
        if len(py) == 1 and py[0][0] == "M":
            out.append((commit, py[0][1]))
    return out


def check(repo: GitRepo, name: str, commit: Commit, path: str, max_lines: int
          ) -> Edit | None:
    """The commit as a single-function edit of ``path``, or None when it is not one."""
    try:
        old_text, new_text = repo.show(commit.parent, path), repo.show(commit.sha, path)
    except Exception:
        return None
    old_lines, new_lines = old_text.splitlines(), new_text.splitlines()
    if max(len(old_lines), len(new_lines)) > max_lines:
        return None
    try:
        old_tree, new_tree = ast.parse(old_text), ast.parse(new_text)
    except (SyntaxError, ValueError):
        return None
    hunks = repo.hunks(commit, path)
    removed = [line for h in hunks for line in h.removed]
    added = [line for h in hunks for line in h.added]
    if not hunks or (not removed and not added):
        return None
    old_funcs, new_funcs = functions(old_tree, old_lines), functions(new_tree, new_lines)
    owner_old = _owner(old_funcs, removed) if removed else None
    owner_new = _owner(new_funcs, added) if added else None
    owner = owner_old or owner_new
    if owner is None or (removed and owner_old != owner) or (added and owner_new != owner):
        return None
    if len(old_funcs.get(owner, [])) != 1 or len(new_funcs.get(owner, [])) != 1:
        return None
    for h in hunks:  # a pure insertion must sit inside the parent's body too
        span = old_funcs[owner][0]
        if h.old_count == 0 and not (span.body_start - 1 <= h.old_start <= span.end):
            return None
    span = old_funcs[owner][0]
    tests = [p for s, p in commit.files if s != "D" and p.endswith(".py") and is_test_path(p)]
    return Edit(name, commit.sha, commit.parent, commit.message, path, owner, span.def_line,
                span.start, span.end, added, removed, len(old_lines), tests,
                naming_tests(repo, commit.sha, tests, owner.rpartition(".")[2]))


def naming_tests(repo: GitRepo, sha: str, tests: list[str], name: str) -> list[str]:
    """The test files whose version at ``sha`` holds ``name`` as a whole word."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    out = []
    for path in tests:
        try:
            text = repo.show(sha, path)
        except Exception:
            continue
        if word.search(text):
            out.append(path)
    return out


def sample(repo: GitRepo, name: str, seed: int, max_lines: int = 3000) -> Iterator[Edit]:
    """Single-function edits in the order of a seeded shuffle of the candidate commits, so
    the same arguments give the same edits on every machine; the caller stops when it has
    enough."""
    candidates = candidate_commits(repo)
    random.Random(f"{seed}:{name}").shuffle(candidates)
    for commit, path in candidates:
        edit = check(repo, name, commit, path, max_lines)
        if edit is not None:
            yield edit
