"""The golden corpus: every source file under tests/fixtures/<lang>/, its outline and its
skeletons compared with the expected files written beside it (tests/fixtures/README.md),
and invariants checked on the same renderings whatever the expected files say.

Regenerate the expected files after a deliberate change, then read the diff:
    CTXLS_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/unit/test_golden.py
"""

from __future__ import annotations

import difflib
import glob
import os
import re
from pathlib import Path
from typing import NamedTuple

import pytest

from ctxls.syntax import languages
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import Outline, Span, outline_source
from ctxls.syntax.skeleton import Rendering, SkeletonOptions, render, split_lines
from ctxls.syntax.symbols import resolve
from tests.edits import assert_incremental_declaration_edits, assert_incremental_outlines

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LANGS = ("go", "java", "javascript", "typescript", "tsx", "rust", "ruby", "python", "kotlin",
         "csharp", "php", "c", "cpp")
UPDATE = os.environ.get("CTXLS_UPDATE_GOLDEN") == "1"
HOW = "CTXLS_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/unit/test_golden.py"
# Every body that can be elided is: short and flat files would otherwise be shown whole.
ALWAYS = SkeletonOptions(whole_max_lines=0, whole_max_tokens=0, flat_ratio=0)
BARE = SkeletonOptions(line_numbers=False, whole_max_lines=0, whole_max_tokens=0, flat_ratio=0)
EXPECTED = (".outline", ".skeleton")


def _sources() -> list[Path]:
    return [p for lang in LANGS for p in sorted((FIXTURES / lang).rglob("*"))
            if p.is_file() and not p.name.endswith(EXPECTED) and languages.name_for(str(p))]


SOURCES = _sources()


class Target(NamedTuple):
    symbol: str
    line: int | None  # picks among declarations that share the name


def _targets(src: Path) -> list[Target]:
    """From the file names: ``name.ext@Symbol.skeleton``, ``name.ext@Symbol@line.skeleton``
    (a symbol may hold an ``@`` itself: Ruby's ``Invoice.@state``)."""
    out = []
    for path in sorted(src.parent.glob(glob.escape(src.name) + "@*.skeleton")):
        name = path.name[len(src.name) + 1 : -len(".skeleton")]
        symbol, _, line = name.rpartition("@")
        out.append(Target(symbol, int(line)) if line.isdigit() and symbol else Target(name, None))
    return out


def _expected_path(src: Path, target: Target | None) -> Path:
    if target is None:
        return src.with_name(src.name + ".skeleton")
    at = f"@{target.line}" if target.line is not None else ""
    return src.with_name(f"{src.name}@{target.symbol}{at}.skeleton")


def rel(path: Path) -> str:
    return path.relative_to(FIXTURES).as_posix()


def lang_of(src: Path) -> Language:
    lang = languages.for_path(str(src))
    assert lang is not None and lang.name == src.relative_to(FIXTURES).parts[0], rel(src)
    return lang


# ---- the expected files' formats (tests/fixtures/README.md) -------------------------------


def _rows(first: int, last: int) -> str:
    """1-based lines ``a-b``, or ``a`` for one line."""
    return f"{first + 1}" if first == last else f"{first + 1}-{last + 1}"


def _lines(span: Span) -> str:
    return _rows(span.start_row, span.last_row)


def outline_text(o: Outline) -> str:
    width = 2 * len(str(o.line_count)) + 1
    out = ["declarations:"]
    for d in o.decls:
        fields = [f"{_lines(d.span):>{width}}  {d.kind:<9}  {d.qualname}"]
        if d.parents:
            fields.append("< " + ", ".join(d.parents))
        sig = (d.signature.start_row, d.signature.end_row)
        if sig != (d.span.start_row, d.span.last_row):
            fields.append("sig " + _rows(*sig))
        if d.body is not None:
            fields.append("body " + _rows(d.body.first, d.body.last))
            if d.body.doc is not None:
                fields.append("doc " + _rows(*d.body.doc))
            if d.body.members:
                fields.append("members " + " ".join(_rows(*m) for m in d.body.members))
        if d.keep_whole:
            fields.append("whole")
        if d.has_error:
            fields.append("has-error")
        if d.decorators:
            fields.append("decorators " + " | ".join(d.decorators))
        out.append("  ".join(fields))
    if o.header:
        out.append("header:")
        out += [f"{_lines(h.span):>{width}}  {h.kind}" for h in o.header]
    if o.blocks:
        out.append("blocks:")
        out += [f"{_rows(b.first, b.last):>{width}}" for b in o.blocks]
    if o.errors:
        out.append("errors:")
        out += [f"{_lines(e):>{width}}" for e in o.errors]
    return "\n".join(out) + "\n"


