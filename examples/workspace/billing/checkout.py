"""Checkout: a cart priced line by line at the moment the customer pays."""

from __future__ import annotations

from decimal import Decimal

from billing.money import Money
from billing.pricing import PricingError, apply_tax
from billing.pricing import compute_line_total as line_total


class Cart:
    """Items a customer intends to buy, by SKU, in one currency."""

    def __init__(self, currency: str, country: str) -> None:
        self.currency = currency
        self.country = country
        self._items: dict[str, tuple[int, Money]] = {}
        self._coupon = Decimal("0")

    def add(self, sku: str, quantity: int, unit_price: Money) -> None:
        if unit_price.currency != self.currency:
            raise PricingError(f"{sku} is priced in {unit_price.currency}, cart is {self.currency}")
        held, _ = self._items.get(sku, (0, unit_price))
        self._items[sku] = (held + quantity, unit_price)

    def remove(self, sku: str) -> None:
        self._items.pop(sku, None)

    def apply_coupon(self, rate: Decimal) -> None:
        self._coupon = rate

    def subtotal(self) -> Money:
        total = Money.zero(self.currency)
        for quantity, unit_price in self._items.values():
            total = total + line_total(quantity, unit_price, self._coupon)
        return total

    def total(self) -> Money:
        net = self.subtotal()
        return net + apply_tax(net, self.country)
