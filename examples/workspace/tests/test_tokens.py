from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from auth import tokens
from auth.session import Session
from auth.tokens import (
    DEFAULT_TTL,
    REFRESH_GRACE,
    TokenError,
    TokenStore,
    _encode,
    exchange_token,
    introspect,
    list_active_tokens,
    mint_token,
    needs_refresh,
    refresh_token,
    revoke_token,
    rotate_session_tokens,
    verify_token,
)


@pytest.fixture
def session() -> Session:
    return Session("sess-1", "alice")


def test_mint_sets_times_from_the_clock(session, frozen_clock):
    token = mint_token(session, "alice", scopes=("read", "write", "read"), clock=frozen_clock)
    assert token.issued_at == frozen_clock.now()
    assert token.expires_at == frozen_clock.now() + DEFAULT_TTL
    assert token.scopes == ("read", "write")
    assert session.get(token.id) == token


def test_mint_rejects_foreign_subject(session, frozen_clock):
    with pytest.raises(TokenError):
        mint_token(session, "mallory", clock=frozen_clock)


def test_mint_refuses_when_disabled(session, frozen_clock, monkeypatch):
    monkeypatch.setattr(tokens, "REFRESH_DISABLED", True)
    with pytest.raises(TokenError, match="disabled"):
        mint_token(session, "alice", clock=frozen_clock)


def test_verify_round_trip_and_expiry(session, frozen_clock):
    token = mint_token(session, "alice", clock=frozen_clock)
    raw = _encode(token)
    assert verify_token(raw, session=session, clock=frozen_clock) == token
    frozen_clock.advance(DEFAULT_TTL)
    assert verify_token(raw, session=session, clock=frozen_clock) is None


def test_verify_rejects_tampering(session, frozen_clock):
    raw = _encode(mint_token(session, "alice", clock=frozen_clock))
    prefix, body, signature = raw.split(".")
    assert verify_token(f"{prefix}.{body}x.{signature}", clock=frozen_clock) is None
    assert verify_token("not-a-token", clock=frozen_clock) is None


def test_revoked_token_does_not_verify(session, frozen_clock):
    store = TokenStore(clock=frozen_clock)
    token = mint_token(session, "alice", store=store, clock=frozen_clock)
    revoke_token(session, token.id, store=store, clock=frozen_clock)
    raw = _encode(token)
    assert verify_token(raw, session=session, clock=frozen_clock) is None
    assert introspect(raw, store, clock=frozen_clock) == {"active": False}
    assert list_active_tokens(store, "alice", clock=frozen_clock) == []


def test_needs_refresh_inside_grace(session, frozen_clock):
    token = mint_token(session, "alice", clock=frozen_clock)
    assert not needs_refresh(token, clock=frozen_clock)
    frozen_clock.advance(DEFAULT_TTL - REFRESH_GRACE)
    assert needs_refresh(token, clock=frozen_clock)


def test_refresh_keeps_live_token(session):
    token = mint_token(session, "alice")
    assert refresh_token(session, token) is token


def test_refresh_replaces_expired_token(session, frozen_clock):
    # The frozen clock sits in 2024, so this token expired long ago.
    token = mint_token(session, "alice", scopes=("read",), clock=frozen_clock)
    new = refresh_token(session, token)
    assert new.id != token.id
    assert new.subject == "alice"
    assert new.scopes == ("read",)
    assert new.expires_at > datetime(2024, 3, 1) + timedelta(days=1)
    assert session.is_revoked(token.id)


def test_introspect_live_token(session, frozen_clock):
    store = TokenStore(clock=frozen_clock)
    token = mint_token(session, "alice", scopes=("orders:read",), store=store, clock=frozen_clock)
    info = introspect(_encode(token), store, clock=frozen_clock)
    assert info["active"] is True
    assert info["scope"] == "orders:read"
    assert info["expires_in"] == int(DEFAULT_TTL.total_seconds())
    assert info["refresh_due"] is False


def test_exchange_only_narrows(session, frozen_clock):
    token = mint_token(session, "alice", scopes=("read", "write"), clock=frozen_clock)
    narrowed = exchange_token(session, token, ("read",), clock=frozen_clock)
    assert narrowed.scopes == ("read",)
    with pytest.raises(TokenError, match="widen"):
        exchange_token(session, token, ("admin",), clock=frozen_clock)


def test_rotate_replaces_live_and_drops_expiring(session, frozen_clock):
    store = TokenStore(clock=frozen_clock)
    long_lived = mint_token(session, "alice", store=store, clock=frozen_clock)
    frozen_clock.advance(DEFAULT_TTL - REFRESH_GRACE)
    short_lived = mint_token(session, "alice", store=store, clock=frozen_clock)
    frozen_clock.advance(REFRESH_GRACE / 2)
    replaced = rotate_session_tokens(session, store=store, clock=frozen_clock)
    assert list(replaced) == [short_lived.id]
    assert session.is_revoked(long_lived.id) and session.is_revoked(short_lived.id)
    assert replaced[short_lived.id].expires_at == short_lived.expires_at
