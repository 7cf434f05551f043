"""textDocument/definition on names that are not calls: constants in expressions, types in
annotations, module variables and module attributes, in Python and other languages; a name
in a string or a comment goes nowhere.

Each workspace holds only the files a test writes. Python targets are checked against the
stdlib ``ast`` reading the same text, other languages against the line that declares them.
"""

from __future__ import annotations

import ast
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from lsprotocol import types as t
from pytest_lsp import LanguageClient

from .conftest import call


@pytest.fixture
def workspace(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """Only the marker's files (folders made as needed), not the example workspace."""
    root = tmp_path / "ws"
    root.mkdir()
    for marker in request.node.iter_markers("workspace_files"):
        for path, text in marker.args[0].items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
    return root


async def definition(client: LanguageClient, path: str, snippet: str, word: str,
                     ) -> tuple[str, int, str] | None:
    """(path, row, line text) that definition gives for ``word`` inside the only line of
    ``path`` holding ``snippet``, the cursor in the middle of the word."""
    root: Path = client.root  # type: ignore[attr-defined]
    await call(client, "ctx/status", {"wait": True})
    lines = (root / path).read_text().splitlines()
    rows = [i for i, line in enumerate(lines) if snippet in line]
    assert len(rows) == 1, (snippet, rows)
    col = lines[rows[0]].index(snippet) + snippet.index(word) + len(word) // 2
    found = await client.text_document_definition_async(t.DefinitionParams(
        t.TextDocumentIdentifier((root / path).as_uri()), t.Position(rows[0], col)))
    if found is None:
        return None
    assert isinstance(found, t.Location)
    target = Path(unquote(urlparse(found.uri).path))
    text = target.read_text().splitlines()[found.range.start.line]
    assert text[found.range.start.character:].startswith(word), (text, word)
    return target.relative_to(root).as_posix(), found.range.start.line, text


def defined_at(root: Path, path: str, name: str) -> tuple[str, int]:
    """Where ``ast`` says module ``path`` binds ``name`` at its top level: (path, row)."""
    for node in ast.parse((root / path).read_text()).body:
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, ast.AnnAssign) else [])
        if any(isinstance(x, ast.Name) and x.id == name for x in targets) or (
                isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name == name):
            return path, node.lineno - 1
    raise AssertionError(f"{path} does not bind {name}")


PYTHON = {
    "pkg/__init__.py": "",
    "pkg/consts.py": ('"""Limits."""\n\nTIMEOUT = 30\nMAX_DISCOUNT: float = 0.9\n'
                      "PRIX_CAFÉ = 2\n"),
    "pkg/money.py": ("class Money:\n    ZERO = 0\n\n"
                     "    def __init__(self, cents: int) -> None:\n"
                     "        self.cents = cents\n\n"
                     "    def is_zero(self) -> bool:\n"
                     "        return self.cents == Money.ZERO\n"),
    "pkg/shop.py": (
        '"""A shop. MAX_DISCOUNT caps every discount."""\n\n'
        "from pkg import consts\n"
        "from pkg.consts import MAX_DISCOUNT\n"
        "from pkg.money import Money\n\n"
        "LIMIT = 3\n"
        "rate = 0.5  # shadowed by the function's own\n"
        'CONFIG = {"currency": "EUR"}\n\n\n'
        "def discounted(price: Money, n: int) -> Money:\n"
        "    rate = price.cents * MAX_DISCOUNT\n"
        "    capped = min(n, LIMIT) + consts.PRIX_CAFÉ\n"
        "    wait = consts.TIMEOUT\n"
        '    label = "no MAX_DISCOUNT here"  # nor LIMIT here\n'
        '    print(rate, capped, wait, label, CONFIG["currency"])\n'
        "    return price\n"),
}
SHOP = "pkg/shop.py"


@pytest.mark.workspace_files(PYTHON)
async def test_python_constant_in_an_expression(vscode: LanguageClient) -> None:
    root: Path = vscode.root  # type: ignore[attr-defined]
    found = await definition(vscode, SHOP, "price.cents * MAX_DISCOUNT", "MAX_DISCOUNT")
    assert found and found[:2] == defined_at(root, "pkg/consts.py", "MAX_DISCOUNT")
    found = await definition(vscode, SHOP, "min(n, LIMIT)", "LIMIT")  # the file's own
    assert found and found[:2] == defined_at(root, SHOP, "LIMIT")
    found = await definition(vscode, SHOP, "consts.PRIX_CAFÉ", "PRIX_CAFÉ")  # not ASCII
    assert found and found[:2] == defined_at(root, "pkg/consts.py", "PRIX_CAFÉ")


@pytest.mark.workspace_files(PYTHON)
async def test_python_type_annotations(vscode: LanguageClient) -> None:
    """``Money`` is imported and only ever used in annotations, never called."""
    root: Path = vscode.root  # type: ignore[attr-defined]
    want = defined_at(root, "pkg/money.py", "Money")
    found = await definition(vscode, SHOP, "(price: Money", "Money")
    assert found and found[:2] == want
    found = await definition(vscode, SHOP, "-> Money:", "Money")
    assert found and found[:2] == want


