"""Java's every use (textDocument/references): each declaration's uses against javac's own
binding of every name (`bench/truth/JavaUses.java`, run on the same files), and the text
readers that tell overloads apart."""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from ctxls.index.scan import index_batch
from ctxls.requests.overloads import _operands
from ctxls.requests.uses import uses
from ctxls.syntax import arity
from ctxls.workspace import Workspace

TRUTH = Path(__file__).resolve().parents[2] / "bench" / "truth" / "JavaUses.java"

FILES = {
    "src/main/java/shop/cart/Cart.java": """\
        package shop.cart;

        import java.util.ArrayList;
        import java.util.List;
        import java.util.function.Function;
        import shop.money.Money;
        import shop.money.Prices;

        public class Cart {
            public static Cart empty() {
                return new Cart();
            }

            private final List<Money> lines = new ArrayList<>();
            private Money.Rounding rounding = new Money.Rounding(2);
            int count;

            public Cart add(Money price) {
                lines.add(price);
                count = count + 1;
                return this;
            }

            public Cart add(String text) {
                return add(Prices.of(text));
            }

            public Money total() {
                Money total = Prices.sum(lines);
                return rounding.apply(total.add(5L).add(1, 2).times(3));
            }

            public int count(int count) {
                return this.count + count;
            }

            public List<Money> doubled() {
                Function<Money, Money> twice = money -> money.times(2);
                List<Money> out = new ArrayList<>();
                for (Money line : lines) {
                    out.add(twice.apply(line));
                }
                lines.forEach(Money::cents);
                Object any = lines.isEmpty() ? null : lines.get(0);
                if (any instanceof Money found && found.count() > 0) {
                    out.add((Money) any);
                }
                out.addAll(Prices.of("1", "2"));
                return out;
            }
        }
        """,
    "src/main/java/shop/report/Checks.java": """\
        package shop.report;

        /** A fluent API returning its own type: `S`, bounded by the class. */
        public class Checks<S extends Checks<S>> {
            int seen;

            @SuppressWarnings("unchecked")
            public S seen(int n) {
                seen += n;
                return (S) this;
            }

            public S done() {
                return seen(0);
            }
        }
        """,
    "src/main/java/shop/report/Report.java": """\
        package shop.report;

        import shop.cart.Cart;
        import shop.money.*;

        public class Report {
            static class ReportChecks extends Checks<ReportChecks> {
            }

            static class Draft {
                Draft done() {
                    return this;
                }
            }

            public String line(Money price) {
                Money doubled = price.times(2);
                ReportChecks checks = new ReportChecks();
                checks.seen(1).done();
                long none = Cart.empty().total().cents();  // typed by the last call's return
                return doubled.cents() + " cents";
            }
        }
        """,
    "src/main/java/shop/money/Money.java": """\
        package shop.money;

        /** An amount in cents. */
        public class Money implements Comparable<Money> {
            public static final Money ZERO = new Money(0);
            private final long cents;
            private int count;

            public Money(long cents) {
                this.cents = cents;
            }

            public Money(String text) {
                this(Long.parseLong(text));
            }

            /** The amount; no private helper, whatever a doc comment says. */
            public long cents() {
                return cents;
            }

            public int count() {
                return count;
            }

            public Money add(Money other) {
                count++;
                return new Money(cents + other.cents);
            }

            public Money add(long more) {
                return new Money(this.cents + more);
            }

            public Money add(long more, int times) {
                return add(more * times);
            }

            public Money times(int factor) {
                return new Money(cents * factor);
            }

            public Money times(double factor) {
                return new Money(Math.round(cents * factor));
            }

            @Override
            public int compareTo(Money other) {
                return Long.compare(cents, other.cents);
            }

            public static class Rounding {
                final int places;

                public Rounding(int places) {
                    this.places = places;
                }

                public Money apply(Money money) {
                    return money.times(1.0);
                }
            }
        }
        """,
    "src/main/java/shop/money/Prices.java": """\
        package shop.money;

        import java.util.ArrayList;
        import java.util.List;

        public final class Prices {
            private Prices() {
            }

            public static Money of(String text) {
                return new Money(text);
            }

            public static List<Money> of(String... texts) {
                List<Money> out = new ArrayList<>();
                for (String text : texts) {
                    out.add(of(text));
                }
                return out;
            }

            public static Money sum(List<Money> prices) {
                Money total = Money.ZERO;
                for (Money price : prices) {
                    total = total.add(price);
                }
                return total;
            }
        }
        """,
}

