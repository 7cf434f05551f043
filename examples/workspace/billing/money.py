"""Money as (Decimal amount, ISO currency) pairs, never floats.

Amounts are always quantized to the currency's minor unit with banker's rounding
(ROUND_HALF_EVEN), which is what the ledger does, so totals here match the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

MINOR_UNITS: dict[str, int] = {"EUR": 2, "USD": 2, "GBP": 2, "CHF": 2, "JPY": 0}
SYMBOLS: dict[str, str] = {"EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥"}


def round_half_even(value: Decimal, places: int = 2) -> Decimal:
    """Round ``value`` to ``places`` decimals, ties to even (2.345 -> 2.34)."""
    exponent = Decimal(1).scaleb(-places)
    return value.quantize(exponent, rounding=ROUND_HALF_EVEN)


def _places(currency: str) -> int:
    try:
        return MINOR_UNITS[currency]
    except KeyError:
        raise ValueError(f"unsupported currency {currency!r}") from None


@dataclass(frozen=True)
class Money:
    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not isinstance(self.amount, Decimal):
            raise TypeError("Money.amount must be a Decimal")
        object.__setattr__(self, "amount", round_half_even(self.amount, _places(self.currency)))

    @classmethod
    def from_minor_units(cls, minor: int, currency: str) -> Money:
        return cls(Decimal(minor).scaleb(-_places(currency)), currency)

    @classmethod
    def zero(cls, currency: str) -> Money:
        return cls(Decimal(0), currency)

    def to_minor_units(self) -> int:
        return int(self.amount.scaleb(_places(self.currency)))

    def _check(self, other: Money) -> None:
        if not isinstance(other, Money):
            raise TypeError(f"cannot combine Money with {type(other).__name__}")
        if other.currency != self.currency:
            raise ValueError(f"currency mismatch: {self.currency} vs {other.currency}")

    def __add__(self, other: Money) -> Money:
        self._check(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._check(other)
        return Money(self.amount - other.amount, self.currency)

    def __mul__(self, factor: int | Decimal) -> Money:
        if isinstance(factor, float):
            raise TypeError("multiply Money by int or Decimal, not float")
        return Money(self.amount * Decimal(factor), self.currency)

    __rmul__ = __mul__

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)

    def is_zero(self) -> bool:
        return self.amount == 0


def format_currency(money: Money, *, with_code: bool = False) -> str:
    """``€1,234.50`` (or ``1,234.50 EUR`` with ``with_code``); negatives as ``-€5.00``."""
    places = _places(money.currency)
    digits = f"{abs(money.amount):,.{places}f}"
    sign = "-" if money.amount < 0 else ""
    if with_code or money.currency not in SYMBOLS:
        return f"{sign}{digits} {money.currency}"
    return f"{sign}{SYMBOLS[money.currency]}{digits}"


def sum_money(items: list[Money], currency: str) -> Money:
    total = Money.zero(currency)
    for item in items:
        total = total + item
    return total