def skeleton_text(src: Path, target: Target | None, r: Rendering) -> str:
    what = "no target" if target is None else f"target {target.symbol}" + (
        f" (line {target.line})" if target.line is not None else "")
    out = [f"# skeleton of {src.name}, {what}: mode {r.mode}, reason {r.reason}"]
    out += [f"# elided {_rows(e.first, e.last)} {e.symbol or '-'}" for e in r.elided]
    return "\n".join(out) + "\n" + r.text


def expect(path: Path, actual: str) -> None:
    """``actual`` must be the file's text; CTXLS_UPDATE_GOLDEN=1 writes it instead."""
    if UPDATE:
        if not path.is_file() or path.read_text(encoding="utf-8") != actual:
            path.write_text(actual, encoding="utf-8")
        return
    if not path.is_file():
        pytest.fail(f"tests/fixtures/{rel(path)} is missing: create it with `{HOW}`, then "
                    "read it (tests/fixtures/README.md)", pytrace=False)
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(keepends=True),
                                            actual.splitlines(keepends=True),
                                            f"tests/fixtures/{rel(path)}", "actual"))
        pytest.fail(f"differs from the expected file (if the change is meant, `{HOW}`):\n"
                    f"{diff}", pytrace=False)


# ---- outlines ------------------------------------------------------------------------------


@pytest.mark.parametrize("src", SOURCES, ids=rel)
def test_outline(src: Path) -> None:
    expect(src.with_name(src.name + ".outline"), outline_text(outline_source(
        lang_of(src), src.read_bytes())))


# ---- skeletons -----------------------------------------------------------------------------

RENDERINGS = [(src, target) for src in SOURCES for target in [None, *_targets(src)]]
NUMBERED = re.compile(r"^ *(\d+) \|(?: (.*))?$")


def _render(lang: Language, o: Outline, text: str, target: Target | None,
            opts: SkeletonOptions) -> Rendering:
    decl = resolve(o, target.symbol, "x", target.line) if target is not None else None
    return render(o, split_lines(text), lang.elision, lang.line_comment, decl, None, opts)


@pytest.mark.parametrize(("src", "target"), RENDERINGS,
                         ids=[rel(_expected_path(s, t)) for s, t in RENDERINGS])
def test_skeleton(src: Path, target: Target | None) -> None:
    lang, text = lang_of(src), src.read_text(encoding="utf-8")
    o = outline_source(lang, text.encode())
    r = _render(lang, o, text, target, ALWAYS)
    expect(_expected_path(src, target), skeleton_text(src, target, r))

    # Whatever the expected file says: every numbered line is the original line with that
    # number, in order, and the numbered lines are exactly the rows reported as shown.
    lines = split_lines(text)
    numbered = []
    for line in r.text.splitlines():
        m = NUMBERED.match(line)
        if m:
            row = int(m.group(1)) - 1
            assert (m.group(2) or "") == lines[row].rstrip(), f"line {row + 1}: {line!r}"
            numbered.append(row)
    assert numbered == sorted(set(numbered))
    assert numbered == [row for a, b in r.shown for row in range(a, b + 1)]

    tree = lang.parser().parse(text.encode())
    if tree.root_node.has_error:
        return  # a broken original has nothing to keep valid, nor a reliable top level
    # Without line numbers the skeleton is the language again: no ERROR or MISSING node.
    bare = _render(lang, o, text, target, BARE)
    assert not lang.parser().parse(bare.text.encode()).root_node.has_error, \
        f"the skeleton without line numbers does not parse:\n{bare.text}"
    # Every top-level node of the raw tree (comments aside) starts on a shown line, and so
    # do every top-level declaration and its name.
    shown = set(numbered)
    for node in tree.root_node.named_children:
        if node.type not in lang.comment_nodes:
            assert node.start_point.row in shown, f"{node.type} at {node.start_point.row + 1}"
    for d in o.decls:
        if not d.parents:
            assert {d.span.start_row, d.name_span.start_row} <= shown, d.qualname


# ---- the corpus itself ---------------------------------------------------------------------


