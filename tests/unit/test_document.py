"""Incremental edits: the tree after Tree.edit + re-parse equals a parse from scratch."""

from __future__ import annotations

import random
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxls.syntax import document as document_module
from ctxls.syntax import languages
from ctxls.syntax import outline as outline_module
from ctxls.syntax.document import Document, _common_ends
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import extract, outline_source

BASE = '''import os

LIMIT = 3  # 数据 🔑


class Store:
    """Keeps things."""

    def put(self, key, value):
        self.items[key] = value

    def get(self, key):
        return self.items.get(key)


def helper(x):
    return x * LIMIT
'''

INSERTS = ["x", "\n", "def f():\n    pass\n", "🔑", "数据", "(", ")", "    ", ":", ""]


def _apply_utf16(text: str, start: tuple[int, int], end: tuple[int, int], new: str) -> str:
    """The same edit on a Python string, positions in UTF-16 units (as a client does)."""
    lines = text.split("\n")

    def offset(line: int, ch: int) -> int:
        before = sum(len(x) + 1 for x in lines[:line])
        units, i = 0, 0
        row = lines[line]
        while i < len(row) and units < ch:
            units += 2 if ord(row[i]) > 0xFFFF else 1
            i += 1
        return before + i

    a, b = offset(*start), offset(*end)
    return text[:a] + new + text[b:]


def _random_position(rng: random.Random, text: str) -> tuple[int, int]:
    """A position on a character boundary (never inside a surrogate pair)."""
    lines = text.split("\n")
    line = rng.randrange(len(lines))
    bounds, units = [0], 0
    for ch in lines[line]:
        units += 2 if ord(ch) > 0xFFFF else 1
        bounds.append(units)
    return line, rng.choice(bounds)


def test_incremental_edits_match_a_fresh_parse(python: Language) -> None:
    rng = random.Random(7)
    doc = Document(python, BASE, 1)
    text = BASE
    for step in range(300):
        a = _random_position(rng, text)
        b = _random_position(rng, text) if rng.random() < 0.3 else a
        a, b = min(a, b), max(a, b)
        new = rng.choice(INSERTS)
        text = _apply_utf16(text, a, b, new)
        doc.edit(a, b, new, "utf-16", step + 2)
        assert doc.data == text.encode()
        if True:
            fresh = python.parser().parse(text.encode())
            tree = doc.parsed()
            assert tree is not None
            assert str(tree.root_node) == str(fresh.root_node)
            assert doc.outline() == outline_source(python, text.encode())


def test_a_released_tree_comes_back_whole_at_the_next_edit(python: Language) -> None:
    """An idle document's tree is dropped (its outline kept); edits after that, and
    released again in between, give the tree and outline of a parse from scratch."""
    rng = random.Random(11)
    doc = Document(python, BASE, 1)
    kept = doc.outline()
    doc.release_tree()
    assert doc.tree is None and doc.outline() is kept  # (the outline stays)
    text = BASE
    for step in range(120):
        a = _random_position(rng, text)
        new = rng.choice(INSERTS)
        text = _apply_utf16(text, a, a, new)
        doc.edit(a, a, new, "utf-16", step + 2)
        if step % 3 == 0:
            doc.release_tree()  # (a stale tree is kept: its edits are not applied yet)
        if step % 2 == 0:
            tree = doc.parsed()
            assert tree is not None
            assert str(tree.root_node) == str(python.parser().parse(text.encode()).root_node)
            assert doc.outline() == outline_source(python, text.encode())
            doc.release_tree()
            assert doc.tree is None


def test_whole_document_change_replaces(python: Language) -> None:
    doc = Document(python, BASE, 1)
    doc.replace("def only():\n    return 1\n", 2)
    outline = doc.outline()
    assert outline is not None and [d.qualname for d in outline.decls] == ["only"]
    assert doc.version == 2


@given(st.binary(max_size=40), st.binary(max_size=40), st.binary(max_size=40),
       st.binary(max_size=40))
