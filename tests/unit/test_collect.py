"""Gathering a window's candidates from a snapshot of a small literal project.

Each test writes a few files, indexes them as the scan would, takes a snapshot and calls
``collect``: which candidates it finds, with which relation, and which original rows each
rendering shows, without a server or the later stages.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ctxls import protocol as p
from ctxls.context.collect import collect
from ctxls.context.items import Collected
from ctxls.context.model import Evidence
from ctxls.errors import InvalidParams
from ctxls.index.scan import index_batch
from ctxls.workspace import Workspace

PROJECT = {
    "shop/__init__.py": "",
    "shop/money.py": """\
        from decimal import Decimal

        CENTS = Decimal("0.01")


        def round_money(x):
            return x.quantize(CENTS)


        class Money:
            def __init__(self, amount):
                self.amount = amount

            def add(self, other):
                return Money(self.amount + other.amount)
        """,
    "shop/base.py": """\
        class Priced:
            def __init__(self):
                self.currency = "EUR"

            def label(self):
                return self.currency
        """,
    "shop/cart.py": """\
        from shop import money
        from shop.base import Priced
        from shop.money import Money, round_money

        LIMIT = 10


        class Cart(Priced):
            def __init__(self):
                super().__init__()
                self.items = []

            def add(self, price):
                if len(self.items) >= LIMIT:
                    raise ValueError("full")
                self.items.append(price)

            def total(self):
                return round_money(sum(i.amount for i in self.items))

            def reset(self):
                self.items = []
                self.seen = 0
        """,
    "shop/checkout.py": """\
        from shop.cart import Cart


        def checkout(cart: Cart):
            return cart.total()
        """,
    "tests/conftest.py": """\
        import pytest


        @pytest.fixture
        def cart():
            from shop.cart import Cart
            return Cart()
        """,
    "tests/test_cart.py": """\
        from shop.cart import Cart


        def test_total_is_rounded():
            cart = Cart()
            cart.add(1)
            assert cart.total() == 1
        """,
}


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    files = []
    for rel, text in PROJECT.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(textwrap.dedent(text))
        files.append((rel, str(tmp_path / rel)))
    ws = Workspace([tmp_path])
    # skeletons even of these short files, so that they elide something
    ws.options.whole_max_lines = ws.options.whole_max_tokens = 0
    ws.options.flat_ratio = 0
    ws.add(index_batch(files, 1 << 20))
    return ws


def gather(ws: Workspace, path: str, symbol: str, **kw: object) -> Collected:
    params = p.ConstructParams(path=path, target=p.Target(symbol=symbol), **kw)  # type: ignore[arg-type]
    return collect(ws.snapshot(path, refs=True), params)


def found(got: Collected) -> list[tuple[str, str | None, str | None]]:
    return [(e.relation, e.path, e.symbol) for e in got.items]


def rows(e: Evidence, rendering: str) -> list[int]:
    """1-based original lines a rendering shows."""
    return [r + 1 for a, b in e.renderings[rendering].shown for r in range(a, b + 1)]


def item(got: Collected, relation: str, symbol: str | None = None) -> Evidence:
    return next(e for e in got.items if e.relation == relation
                and (symbol is None or e.symbol == symbol))


def test_a_method_brings_what_it_uses_its_callers_and_its_tests(ws: Workspace) -> None:
    got = gather(ws, "shop/cart.py", "Cart.total", task="Round the total half-even")
    assert got.target == "shop/cart.py::Cart.total"
    assert found(got) == [
        ("task", None, None),
        ("target", "shop/cart.py", "Cart.total"),
        ("fields", "shop/cart.py", "Cart.<fields>"),  # `seen` is first set in reset()
        ("base", "shop/base.py", "Priced"),
        ("dependency", "shop/cart.py", "Cart.items"),
        ("dependency", "shop/money.py", "round_money"),
        ("import", "shop/base.py", None),
        ("import", "shop/money.py", None),  # Money: round_money is a dependency already
        ("module-interface", "shop/money.py", None),  # `from shop import money`
        ("caller", "shop/checkout.py", "checkout"),  # `cart: Cart` proves the receiver
        ("test", "tests/test_cart.py", "test_total_is_rounded"),
        ("setup", "tests/conftest.py", None),
        ("digest", None, None),
    ]
    assert rows(item(got, "fields"), "verbatim") == [23]
    assert {1, 2, 3, 5} <= set(rows(item(got, "base"), "signature"))  # class, members, self.x
    assert rows(item(got, "import", None), "signature") == [1]  # class Priced
    assert rows(item(got, "module-interface"), "signature")[0] == 3  # CENTS, not imported
    assert rows(item(got, "caller"), "signature") == [1, 4, 5]  # import, def, the call
    assert item(got, "setup").label == "conftest"  # labelled by the runner's file name
    assert got.exemplars == {"tests/test_cart.py::test_total_is_rounded"}  # shown whole
    digest = item(got, "digest").content
    assert digest.startswith("1 callers (1 as call sites), 1 direct calls from tests, "
                             "0 unproven name matches, 2 tests")


def test_the_target_can_fall_to_lighter_renderings(ws: Workspace) -> None:
    target = item(gather(ws, "shop/cart.py", "Cart.total"), "target")
    assert {"verbatim", "excerpt", "focused", "signature", "name"} <= set(target.renderings)
    assert rows(target, "signature") == [1, 2, 3, 8, 18]  # imports, class, signature
    assert 19 in rows(target, "focused") and 13 not in rows(target, "focused")
    assert {13, 19, 21} <= set(rows(target, "excerpt"))  # siblings' first lines too
    assert 15 not in rows(target, "verbatim") and 19 in rows(target, "verbatim")


def test_intent_state_brings_the_methods_that_change_the_same_attributes(
        ws: Workspace) -> None:
    got = gather(ws, "shop/cart.py", "Cart.total", intent="state")
    assert [e.symbol for e in got.items if e.relation == "state"] == [
        "Cart.__init__", "Cart.add", "Cart.reset"]


def test_an_obligation_names_a_test_the_import_graph_did_not_reach(ws: Workspace) -> None:
    got = gather(ws, "shop/base.py", "Priced.label", obligations=[p.Obligation(
        id="o1", text="label", tests=["tests/test_cart.py::test_total_is_rounded"])])
    named = item(got, "named-test")
    assert (named.source, named.symbol) == ("07", "test_total_is_rounded")
    assert ("plan", None, None) in found(got)
    # the same test reached through the call graph: found by impact, still named
    got = gather(ws, "shop/money.py", "round_money", obligations=[p.Obligation(
        id="o1", text="round", tests=["test_total_is_rounded"])])
    assert (item(got, "named-test").source, item(got, "named-test").provenance) == (
        "06", "06: PreserveObligation — calls Cart.total, a caller of round_money (line 7)")


def test_an_obligation_target_by_bare_name_is_found_across_the_workspace(ws: Workspace) -> None:
    """A name the home file does not declare is looked for in the files of its language
    that declare it (read from their payloads' heads: no other file is decoded)."""
    for e in ws.entries.values():  # (as a scan leaves them)
        if e.tables is not None:
            e.tables.release(encode_first=True)
    got = gather(ws, "shop/base.py", "Priced.label", obligations=[p.Obligation(
        id="o1", text="keep money exact", targets=["Money.add"])])
    assert (item(got, "obligation-target").path, item(got, "obligation-target").symbol) == (
        "shop/money.py", "Money.add")
    decoded = {e.path for e in ws.entries.values() if e.tables is not None and e.tables.decoded}
    assert "shop/checkout.py" not in decoded  # (before money.py in path order; no `add`)


def test_live_output_becomes_live_items_with_their_own_kind(ws: Workspace) -> None:
    got = gather(ws, "shop/cart.py", "Cart.add", live=[
        p.LiveItem("patch", "+ x"), p.LiveItem("traceback", "ValueError: full")])
    live = [(e.kind, e.source, e.label) for e in got.items if e.relation == "live"]
    assert live == [("patch", "patch", "patch"), ("traceback", "live", "traceback")]
    with pytest.raises(InvalidParams, match=r"live\[0\]\.kind must be one of patch"):
        gather(ws, "shop/cart.py", "Cart.add", live=[p.LiveItem("opinion", "x")])


def test_a_generated_file_is_excluded_and_its_schema_offered(ws: Workspace,
                                                             tmp_path: Path) -> None:
    (tmp_path / "shop/order_pb2.py").write_text(
        "# Generated by the protocol buffer compiler.  DO NOT EDIT!\n\n\n"
        "def Order():\n    return 1\n")
    (tmp_path / "proto").mkdir()
    (tmp_path / "proto/order.proto").write_text('syntax = "proto3";\nmessage Order {}\n')
    (tmp_path / "shop/use.py").write_text(
        "from shop.order_pb2 import Order\n\n\ndef make():\n    return Order()\n")
    ws.add(index_batch([(f, str(tmp_path / f)) for f in
                        ("shop/order_pb2.py", "proto/order.proto", "shop/use.py")], 1 << 20))
    got = gather(ws, "shop/use.py", "make")
    dep = item(got, "dependency", "Order")
    assert dep.excluded_by.startswith("generated file") and not dep.writable
    assert item(got, "instead").path == "proto/order.proto"


def test_a_generated_files_schema_is_found_by_its_stem(ws: Workspace, tmp_path: Path) -> None:
    """The schema offered instead of a generated file is the listed schema file whose name
    up to its first dot is the generated file's stem (looked up by stem, not by matching
    every listed path), whatever folder it is in; another schema is not offered."""
    (tmp_path / "shop/invoice_pb2.py").write_text(
        "# Generated by the protocol buffer compiler.  DO NOT EDIT!\n\n\n"
        "def Invoice():\n    return 1\n")
    (tmp_path / "api/v1").mkdir(parents=True)
    (tmp_path / "api/v1/invoice.v1.proto").write_text('syntax = "proto3";\n')
    (tmp_path / "api/v1/receipt.proto").write_text('syntax = "proto3";\n')
    (tmp_path / "api/v1/invoice.txt").write_text("not a schema\n")
    (tmp_path / "shop/bill.py").write_text(
        "from shop.invoice_pb2 import Invoice\n\n\ndef bill():\n    return Invoice()\n")
    ws.add(index_batch([(f, str(tmp_path / f)) for f in (
        "shop/invoice_pb2.py", "api/v1/invoice.v1.proto", "api/v1/receipt.proto",
        "api/v1/invoice.txt", "shop/bill.py")], 1 << 20))
    got = gather(ws, "shop/bill.py", "bill")
    assert [e.path for e in got.items if e.relation == "instead"] == ["api/v1/invoice.v1.proto"]
    snap = ws.snapshot()
    stems = {k.rsplit("/", 1)[-1].split(".")[0] for k in ws.entries}
    for stem in stems:  # against every listed path's own stem
        assert snap.stemmed(stem, tmp_path) == sorted(
            e.path for e in ws.entries.values() if e.path.rsplit("/", 1)[-1].split(".")[0] == stem)


def test_a_file_without_an_outline_is_a_window_of_lines(ws: Workspace,
                                                        tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("".join(f"line {i}\n" for i in range(300)))
    got = gather(ws, "notes.txt", "line")
    assert got.target == "notes.txt:1"
    assert [e.relation for e in got.items] == ["target"]
    assert "without dependencies, call sites or tests" in got.notes[-1]


def _written(tmp_path: Path, files: dict[str, str]) -> Workspace:
    """A workspace of ``files`` written under tmp_path, indexed as the scan would."""
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    ws = Workspace([tmp_path])
    ws.add(index_batch([(rel, str(tmp_path / rel)) for rel in files], 1 << 20))
    return ws


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths snapshots read whole from now on, in order."""
    from ctxls.snapshot import Snapshot

    read: list[str] = []
    real = Snapshot._read_view

    def reading(self: Snapshot, loc: object, keep: object) -> object:
        read.append(loc.path)  # type: ignore[attr-defined]
        return real(self, loc, keep)  # type: ignore[arg-type]

    monkeypatch.setattr(Snapshot, "_read_view", reading)
    return read


def test_the_modules_own_test_is_looked_for_only_where_its_names_are(
        ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test calls `vat`: the window shows the module's own test, the first test file
    importing the module whose tests name its declarations; a test file that imports it
    and names none of them is not read whole (a Java package's hundred test files all
    import their module)."""
    files = {"shop/tax.py": "RATE = 20\n\n\ndef vat(x):\n    return x * RATE / 100\n",
             "tests/test_a.py": "from shop import tax\n\n\ndef test_a():\n    assert tax\n",
             "tests/test_b.py": "from shop import tax\n\n\ndef test_b():\n"
                                "    assert tax.RATE > 0\n"}
    for rel, text in files.items():
        (tmp_path / rel).write_text(text)
    ws.add(index_batch([(rel, str(tmp_path / rel)) for rel in files], 1 << 20))
    read = _reads(monkeypatch)
    got = gather(ws, "shop/tax.py", "vat")
    own = item(got, "module-test")
    assert (own.path, own.symbol) == ("tests/test_b.py", "test_b")
    assert "tests/test_b.py" in read and "tests/test_a.py" not in read


def test_an_import_of_a_package_shows_the_file_declaring_what_the_importer_uses(
        tmp_path: Path) -> None:
    """A Go package is every file of its folder: the interface an import of it shows is
    the file declaring most of the names the importer uses (`store.Open`: open.go), not
    the first in path order, nor a test file declaring them too."""
    files = {
        "go.mod": "module example.com/app\n\ngo 1.22\n",
        "store/alpha.go": "package store\n\nfunc Alpha() int { return 1 }\n",
        "store/open.go": "package store\n\ntype DB struct{}\n\nfunc Open() *DB { return nil }\n",
        "store/open_test.go": "package store\n\nfunc Close() {}\nfunc Flush() {}\n",
        "cmd/main.go": ("package main\n\nimport \"example.com/app/store\"\n\n"
                        "func main() {\n\tdb := store.Open()\n\t_ = db\n\tClose()\n"
                        "\tFlush()\n}\n"),
    }
    ws = _written(tmp_path, files)
    got = gather(ws, "cmd/main.go", "main")
    assert [e.path for e in got.items if e.relation == "module-interface"] == ["store/open.go"]


def test_a_csharp_modules_own_test_is_found_by_the_classes_its_namespace_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """C#'s `namespace Shop.Billing { static class PriceMath }` declares PriceMath at the
    top of its module: the module's own test is the one naming it. The namespace itself is
    no word a test names: every file using it was read whole looking for it (osu's 419
    test files, 170 ms a window), and none was ever found."""
    files = {
        "src/Billing/PriceMath.cs": (
            "namespace Shop.Billing\n{\n    public static class PriceMath\n    {\n"
            "        public static int Cents(decimal amount) => (int)(amount * 100);\n"
            "    }\n}\n"),
        "tests/OtherTests.cs": (
            "using Shop.Billing;\n\nnamespace Shop.Tests\n{\n    public class OtherTests\n"
            "    {\n        public void Nothing() { Assert.True(true); }\n    }\n}\n"),
        "tests/PriceMathTests.cs": (
            "using Shop.Billing;\n\nnamespace Shop.Tests\n{\n    public class PriceMathTests\n"
            "    {\n        public void Rounds() { Assert.Equal(1, PriceMath.Cents(0.01m)); }\n"
            "    }\n}\n"),
    }
    ws = _written(tmp_path, files)
    read = _reads(monkeypatch)
    got = gather(ws, "src/Billing/PriceMath.cs", "Shop.Billing.PriceMath")
    own = item(got, "module-test")
    assert (own.path, own.symbol) == ("tests/PriceMathTests.cs",
                                      "Shop.Tests.PriceMathTests.Rounds")
    assert "tests/OtherTests.cs" not in read
