"""Revenue reports for finance.

``revenue_by_sku`` is the current report. ``legacy_monthly_report`` is the 2019 job
that finance still diffs against every month; it keeps its own formatting quirks on
purpose and must not be "fixed" without their sign-off.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from billing import pricing
from billing.money import Money, format_currency


@dataclass(frozen=True)
class SaleRow:
    sold_on: date
    sku: str
    region: str
    quantity: int
    unit_price: Money
    discount: Decimal = Decimal("0")


def revenue_by_sku(rows: list[SaleRow], currency: str) -> dict[str, Money]:
    """Net revenue per SKU, each line priced by the current pricing rules."""
    totals: dict[str, Money] = {}
    for row in rows:
        if row.unit_price.currency != currency:
            continue
        line = pricing.compute_line_total(row.quantity, row.unit_price, row.discount)
        totals[row.sku] = totals.get(row.sku, Money.zero(currency)) + line
    return dict(sorted(totals.items()))


def top_skus(rows: list[SaleRow], currency: str, limit: int = 5) -> list[tuple[str, Money]]:
    ranked = sorted(revenue_by_sku(rows, currency).items(), key=lambda kv: kv[1].amount,
                    reverse=True)
    return ranked[:limit]


def legacy_monthly_report(rows: list[SaleRow], month: date, currency: str = "EUR") -> str:
    """The fixed-width monthly report finance has parsed since 2019.

    Quirks kept deliberately: regions are upper-cased and padded to 6, SKUs with no
    sales in the month still get a zero row if they sold in the previous month, the
    discount column shows the *effective* rate including bulk tiers, and the footer
    repeats the grand total with the currency code instead of the symbol.
    """
    first = month.replace(day=1)
    if first.month == 1:
        previous = first.replace(year=first.year - 1, month=12)
    else:
        previous = first.replace(month=first.month - 1)

    def in_month(d: date, start: date) -> bool:
        return d.year == start.year and d.month == start.month

    current = [r for r in rows if in_month(r.sold_on, first) and r.unit_price.currency == currency]
    earlier = [r for r in rows if in_month(r.sold_on, previous)]

    by_key: dict[tuple[str, str], list[SaleRow]] = defaultdict(list)
    for row in current:
        by_key[(row.region.upper(), row.sku)].append(row)
    for row in earlier:
        key = (row.region.upper(), row.sku)
        if key not in by_key:
            by_key[key] = []

    lines = [
        f"MONTHLY REVENUE {first:%Y-%m} ({currency})",
        f"{'REGION':<6} {'SKU':<12} {'QTY':>6} {'DISC':>6} {'NET':>14}",
        "-" * 48,
    ]
    grand = Money.zero(currency)
    region_totals: dict[str, Money] = {}
    for (region, sku), sales in sorted(by_key.items()):
        quantity = sum(s.quantity for s in sales)
        net = Money.zero(currency)
        effective = Decimal("0")
        for sale in sales:
            net = net + pricing.compute_line_total(sale.quantity, sale.unit_price, sale.discount)
            effective = max(effective, sale.discount, pricing.bulk_discount_for(sale.quantity))
        grand = grand + net
        region_totals[region] = region_totals.get(region, Money.zero(currency)) + net
        disc = f"{(effective * 100).quantize(Decimal('1'))}%" if effective else "-"
        lines.append(
            f"{region:<6} {sku:<12} {quantity:>6} {disc:>6} {format_currency(net):>14}"
        )

    lines.append("-" * 48)
    for region, total in sorted(region_totals.items()):
        lines.append(f"{'':<6} {'subtotal ' + region:<19} {'':>6} {format_currency(total):>14}")
    lines.append("=" * 48)
    lines.append(f"{'TOTAL':<26} {format_currency(grand):>21}")
    lines.append(f"TOTAL {format_currency(grand, with_code=True)}")
    return "\n".join(lines)
