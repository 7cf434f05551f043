from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from billing.checkout import Cart
from billing.invoice import Invoice, InvoiceLine
from billing.money import Money, format_currency, round_half_even, sum_money
from billing.pricing import (
    MAX_DISCOUNT,
    PricingError,
    bulk_discount_for,
    compute_line_total,
    line_breakdown,
    split_evenly,
)
from billing.reports import SaleRow, legacy_monthly_report, revenue_by_sku


def test_line_total_plain(make_money, assert_money_equal):
    assert_money_equal(compute_line_total(3, make_money(1999)), make_money(5997))


def test_line_total_with_discount(make_money, assert_money_equal):
    total = compute_line_total(2, make_money(1000), Decimal("0.10"))
    assert_money_equal(total, make_money(1800))


def test_bulk_tier_does_not_stack_with_coupon(make_money, assert_money_equal):
    assert bulk_discount_for(100) == Decimal("0.10")
    total = compute_line_total(100, make_money(100), Decimal("0.05"))
    assert_money_equal(total, make_money(9000))


def test_discount_is_capped(make_money, assert_money_equal):
    total = compute_line_total(1, make_money(10000), Decimal("0.99"))
    assert_money_equal(total, make_money(10000) * (1 - MAX_DISCOUNT))


def test_rounding_is_half_even(make_money, assert_money_equal):
    assert round_half_even(Decimal("2.345")) == Decimal("2.34")
    assert round_half_even(Decimal("2.355")) == Decimal("2.36")
    # Half of 0.01 is 0.005, which rounds to the even 0.00; half of 0.03 rounds to 0.02.
    assert_money_equal(compute_line_total(1, make_money(1), Decimal("0.50")), make_money(0))
    assert_money_equal(compute_line_total(1, make_money(3), Decimal("0.50")), make_money(2))


def test_invalid_quantity(make_money):
    with pytest.raises(PricingError):
        compute_line_total(-1, make_money(100))
    with pytest.raises(PricingError):
        compute_line_total(True, make_money(100))


def test_breakdown_adds_up(make_money, assert_money_equal):
    parts = line_breakdown(30, make_money(333), Decimal("0"))
    assert parts.discount_rate == Decimal("0.05")
    assert_money_equal(parts.gross - parts.discount, parts.net)


def test_invoice_and_cart_agree(make_money, assert_money_equal):
    price = make_money(2500)
    invoice = Invoice("INV-1", "ACME", "DE", "EUR", date(2024, 3, 1))
    invoice.add_line(InvoiceLine("SKU-1", "Widget", 4, price))
    cart = Cart("EUR", "DE")
    cart.add("SKU-1", 4, price)
    assert_money_equal(invoice.grand_total(), cart.total())
    assert_money_equal(invoice.tax_total(), make_money(1900))


def test_reports(make_money, assert_money_equal):
    rows = [
        SaleRow(date(2024, 3, 5), "SKU-1", "de", 2, make_money(1000)),
        SaleRow(date(2024, 3, 9), "SKU-1", "de", 1, make_money(1000)),
        SaleRow(date(2024, 2, 9), "SKU-2", "fr", 1, make_money(500)),
    ]
    assert_money_equal(revenue_by_sku(rows, "EUR")["SKU-1"], make_money(3000))
    report = legacy_monthly_report(rows, date(2024, 3, 15))
    assert "SKU-2" in report
    assert report.endswith("TOTAL 30.00 EUR")


def test_format_currency():
    assert format_currency(Money(Decimal("1234.5"), "EUR")) == "€1,234.50"
    assert format_currency(Money(Decimal("-5"), "USD")) == "-$5.00"
    assert format_currency(Money(Decimal("700"), "JPY"), with_code=True) == "700 JPY"


def test_split_evenly_sums_back(make_money, assert_money_equal):
    pieces = split_evenly(make_money(1000), 3)
    assert [p.to_minor_units() for p in pieces] == [334, 333, 333]
    assert_money_equal(sum_money(pieces, "EUR"), make_money(1000))