@pytest.mark.workspace_files(PYTHON)
async def test_python_module_variable_and_attribute(vscode: LanguageClient) -> None:
    root: Path = vscode.root  # type: ignore[attr-defined]
    found = await definition(vscode, SHOP, 'CONFIG["currency"]', "CONFIG")
    assert found and found[:2] == defined_at(root, SHOP, "CONFIG")
    found = await definition(vscode, SHOP, "consts.TIMEOUT", "TIMEOUT")
    assert found and found[:2] == defined_at(root, "pkg/consts.py", "TIMEOUT")
    found = await definition(vscode, SHOP, "price.cents *", "cents")  # typed parameter
    assert found and found[0] == "pkg/money.py" and "self.cents = cents" in found[2]


@pytest.mark.workspace_files(PYTHON)
async def test_python_members_of_self_and_of_a_class(vscode: LanguageClient) -> None:
    money = "pkg/money.py"
    found = await definition(vscode, money, "self.cents ==", "cents")
    assert found and found[0] == money and "self.cents = cents" in found[2]
    found = await definition(vscode, money, "Money.ZERO", "ZERO")
    assert found and found[0] == money and found[2].strip() == "ZERO = 0"


@pytest.mark.workspace_files(PYTHON)
async def test_python_names_in_strings_and_comments_do_not_resolve(
        vscode: LanguageClient) -> None:
    assert await definition(vscode, SHOP, "price.cents * MAX_DISCOUNT", "MAX_DISCOUNT")
    assert await definition(vscode, SHOP, '"no MAX_DISCOUNT here"', "MAX_DISCOUNT") is None
    assert await definition(vscode, SHOP, "nor LIMIT here", "LIMIT") is None
    assert await definition(vscode, SHOP, "A shop. MAX_DISCOUNT caps", "MAX_DISCOUNT") is None
    # A function's local is not the module's `rate`.
    assert await definition(vscode, SHOP, "rate = price", "rate") is None


