"""Outlines checked against literal expectations and against the stdlib ``ast`` module."""

from __future__ import annotations

import ast

from ctxls.syntax.languages import Language
from ctxls.syntax.outline import outline_source

SOURCE = '''"""Module doc."""
import os
from typing import TYPE_CHECKING
try:
    import ujson as json
except ImportError:
    json = None
if TYPE_CHECKING:
    from auth.session import Session

LIMIT: int = 3
type Alias = list[int]
__all__ = ["Cache"]


@decorator(1)
class Cache(Base):
    """Invariant: one shard per key."""

    __slots__ = ("_a", "_b")
    size = 10

    def __init__(self, a):
        self._a = a
        self._b: int = 0
        if a:
            self._c = 1

    @property
    def a(self):
        return self._a

    def get(self, key):
        def inner():
            return key
        return inner()


class Color(Enum):
    RED = 1

    def label(self):
        return self.name.lower()


async def main():
    pass
'''


def test_declarations(python: Language) -> None:
    o = outline_source(python, SOURCE.encode())
    got = [(d.kind, d.qualname, d.span.start_row + 1) for d in o.decls]
    assert got == [
        ("variable", "json", 7),
        ("variable", "LIMIT", 11),
        ("type", "Alias", 12),
        ("variable", "__all__", 13),
        ("class", "Cache", 16),
        ("attribute", "Cache.__slots__", 20),
        ("attribute", "Cache.size", 21),
        ("method", "Cache.__init__", 23),
        ("field", "Cache._a", 24),
        ("field", "Cache._b", 25),
        ("method", "Cache.a", 29),
        ("method", "Cache.get", 33),
        ("function", "Cache.get.inner", 34),
        ("class", "Color", 39),
        ("attribute", "Color.RED", 40),
        ("method", "Color.label", 42),
        ("function", "main", 46),
    ]
    by = {d.qualname: d for d in o.decls}
    assert by["Cache"].decorators == ("@decorator(1)",)
    assert by["Cache.a"].decorators == ("@property",)
    assert by["Cache"].doc == '"""Invariant: one shard per key."""'
    assert by["Color"].keep_whole and not by["Cache"].keep_whole
    assert by["Cache.get.inner"].parents == ("Cache", "Cache.get")
    init = by["Cache.__init__"].body
    assert init is not None and init.members == ((23, 23), (24, 24))  # rows, 0-based
    assert (by["Cache.__init__"].signature.start_row, by["Cache.__init__"].signature.end_row) \
        == (22, 22)


def test_header(python: Language) -> None:
    o = outline_source(python, SOURCE.encode())
    got = [(h.kind, h.span.start_row + 1) for h in o.header]
    assert got == [("doc", 1), ("import", 2), ("import", 3), ("import", 5), ("constant", 7),
                   ("import", 9), ("constant", 11), ("constant", 12), ("constant", 13)]
    assert o.errors == ()


def test_errors_are_located(python: Language) -> None:
    o = outline_source(python, b"def ok():\n    return 1\n\ndef bad(:\n    pass\n")
    assert o.errors and o.errors[0].start_row == 3
    assert {d.qualname: d.has_error for d in o.decls}.get("ok") is False


def _ast_defs(tree: ast.Module) -> set[tuple[str, int]]:
    """Every def/class at module level or directly in a class body, as (qualname, line)."""
    out: set[tuple[str, int]] = set()

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                line = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                out.add((prefix + node.name, line))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, prefix + node.name + ".")

    visit(tree.body, "")
    return out


def test_outline_agrees_with_ast(python: Language) -> None:
    o = outline_source(python, SOURCE.encode())
    ours = {(d.qualname, d.span.start_row + 1) for d in o.decls
            if d.kind in ("function", "method", "class")}
    # Python 3.11's ast predates `type X = ...`; the same line as a plain assignment.
    assert _ast_defs(ast.parse(SOURCE.replace("type Alias", "Alias"))) <= ours


def test_instance_attributes_need_a_class(python: Language) -> None:
    src = b"def make():\n    def __init__(self, v):\n        self.v = v\n    return __init__\n"
    o = outline_source(python, src)
    assert [(d.kind, d.qualname) for d in o.decls] == [
        ("function", "make"), ("function", "make.__init__")]
