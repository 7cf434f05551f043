"""Java (grammars/java/): outlines, header and skeletons of literal sources and the fixture."""

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
from ctxls.syntax.symbols import resolve
from ctxls.workspace import Workspace

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "java" / "src"
FIXTURE = FIXTURES / "main" / "java" / "com" / "example" / "billing" / "InvoiceService.java"
TEST_FIXTURE = (FIXTURES / "test" / "java" / "com" / "example" / "billing"
                / "InvoiceServiceTest.java")
ALWAYS = SkeletonOptions(whole_max_lines=0, whole_max_tokens=0, flat_ratio=0)
BARE = SkeletonOptions(line_numbers=False, whole_max_lines=0, whole_max_tokens=0, flat_ratio=0)


@pytest.fixture(scope="module")
def java() -> Language:
    return languages.registry()["java"]


def outline(java: Language, source: str) -> Outline:
    return outline_source(java, source.encode())


def table(o: Outline) -> list[tuple[str, str, tuple[str, ...], int]]:
    """(kind, qualname, parents, 1-based first line) of every declaration."""
    return [(d.kind, d.qualname, d.parents, d.span.start_row + 1) for d in o.decls]


def skel(java: Language, source: str, target: str | None = None,
         opts: SkeletonOptions = ALWAYS) -> Rendering:
    o = outline(java, source)
    decl = resolve(o, target, "X.java") if target else None
    return render(o, split_lines(source), java.elision, java.line_comment, decl, None, opts)


def parses(java: Language, text: str) -> bool:
    return not java.parser().parse(text.encode()).root_node.has_error


def test_registry_data(java: Language) -> None:
    lang = languages.for_path("src/main/java/com/example/Foo.java")
    assert lang is not None and lang.name == "java"
    assert [java.is_test_file(f) for f in (
        "InvoiceServiceTest.java", "InvoiceServiceTests.java", "InvoiceServiceIT.java",
        "InvoiceService.java", "TestData.java")] == [True, True, True, False, False]
    assert java.is_test_file(str(TEST_FIXTURE)) and not java.is_test_file(str(FIXTURE))
    # Anything under a Maven/Gradle test tree, whatever its name (paths are relative).
    assert [java.is_test_file(f) for f in (
        "src/test/java/com/example/Fixtures.java", "billing/src/test/java/a/Builders.java",
        "src/main/java/com/example/Tests.java", "src/main/java/com/example/Contest.java",
    )] == [True, True, True, False]
    assert "@Generated" in java.generated_markers and "DO NOT EDIT" in java.generated_markers
    assert java.elision.format(count=3, names="") == "/* 3 lines elided */"


def test_a_body_replaced_by_the_marker_comment_still_parses(java: Language) -> None:
    marker = java.elision.format(count=3, names="; hides run(), class Local")
    assert parses(java, f"class A {{\n  void f() {{\n    {marker}\n  }}\n}}\n")
    assert parses(java, f"class A {{\n  static {{\n    {marker}\n  }}\n}}\n")
    assert parses(java, f"class A {{\n  Runnable r = new Runnable() {{\n    {marker}\n  }};\n}}\n")
    assert not parses(java, "class A {\n  void f() {\n    3 lines elided\n  }\n}\n")  # can fail


