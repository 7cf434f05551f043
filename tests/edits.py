"""Random one-edit-at-a-time sessions: the incremental outline must equal a full extraction."""

from __future__ import annotations

import random

from ctxls.syntax.document import Document
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import extract, outline_source


def assert_incremental_outlines(lang: Language, text: str, snippets: list[str], seed: int,
                                steps: int = 250, same_tree: bool = False) -> None:
    """Insert a snippet or cut one character at random, ``steps`` times, comparing the
    document's outline after each edit with one extracted from scratch. ASCII text only,
    so UTF-16 columns equal string indices.

    With ``same_tree`` the full extraction reads the document's own tree: tree-sitter's
    incremental re-parse of broken code can recover from errors differently from a fresh
    parse, which is not the outline's doing."""
    assert text.isascii()
    rng = random.Random(seed)
    doc = Document(lang, text, 1)
    doc.outline()
    for step in range(steps):
        lines = text.split("\n")
        row = rng.randrange(len(lines))
        col = rng.randint(0, len(lines[row]))
        cut = 1 if rng.random() < 0.4 and col < len(lines[row]) else 0
        new = "" if cut else rng.choice(snippets)
        offset = sum(len(x) + 1 for x in lines[:row]) + col
        text = text[:offset] + new + text[offset + cut:]
        doc.edit((row, col), (row, col + cut), new, "utf-16", step + 2)
        tree = doc.parsed()
        assert tree is not None
        full = extract(lang, tree, doc.lines) if same_tree else outline_source(
            lang, text.encode())
        assert doc.outline() == full, f"step {step}"
