"""Skeletons of a deterministic sample of the CPython standard library, checked with ``ast``.

For each file: the skeleton without line numbers is valid Python; every def/class that ``ast``
finds at module level or directly in a class body keeps its signature line; and with line
numbers on, every numbered line equals the original line at that number.
"""

from __future__ import annotations

import ast
import re
import sysconfig
from pathlib import Path

import pytest

from ctxls.syntax.languages import Language
from ctxls.syntax.outline import outline_source
from ctxls.syntax.skeleton import SkeletonOptions, render, split_lines

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SAMPLE = 240
FORCE = dict(whole_max_lines=0, whole_max_tokens=0, flat_ratio=0.0)
NUMBERED = re.compile(r"^ *(\d+) \| ?(.*)$")


def _sample() -> list[Path]:
    files = sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts)
    step = max(1, len(files) // SAMPLE)
    return files[::step][:SAMPLE]


def _defs(tree: ast.Module) -> list[ast.AST]:
    out: list[ast.AST] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.append(node)
                if isinstance(node, ast.ClassDef):
                    visit(node.body)

    visit(tree.body)
    return out


def test_sample_is_large_enough() -> None:
    assert len(_sample()) >= 200


@pytest.mark.parametrize("path", _sample(), ids=lambda p: str(p.relative_to(STDLIB)))
def test_skeleton_is_valid_complete_and_faithful(python: Language, path: Path) -> None:
    source = path.read_bytes()
    try:
        text = source.decode("utf-8")
        tree = ast.parse(text)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        pytest.skip("not valid Python 3.11 (test data); ast is no independent truth here")
    outline = outline_source(python, source)
    lines = split_lines(text)
    funcs = [d for d in outline.decls if d.body is not None and not d.container]
    targets = [None, funcs[len(funcs) // 2] if funcs else None]
    for target in targets:
        bare = render(outline, lines, python.elision, "#", target, None,
                      SkeletonOptions(line_numbers=False, **FORCE))  # type: ignore[arg-type]
        ast.parse(bare.text)  # still Python
        shown = {r for a, b in bare.shown for r in range(a, b + 1)}
        for node in _defs(tree):
            assert node.lineno - 1 in shown, f"{getattr(node, 'name', '?')} line {node.lineno}"
        numbered = render(outline, lines, python.elision, "#", target, None,
                          SkeletonOptions(**FORCE))  # type: ignore[arg-type]
        for out in numbered.text.splitlines():
            m = NUMBERED.match(out)
            if m:
                assert lines[int(m.group(1)) - 1].rstrip() == m.group(2).rstrip()


def _first_target(node: ast.AST) -> ast.expr | None:
    if isinstance(node, ast.Assign):
        return node.targets[0]
    if isinstance(node, ast.AnnAssign):
        return node.target
    return None


def _branches(node: ast.stmt) -> list[list[ast.stmt]]:
    """The blocks of a module-level if/try/with, elif chains flattened."""
    if isinstance(node, ast.If):
        rest = node.orelse
        if len(rest) == 1 and isinstance(rest[0], ast.If):
            return [node.body, *_branches(rest[0])]
        return [node.body, rest]
    if isinstance(node, ast.Try):
        return [node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)]
    if isinstance(node, ast.With):
        return [node.body]
    return []


def _ast_outline(tree: ast.Module) -> tuple[set[tuple[str, int]], set[str], set[int]]:
    """(every def/class as (qualname, first line), assigned names, import lines) per ast."""
    defs: set[tuple[str, int]] = set()
    names: set[str] = set()
    imports: set[int] = set()
    decl_types = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

    def walk(node: ast.AST, prefix: str, in_decl: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, decl_types):
                line = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                defs.add((prefix + child.name, line))
                walk(child, prefix + child.name + ".", True)
            else:
                if isinstance(child, ast.Import | ast.ImportFrom) and not in_decl:
                    imports.add(child.lineno)
                walk(child, prefix, in_decl)

    walk(tree, "", False)
    for node in tree.body:
        for stmt in [node, *(s for block in _branches(node) for s in block)]:
            target = _first_target(stmt)
            if isinstance(target, ast.Name):
                names.add(target.id)
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                target = _first_target(stmt)
                if isinstance(target, ast.Name):
                    names.add(f"{node.name}.{target.id}")
                if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
                    for inner in stmt.body:
                        target = _first_target(inner)
                        if (isinstance(target, ast.Attribute)
                                and isinstance(target.value, ast.Name)
                                and target.value.id == "self"):
                            names.add(f"{node.name}.{target.attr}")
    return defs, names, imports


@pytest.mark.parametrize("path", _sample(), ids=lambda p: str(p.relative_to(STDLIB)))
def test_outline_matches_ast(python: Language, path: Path) -> None:
    source = path.read_bytes()
    try:
        tree = ast.parse(source.decode("utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        pytest.skip("not valid Python 3.11 (test data)")
    outline = outline_source(python, source)
    defs, names, imports = _ast_outline(tree)
    ours = {(d.qualname, d.span.start_row + 1) for d in outline.decls
            if d.kind in ("function", "method", "class")}
    assert ours == defs, (sorted(defs - ours)[:5], sorted(ours - defs)[:5])
    value_names = {d.qualname for d in outline.decls
                   if d.kind in ("variable", "attribute", "field", "type")}
    assert names <= value_names, sorted(names - value_names)[:5]
    header_imports = {h.span.start_row + 1 for h in outline.header if h.kind == "import"}
    assert imports <= header_imports, sorted(imports - header_imports)[:5]
