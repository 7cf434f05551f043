"""An open document's reference tables, updated over the rows each edit touched, equal the
tables extracted whole from the same tree, in every language, whatever the edits."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ctxls.index import refs as refs_mod
from ctxls.syntax import languages
from ctxls.syntax.document import Document

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SNIPPETS = ["x", " ", "\n", "(", ")", "{", "}", "{\n", "}\n", ";", ":", ",", ".", '"', "'",
            "//", "#", "/*", "*/", "import a.b\n", "from a import b\n", "use a::b;\n",
            "#include \"a.h\"\n", "f(1)\n", "o.g(2);\n", "self.h(3)\n", "this.k();\n",
            "x = Y()\n", "class K(B):\n    pass\n", "class K extends B {}\n",
            "fn g() { h(); }\n", "def g():\n    return h()\n",
            "static int s(void) { return t(); }\n",
            "\n    extends C", "(\n  a,\n  b)"]


def _sources() -> list[Path]:
    out = []
    for path in sorted(FIXTURES.rglob("*")):
        lang = languages.outlined(str(path)) if path.is_file() else None
        if lang is not None and lang.refs_query is not None and path.stat().st_size > 200:
            out.append(path)
    return out


SOURCES = _sources()


def test_every_language_with_reference_tables_is_exercised() -> None:
    assert {languages.outlined(str(p)).name for p in SOURCES} >= {  # type: ignore[union-attr]
        "python", "java", "kotlin", "go", "rust", "javascript", "typescript", "c", "cpp",
        "ruby", "php", "csharp"}


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.relative_to(FIXTURES).as_posix())
def test_updated_reference_tables_equal_a_whole_extraction(src: Path) -> None:
    lang = languages.outlined(str(src))
    assert lang is not None
    rng = random.Random(src.name)
    text = src.read_text(encoding="utf-8", errors="replace")
    doc = Document(lang, text, 1)
    doc.refs()
    updated = 0
    for step in range(60):
        for _ in range(rng.choice((1, 1, 1, 2, 3))):  # several edits between two reads, too
            data = doc.data
            start = rng.randrange(len(data) + 1)
            cut = rng.choice((0, 0, 1, 3, 40)) if start < len(data) else 0
            new = rng.choice(SNIPPETS)
            while start and (data[start] & 0xC0) == 0x80 if start < len(data) else False:
                start -= 1  # (on a character's first byte)
            end = min(len(data), start + cut)
            while end < len(data) and (data[end] & 0xC0) == 0x80:
                end += 1
            a, b = doc.lines.point(start), doc.lines.point(end)
            if rng.random() < 0.2:  # a client sending the whole text
                doc.replace((data[:start] + new.encode() + data[end:]).decode(), step + 2)
            else:  # (byte columns: the document's own units with utf-8)
                doc.edit(a, b, new, "utf-8", step + 2)
        if step % 17 == 16:
            doc.release_tree()
        kept = doc._refs is not None and doc._refs_cover is not None and doc.tree is not None
        got = doc.refs()
        tree = doc.parsed()
        assert tree is not None
        assert got == refs_mod.extract(lang, tree.root_node), f"step {step}"
        updated += kept
    assert updated >= 40  # (most reads were updates, not whole extractions)


CASES = [  # (file name, text, where an edit goes, what it inserts): a match gains a row
    ("a.java", "class A\n  {\n  void f() { g(); }\n}\n", "  {", "  extends B\n"),
    ("a.py", "class A(\n    ):\n    def f(self):\n        g()\n", "    )", "    B,\n"),
    ("a.py", "from m import (\n    a,\n)\nx = 1\n", "    a,\n", "    b,\n"),
    ("a.rs", "use a::{\n    b,\n};\nfn f() { g(); }\n", "    b,\n", "    c::D,\n"),
    ("a.ts", "import {\n  a,\n} from './m';\nf();\n", "  a,\n", "  b,\n"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}:{c[3].strip()}")
def test_a_match_that_gains_or_loses_a_row_is_taken_again_whole(
        case: tuple[str, str, str, str]) -> None:
    """An edit on one row of a match over several (a class's bases below its name, an
    import's names below its module) takes the rows of the whole match again, and an
    undo does too."""
    name, text, anchor, inserted = case
    lang = languages.outlined(name)
    assert lang is not None
    doc = Document(lang, text, 1)
    before = doc.refs()
    at = text.index(anchor)
    row, col = text[:at].count("\n"), at - text[:at].rfind("\n") - 1
    doc.edit((row, col), (row, col), inserted, "utf-8", 2)
    after = doc.refs()
    tree = doc.parsed()
    assert tree is not None
    assert after == refs_mod.extract(lang, tree.root_node) != before
    end = (row + inserted.count("\n"), len(inserted.rsplit("\n", 1)[-1]) + (
        col if "\n" not in inserted else 0))
    doc.edit((row, col), end, "", "utf-8", 3)
    assert doc.data == text.encode() and doc.refs() == before


@pytest.mark.parametrize(("name", "text"), [
    ("a.kt", "class A {\n  val b: B = B()\n" + "  fun f() {\n    g()\n  }\n" * 30 + "}\n"),
    ("a.py", "X = dict(\n" + "    a=f(),\n" * 30 + ")\n"),
])
def test_a_class_body_read_for_its_presence_spans_no_rows(name: str, text: str) -> None:
    """A capture read only for being there (the class body that makes `b` a member, the
    value that makes `X` an assignment) does not make its match's rows the whole class:
    an edit deep inside is taken again over its own rows, and still gives the tables a
    whole extraction does."""
    lang = languages.outlined(name)
    assert lang is not None
    doc = Document(lang, text, 1)
    doc.refs()
    assert doc._refs is not None and all(b - a < 5 for a, b in doc._refs[1].spans)
    row = text.count("\n") - 3
    doc.edit((row, 0), (row, 0), "    h()\n", "utf-8", 2)
    tree = doc.parsed()
    assert tree is not None
    assert doc.refs() == refs_mod.extract(lang, tree.root_node)
