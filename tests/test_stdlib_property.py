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
