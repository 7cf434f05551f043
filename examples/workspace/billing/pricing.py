"""Pricing rules: line totals, bulk tiers, discounts and tax.

The one rule every caller relies on: a line total is computed once, from the unit
price, and rounded once, half-even, to the currency's minor unit. Intermediate values
stay unrounded Decimals; only ``Money`` values leave this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from billing.money import Money, round_half_even, sum_money

MAX_DISCOUNT = Decimal("0.90")
MAX_QUANTITY = 10_000
# (minimum quantity, discount) pairs, checked from the largest tier down.
BULK_TIERS: tuple[tuple[int, Decimal], ...] = (
    (500, Decimal("0.15")),
    (100, Decimal("0.10")),
    (25, Decimal("0.05")),
)
TAX_RATES: dict[str, Decimal] = {
    "DE": Decimal("0.19"),
    "FR": Decimal("0.20"),
    "NL": Decimal("0.21"),
    "GB": Decimal("0.20"),
    "US": Decimal("0"),
}


class PricingError(ValueError):
    """An input to a pricing rule is out of range."""


@dataclass(frozen=True)
class LineBreakdown:
    """How a line total was reached, for invoices and receipts."""

    quantity: int
    unit_price: Money
    gross: Money
    discount_rate: Decimal
    discount: Money
    net: Money


def _validate_quantity(quantity: int) -> int:
    if isinstance(quantity, bool) or not isinstance(quantity, int):
        raise PricingError(f"quantity must be an int, got {type(quantity).__name__}")
    if quantity < 0:
        raise PricingError(f"quantity must not be negative, got {quantity}")
    if quantity > MAX_QUANTITY:
        raise PricingError(f"quantity {quantity} exceeds the limit of {MAX_QUANTITY}")
    return quantity


def _clamp_discount(discount: Decimal) -> Decimal:
    """Discounts are fractions in [0, MAX_DISCOUNT]; anything else is a caller bug."""
    if not isinstance(discount, Decimal):
        raise PricingError("discount must be a Decimal fraction, e.g. Decimal('0.10')")
    if discount < 0:
        raise PricingError(f"discount must not be negative, got {discount}")
    return min(discount, MAX_DISCOUNT)


def bulk_discount_for(quantity: int) -> Decimal:
    """The tier discount a quantity earns on its own, before any coupon."""
    for minimum, rate in BULK_TIERS:
        if quantity >= minimum:
            return rate
    return Decimal("0")


def compute_line_total(
    quantity: int,
    unit_price: Money,
    discount: Decimal = Decimal("0"),
) -> Money:
    """Total for ``quantity`` units at ``unit_price`` after ``discount``.

    The effective discount is the larger of ``discount`` and the bulk tier for the
    quantity (they do not stack), capped at ``MAX_DISCOUNT``. Rounded once, half-even.
    """
    _validate_quantity(quantity)
    rate = _clamp_discount(max(discount, bulk_discount_for(quantity)))
    gross = unit_price.amount * quantity
    net = gross * (Decimal(1) - rate)
    return Money(net, unit_price.currency)


def line_breakdown(
    quantity: int,
    unit_price: Money,
    discount: Decimal = Decimal("0"),
) -> LineBreakdown:
    """The same computation as ``compute_line_total``, with the parts kept."""
    net = compute_line_total(quantity, unit_price, discount)
    gross = Money(unit_price.amount * quantity, unit_price.currency)
    rate = _clamp_discount(max(discount, bulk_discount_for(quantity)))
    return LineBreakdown(
        quantity=quantity,
        unit_price=unit_price,
        gross=gross,
        discount_rate=rate,
        discount=gross - net,
        net=net,
    )


def tax_rate_for(country: str) -> Decimal:
    try:
        return TAX_RATES[country.upper()]
    except KeyError:
        raise PricingError(f"no tax rate configured for {country!r}") from None


def apply_tax(net: Money, country: str) -> Money:
    """Tax on a net amount, rounded half-even to the minor unit."""
    return Money(net.amount * tax_rate_for(country), net.currency)


def compute_order_total(lines: list[Money], country: str, currency: str) -> tuple[Money, Money]:
    """(net, tax) for an order. Tax is computed on the summed net, not per line."""
    net = sum_money(lines, currency)
    return net, apply_tax(net, country)


def unit_price_after(total: Money, quantity: int) -> Money:
    """The per-unit price a total works out to, for display only."""
    if quantity <= 0:
        raise PricingError("quantity must be positive to derive a unit price")
    per_unit = round_half_even(total.amount / quantity, 4)
    return Money(per_unit, total.currency)


@dataclass(frozen=True)
class Quote:
    """A priced order before payment: per-line totals, net, tax and gross."""

    lines: tuple[Money, ...]
    net: Money
    tax: Money
    country: str

    @property
    def gross(self) -> Money:
        return self.net + self.tax


def price_quote(
    items: list[tuple[int, Money, Decimal]],
    country: str,
    currency: str,
) -> Quote:
    """Price ``(quantity, unit_price, discount)`` items for delivery to ``country``.

    Every line goes through ``compute_line_total``; tax is charged on the summed net
    (see ``compute_order_total``), so per-line rounding happens exactly once.
    """
    lines: list[Money] = []
    for quantity, unit_price, discount in items:
        if unit_price.currency != currency:
            raise PricingError(f"item priced in {unit_price.currency}, quote is in {currency}")
        lines.append(compute_line_total(quantity, unit_price, discount))
    net, tax = compute_order_total(lines, country, currency)
    return Quote(lines=tuple(lines), net=net, tax=tax, country=country.upper())


def validate_price_list(prices: dict[str, Money], currency: str) -> list[str]:
    """Problems with a price list upload: wrong currency, zero or negative prices."""
    problems: list[str] = []
    for sku, price in sorted(prices.items()):
        if price.currency != currency:
            problems.append(f"{sku}: priced in {price.currency}, expected {currency}")
        elif price.amount <= 0:
            problems.append(f"{sku}: price must be positive, got {price.amount}")
    return problems


def prorate(amount: Money, used_days: int, period_days: int) -> Money:
    """The share of ``amount`` for ``used_days`` of a ``period_days`` billing period."""
    if period_days <= 0:
        raise PricingError("a billing period must have at least one day")
    if not 0 <= used_days <= period_days:
        raise PricingError(f"used_days must be within 0..{period_days}, got {used_days}")
    return Money(amount.amount * Decimal(used_days) / Decimal(period_days), amount.currency)


def split_evenly(total: Money, parts: int) -> list[Money]:
    """Split ``total`` into ``parts`` amounts that differ by at most one minor unit.

    The remainder goes to the first parts, so the pieces always sum back to ``total``.
    """
    if parts <= 0:
        raise PricingError("cannot split into fewer than one part")
    minor = total.to_minor_units()
    base, remainder = divmod(minor, parts)
    return [
        Money.from_minor_units(base + (1 if i < remainder else 0), total.currency)
        for i in range(parts)
    ]