# What javac binds that the text cannot show: (declaration, use) -> why. Anything else that
# differs fails the test.
KNOWN = {
    # `new Money(Math.round(...))`: a library method's result, of no known type, may be
    # passed to either constructor
    ("Money.Money@12", "extra", "src/main/java/shop/money/Money.java", 43, 19),
    # `any instanceof Money found && found.count()`: a pattern's binding types no receiver
    ("Money.count@21", "missed", "src/main/java/shop/cart/Cart.java", 44, 48),
    # `money -> money.times(2)`: a lambda's parameter, typed by inference only
    ("Money.times@38", "missed", "src/main/java/shop/cart/Cart.java", 37, 54),
}


def _javac_uses(root: Path) -> dict[tuple[str, int, int], set[tuple[str, int, int]]]:
    out = subprocess.run(["java", str(TRUTH), str(root)], capture_output=True, text=True,
                         check=True, timeout=300).stdout
    found: dict[tuple[str, int, int], set[tuple[str, int, int]]] = {}
    for line in out.splitlines():
        up, ul, uc, dp, dl, dc = line.split("\t")
        if (up, ul, uc) != (dp, dl, dc):
            found.setdefault((dp, int(dl), int(dc)), set()).add((up, int(ul), int(uc)))
    return found


@pytest.mark.skipif(shutil.which("java") is None,
                    reason="no JDK (scripts/test-deps.sh installs one)")
def test_every_use_of_every_java_declaration_is_what_javac_binds(tmp_path: Path) -> None:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(textwrap.dedent(text))
    truth = _javac_uses(tmp_path)
    assert sum(map(len, truth.values())) > 60  # (the truth itself read the files)
    ws = Workspace([tmp_path])
    ws.add(index_batch([(rel, str(tmp_path / rel)) for rel in FILES], 1 << 20))
    snap = ws.snapshot(refs=True)
    differ = set()
    checked = 0
    for rel in FILES:
        key = str(tmp_path / rel)
        for d in snap.refs.files[key].outline.decls:
            at = (rel, d.name_span.start_row, d.name_span.start_col)
            mine = {(r.path, r.call.row, r.call.col) for r in uses(snap, key, d)}
            want = truth.get(at, set())
            label = f"{d.qualname}@{d.name_span.start_row}"
            differ |= {(label, "missed", *u) for u in want - mine}
            differ |= {(label, "extra", *u) for u in mine - want}
            checked += bool(want)
    assert checked >= 20
    assert differ == KNOWN


def test_an_argument_list_is_read_from_the_text_after_the_name() -> None:
    def args(text: str) -> list[str] | None:
        found = arity.arguments(text.encode(), text.index("f") + 1)
        return None if found is None else [a.decode().strip() for a in found]

    assert args("f()") == [] and args("f( )") == []
    assert args('f(a, g(b, c), "x, (y", \')\', new int[] {1, 2})') == [
        "a", "g(b, c)", '"x, (y"', "')'", "new int[] {1, 2}"]
    assert args('f("say \\"hi, there\\"", b)') == ['"say \\"hi, there\\""', "b"]
    assert args("f\n  (a,\n   b)") == ["a", "b"]
    assert args("f.x(a)") is None and args("f(a, b") is None  # no list; one never closed
    # a declaration's parameters: type arguments nest, a variable count is its last
    params = arity.parameters(b"f(Map<String, List<Long>> m, String... rest)", 1)
    assert params is not None and [p.decode() for p in params] == [
        "Map<String, List<Long>> m", " String... rest"]


def test_an_expression_is_split_at_its_arithmetic_operators_only() -> None:
    assert _operands("cents * factor") == ["cents", "*", "factor"]
    assert _operands('"n=" + n.size()') == ['"n="', "+", "n.size()"]
    assert _operands("-5") == ["-5"] and _operands("a * -b") == ["a", "*", "-b"]
    assert _operands("f(a - b)") == ["f(a - b)"]  # inside a call: the call's
    assert _operands("a > b ? 1 : 2") == ["a > b ? 1 : 2"]  # a condition: not arithmetic
    assert _operands("x -> x + 1") == ["x -> x + 1"]
    assert _operands('"a-b"') == ['"a-b"']


def test_what_a_chain_calls_last_is_read_from_its_text() -> None:
    assert arity.callee("Observable.just(1).test()") == "Observable.just(1).test"
    assert arity.callee("a.b(x, g(y)).c(z)") == "a.b(x, g(y)).c"
    assert arity.callee("rows\n    .stream()\n    .count()") == "rows.stream().count"
    assert arity.callee("new Foo()") is None and arity.callee("a.b") is None
