"""Ruby (grammars/ruby/): outlines, header and skeletons of literal sources and the fixture."""

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

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "ruby" / "billing" / "invoice.rb"
ALWAYS = SkeletonOptions(whole_max_lines=0, whole_max_tokens=0, flat_ratio=0)


@pytest.fixture(scope="module")
def ruby() -> Language:
    return languages.registry()["ruby"]


def outline(ruby: Language, source: str) -> Outline:
    return outline_source(ruby, source.encode())


def table(o: Outline) -> list[tuple[str, str, tuple[str, ...], int]]:
    """(kind, qualname, parents, 1-based first line) of every declaration."""
    return [(d.kind, d.qualname, d.parents, d.span.start_row + 1) for d in o.decls]


def skel(ruby: Language, source: str, target: str | None = None,
         opts: SkeletonOptions = ALWAYS) -> Rendering:
    o = outline(ruby, source)
    decl = resolve(o, target, "x.rb") if target else None
    return render(o, split_lines(source), ruby.elision, ruby.line_comment, decl, None, opts)


def parses(ruby: Language, text: str) -> bool:
    return not ruby.parser().parse(text.encode()).root_node.has_error


def test_registry_data(ruby: Language) -> None:
    for path in ("a.rb", "tasks/db.rake", "ctxls.gemspec"):
        lang = languages.for_path(path)
        assert lang is not None and lang.name == "ruby"
    assert languages.for_path("Rakefile") is None  # no extension: out of scope
    assert [ruby.is_test_file(f) for f in
            ("invoice_test.rb", "test_invoice.rb", "invoice_spec.rb", "invoice.rb", "tests.rb")
            ] == [True, True, True, False, False]
    assert "DO NOT EDIT" in ruby.generated_markers
    assert ruby.elision.format(count=3, names="") == "# 3 lines elided"


def test_a_body_replaced_by_the_marker_comment_still_parses(ruby: Language) -> None:
    marker = ruby.elision.format(count=3, names="; hides helper()")
    assert parses(ruby, f"def foo\n  {marker}\nend\n")
    assert parses(ruby, f"class A\n  def foo(a, b = 1)\n    {marker}\n  end\nend\n")
    assert not parses(ruby, "def foo\n  3 lines elided\nend\n")  # the check can fail


def test_fixture_outline(ruby: Language) -> None:
    o = outline(ruby, FIXTURE.read_text())
    inv = ("Billing", "Billing.Invoice")
    assert table(o) == [
        ("constant", "CURRENCY", (), 8),
        ("constant", "ROUNDING", (), 9),
        ("module", "Billing", (), 11),
        ("class", "Billing.FrozenInvoice", ("Billing",), 13),
        ("class", "Billing.Invoice", ("Billing",), 15),
        ("constant", "Billing.Invoice.DEFAULT_TERMS", inv, 17),
        ("constant", "Billing.Invoice.STATES", inv, 18),
        ("method", "Billing.Invoice.initialize", inv, 23),
        ("field", "Billing.Invoice.@customer", inv, 24),
        ("field", "Billing.Invoice.@lines", inv, 25),
        ("field", "Billing.Invoice.@clock", inv, 26),
        ("field", "Billing.Invoice.@due_on", inv, 27),
        ("field", "Billing.Invoice.@state", inv, 28),
        ("method", "Billing.Invoice.from_order", inv, 32),
        ("method", "Billing.Invoice.load", inv, 40),
        ("method", "Billing.Invoice.add_line", inv, 45),
        ("method", "Billing.Invoice.subtotal", inv, 52),
        ("method", "Billing.Invoice.tax", inv, 58),
        ("method", "Billing.Invoice.total", inv, 63),
        ("method", "Billing.Invoice.issue!", inv, 67),
        ("method", "Billing.Invoice.overdue?", inv, 76),
        ("method", "Billing.Invoice.to_h", inv, 80),
        ("method", "Billing.Invoice.validate!", inv, 92),
        ("method", "Billing.Invoice.check_line", inv, 99),
        ("method", "Billing.Invoice.number", inv, 105),
        # `Line = Struct.new(...) do ... end` is no declaration (a constant must not enclose
        # defs), so its `to_h` is reported as a method of the module.
        ("method", "Billing.to_h", ("Billing",), 111),
    ]
    # Requires are imports, file-level constants are constants; nothing else is header.
    assert [(h.kind, h.span.start_row + 1) for h in o.header] == [
        ("import", 3), ("import", 4), ("import", 5), ("import", 6),
        ("constant", 8), ("constant", 9),
    ]
    invoice = resolve(o, "Invoice", "invoice.rb")
    assert (invoice.signature.start_row + 1, invoice.signature.end_row + 1) == (16, 16)
    assert resolve(o, "Invoice.from_order", "invoice.rb").name_span.start_row + 1 == 33


