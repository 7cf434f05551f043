"""Value types shared across the auth package."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime


@dataclass(frozen=True)
class Token:
    """An issued access token. Times are naive UTC."""

    id: str
    subject: str
    issued_at: datetime
    expires_at: datetime
    scopes: tuple[str, ...] = field(default=())

    def is_expired(self, at: datetime) -> bool:
        return at >= self.expires_at

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes

    def with_scopes(self, scopes: tuple[str, ...]) -> Token:
        return replace(self, scopes=scopes)
