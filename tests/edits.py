"""One-edit-at-a-time sessions: the incremental outline must equal a full extraction."""

from __future__ import annotations

import random
from typing import Any
from unittest import mock

from ctxls.syntax import document
from ctxls.syntax.document import Document
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import extract, outline_source, update


def assert_incremental_outlines(lang: Language, text: str, snippets: list[str], seed: int,
                                steps: int = 250, same_tree: bool = False) -> int:
    """Insert a snippet or cut one character at random, ``steps`` times, comparing the
    document's outline after each edit with one extracted from scratch. ASCII text only,
    so UTF-16 columns equal string indices.

    With ``same_tree`` the full extraction reads the document's own tree: tree-sitter's
    incremental re-parse of broken code can recover from errors differently from a fresh
    parse, which is not the outline's doing. Returns how many outlines were updates (not
    extracted from scratch)."""
    assert text.isascii()
    rng = random.Random(seed)
    doc = Document(lang, text, 1)
    doc.outline()
    updates = 0
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
        made: list[Any] = []

        def counted(*args: Any, made: list[Any] = made) -> Any:
            made.append(update(*args))
            return made[-1]

        with mock.patch.object(document, "update", counted):
            assert doc.outline() == full, f"step {step}"
        updates += any(r is not None for r in made)
    return updates


def assert_incremental_declaration_edits(lang: Language, text: str, tops: list[str],
                                         statements: dict[str, str], seed: int,
                                         steps: int = 300, at_least: int = 80) -> None:
    """Edits that keep the file valid, chosen from its own outline: a character typed at
    the end of a name, a statement (``statements`` by the declaration's kind, ``""`` for
    any other) at the start of a body, one of ``tops`` inserted above a top-level
    declaration, a top-level declaration deleted. After each, the document's outline must
    equal one extracted from scratch; at least ``at_least`` of the ``steps`` must apply."""
    assert text.isascii()
    rng = random.Random(seed)
    doc = Document(lang, text, 1)
    edits = 0
    for step in range(steps):
        o = doc.outline()
        assert o is not None
        d = rng.choice(o.decls)
        op = rng.randrange(4)
        lines = text.split("\n")
        top_level = not d.parents and lines[d.span.start_row][:1] not in ("\t", " ")
        end: tuple[int, int] | None = None
        if op == 0:  # type a character at the end of a name
            row, col, new = d.name_span.end_row, d.name_span.end_col, rng.choice("xy_")
        elif op == 1 and d.body is not None:  # a statement, field or method in a body
            row, col = d.body.first, 0
            new = statements.get(d.kind, statements[""])
        elif op == 2 and top_level:  # a new declaration above this one
            row, col, new = d.span.start_row, 0, rng.choice(tops)
        elif op == 3 and top_level and d.kind not in ("constant", "variable") and len(
                o.decls) > 8:  # delete this declaration
            row, col, new, end = d.span.start_row, 0, "", (d.span.last_row + 1, 0)
        else:
            continue
        end = end or (row, col)
        start_at = sum(len(x) + 1 for x in lines[:row]) + col
        end_at = sum(len(x) + 1 for x in lines[:end[0]]) + end[1]
        text = text[:start_at] + new + text[end_at:]
        doc.edit((row, col), end, new, "utf-16", step + 2)
        edits += 1
        assert not lang.parser().parse(text.encode()).root_node.has_error, \
            f"step {step}: the generator broke the file"
        assert doc.outline() == outline_source(lang, text.encode()), f"step {step}"
    assert edits > at_least
