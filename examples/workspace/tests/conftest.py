"""Shared fixtures: a frozen clock for auth tests and money helpers for billing tests."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

# Let `pytest tests` work from anywhere, not only via `python -m pytest` in the root.
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from auth.clock import FrozenClock  # noqa: E402
from billing.money import Money  # noqa: E402

FROZEN_AT = datetime(2024, 3, 1, 12, 0, 0)


@pytest.fixture
def frozen_clock() -> FrozenClock:
    """A clock stopped at 2024-03-01 12:00 UTC; move it with ``.advance()``."""
    return FrozenClock(FROZEN_AT)


@pytest.fixture
def make_money() -> Callable[..., Money]:
    """Build Money from minor units, the way the ledger stores it: make_money(1999)."""

    def make(minor: int, currency: str = "EUR") -> Money:
        return Money.from_minor_units(minor, currency)

    return make


@pytest.fixture
def assert_money_equal() -> Callable[[Money, Money], None]:
    """Compare Money by currency and minor units, with a readable failure."""

    def check(actual: Money, expected: Money) -> None:
        assert actual.currency == expected.currency, (
            f"currency {actual.currency} != {expected.currency}"
        )
        assert actual.to_minor_units() == expected.to_minor_units(), (
            f"{actual.amount} {actual.currency} != {expected.amount} {expected.currency}"
        )

    return check