def test_fixture_outline(java: Language) -> None:
    o = outline(java, FIXTURE.read_text())
    svc = ("InvoiceService",)
    settlement = ("InvoiceService", "InvoiceService.Settlement")
    status = ("InvoiceService", "InvoiceService.Status")
    totals = ("InvoiceService", "InvoiceService.Totals")
    assert table(o) == [
        ("class", "InvoiceService", (), 18),  # its Javadoc is leading: the span starts there
        ("constant", "InvoiceService.DEFAULT_TERMS_DAYS", svc, 29),
        ("constant", "InvoiceService.MAX_DISCOUNT", svc, 32),
        ("field", "InvoiceService.repository", svc, 34),
        ("field", "InvoiceService.clock", svc, 36),
        ("field", "InvoiceService.currency", svc, 38),
        ("method", "InvoiceService.InvoiceService", svc, 41),
        ("method", "InvoiceService.draft", svc, 53),
        ("method", "InvoiceService.issue", svc, 65),
        ("method", "InvoiceService.overdue", svc, 83),
        ("method", "InvoiceService.totalsFor", svc, 91),
        ("method", "InvoiceService.load", svc, 106),
        ("class", "InvoiceService.Settlement", svc, 111),
        ("field", "InvoiceService.Settlement.invoiceIds", settlement, 113),
        ("field", "InvoiceService.Settlement.amount", settlement, 114),
        ("method", "InvoiceService.Settlement.add", settlement, 116),
        ("method", "InvoiceService.Settlement.amount", settlement, 122),
        ("enum", "InvoiceService.Status", svc, 127),
        ("constant", "InvoiceService.Status.DRAFT", status, 129),
        ("constant", "InvoiceService.Status.ISSUED", status, 130),
        ("constant", "InvoiceService.Status.PAID", status, 131),
        ("constant", "InvoiceService.Status.VOID", status, 132),
        ("class", "InvoiceService.Totals", svc, 135),
        ("method", "InvoiceService.Totals.Totals", totals, 137),
        ("method", "InvoiceService.Totals.outstanding", totals, 142),
    ]
    # The package and every import (static ones too) are the header; nothing else is.
    assert [(h.kind, h.span.start_row + 1) for h in o.header] == [
        ("package", 1), *[("import", n) for n in (3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 16)]]
    service = resolve(o, "InvoiceService", "InvoiceService.java")
    # The signature runs from the class annotations to the end of the type parameters.
    assert (service.signature.start_row + 1, service.signature.end_row + 1) == (25, 27)
    assert resolve(o, "currency", "X.java").signature.start_row + 1 == 38  # its @Value
    assert resolve(o, "overdue", "X.java").signature.start_row + 1 == 83  # its @Transactional
    # Enums of constants alone and records' compact constructors are kept whole.
    assert [d.qualname for d in o.decls if d.keep_whole] == [
        "InvoiceService.Status", "InvoiceService.Totals.Totals"]
    # The constructor's `this.x = ...` statements are what it stores on the instance.
    ctor = resolve(o, "InvoiceService.InvoiceService", "X.java")
    assert ctor.body is not None and ctor.body.members == ((45, 45), (46, 46))


def test_fixture_skeleton_with_a_method_target(java: Language) -> None:
    source = FIXTURE.read_text()
    r = skel(java, source, "InvoiceService.issue")
    assert r.mode == "skeleton" and r.reason == "target"
    lines = r.text.splitlines()
    # (a) without line numbers the skeleton is Java again
    bare = skel(java, source, "InvoiceService.issue", BARE)
    assert parses(java, bare.text)
    # (b) the header and the enclosing scope: package, imports, the class's Javadoc, its
    # annotations and type parameters, its fields with their annotations, the fields the
    # constructor sets, the target whole
    for shown in (
        "  1 | package com.example.billing;",
        "  3 | import java.math.BigDecimal;",
        " 16 | import static java.util.stream.Collectors.toList;",
        " 19 |  * Issues and settles invoices. Every public method runs in a transaction: callers"
        " must not",
        " 25 | @Service",
        " 26 | @Transactional(rollbackFor = BillingException.class)",
        " 27 | public class InvoiceService<C extends Customer, L extends LineItem & Taxable> {",
        " 30 |     public static final int DEFAULT_TERMS_DAYS = 30;",
        " 32 |     private static final BigDecimal MAX_DISCOUNT = new BigDecimal(\"0.25\");",
        " 38 |     @Value(\"${billing.currency:EUR}\")",
        " 39 |     private String currency;",
        " 45 |     public InvoiceService(InvoiceRepository<C, L> repository, Clock clock) {",
        " 46 |         this.repository = Objects.requireNonNull(repository, \"repository\");",
        " 47 |         this.clock = Objects.requireNonNull(clock, \"clock\");",
        " 70 |     public Invoice<C, L> issue(long invoiceId, Discount discount) {",
        " 75 |         BigDecimal rate = discount.rate().min(MAX_DISCOUNT);",
        " 80 |         return repository.save(invoice);",
        " 83 |     @Transactional(readOnly = true)",
        " 84 |     public List<Invoice<C, L>> overdue() {",
        # nested types: the enum whole, the record's components and compact constructor
        "131 |         PAID,",
        "136 |     public record Totals(BigDecimal billed, BigDecimal paid) {",
        "138 |             Objects.requireNonNull(billed, \"billed\");",
    ):
        assert shown in lines, shown
    # (c) sibling bodies elided, one marker line each
    assert [(e.first + 1, e.last + 1, e.symbol) for e in r.elided] == [
        (48, 50, "InvoiceService.InvoiceService"),
        (55, 62, "InvoiceService.draft"),
        (85, 88, "InvoiceService.overdue"),
        (93, 103, "InvoiceService.totalsFor"),
        (107, 108, "InvoiceService.load"),
        (117, 119, "InvoiceService.Settlement.add"),
    ]
    at = lines.index(" 54 |     public Invoice<C, L> draft(C customer, List<L> lines) {")
    assert lines[at : at + 3] == [
        " 54 |     public Invoice<C, L> draft(C customer, List<L> lines) {",
        "    |         /* 8 lines elided */",
        " 63 |     }",
    ]


