"""Time sources for the auth package.

Code in ``auth`` never asks the system for the time directly; it takes a ``Clock`` so the
test suite can freeze time. All datetimes are naive and in UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Anything that can say what time it is (naive UTC)."""

    def now(self) -> datetime: ...


class SystemClock:
    """The real wall clock, in naive UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC).replace(tzinfo=None)


class FrozenClock:
    """A clock that only moves when told to. For tests."""

    def __init__(self, at: datetime) -> None:
        self._at = at

    def now(self) -> datetime:
        return self._at

    def advance(self, delta: timedelta) -> datetime:
        self._at = self._at + delta
        return self._at

    def set(self, at: datetime) -> None:
        self._at = at


system_clock: Clock = SystemClock()