def test_common_ends_are_the_longest_head_and_then_tail(a: bytes, b: bytes, c: bytes,
                                                        d: bytes) -> None:
    old, new = a + b + c, a + d + c  # (shared pieces, so heads and tails are not all empty)
    head, tail = _common_ends(old, new)
    expect_head = next((i for i, (x, y) in enumerate(zip(old, new, strict=False))
                        if x != y),
                       min(len(old), len(new)))
    assert head == expect_head
    room = min(len(old), len(new)) - head
    expect_tail = next((i for i in range(room) if old[-1 - i] != new[-1 - i]), room)
    assert tail == expect_tail


def test_whole_text_changes_are_applied_as_one_edit(python: Language) -> None:
    """A client without incremental sync sends the whole text each time: the document finds
    the one changed region, so the tree is re-parsed incrementally and the outline updated,
    and both equal a parse from scratch, whatever the change."""
    rng = random.Random(5)
    doc = Document(python, BASE, 1)
    doc.outline()
    text = BASE
    for step in range(200):
        a = _random_position(rng, text)
        b = _random_position(rng, text) if rng.random() < 0.3 else a
        a, b = min(a, b), max(a, b)
        text = _apply_utf16(text, a, b, rng.choice(INSERTS))
        if step % 50 == 49:
            text = text[::-1]  # (nothing in common but what a reversed text shares)
        same = doc.data == text.encode()
        doc.replace(text, step + 2)
        assert doc.data == text.encode()
        assert len(doc._edits) == (not same) and doc.version == step + 2  # (released too)
        tree = doc.parsed()
        assert tree is not None
        assert str(tree.root_node) == str(python.parser().parse(text.encode()).root_node)
        assert doc.outline() == outline_source(python, text.encode())
        if step % 7 == 0:
            doc.release_tree()  # (the next change parses the text before it first)


def test_incremental_outline_equals_full_extraction_on_real_code(python: Language) -> None:
    """One edit at a time (the update path), on a real module: identical outlines."""
    from tests.conftest import EXAMPLE
    from tests.edits import assert_incremental_outlines

    snippets = ["x", " ", "\n", "(", ")", ":", "\n    ", "#", '"', "def g():\n    pass\n",
                "class K:\n    a = 1\n", "self.q = 1\n", "X = 2\n"]
    assert_incremental_outlines(python, (EXAMPLE / "auth" / "tokens.py").read_text(),
                                snippets, seed=3)


@pytest.mark.parametrize(("name", "text", "row", "inserted"), [
    ("a.py", "import sys\n\n\ndef f():\n    x = 1\n    return x\n", 5, "    import os\n"),
    ("a.py", "class A:\n    def f(self):\n        pass\n", 2, "        from m import n\n"),
    ("a.java", "import a.B;\n\nclass A {\n  void f() {\n    int x = 1;\n  }\n}\n", 4,
     "    int y = 2;\n"),
    ("a.rs", "use a::b;\n\nfn f() {\n    let x = 1;\n}\n", 3, "    use c::d;\n"),
])
def test_an_import_typed_in_a_body_stays_out_of_the_files_header(
        name: str, text: str, row: int, inserted: str) -> None:
    """The update re-extracts only the statements around an edit in a body: an import among
    them is the function's, not the file's, as a full extraction says."""
    lang = languages.outlined(name)
    assert lang is not None
    doc = Document(lang, text, 1)
    doc.outline()
    doc.edit((row, 0), (row, 0), inserted, "utf-8", 2)
    tree = doc.parsed()
    assert tree is not None
    assert doc.outline() == extract(lang, tree, doc.lines)


def test_an_edit_in_a_classs_last_method_is_an_update(python: Language) -> None:
    """A Python class ends where its last member does: an edit there (a comment line typed
    above the method's docstring) is still taken over that member alone, with the class
    around it extracted from its own node, and equals a full extraction."""
    text = ('class A:\n    def f(self):\n        return 1\n\n'
            '    def g(self):\n        """Doc."""\n        return 2\n')
    doc = Document(python, text, 1)
    doc.outline()
    made: list[object] = []

    def counted(*args: object) -> object:
        made.append(outline_module.update(*args))  # type: ignore[arg-type]
        return made[-1]

    doc.edit((5, 0), (5, 0), "# note\n", "utf-8", 2)
    with mock.patch.object(document_module, "update", counted):
        got = doc.outline()
    tree = doc.parsed()
    assert tree is not None
    assert got == extract(python, tree, doc.lines)
    assert made and made[-1] is not None
