"""Rust: outline, header and skeletons of the fixture and of literal sources (grammars/rust)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from ctxls import protocol as p
from ctxls.requests.read import read_symbol
from ctxls.syntax import languages
from ctxls.syntax.document import Document
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import Outline, outline_source
from ctxls.syntax.skeleton import Rendering, SkeletonOptions, render, split_lines
from ctxls.syntax.symbols import enclosing, resolve
from ctxls.workspace import Workspace
from tests.edits import assert_incremental_outlines

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "rust" / "cache.rs"
ALWAYS = SkeletonOptions(whole_max_lines=0, whole_max_tokens=0, flat_ratio=0)
PLAIN = SkeletonOptions(line_numbers=False, whole_max_lines=0, whole_max_tokens=0, flat_ratio=0)


@pytest.fixture(scope="module")
def rust() -> Language:
    return languages.registry()["rust"]


@pytest.fixture(scope="module")
def source() -> str:
    return FIXTURE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def outline(rust: Language, source: str) -> Outline:
    return outline_source(rust, source.encode())


def skel(rust: Language, src: str, target: str | None = None,
         opts: SkeletonOptions = ALWAYS) -> Rendering:
    o = outline_source(rust, src.encode())
    decl = resolve(o, target, "t.rs") if target else None
    return render(o, split_lines(src), rust.elision, rust.line_comment, decl, None, opts)


def reparses(rust: Language, text: str) -> bool:
    return not rust.parser().parse(text.encode()).root_node.has_error


def test_registry_claims_rs(rust: Language) -> None:
    assert languages.for_path("src/lib.rs") is rust
    assert rust.is_test_file("src/cache_test.rs") and rust.is_test_file("tests.rs")
    assert not rust.is_test_file("src/cache.rs")


def test_fixture_outline(outline: Outline) -> None:
    # (kind, qualname, parents, first row with its doc comments and attributes, 1-based)
    got = [(d.kind, d.qualname, d.parents, d.span.start_row + 1) for d in outline.decls]
    assert got == [
        ("constant", "EVICT_BATCH", (), 7),
        ("variable", "DEFAULT_CAPACITY", (), 9),
        ("struct", "Cache", (), 11),
        ("field", "Cache.map", ("Cache",), 16),
        ("field", "Cache.order", ("Cache",), 18),
        ("field", "Cache.capacity", ("Cache",), 20),
        ("field", "Cache.hits", ("Cache",), 21),
        ("enum", "Miss", (), 24),
        ("trait", "Evict", (), 32),
        ("method", "Evict.evict", ("Evict",), 34),
        ("method", "Evict.evict_batch", ("Evict",), 37),
        ("impl", "Cache", (), 45),
        ("method", "Cache.new", ("Cache",), 46),
        ("method", "Cache.get", ("Cache",), 56),
        ("method", "Cache.put", ("Cache",), 66),
        ("method", "Cache.len", ("Cache",), 74),
        ("impl", "Cache", (), 79),
        ("method", "Cache.evict", ("Cache",), 80),
        ("impl", "Cache", (), 95),
        ("method", "Cache.fmt", ("Cache",), 96),
        ("function", "log_eviction", (), 103),
        ("function", "default_cache", (), 109),
        ("function", "cached", (), 115),
        ("namespace", "tests", (), 124),
        ("constant", "tests.KEY", ("tests",), 128),
        ("function", "tests.put_then_get", ("tests",), 130),
        ("function", "tests.evicts_oldest_first", ("tests",), 137),
        ("function", "tests.macro_falls_back", ("tests",), 146),
    ]
    whole = [d.qualname for d in outline.decls if d.keep_whole]
    assert whole == ["Cache", "Miss"]
    # Trait signatures have no body; default methods do.
    bodies = {d.qualname: d.body is not None for d in outline.decls if d.parents == ("Evict",)}
    assert bodies == {"Evict.evict": False, "Evict.evict_batch": True}


def test_fixture_header(outline: Outline, source: str) -> None:
    lines = source.splitlines()
    header = [(h.kind, lines[h.span.start_row]) for h in outline.header]
    assert header == [
        ("import", "use std::collections::{HashMap, VecDeque};"),
        ("import", "use std::fmt::{self, Display};"),
        ("import", "use std::hash::Hash;"),
        ("constant", "pub const EVICT_BATCH: usize = 32;"),
        ("constant", "static DEFAULT_CAPACITY: usize = 1024;"),
    ]  # `use super::*;` and `const KEY` inside `mod tests` are not the file's header


def test_impl_signature_is_its_header(outline: Outline, source: str) -> None:
    lines = source.splitlines()
    sigs = [lines[d.signature.start_row][d.signature.start_col:d.signature.end_col]
            for d in outline.decls if d.kind == "impl"]
    assert sigs == ["impl<K: Hash + Eq + Clone, V> Cache<K, V>",
                    "impl<K: Hash + Eq + Clone, V> Evict for Cache<K, V>",
                    "impl<K, V> Display for Cache<K, V>"]


def test_resolve_and_lineage(outline: Outline) -> None:
    assert resolve(outline, "Cache", "cache.rs").kind == "struct"  # the type, not its impls
    evict = resolve(outline, "Cache.evict", "cache.rs")
    assert (evict.kind, evict.span.start_row + 1) == ("method", 80)
    assert resolve(outline, "evict_batch", "cache.rs").qualname == "Evict.evict_batch"
    # A method's enclosing scope: the struct (kept whole) and every impl block of it.
    put = resolve(outline, "Cache.put", "cache.rs")
    assert [(d.kind, d.span.start_row + 1) for d in enclosing(outline, put)] == [
        ("struct", 11), ("impl", 45), ("impl", 79), ("impl", 95)]


def test_fixture_skeleton_with_method_target(rust: Language, source: str) -> None:
    r = skel(rust, source, "Cache.put", PLAIN)
    assert r.mode == "skeleton"
    assert reparses(rust, r.text)
    lines = r.text.splitlines()
    # The header and the enclosing scope: imports, constants, the struct whole with its
    # derive and doc comments, the impl header with generics (and trait, for the others).
    for kept in ("use std::fmt::{self, Display};",
                 "pub const EVICT_BATCH: usize = 32;",
                 "/// Invariant: a key leaves `index` before it leaves `map`.",
                 "#[derive(Debug, Clone)]",
                 "    hits: u64,",
                 "    Expired { age_ms: u64 },",
                 "impl<K: Hash + Eq + Clone, V> Cache<K, V> {",
                 "impl<K: Hash + Eq + Clone, V> Evict for Cache<K, V> {",
                 "    fn evict(&mut self, count: usize) -> usize;",
                 "#[cfg(test)]",
                 "    #[test]"):
        assert kept in lines, kept
    # The target in full.
    assert "        self.order.push_back(key.clone());" in lines
    # Sibling bodies elided: methods, the trait's default method, free functions, tests.
    # (`cached!` stays: its expansion's first tokens share a line, so no row is its own.)
    elided = {e.symbol: e.last - e.first + 1 for e in r.elided}
    assert elided == {"Evict.evict_batch": 3, "Cache.new": 6, "Cache.get": 7,
                      "Cache.evict": 11, "Cache.fmt": 3, "log_eviction": 3,
                      "default_cache": 2, "tests.put_then_get": 3,
                      "tests.evicts_oldest_first": 5, "tests.macro_falls_back": 2}
    assert "        /* 7 lines elided */" in lines
    assert "        self.hits += 1;" not in lines


def test_fixture_skeleton_without_target_reparses(rust: Language, source: str) -> None:
    r = skel(rust, source, None, PLAIN)
    assert reparses(rust, r.text)
    assert "    pub fn put(&mut self, key: K, value: V) {" in r.text.splitlines()
    assert "        self.map.insert(key, value);" not in r.text


SMALL = textwrap.dedent('''\
    use std::fmt;

    mod ext;

    impl fmt::Display for crate::ext::Token<'_> {
        fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("token")?;
            Ok(())
        }
    }

    impl<T: Copy> Pick for &T {
        fn pick(&self) -> T {
            let t = **self;
            t
        }
    }

    impl Pick for u8 {
        fn pick(&self) -> u8 { *self }
    }
''')


def test_impl_names_and_exact_skeleton(rust: Language) -> None:
    o = outline_source(rust, SMALL.encode())
    assert [(d.kind, d.qualname) for d in o.decls] == [
        ("namespace", "ext"), ("impl", "Token"), ("method", "Token.fmt"),
        ("impl", "&T"), ("method", "&T.pick"), ("impl", "u8"), ("method", "u8.pick")]
    r = skel(rust, SMALL, "u8.pick")
    assert r.text == textwrap.dedent('''\
         1 | use std::fmt;
         2 |
         3 | mod ext;
         4 |
         5 | impl fmt::Display for crate::ext::Token<'_> {
         6 |     fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
           |         /* 2 lines elided */
         9 |     }
        10 | }
        11 |
        12 | impl<T: Copy> Pick for &T {
        13 |     fn pick(&self) -> T {
           |         /* 2 lines elided */
        16 |     }
        17 | }
        18 |
        19 | impl Pick for u8 {
        20 |     fn pick(&self) -> u8 { *self }
        21 | }
        ''')


def test_macros_are_declarations(rust: Language) -> None:
    src = textwrap.dedent('''\
        macro_rules! square {
            ($x:expr) => {
                $x
                    * $x
            };
        }

        macro_rules! pair {
            ($a:expr) => { ($a, $a) };
            ($a:expr, $b:expr) => { ($a, $b) };
        }
    ''')
    o = outline_source(rust, src.encode())
    assert [(d.kind, d.name, d.body is not None) for d in o.decls] == [
        ("function", "square", True), ("function", "pair", False)]
    r = skel(rust, src, None, PLAIN)
    assert reparses(rust, r.text)
    assert "        /* 2 lines elided */" in r.text.splitlines()


def test_read_symbol_carries_uses_struct_and_impl_headers(tmp_path: Path) -> None:
    shutil.copy(FIXTURE, tmp_path / "cache.rs")
    r = read_symbol(Workspace([tmp_path]).snapshot(),
                    p.ReadSymbolParams(path="cache.rs", name="Cache.put"))
    assert r.symbol == "Cache.put" and r.kind == "method"
    # Rows are numbered to the file's width (151 lines: 3 digits).
    assert r.text.splitlines() == [
        '    | /* 2 lines elided */',
        '    | // ctxls: context (imports, enclosing declarations) for Cache.put',
        '  3 | use std::collections::{HashMap, VecDeque};',
        '  4 | use std::fmt::{self, Display};',
        '  5 | use std::hash::Hash;',
        '    | /* 5 lines elided */',
        ' 11 | /// One cached value and its bookkeeping.',
        ' 12 | ///',
        ' 13 | /// Invariant: a key leaves `index` before it leaves `map`.',
        ' 14 | #[derive(Debug, Clone)]',
        ' 15 | pub struct Cache<K, V> {',
        ' 16 |     /// Values by key.',
        ' 17 |     map: HashMap<K, V>,',
        ' 18 |     /// Keys, least recently used first.',
        ' 19 |     order: VecDeque<K>,',
        ' 20 |     capacity: usize,',
        ' 21 |     hits: u64,',
        ' 22 | }',
        '    | /* 22 lines elided */',
        ' 45 | impl<K: Hash + Eq + Clone, V> Cache<K, V> {',
        '    | /* 20 lines elided */',
        ' 66 |     pub fn put(&mut self, key: K, value: V) {',
        ' 67 |         if self.map.len() >= self.capacity {',
        ' 68 |             self.evict(1);',
        ' 69 |         }',
        ' 70 |         self.order.push_back(key.clone());',
        ' 71 |         self.map.insert(key, value);',
        ' 72 |     }',
        '    | /* 6 lines elided */',
        ' 79 | impl<K: Hash + Eq + Clone, V> Evict for Cache<K, V> {',
        '    | /* 15 lines elided */',
        ' 95 | impl<K, V> Display for Cache<K, V> {',
        '    | /* 56 lines elided */',
    ]
    t = read_symbol(Workspace([tmp_path]).snapshot(), p.ReadSymbolParams(path="cache.rs",
                                                          name="tests.put_then_get"))
    lines = t.text.splitlines()
    at = lines.index("124 | #[cfg(test)]")  # the module's attribute, then its header
    assert lines[at + 1 : at + 5] == ["125 | mod tests {", "    | /* 4 lines elided */",
                                      "130 |     #[test]", "131 |     fn put_then_get() {"]


def test_incremental_outline_equals_full_extraction(rust: Language, source: str) -> None:
    snippets = ["x", " ", "\n", "}\n", "{", "fn g() {\n    1\n}\n", "#[inline]\n",
                "/// doc\n", "impl A {\n    fn h(&self) {}\n}\n", "const C: u8 = 1;\n",
                "use a::b;\n", "mod m {\n}\n", "struct P { a: u8 }\n"]
    assert_incremental_outlines(rust, source, snippets, seed=7)


def incremental(rust: Language, text: str, at: tuple[int, int], new: str) -> tuple[
        Outline | None, Outline]:
    """(outline after an incremental edit, outline of the edited text from scratch)."""
    doc = Document(rust, text, 1)
    doc.outline()
    doc.edit(at, at, new, "utf-16", 2)
    lines = text.split("\n")
    row, col = at
    lines[row] = lines[row][:col] + new + lines[row][col:]
    return doc.outline(), outline_source(rust, "\n".join(lines).encode())


def test_an_attribute_typed_above_a_function(rust: Language) -> None:
    got, want = incremental(rust, "fn a() {\n    1\n}\n\nfn b() {\n    2\n}\n", (3, 0),
                            "#[inline]")
    assert got == want  # b starts at its attribute (row 3)


def test_a_newline_typed_before_the_closing_brace_of_a_member(rust: Language) -> None:
    got, want = incremental(rust, "trait T {\n    fn a() {\n        let x = 1;\n        x\n"
                            "    }\n}\n", (4, 4), "\n")
    assert got == want  # T's body now ends on row 5
