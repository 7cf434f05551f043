"""References over the real server on the pricing example of seed 003."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsprotocol import types as t
from pytest_lsp import LanguageClient

from .conftest import call

PRICING = "billing/pricing.py"


async def _uses(client: LanguageClient, path: str, row: int,
                col: int) -> set[tuple[str, int, int]]:
    """(path, line, character) of every reference textDocument/references gives for the
    name at a position, the declaration left out."""
    root: Path = client.root  # type: ignore[attr-defined]
    found = await client.text_document_references_async(t.ReferenceParams(
        context=t.ReferenceContext(include_declaration=False),
        text_document=t.TextDocumentIdentifier((root / path).as_uri()),
        position=t.Position(row, col)))
    return {(Path(r.uri.removeprefix("file://")).relative_to(root).as_posix(),
             r.range.start.line, r.range.start.character) for r in found or []}


async def test_call_sites_of_compute_line_total(vscode: LanguageClient) -> None:
    root: Path = vscode.root  # type: ignore[attr-defined]
    await call(vscode, "ctx/status", {"wait": True})
    r = await call(vscode, "ctx/references", {"path": PRICING, "name": "compute_line_total"})
    assert r["symbol"] == "compute_line_total" and r["complete"] is True
    sites = {(s["path"], s["enclosing"]) for s in r["references"]}
    assert ("billing/invoice.py", "InvoiceLine.total") in sites  # direct import
    assert ("billing/checkout.py", "Cart.subtotal") in sites  # through an alias
    assert ("billing/reports.py", "revenue_by_sku") in sites  # module attribute
    assert not any(s["path"].startswith("experiments/") for s in r["references"])
    assert not any(p == "billing/ui.py" for p, _ in sites)
    alias = next(s for s in r["references"] if s["path"] == "billing/checkout.py")
    assert "line_total(" in alias["text"] and "compute_line_total as line_total" in alias["header"]
    for s in r["references"]:  # each site's header is its own file's import lines
        lines = (root / s["path"]).read_text().splitlines()
        assert s["header"] and all(
            lines[int(n) - 1] == text for n, text in re.findall(r"^ *(\d+) \| ?(.*)$",
                                                                s["header"], re.M))
    row = alias["range"]["start"]["line"]
    line = (root / "billing/checkout.py").read_text().splitlines()[row]
    assert line[alias["range"]["start"]["character"]:].startswith("line_total(")


async def test_an_edit_that_adds_a_call_is_seen_without_restart(vscode: LanguageClient) -> None:
    root: Path = vscode.root  # type: ignore[attr-defined]
    await call(vscode, "ctx/status", {"wait": True})
    ui = root / "billing/ui.py"
    text = ui.read_text()
    uri = ui.as_uri()
    vscode.text_document_did_open(t.DidOpenTextDocumentParams(
        t.TextDocumentItem(uri, "python", 1, text)))
    added = ("\n\nfrom billing.pricing import compute_line_total\n\n\n"
             "def preview(q, p):\n    return compute_line_total(q, p)\n")
    end = len(text.splitlines())
    vscode.text_document_did_change(t.DidChangeTextDocumentParams(
        t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [t.TextDocumentContentChangePartial(
            range=t.Range(t.Position(end, 0), t.Position(end, 0)), text=added)]))
    r = await call(vscode, "ctx/references", {"path": PRICING, "name": "compute_line_total"})
    assert ("billing/ui.py", "preview") in {(s["path"], s["enclosing"]) for s in r["references"]}


async def test_lsp_definition_and_references(vscode: LanguageClient) -> None:
    root: Path = vscode.root  # type: ignore[attr-defined]
    await call(vscode, "ctx/status", {"wait": True})
    checkout = root / "billing/checkout.py"
    lines = checkout.read_text().splitlines()
    row = next(i for i, x in enumerate(lines) if "line_total(" in x and "import" not in x)
    col = lines[row].index("line_total(")
    where = t.TextDocumentPositionParams(t.TextDocumentIdentifier(checkout.as_uri()),
                                         t.Position(row, col + 2))
    found = await vscode.text_document_definition_async(t.DefinitionParams(
        where.text_document, where.position))
    assert isinstance(found, t.Location) and found.uri == (root / PRICING).as_uri()
    target_line = (root / PRICING).read_text().splitlines()[found.range.start.line]
    assert target_line.startswith("def compute_line_total(")
    refs = await vscode.text_document_references_async(t.ReferenceParams(
        context=t.ReferenceContext(include_declaration=True),
        text_document=where.text_document, position=where.position))
    assert refs and refs[0].uri == found.uri
    assert {r.uri for r in refs} >= {checkout.as_uri(), (root / "billing/invoice.py").as_uri()}


async def test_unknown_receivers_are_candidates_not_references(vscode: LanguageClient) -> None:
    await call(vscode, "ctx/status", {"wait": True})
    r = await call(vscode, "ctx/references", {"path": "billing/cache.py",
                                              "name": "ShardedLRUCache.get"})
    assert all("has no known type" in s["evidence"] for s in r["candidates"])
    assert all(s["evidence"] != "" for s in r["references"])


async def test_tests_of_a_symbol_with_evidence_and_conftest(vscode: LanguageClient) -> None:
    await call(vscode, "ctx/status", {"wait": True})
    r = await call(vscode, "ctx/tests", {"path": PRICING, "name": "compute_line_total"})
    by = {(t["path"], t["symbol"]): t["evidence"] for t in r["tests"]}
    assert by[("tests/test_pricing.py", "test_line_total_plain")].startswith(
        "calls compute_line_total directly")
    assert "a caller of compute_line_total" in by[("tests/test_pricing.py", "test_reports")]
    assert by[("tests/conftest.py", None)].startswith("conftest.py that pytest loads")
    assert not any(p.startswith("tests/test_tokens") for p, _ in by)
    assert r["complete"] is True


async def test_dependencies_of_a_body(vscode: LanguageClient) -> None:
    await call(vscode, "ctx/status", {"wait": True})
    r = await call(vscode, "ctx/dependencies", {"path": "auth/tokens.py",
                                                "name": "refresh_token"})
    deps = {(d["path"], d["symbol"], d["relation"]) for d in r["dependencies"]}
    assert ("auth/tokens.py", "DEFAULT_TTL", "constant") in deps
    assert ("auth/tokens.py", "_mint", "call") in deps
    assert ("auth/session.py", "Session.revoke", "call") in deps  # typed by its annotation
    assert ("auth/types.py", "Token", "import") in deps
    r = await call(vscode, "ctx/dependencies", {"path": "billing/cache.py",
                                                "name": "ShardedLRUCache._evict"})
    assert {d["symbol"] for d in r["dependencies"] if d["relation"] == "attribute"} >= {
        "ShardedLRUCache._shards", "ShardedLRUCache._index"}


MONEY = '''"""Money."""


class Money:
    cents: int = 0


def make(cents: int) -> "Money":
    return Money()
'''
USES = '''import billing.coins as coins
from billing.coins import Money
from billing.coins import Money as Cash


class Wallet(Money):
    """Holds Money."""  # the docstring and this comment say Money: no use

    def add(self, m: Money, *rest: Cash) -> Money:
        if isinstance(m, (Money, int)):
            return m
        return coins.Money()

    def label(self, Money: str) -> str:  # a parameter shadows the class here
        return Money.upper()

    def local(self) -> str:
        Money = "x"
        return Money

    def keyword(self) -> object:
        return dict(Money=1, cash=Cash)

    def show(self) -> str:
        return f"{Money.__name__} in a string: Money"  # code inside the f-string only


FACTORY = Money
'''


@pytest.mark.workspace_files({"billing/coins.py": MONEY, "billing/wallet.py": USES})
async def test_references_list_every_use_of_a_class(vscode: LanguageClient) -> None:
    """textDocument/references on a class: its annotations, base classes, isinstance
    arguments, imports, module attributes, aliases and value uses, against an ``ast`` walk
    of the files (names in strings, comments, keyword names and shadowing scopes are not)."""
    import ast

    root: Path = vscode.root  # type: ignore[attr-defined]
    await call(vscode, "ctx/status", {"wait": True})
    truth: set[tuple[str, int, int]] = set()
    for rel, text in (("billing/coins.py", MONEY), ("billing/wallet.py", USES)):
        tree = ast.parse(text)
        shadowing = {n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and (
            any(a.arg == "Money" for a in n.args.args) or any(
                isinstance(t, ast.Name) and t.id == "Money" and isinstance(t.ctx, ast.Store)
                for t in ast.walk(n)))}
        hidden = {id(x) for f in shadowing for x in ast.walk(f)}
        for n in ast.walk(tree):
            if isinstance(n, ast.Name) and n.id in ("Money", "Cash") and isinstance(
                    n.ctx, ast.Load) and id(n) not in hidden:
                truth.add((rel, n.lineno - 1, n.col_offset))
            elif isinstance(n, ast.Attribute) and n.attr == "Money":
                truth.add((rel, n.end_lineno - 1, n.end_col_offset - len("Money")))  # type: ignore[operator]
            elif isinstance(n, ast.ImportFrom):
                line = text.splitlines()[n.lineno - 1]
                truth |= {(rel, n.lineno - 1, line.index(" Money") + 1)
                          for a in n.names if a.name == "Money"}
    coins = root / "billing/coins.py"
    row = MONEY.splitlines().index("class Money:")
    refs = await vscode.text_document_references_async(t.ReferenceParams(
        context=t.ReferenceContext(include_declaration=False),
        text_document=t.TextDocumentIdentifier(coins.as_uri()), position=t.Position(row, 7)))
    got = {(Path(r.uri.removeprefix("file://")).relative_to(root).as_posix(),
            r.range.start.line, r.range.start.character) for r in refs or []}
    assert got == truth
    assert len(truth) >= 10


RATE = '''__all__ = ["Rate", "other"]


class Rate:
    def __init__(self, cents: int) -> None:
        self._cents = cents

    @property
    def cents(self) -> int:
        return self._cents

    @cents.setter
    def cents(self, value: int) -> None:
        self._cents = value

    def bump(self) -> None:
        self.cents = self.cents + 1


def make() -> Rate:
    return Rate(1)
'''


@pytest.mark.workspace_files({"billing/rate.py": RATE})
async def test_references_of_a_property_an_init_and_an_export(vscode: LanguageClient) -> None:
    """A property's setter and its reads and writes; `__init__` at the class's calls; the
    class in `__all__`."""
    root: Path = vscode.root  # type: ignore[attr-defined]
    await call(vscode, "ctx/status", {"wait": True})
    lines = RATE.splitlines()
    uri = (root / "billing/rate.py").as_uri()

    async def refs(row: int, col: int) -> set[tuple[int, int]]:
        found = await vscode.text_document_references_async(t.ReferenceParams(
            context=t.ReferenceContext(include_declaration=False),
            text_document=t.TextDocumentIdentifier(uri), position=t.Position(row, col)))
        return {(r.range.start.line, r.range.start.character) for r in found or []}

    getter = lines.index("    def cents(self) -> int:")
    setter = lines.index("    def cents(self, value: int) -> None:")
    bump = lines.index("        self.cents = self.cents + 1")
    assert {(setter, 8), (bump, 13), (bump, 26)} <= await refs(getter, 8)
    init = lines.index("    def __init__(self, cents: int) -> None:")
    assert await refs(init, 8) == {(lines.index("    return Rate(1)"), 11)}
    assert (0, 12) in await refs(lines.index("class Rate:"), 6)


PRICE_TS = '''export interface Price {
  cents: number;
}

export function makePrice(cents: number): Price {
  return { cents };
}
'''
CART_TS = '''import {
  type Price,
  makePrice,
} from './price';

export function total(prices: Price[]): Price {
  const Price = 'shadow';  // a local of the same name: not a use
  return makePrice(prices.reduce((sum, p) => sum + p.cents, 0) + Price.length);
}

export const FACTORY: (c: number) => Price = makePrice;
'''


@pytest.mark.workspace_files({"billing/price.ts": PRICE_TS, "billing/cart.ts": CART_TS})
async def test_typescript_references_list_types_and_imports(vscode: LanguageClient) -> None:
    """TypeScript: a multi-line import, type annotations, a function passed as a value;
    not a local that shadows the name."""
    await call(vscode, "ctx/status", {"wait": True})
    price = await _uses(vscode, "billing/price.ts", 0, 17)
    want = {("billing/cart.ts", 1, 7), ("billing/price.ts", 4, 42),
            ("billing/cart.ts", 5, 30), ("billing/cart.ts", 5, 40),
            ("billing/cart.ts", 10, 37)}
    assert want <= price, price
    assert not any(row in (6, 7) for p, row, _ in price if p == "billing/cart.ts")
    make = await _uses(vscode, "billing/price.ts", 4, 16)
    assert {("billing/cart.ts", 2, 2), ("billing/cart.ts", 7, 9),
            ("billing/cart.ts", 10, 45)} <= make


MONEY_GO = '''package billing

type Money struct {
	Cents int
}

func Add(a, b Money) Money {
	return Money{Cents: a.Cents + b.Cents}
}
'''

LEDGER_GO = '''package billing

var zero = &Money{}

type Ledger struct {
	total *Money
}

func (l *Ledger) Post(m Money) []Money {
	return []Money{m}
}

func shadow() {
	Money := 3
	_ = Money
}

func combine() func(a, b Money) Money {
	return Add
}
'''


@pytest.mark.workspace_files({"go.mod": "module example.com/shop\n\ngo 1.21\n",
                              "billing/money.go": MONEY_GO, "billing/ledger.go": LEDGER_GO})
async def test_go_references_list_types_and_function_values(vscode: LanguageClient) -> None:
    """Go: a type named in another file of the package (a composite literal, a field, a
    receiver's parameter, a result, a slice), a function returned as a value; not a local
    that shadows the name, nor the declaration itself."""
    await call(vscode, "ctx/status", {"wait": True})

    want = {(path, row, m.start()) for path, text in (("billing/money.go", MONEY_GO),
                                                      ("billing/ledger.go", LEDGER_GO))
            for row, line in enumerate(text.splitlines())
            for m in re.finditer(r"\bMoney\b", line)
            if (path, row) != ("billing/money.go", 2) and "Money :=" not in line
            and "_ = Money" not in line}
    assert len(want) == 10
    assert await _uses(vscode, "billing/money.go", 2, 5) == want
    assert await _uses(vscode, "billing/money.go", 6, 5) == {("billing/ledger.go", 18, 8)}


MONEY_PHP = '''<?php
namespace App;

class Money
{
    public int $cents = 0;
}
'''

LEDGER_PHP = '''<?php
namespace App\\Books;

use App\\Money;

class Ledger extends Money
{
    private Money $total;

    public function post(Money $m): Money
    {
        $Money = 3;
        return new Money();
    }
}
'''


@pytest.mark.workspace_files({"Money.php": MONEY_PHP, "Ledger.php": LEDGER_PHP})
async def test_php_references_list_type_hints_imports_and_new(vscode: LanguageClient) -> None:
    """PHP: a `use` import (placed where its qualified name starts, as intelephense places
    it), `extends`, property, parameter and return type hints, `new`; not a `$variable` of
    the same name."""
    await call(vscode, "ctx/status", {"wait": True})
    got = await _uses(vscode, "Money.php", 3, 6)
    want = {("Ledger.php", row, line.index("App") if line.startswith("use ") else m.start())
            for row, line in enumerate(LEDGER_PHP.splitlines())
            for m in re.finditer(r"(?<![$\w])Money\b", line)}
    assert len(want) == 6
    assert got == want