def test_fixture_skeleton_with_a_method_target(ruby: Language) -> None:
    source = FIXTURE.read_text()
    r = skel(ruby, source, "Billing.Invoice.tax")
    assert r.mode == "skeleton" and r.reason == "target"
    lines = r.text.splitlines()
    # (a) without line numbers the skeleton is Ruby again
    bare = skel(ruby, source, "Billing.Invoice.tax", SkeletonOptions(
        line_numbers=False, whole_max_lines=0, whole_max_tokens=0, flat_ratio=0))
    assert parses(ruby, bare.text)
    assert bare.text.count("\nend\n") == 1 and bare.text.endswith("end\n")
    # (b) the header and the enclosing scope: requires, constants, module, class with its
    # superclass, class constants, attr lines, the constructor's instance variables
    for shown in (
        '  3 | require "bigdecimal"',
        '  6 | require_relative "tax_table"',
        '  8 | CURRENCY = "EUR"',
        " 11 | module Billing",
        " 16 |   class Invoice < Document",
        " 17 |     DEFAULT_TERMS = 30",
        " 20 |     attr_accessor :customer, :due_on",
        " 21 |     attr_reader :lines, :state",
        " 23 |     def initialize(customer, lines: [], terms: DEFAULT_TERMS, clock: Time)",
        " 26 |       @clock = clock",
        " 28 |       @state = :draft",
        " 90 |     private",
        " 58 |     def tax",
        " 59 |       rate = TaxTable.rate_for(customer.country)",
        " 60 |       (subtotal * rate).round(2, ROUNDING)",
    ):
        assert shown in lines, shown
    # (c) sibling bodies elided, one marker line each, signatures and comments kept
    assert [(e.first + 1, e.last + 1, e.symbol) for e in r.elided] == [
        (34, 37, "Billing.Invoice.from_order"),
        (41, 42, "Billing.Invoice.load"),
        (46, 49, "Billing.Invoice.add_line"),
        (54, 55, "Billing.Invoice.subtotal"),
        (68, 73, "Billing.Invoice.issue!"),
        (81, 87, "Billing.Invoice.to_h"),
        (93, 96, "Billing.Invoice.validate!"),
        (100, 102, "Billing.Invoice.check_line"),
    ]
    at = lines.index(" 33 |     def self.from_order(order, clock: Time)")
    assert lines[at - 1 : at + 3] == [
        " 32 |     # Builds an invoice from a parsed order hash.",
        " 33 |     def self.from_order(order, clock: Time)",
        "    |       # 4 lines elided",
        " 38 |     end",
    ]