def test_fixture_skeleton_without_target(java: Language) -> None:
    r = skel(java, FIXTURE.read_text(), None, BARE)
    assert parses(java, r.text)
    # Without a target the constructor is elided whole, from its first statement.
    assert [(e.first + 1, e.last + 1) for e in r.elided][:2] == [(46, 50), (55, 62)]


def test_read_symbol_carries_package_imports_and_annotated_class(java: Language,
                                                                 tmp_path: Path) -> None:
    shutil.copy(FIXTURE, tmp_path / "InvoiceService.java")
    engine = Workspace([tmp_path])
    r = read_symbol(engine.snapshot(), p.ReadSymbolParams(path="InvoiceService.java",
                                              name="InvoiceService.overdue"))
    assert r.symbol == "InvoiceService.overdue" and r.kind == "method"
    assert r.text.splitlines() == [
        "    | // ctxls: context (imports, enclosing declarations) for InvoiceService.overdue",
        "  1 | package com.example.billing;",
        "  2 |",
        "  3 | import java.math.BigDecimal;",
        "  4 | import java.math.RoundingMode;",
        "  5 | import java.time.Clock;",
        "  6 | import java.time.LocalDate;",
        "  7 | import java.util.ArrayList;",
        "  8 | import java.util.List;",
        "  9 | import java.util.Objects;",
        " 10 | import java.util.Optional;",
        " 11 |",
        " 12 | import org.springframework.beans.factory.annotation.Value;",
        " 13 | import org.springframework.stereotype.Service;",
        " 14 | import org.springframework.transaction.annotation.Transactional;",
        " 15 |",
        " 16 | import static java.util.stream.Collectors.toList;",
        " 17 |",
        " 18 | /**",
        " 19 |  * Issues and settles invoices. Every public method runs in a transaction: callers"
        " must not",
        " 20 |  * open their own, and a method that only reads must say so with {@code readOnly}.",
        " 21 |  *",
        " 22 |  * @param <C> the customer type",
        " 23 |  * @param <L> the line-item type",
        " 24 |  */",
        " 25 | @Service",
        " 26 | @Transactional(rollbackFor = BillingException.class)",
        " 27 | public class InvoiceService<C extends Customer, L extends LineItem & Taxable> {",
        "    | /* 55 lines elided */",
        " 83 |     @Transactional(readOnly = true)",
        " 84 |     public List<Invoice<C, L>> overdue() {",
        " 85 |         LocalDate today = LocalDate.now(clock);",
        " 86 |         return repository.findByStatus(Status.ISSUED).stream()",
        " 87 |                 .filter(invoice -> invoice.dueOn().isBefore(today))",
        " 88 |                 .collect(toList());",
        " 89 |     }",
        "    | /* 57 lines elided */",
    ]
    # A member of a nested type carries both enclosing signatures (a record: its components).
    nested = read_symbol(engine.snapshot(), p.ReadSymbolParams(path="InvoiceService.java",
                                                   name="Totals.outstanding"))
    assert nested.symbol == "InvoiceService.Totals.outstanding"
    # (merged ranges: the header through the class signature, then the record's signature)
    assert [(c.start.line + 1, c.end.line + 1) for c in nested.context] == [(1, 27), (135, 136)]


def test_read_symbol_of_an_enum_constant_shows_its_enum(java: Language, tmp_path: Path) -> None:
    shutil.copy(FIXTURE, tmp_path / "InvoiceService.java")
    r = read_symbol(Workspace([tmp_path]).snapshot(), p.ReadSymbolParams(path="InvoiceService.java",
                                                          name="Status.DRAFT"))
    assert "128 |     public enum Status {" in r.text.splitlines()


def test_test_fixture_outline(java: Language) -> None:
    o = outline(java, TEST_FIXTURE.read_text())
    t = ("InvoiceServiceTest",)
    assert table(o) == [
        ("class", "InvoiceServiceTest", (), 16),
        ("field", "InvoiceServiceTest.clock", t, 18),
        ("field", "InvoiceServiceTest.repository", t, 19),
        ("field", "InvoiceServiceTest.service", t, 20),
        ("method", "InvoiceServiceTest.setUp", t, 22),
        ("method", "InvoiceServiceTest.draftRejectsAnEmptyOrder", t, 28),
        ("class", "InvoiceServiceTest.Issue", t, 35),
        ("method", "InvoiceServiceTest.Issue.capsTheDiscount",
         ("InvoiceServiceTest", "InvoiceServiceTest.Issue"), 37),
    ]


