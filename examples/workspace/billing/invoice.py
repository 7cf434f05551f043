"""Invoices: lines priced with ``compute_line_total`` and totalled with tax."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from billing.money import Money, format_currency
from billing.pricing import apply_tax, compute_line_total


@dataclass(frozen=True)
class InvoiceLine:
    sku: str
    description: str
    quantity: int
    unit_price: Money
    discount: Decimal = Decimal("0")

    @property
    def total(self) -> Money:
        return compute_line_total(self.quantity, self.unit_price, self.discount)


@dataclass
class Invoice:
    number: str
    customer: str
    country: str
    currency: str
    issued_on: date
    lines: list[InvoiceLine] = field(default_factory=list)

    def add_line(self, line: InvoiceLine) -> None:
        if line.unit_price.currency != self.currency:
            raise ValueError(f"line {line.sku} is in {line.unit_price.currency}, "
                             f"invoice is in {self.currency}")
        self.lines.append(line)

    def net_total(self) -> Money:
        total = Money.zero(self.currency)
        for line in self.lines:
            total = total + line.total
        return total

    def tax_total(self) -> Money:
        return apply_tax(self.net_total(), self.country)

    def grand_total(self) -> Money:
        return self.net_total() + self.tax_total()

    def render_text(self) -> str:
        rows = [f"Invoice {self.number} for {self.customer} ({self.issued_on.isoformat()})"]
        for line in self.lines:
            rows.append(f"  {line.quantity:>5} x {line.sku:<12} {format_currency(line.total):>14}")
        rows.append(f"  {'net':>20} {format_currency(self.net_total()):>14}")
        rows.append(f"  {'tax':>20} {format_currency(self.tax_total()):>14}")
        rows.append(f"  {'total':>20} {format_currency(self.grand_total()):>14}")
        return "\n".join(rows)