def test_read_symbol_carries_requires_and_enclosing_class(ruby: Language,
                                                          tmp_path: Path) -> None:
    shutil.copy(FIXTURE, tmp_path / "invoice.rb")
    r = read_symbol(Workspace([tmp_path]).snapshot(), p.ReadSymbolParams(path="invoice.rb",
                                                          name="Invoice.overdue?"))
    assert r.symbol == "Billing.Invoice.overdue?" and r.kind == "method"
    # Line 12 (the doc comment of the module's first member) comes with `module Billing`:
    # the grammar puts it before the module's body_statement, so it ends the signature.
    assert r.text.splitlines() == [
        "    | # 2 lines elided",
        "    | # ctxls: context (imports, enclosing declarations) for Billing.Invoice.overdue?",
        '  3 | require "bigdecimal"',
        '  4 | require "time"',
        '  5 | require_relative "money"',
        '  6 | require_relative "tax_table"',
        "    | # 4 lines elided",
        " 11 | module Billing",
        " 12 |   # Raised when an invoice is changed after it was issued.",
        "    | # 2 lines elided",
        " 15 |   # An invoice: lines, a customer, a due date and a state.",
        " 16 |   class Invoice < Document",
        "    | # 59 lines elided",
        " 76 |     def overdue?",
        " 77 |       state == :issued && @clock.now > due_on",
        " 78 |     end",
        "    | # 37 lines elided",
    ]


SINGLETONS = """\
class Cache
  class << self
    def build(size)
      new(size)
    end
  end

  def self.default
    @default ||= build(10)
  end

  def get(key) = @store[key]

  private def evict(key)
    @store.delete(key)
    @log << key
  end
end

def Cache.reset!
  @default = nil
  nil
end

def helper
  1
end
"""


def test_singleton_methods_belong_to_their_class(ruby: Language) -> None:
    o = outline(ruby, SINGLETONS)
    assert table(o) == [
        ("class", "Cache", (), 1),
        ("method", "Cache.build", ("Cache",), 3),
        ("method", "Cache.default", ("Cache",), 8),
        ("method", "Cache.get", ("Cache",), 12),
        ("method", "Cache.evict", ("Cache",), 14),
        ("function", "reset!", (), 20),  # `def Cache.reset!` at file level: no owner
        ("function", "helper", (), 25),
    ]
    evict = resolve(o, "evict", "x.rb")
    assert (evict.span.start_col, evict.signature.start_col) == (2, 10)  # `private` belongs
    assert [d.body is not None for d in o.decls] == [True, True, True, False, True, True, True]


def test_empty_struct_and_scoped_classes(ruby: Language) -> None:
    o = outline(ruby, """\
class Error < StandardError; end
class ::Top; end
Point = Struct.new(:x, :y)
Pair = Struct.new(:a, :b) do
  def sum = a + b
end
Limit = Structure.new
module Api::V2
end
Api::VERSION = "2"
if RUBY_VERSION < "3"
  LEGACY = true
end
""")
    assert table(o) == [
        ("class", "Error", (), 1),
        ("class", "Top", (), 2),
        ("constant", "Point", (), 3),
        ("function", "sum", (), 5),  # Pair encloses a def: header, not a declaration
        ("constant", "Limit", (), 7),
        ("module", "Api.V2", ("Api",), 8),
        ("constant", "Api.VERSION", ("Api",), 10),
        ("constant", "LEGACY", (), 12),
    ]
    assert [h.span.start_row + 1 for h in o.header if h.kind == "constant"] == [
        3, 4, 7, 10, 12]


def test_members_of_a_scoped_class_keep_the_scope(ruby: Language) -> None:
    o = outline(ruby, "class Api::Client\n  def get\n    1\n  end\nend\n")
    assert [d.qualname for d in o.decls] == ["Api.Client", "Api.Client.get"]


@pytest.mark.xfail(strict=True, reason="tree-sitter-ruby puts comments before a body's "
                   "first statement outside body_statement, so `leading` cannot reach them")
def test_comment_above_the_first_member_belongs_to_it(ruby: Language) -> None:
    o = outline(ruby, "class A\n  # Doc.\n  def a\n    1\n  end\nend\n")
    assert [(d.qualname, d.span.start_row + 1) for d in o.decls] == [("A", 1), ("A.a", 2)]


