"""textDocument/documentSymbol obeys LSP's tree rules on every fixture file of every
language: each declaration listed once, every child inside its parent's range, every
selection range inside its symbol's range; and members sit where editors show them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxls.syntax import languages
from ctxls.syntax.outline import outline_source
from ctxls_client import CtxClient

from .conftest import FIXTURES, copy_fixtures

JAVA = """package a;

class Money {
    int add(int a) { return a; }
    int add(int a, int b) { return a + b; }
    static class Parts {
        int add(int a) { return a; }
    }
}
"""
RUBY = """module Billing
  def self.one; end
end

module Billing
  def self.two; end
end
"""


def pos(p: dict[str, int]) -> tuple[int, int]:
    return p["line"], p["character"]


def inside(inner: dict[str, Any], outer: dict[str, Any]) -> bool:
    return pos(outer["start"]) <= pos(inner["start"]) and pos(inner["end"]) <= pos(outer["end"])


def walk(symbols: list[dict[str, Any]], parent: dict[str, Any] | None = None,
         depth: int = 0) -> list[tuple[dict[str, Any], dict[str, Any] | None, int]]:
    out = []
    for s in symbols:
        out.append((s, parent, depth))
        out += walk(s.get("children") or [], s, depth + 1)
    return out


async def test_document_symbols_keep_the_tree_rules(tmp_path: Path) -> None:
    root = copy_fixtures(FIXTURES, tmp_path / "fx")
    (root / "cases_java").mkdir()
    (root / "cases_java/Money.java").write_text(JAVA)
    (root / "cases_ruby").mkdir()
    (root / "cases_ruby/billing.rb").write_text(RUBY)
    files = sorted(p for p in root.rglob("*") if p.is_file() and languages.for_path(str(p)))
    assert len({languages.for_path(str(p)).name for p in files}) >= 8  # type: ignore[union-attr]
    trees: dict[str, list[tuple[dict[str, Any], dict[str, Any] | None, int]]] = {}
    async with await CtxClient.start(root, options={"persist": False}) as ctx:
        for path in files:
            rel = path.relative_to(root).as_posix()
            got = await ctx.document_symbols(rel)
            flat = walk(got)
            trees[rel] = flat
            # each declaration of the file's outline once (same count, no repeated entry)
            outline = outline_source(languages.for_path(rel), path.read_bytes())  # type: ignore[arg-type]
            assert len(flat) == len(outline.decls), rel
            keys = [(s["name"], pos(s["range"]["start"]), pos(s["range"]["end"]))
                    for s, _, _ in flat]
            assert len(keys) == len(set(keys)), rel
            for s, parent, _ in flat:
                assert inside(s["selectionRange"], s["range"]), (rel, s["name"])
                if parent is not None:
                    assert inside(s["range"], parent["range"]), (rel, s["name"], parent["name"])

    def names(rel: str, depth: int | None = None) -> list[str]:
        return [s["name"] for s, _, d in trees[rel] if depth is None or d == depth]

    def children(rel: str, name: str) -> list[list[str]]:
        return [[c["name"] for c in s["children"]] for s, _, _ in trees[rel] if s["name"] == name]

    # Rust: methods under their impl blocks (named by their headers), fields under the struct
    rust = "rust/cache.rs"
    impls = [n for n in names(rust, 0) if n.startswith("impl")]
    assert len(impls) == 3 and any(" for Cache" in n for n in impls), impls
    assert children(rust, "Cache") == [["map", "order", "capacity", "hits"]]
    assert sorted(m for i in impls for ms in children(rust, i) for m in ms) == sorted(
        ["new", "get", "put", "len", "evict", "fmt"])
    # Go: a method stands at the top level, named by its receiver; the struct keeps its fields
    go = "go/cache/cache.go"
    assert {"(*Cache).Get", "(*Cache).Put", "Stats.Total"} <= set(names(go, 0))
    assert "Get" not in names(go)
    # Java overloads and a nested class's method each once, where they are declared
    assert children("cases_java/Money.java", "Money") == [["add", "add", "Parts"]]
    assert children("cases_java/Money.java", "Parts") == [["add"]]
    # Ruby: a module opened twice is two entries, each with its own member
    assert [c for c in children("cases_ruby/billing.rb", "Billing")] in (
        [["one"], ["two"]], [["self.one"], ["self.two"]])
