"""A login session: the tokens issued to one client and the ones it has given up."""

from __future__ import annotations

from datetime import datetime

from auth.types import Token


class Session:
    """Tokens issued within one login, keyed by token id."""

    def __init__(self, session_id: str, user_id: str) -> None:
        self.session_id = session_id
        self.user_id = user_id
        self._tokens: dict[str, Token] = {}
        self._revoked: set[str] = set()

    def store(self, token: Token) -> None:
        self._tokens[token.id] = token

    def get(self, token_id: str) -> Token | None:
        return self._tokens.get(token_id)

    def revoke(self, token_id: str) -> bool:
        """Mark a token revoked. Returns False when the session never issued it."""
        if token_id not in self._tokens:
            return False
        self._revoked.add(token_id)
        return True

    def is_revoked(self, token_id: str) -> bool:
        return token_id in self._revoked

    def active_tokens(self, at: datetime) -> list[Token]:
        return [
            t for t in self._tokens.values()
            if t.id not in self._revoked and not t.is_expired(at)
        ]

    def __len__(self) -> int:
        return len(self._tokens)