SHAPES = """\
package com.example.shapes;

/** Shapes that can be drawn. */
public sealed interface Shape permits Circle, Square {
    double PI2 = Math.PI * 2;

    double area();

    default String describe() {
        String kind = getClass().getSimpleName();
        return kind + " of area " + area();
    }

    static <S extends Shape> S largest(
            java.util.List<S> shapes) {
        S best = null;
        for (S s : shapes) {
            if (best == null || s.area() > best.area()) {
                best = s;
            }
        }
        return best;
    }
}

enum Op {
    PLUS("+") {
        @Override
        int apply(int a, int b) {
            int sum = a + b;
            return sum;
        }
    },
    TIMES("*") {
        @Override
        int apply(int a, int b) { return a * b; }
    };

    private final String symbol;

    Op(String symbol) {
        this.symbol = symbol;
    }

    abstract int apply(int a, int b);
}

@Retention(RetentionPolicy.RUNTIME)
@interface Audited {
    String value() default "";
    int LEVEL = 2;
}

final class Registry {
    static final java.util.Map<String, Shape> SHAPES = new java.util.HashMap<>();
    private static final Runnable RESET = () -> {
        SHAPES.clear();
        System.gc();
    };

    static {
        SHAPES.put("unit", new Circle(1));
        SHAPES.put("square", new Square(1));
    }

    void each(java.util.function.Consumer<Shape> action) {
        Runnable r = new Runnable() {
            private int calls;

            @Override
            public void run() {
                calls++;
                SHAPES.values().forEach(action);
            }
        };
        r.run();
    }
}
"""


def test_interfaces_enums_annotations_and_anonymous_classes(java: Language) -> None:
    o = outline(java, SHAPES)
    assert table(o) == [
        ("interface", "Shape", (), 3),
        ("constant", "Shape.PI2", ("Shape",), 5),
        ("method", "Shape.area", ("Shape",), 7),
        ("method", "Shape.describe", ("Shape",), 9),
        ("method", "Shape.largest", ("Shape",), 14),
        ("enum", "Op", (), 26),
        # an enum constant with a body overrides methods: a container of its own
        ("object", "Op.PLUS", ("Op",), 27),
        ("method", "Op.PLUS.apply", ("Op", "Op.PLUS"), 28),
        ("object", "Op.TIMES", ("Op",), 34),
        ("method", "Op.TIMES.apply", ("Op", "Op.TIMES"), 35),
        ("field", "Op.symbol", ("Op",), 39),
        ("method", "Op.Op", ("Op",), 41),
        ("method", "Op.apply", ("Op",), 45),
        ("interface", "Audited", (), 48),
        ("method", "Audited.value", ("Audited",), 50),
        ("constant", "Audited.LEVEL", ("Audited",), 51),
        ("class", "Registry", (), 54),
        ("constant", "Registry.SHAPES", ("Registry",), 55),
        ("constant", "Registry.RESET", ("Registry",), 56),  # a lambda is no declaration
        ("method", "Registry.static", ("Registry",), 61),  # a static initializer is one
        ("method", "Registry.each", ("Registry",), 66),
        # an anonymous class is no declaration; its method is outlined where it is written,
        # and its field `calls` is not lifted into Registry
        ("function", "Registry.each.run", ("Registry", "Registry.each"), 70),
    ]
    assert [d.qualname for d in o.decls if d.keep_whole] == []  # Op has members
    largest = resolve(o, "largest", "X.java")
    assert (largest.signature.start_row + 1, largest.signature.end_row + 1) == (14, 15)
    assert resolve(o, "area", "X.java").body is None  # an interface method is a signature