SCRIPT = """\
require "optparse"
begin
  require "readline"
rescue LoadError
  nil
end

def main(argv)
  opts = OptionParser.new
  opts.parse!(argv)
end

if __FILE__ == $0
  main(ARGV)
  exit 0
end
"""


def test_script_requires_and_main_guard(ruby: Language) -> None:
    o = outline(ruby, SCRIPT)
    assert [(h.kind, h.span.start_row + 1) for h in o.header] == [("import", 1), ("import", 3)]
    r = skel(ruby, SCRIPT, opts=SkeletonOptions(line_numbers=False, whole_max_lines=0,
                                                whole_max_tokens=0, flat_ratio=0))
    assert r.text == textwrap.dedent("""\
        require "optparse"
        begin
          require "readline"
        rescue LoadError
          nil
        end

        def main(argv)
          # 2 lines elided
        end

        if __FILE__ == $0
          # 2 lines elided
        end
        """)
    assert parses(ruby, r.text)


def test_requires_inside_methods_are_not_header(ruby: Language) -> None:
    o = outline(ruby, 'def load_json\n  require "json"\n  JSON\nend\n')
    assert o.header == ()


EDITS = [  # (text on the edited line, offset in that text, characters cut, text inserted)
    ("rate = TaxTable", 0, 4, "r"),  # tax: rename a local
    ("def overdue?", 0, 0, "def net\n      subtotal\n    end\n\n    "),  # a new method
    ("ROUNDING = ", 0, 8, "ROUND"),  # rename a file-level constant
    ('require_relative "money"', 0, 0, 'require "json"\n'),  # a new require
    ("def number", 0, 0, "private "),  # `private def number`
    ("def to_h", 0, 0, "# As a hash.\n    "),  # a comment above a method
    ("DEFAULT_TERMS = 30", 16, 2, "60"),  # a class-level constant's value
    ("new(order.fetch", 0, 0, "x = 1\n      "),  # a singleton method's body
    ("Line = Struct", 0, 0, "\n  "),  # a blank line in the module
    ("{ sku: sku", 2, 3, "id"),  # the body of a def in a Struct block
    ("def number", 0, 0, "def due\n      @due_on\n    end\n\n    "),  # after `private`
]


def test_incremental_outline_equals_full_extraction(ruby: Language) -> None:
    text = FIXTURE.read_text()
    doc = Document(ruby, text, 1)
    doc.outline()
    for step, (needle, offset, cut, new) in enumerate(EDITS):
        lines = text.split("\n")
        row = next(i for i, line in enumerate(lines) if needle in line)
        col = lines[row].index(needle) + offset
        start = sum(len(x) + 1 for x in lines[:row]) + col
        text = text[:start] + new + text[start + cut:]
        doc.edit((row, col), (row, col + cut), new, "utf-16", step + 2)
        assert doc.outline() == outline_source(ruby, text.encode()), f"edit {step}"
    o = doc.outline()
    assert o is not None
    assert [(d.qualname, d.span.start_row + 1) for d in o.decls if d.kind == "method"][-8:] == [
        ("Billing.Invoice.net", 78),
        ("Billing.Invoice.overdue?", 82),
        ("Billing.Invoice.to_h", 86),  # from its new comment
        ("Billing.Invoice.validate!", 99),
        ("Billing.Invoice.check_line", 106),
        ("Billing.Invoice.due", 112),
        ("Billing.Invoice.number", 116),
        ("Billing.to_h", 123),
    ]


def test_a_def_typed_under_a_file_level_comment(ruby: Language) -> None:
    text = "# Helpers.\n\nX = 1\n"
    doc = Document(ruby, text, 1)
    doc.outline()
    doc.edit((1, 0), (1, 0), "def h\n  2\nend\n", "utf-16", 2)
    text = "# Helpers.\ndef h\n  2\nend\n\nX = 1\n"
    assert doc.outline() == outline_source(ruby, text.encode())
