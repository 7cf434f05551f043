"""Display helpers for prices in the storefront. Formatting only, no pricing rules."""

from __future__ import annotations

from decimal import Decimal

from billing.money import Money, format_currency


def format_price_label(
    price: Money,
    *,
    was: Money | None = None,
    per_unit: str | None = None,
) -> str:
    """A shelf label: ``€9.99``, ``€9.99 / kg``, or ``€9.99 (was €12.50, -20%)``."""
    label = format_currency(price)
    if per_unit:
        label = f"{label} / {per_unit}"
    if was is not None and was.amount > price.amount:
        saving = (was.amount - price.amount) / was.amount * 100
        percent = saving.quantize(Decimal("1"))
        label = f"{label} (was {format_currency(was)}, -{percent}%)"
    return label


def format_discount_badge(rate: Decimal) -> str:
    """``-15%`` for Decimal('0.15'); empty for no discount."""
    if rate <= 0:
        return ""
    return f"-{(rate * 100).quantize(Decimal('1'))}%"