def test_every_expected_file_has_its_source() -> None:
    names = {p.name for p in SOURCES}
    orphans = []
    for lang in LANGS:
        for path in sorted((FIXTURES / lang).rglob("*")):
            if path.name.endswith(EXPECTED):
                source = re.sub(r"(@.*)?\.(outline|skeleton)$", "", path.name)
                if source not in names or not path.with_name(source).is_file():
                    orphans.append(rel(path))
    assert orphans == []
    assert {lang_of(p).name for p in SOURCES} == set(LANGS)


# ---- incremental outlines: an edited document's outline equals a fresh one -----------------

SESSIONS = {  # case: (snippets to insert at random, seed, compare with the document's tree)
    "go/cache/cache.go": (["x", " ", "\n", "}\n", "{", "(", ")", "// note\n", "\tz int\n",
                           "func g() {\n\treturn\n}\n", "type K struct {\n\tA int\n}\n",
                           "func (c *Cache[K, V]) H() {\n\tc.x()\n}\n", "var q, r = 1, 2\n",
                           "type (\n\tA struct{ a int }\n\tB int\n)\n"], 3, True),
    "rust/cache.rs": (["x", " ", "\n", "}\n", "{", "fn g() {\n    1\n}\n", "#[inline]\n",
                       "/// doc\n", "impl A {\n    fn h(&self) {}\n}\n", "const C: u8 = 1;\n",
                       "use a::b;\n", "mod m {\n}\n", "struct P { a: u8 }\n"], 7, False),
}


@pytest.mark.parametrize("case", sorted(SESSIONS))
def test_incremental_outline_of_random_edits(case: str) -> None:
    """Any edit, the file broken or not (tests/edits.py)."""
    snippets, seed, same_tree = SESSIONS[case]
    src = FIXTURES / case
    assert_incremental_outlines(lang_of(src), src.read_text(encoding="utf-8"), snippets,
                                seed=seed, same_tree=same_tree)


GENERIC = ["x", " ", "\n", "{", "}", "(", ")", ";", ":", "//", "#", "/*", "*/", '"',
           "\n\n", "int g() { return 1; }\n", "def g():\n    pass\n", "fn g() {}\n",
           "class K {}\n", "class K:\n    a = 1\n", "/** doc */\n", "// note\n",
           "@Deco\n", "#[inline]\n", "x = 1;\n", "import a.b;\n", "export const c = 1;\n"]


def _largest(lang: str) -> Path:
    return max((p for p in SOURCES if lang_of(p).name == lang),
               key=lambda p: (p.stat().st_size, p.as_posix()))


@pytest.mark.parametrize("lang", LANGS)
def test_incremental_outline_in_every_language(lang: str) -> None:
    """Random edits to each language's largest fixture (tests/edits.py), against a full
    extraction of the document's own tree; most of them are updates, not fallbacks."""
    src = _largest(lang)
    text = src.read_text(encoding="utf-8")
    if not text.isascii():
        text = text.encode("ascii", errors="replace").decode()
    updates = assert_incremental_outlines(lang_of(src), text, GENERIC, seed=len(lang),
                                          steps=120, same_tree=True)
    assert updates >= 60, updates


DECLARATION_EDITS = {  # case: (new top-level declarations, a statement per body kind, seed)
    "go/cache/cache.go": (
        ["func g() {\n\treturn\n}\n\n", "// K is a key.\ntype K struct {\n\tA int\n}\n\n",
         "var q = 1\n\n", "const (\n\tX = 2\n\tY\n)\n\n", "// Doc.\n",
         "func (c *Cache[K, V]) H() {\n\ttype L struct{ n int }\n\t_ = L{}\n}\n\n",
         "type (\n\tA struct{ a int }\n\tB int\n)\n\n"],
        {"struct": "\tzz int\n", "interface": "\tZ()\n", "": "\t_ = 0\n"}, 5),
}


@pytest.mark.parametrize("case", sorted(DECLARATION_EDITS))
def test_incremental_outline_of_edits_that_keep_the_file_valid(case: str) -> None:
    """Renames, new statements and fields, new and deleted top-level declarations (some
    with doc comments), inside and outside bodies (tests/edits.py)."""
    tops, statements, seed = DECLARATION_EDITS[case]
    src = FIXTURES / case
    assert_incremental_declaration_edits(lang_of(src), src.read_text(encoding="utf-8"), tops,
                                         statements, seed=seed)