# (workspace files, cases: (file, snippet, word, (target file, a snippet of its line) or
# None for no answer)). Each language: a constant in an expression, a parameter's and a
# return type, a module variable, a module attribute, and the name again in a string.
LANGUAGES = {
    "typescript": ({
        "src/consts.ts": "export const TIMEOUT = 30;\nexport const MAX_DISCOUNT = 0.9;\n",
        "src/money.ts": "export class Money {\n  constructor(public cents: number) {}\n}\n",
        "src/shop.ts": (
            'import * as consts from "./consts";\n'
            'import { MAX_DISCOUNT } from "./consts";\n'
            'import { Money } from "./money";\n\n'
            "let config = { currency: 'EUR' };\n\n"
            "export function discounted(price: Money): Money {\n"
            "  const rate = price.cents * MAX_DISCOUNT;\n"
            "  const wait = consts.TIMEOUT;\n"
            '  const label = "no MAX_DISCOUNT here";\n'
            "  console.log(rate, wait, label, config.currency);\n"
            "  return price;\n"
            "}\n"),
    }, [
        ("src/shop.ts", "* MAX_DISCOUNT;", "MAX_DISCOUNT", ("src/consts.ts", "MAX_DISCOUNT =")),
        ("src/shop.ts", "(price: Money", "Money", ("src/money.ts", "class Money")),
        ("src/shop.ts", "): Money {", "Money", ("src/money.ts", "class Money")),
        ("src/shop.ts", "config.currency)", "config", ("src/shop.ts", "let config")),
        ("src/shop.ts", "consts.TIMEOUT", "TIMEOUT", ("src/consts.ts", "TIMEOUT =")),
        ("src/shop.ts", '"no MAX_DISCOUNT here"', "MAX_DISCOUNT", None),
    ]),
    "go": ({
        "go.mod": "module example.com/shop\n\ngo 1.21\n",
        "consts/consts.go": "package consts\n\nconst Timeout = 30\n\nvar Config = \"EUR\"\n",
        "money/money.go": "package money\n\ntype Money struct {\n\tCents int\n}\n",
        "shop/shop.go": (
            "package shop\n\n"
            'import (\n\t"example.com/shop/consts"\n\t"example.com/shop/money"\n)\n\n'
            "const MaxDiscount = 90\n\n"
            "func Discounted(price money.Money) money.Money {\n"
            "\trate := price.Cents * MaxDiscount / 100\n"
            "\twait := consts.Timeout\n"
            '\tlabel := "no MaxDiscount here"\n'
            "\t_, _, _ = wait, label, consts.Config\n"
            "\treturn money.Money{Cents: rate}\n"
            "}\n"),
    }, [
        ("shop/shop.go", "* MaxDiscount /", "MaxDiscount", ("shop/shop.go", "const MaxDiscount")),
        ("shop/shop.go", "(price money.Money", "Money", ("money/money.go", "type Money")),
        ("shop/shop.go", ") money.Money {", "Money", ("money/money.go", "type Money")),
        ("shop/shop.go", "consts.Config", "Config", ("consts/consts.go", "var Config")),
        ("shop/shop.go", "consts.Timeout", "Timeout", ("consts/consts.go", "const Timeout")),
        ("shop/shop.go", '"no MaxDiscount here"', "MaxDiscount", None),
    ]),
    "rust": ({
        "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\n',
        "src/main.rs": "mod consts;\nmod money;\nmod shop;\n\nfn main() {}\n",
        "src/consts.rs": "pub const TIMEOUT: u32 = 30;\npub static CONFIG: &str = \"EUR\";\n",
        "src/money.rs": "pub struct Money {\n    pub cents: u32,\n}\n",
        "src/shop.rs": (
            "use crate::consts;\n"
            "use crate::money::Money;\n\n"
            "const MAX_DISCOUNT: u32 = 90;\n\n"
            "pub fn discounted(price: Money) -> Money {\n"
            "    let rate = price.cents * MAX_DISCOUNT / 100;\n"
            "    let wait = consts::TIMEOUT;\n"
            '    let label = "no MAX_DISCOUNT here";\n'
            '    println!("{} {} {}", wait, label, consts::CONFIG);\n'
            "    Money { cents: rate }\n"
            "}\n"),
    }, [
        ("src/shop.rs", "* MAX_DISCOUNT /", "MAX_DISCOUNT", ("src/shop.rs", "const MAX_DISCOUNT")),
        ("src/shop.rs", "(price: Money", "Money", ("src/money.rs", "struct Money")),
        ("src/shop.rs", "-> Money {", "Money", ("src/money.rs", "struct Money")),
        ("src/shop.rs", "consts::CONFIG", "CONFIG", ("src/consts.rs", "static CONFIG")),
        ("src/shop.rs", "consts::TIMEOUT", "TIMEOUT", ("src/consts.rs", "const TIMEOUT")),
        ("src/shop.rs", '"no MAX_DISCOUNT here"', "MAX_DISCOUNT", None),
    ]),
    "java": ({
        "src/main/java/com/shop/Consts.java": (
            "package com.shop;\n\npublic final class Consts {\n"
            "  public static final int TIMEOUT = 30;\n}\n"),
        "src/main/java/com/shop/money/Money.java": (
            "package com.shop.money;\n\npublic class Money {\n  public int cents;\n}\n"),
        "src/main/java/com/shop/Shop.java": (
            "package com.shop;\n\nimport com.shop.money.Money;\n\n"
            "public class Shop {\n"
            "  static final int MAX_DISCOUNT = 90;\n"
            "  private String config = \"EUR\";\n\n"
            "  public Money discounted(Money price) {\n"
            "    int rate = price.cents * MAX_DISCOUNT / 100;\n"
            "    int wait = Consts.TIMEOUT;\n"
            '    String label = "no MAX_DISCOUNT here";\n'
            "    System.out.println(rate + wait + label + config.length());\n"
            "    return price;\n"
            "  }\n}\n"),
    }, [
        ("src/main/java/com/shop/Shop.java", "* MAX_DISCOUNT /", "MAX_DISCOUNT",
         ("src/main/java/com/shop/Shop.java", "int MAX_DISCOUNT")),
        ("src/main/java/com/shop/Shop.java", "(Money price)", "Money",
         ("src/main/java/com/shop/money/Money.java", "class Money")),
        ("src/main/java/com/shop/Shop.java", "public Money discounted", "Money",
         ("src/main/java/com/shop/money/Money.java", "class Money")),
        ("src/main/java/com/shop/Shop.java", "config.length()", "config",
         ("src/main/java/com/shop/Shop.java", "String config")),
        ("src/main/java/com/shop/Shop.java", "Consts.TIMEOUT", "TIMEOUT",
         ("src/main/java/com/shop/Consts.java", "int TIMEOUT")),
        ("src/main/java/com/shop/Shop.java", '"no MAX_DISCOUNT here"', "MAX_DISCOUNT", None),
    ]),
}


def _language(name: str) -> pytest.MarkDecorator:
    return pytest.mark.workspace_files(LANGUAGES[name][0])


async def _check(client: LanguageClient, name: str) -> None:
    wrong = []
    for path, snippet, word, want in LANGUAGES[name][1]:
        found = await definition(client, path, snippet, word)
        got = (found[0], found[2]) if found else None
        if not (got is None if want is None
                else got is not None and got[0] == want[0] and want[1] in got[1]):
            wrong.append((snippet, word, want, got))
    assert not wrong


@_language("typescript")
async def test_typescript_names(vscode: LanguageClient) -> None:
    await _check(vscode, "typescript")


@_language("go")
async def test_go_names(vscode: LanguageClient) -> None:
    await _check(vscode, "go")


@_language("rust")
async def test_rust_names(vscode: LanguageClient) -> None:
    await _check(vscode, "rust")


@_language("java")
async def test_java_names(vscode: LanguageClient) -> None:
    await _check(vscode, "java")
