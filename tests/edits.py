"""Random one-edit-at-a-time sessions: the incremental outline must equal a full extraction."""

from __future__ import annotations

import random

from ctxls.syntax.document import Document
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import outline_source


def assert_incremental_outlines(lang: Language, text: str, snippets: list[str], seed: int,
                                steps: int = 250) -> None:
    """Insert a snippet or cut one character at random, ``steps`` times, comparing the
    document's outline after each edit with one extracted from scratch. ASCII text only,
    so UTF-16 columns equal string indices."""
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
        assert doc.outline() == outline_source(lang, text.encode()), f"step {step}"
