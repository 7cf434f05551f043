"""ctx/readSymbol on a workspace snapshot of the language fixtures: the declaration with the
lineage that travels with it (imports, enclosing types and their signatures)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from ctxls import protocol as p
from ctxls.requests.read import read_symbol
from ctxls.workspace import Workspace

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GO = FIXTURES / "go" / "cache" / "cache.go"
JAVA = (FIXTURES / "java" / "src" / "main" / "java" / "com" / "example" / "billing"
        / "InvoiceService.java")
RUBY = FIXTURES / "ruby" / "billing" / "invoice.rb"
RUST = FIXTURES / "rust" / "cache.rs"


def test_read_symbol_carries_package_imports_and_receiver_struct(tmp_path: Path) -> None:
    shutil.copy(GO, tmp_path / "cache.go")
    r = read_symbol(Workspace([tmp_path]).snapshot(),
                    p.ReadSymbolParams(path="cache.go", name="Cache.Evict"))
    assert r.symbol == "Cache.Evict" and r.kind == "method"
    assert r.text == textwrap.dedent("""\
          1 | // Package cache is a size-bounded LRU cache with per-entry expiry.
            | // ctxls: context (imports, enclosing declarations) for Cache.Evict
          2 | package cache
          3 |
          4 | import (
          5 | \t"container/list"
          6 | \t"errors"
          7 | \t"fmt"
          8 | \t"sync"
          9 | \t"time"
         10 | )
            | /* 32 lines elided */
         43 | // Cache holds at most cap entries; the least recently used goes first.
         44 | // Invariant: an element is in order if and only if its key is in items.
         45 | type Cache[K comparable, V any] struct {
         46 | \tmu      sync.Mutex
         47 | \titems   map[K]*list.Element
         48 | \torder   *list.List
         49 | \tcap     int
         50 | \tonEvict EvictFunc[K, V]
         51 | \tclosed  bool
         52 | }
            | /* 71 lines elided */
        124 | // Evict drops entries from the back until the cache fits its capacity.
        125 | // The caller holds c.mu.
        126 | func (c *Cache[K, V]) Evict() {
        127 | \tfor c.order.Len() > c.cap {
        128 | \t\tel := c.order.Back()
        129 | \t\tif el == nil {
        130 | \t\t\treturn
        131 | \t\t}
        132 | \t\tc.remove(el)
        133 | \t}
        134 | }
            | /* 36 lines elided */
        """)


def test_read_symbol_carries_package_imports_and_annotated_class(tmp_path: Path) -> None:
    shutil.copy(JAVA, tmp_path / "InvoiceService.java")
    ws = Workspace([tmp_path])
    r = read_symbol(ws.snapshot(), p.ReadSymbolParams(path="InvoiceService.java",
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
    nested = read_symbol(ws.snapshot(), p.ReadSymbolParams(path="InvoiceService.java",
                                                   name="Totals.outstanding"))
    assert nested.symbol == "InvoiceService.Totals.outstanding"
    # (merged ranges: the header through the class signature, then the record's signature)
    assert [(c.start.line + 1, c.end.line + 1) for c in nested.context] == [(1, 27), (135, 136)]


def test_read_symbol_of_an_enum_constant_shows_its_enum(tmp_path: Path) -> None:
    shutil.copy(JAVA, tmp_path / "InvoiceService.java")
    r = read_symbol(Workspace([tmp_path]).snapshot(),
                    p.ReadSymbolParams(path="InvoiceService.java",
                                                          name="Status.DRAFT"))
    assert "128 |     public enum Status {" in r.text.splitlines()


def test_read_symbol_carries_requires_and_enclosing_class(tmp_path: Path) -> None:
    shutil.copy(RUBY, tmp_path / "invoice.rb")
    r = read_symbol(Workspace([tmp_path]).snapshot(),
                    p.ReadSymbolParams(path="invoice.rb",
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


def test_read_symbol_carries_uses_struct_and_impl_headers(tmp_path: Path) -> None:
    shutil.copy(RUST, tmp_path / "cache.rs")
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
    t = read_symbol(Workspace([tmp_path]).snapshot(),
                    p.ReadSymbolParams(path="cache.rs",
                                                          name="tests.put_then_get"))
    lines = t.text.splitlines()
    at = lines.index("124 | #[cfg(test)]")  # the module's attribute, then its header
    assert lines[at + 1 : at + 5] == ["125 | mod tests {", "    | /* 4 lines elided */",
                                      "130 |     #[test]", "131 |     fn put_then_get() {"]