def test_skeleton_of_interfaces_enums_and_initializers(java: Language) -> None:
    r = skel(java, SHAPES)
    assert parses(java, skel(java, SHAPES, None, BARE).text)
    assert r.text == textwrap.dedent("""\
         1 | package com.example.shapes;
         2 |
         3 | /** Shapes that can be drawn. */
         4 | public sealed interface Shape permits Circle, Square {
         5 |     double PI2 = Math.PI * 2;
         6 |
         7 |     double area();
         8 |
         9 |     default String describe() {
           |         /* 2 lines elided */
        12 |     }
        13 |
        14 |     static <S extends Shape> S largest(
        15 |             java.util.List<S> shapes) {
           |         /* 7 lines elided */
        23 |     }
        24 | }
        25 |
        26 | enum Op {
        27 |     PLUS("+") {
        28 |         @Override
        29 |         int apply(int a, int b) {
           |             /* 2 lines elided */
        32 |         }
        33 |     },
        34 |     TIMES("*") {
        35 |         @Override
        36 |         int apply(int a, int b) { return a * b; }
        37 |     };
        38 |
        39 |     private final String symbol;
        40 |
        41 |     Op(String symbol) {
        42 |         this.symbol = symbol;
        43 |     }
        44 |
        45 |     abstract int apply(int a, int b);
        46 | }
        47 |
        48 | @Retention(RetentionPolicy.RUNTIME)
        49 | @interface Audited {
        50 |     String value() default "";
        51 |     int LEVEL = 2;
        52 | }
        53 |
        54 | final class Registry {
        55 |     static final java.util.Map<String, Shape> SHAPES = new java.util.HashMap<>();
        56 |     private static final Runnable RESET = () -> {
        57 |         SHAPES.clear();
        58 |         System.gc();
        59 |     };
        60 |
        61 |     static {
           |         /* 2 lines elided */
        64 |     }
        65 |
        66 |     void each(java.util.function.Consumer<Shape> action) {
           |         /* 10 lines elided; hides run() */
        77 |     }
        78 | }
        """)


ENUMS_AND_RECORDS = """\
class Model {
    enum Plain { A, B, }
    enum Valued { A(1), B(2); final int v; Valued(int v) { this.v = v; } }
    record Point(int x, int y) {}
    record Range(int lo, int hi) {
        static final Range EMPTY = new Range(0, 0);
        int size() { return hi - lo; }
    }
}
"""


def test_enums_of_constants_and_records_without_code_are_kept_whole(java: Language) -> None:
    o = outline(java, ENUMS_AND_RECORDS)
    assert [(d.qualname, d.kind) for d in o.decls if d.keep_whole] == [
        ("Model.Plain", "enum"), ("Model.Point", "class")]
    assert [d.qualname for d in o.decls if d.parents == ("Model", "Model.Range")] == [
        "Model.Range.EMPTY", "Model.Range.size"]


MODULE = """\
/** The billing module. */
module com.example.billing {
    requires java.sql;
    requires transitive com.example.money;
    exports com.example.billing;
    provides com.example.spi.Ledger with com.example.billing.SqlLedger;
}
"""


def test_module_info(java: Language) -> None:
    o = outline(java, MODULE)
    assert table(o) == [("module", "com.example.billing", (), 1)]
    assert skel(java, MODULE).text.count("elided") == 0  # directives are its meaning


def test_incremental_outline_equals_full_extraction(java: Language) -> None:
    """Typing in bodies, adding members and annotations: the updated outline is the fresh one."""
    text = FIXTURE.read_text()
    doc = Document(java, text, 1)
    doc.outline()
    edits = [  # (1-based line, column, inserted text), bottom up: line numbers stay valid
        (121, 0, "        static class Part {\n            int cents;\n        }\n"),
        (83, 4, "@Deprecated\n    "),  # an annotation on overdue()
        (82, 0, "\n    public void cancel(long id) {\n        load(id).cancel();\n    }\n"),
        (58, 0, "            invoice.touch();\n"),  # a statement in draft()
        (36, 0, "    @Autowired\n    private Auditor auditor;\n\n"),  # an annotated field
        (34, 4, "/* tidy */ "),
        (27, 0, "@Validated\n"),  # a class-level annotation
        (1, 0, "import java.util.Map;\n"),
    ]
    for version, (line, col, new) in enumerate(edits, start=2):
        lines = text.split("\n")
        offset = sum(len(x) + 1 for x in lines[: line - 1]) + col
        text = text[:offset] + new + text[offset:]
        doc.edit((line - 1, col), (line - 1, col), new, "utf-16", version)
        fresh = outline_source(java, text.encode())
        assert not fresh.errors, (line, new)
        assert doc.outline() == fresh, (line, new)


def test_incremental_edit_on_the_last_row_of_an_enclosing_body(java: Language) -> None:
    # Line 144 is `        }`, closing Totals.outstanding, the last member of the record
    # and of the class: a line inserted before it moves both bodies' last row down.
    text = FIXTURE.read_text()
    doc = Document(java, text, 1)
    doc.outline()
    new = "            audit();\n"
    lines = text.split("\n")
    offset = sum(len(x) + 1 for x in lines[:143])
    doc.edit((143, 0), (143, 0), new, "utf-16", 2)
    assert doc.outline() == outline_source(java, (text[:offset] + new + text[offset:]).encode())
