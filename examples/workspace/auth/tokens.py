"""Access tokens: minting, encoding, verification, revocation and refresh.

Every entry point here takes the current time from an injected ``Clock`` (keyword-only
``clock=``) so tests can freeze time, and every entry point that mints checks
``REFRESH_DISABLED`` first so a staging environment cannot issue tokens signed with
production keys.

Wire format of an encoded token::

    ctx1.<base64url(json payload)>.<base64url(hmac-sha256 signature)>
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
from datetime import datetime, timedelta

from auth.clock import Clock, system_clock
from auth.session import Session
from auth.types import Token

DEFAULT_TTL = timedelta(minutes=15)
REFRESH_GRACE = timedelta(seconds=30)
REFRESH_DISABLED = os.environ.get("AUTH_REFRESH_DISABLED") == "1"
MAX_SCOPES = 16
MAX_TTL = timedelta(hours=12)
MAX_LIVE_TOKENS = 8
_SIGNING_KEY_ENV = "AUTH_SIGNING_KEY"
_SIGNING_KEY_FILE_ENV = "AUTH_SIGNING_KEY_FILE"
_DEV_SIGNING_KEY = b"ctxls-example-dev-key-not-for-production"
_TOKEN_PREFIX = "ctx1"
_SCOPE_RE = re.compile(r"^[a-z][a-z0-9_.:-]{0,63}$")
_EPOCH = datetime(1970, 1, 1)

log = logging.getLogger(__name__)


class TokenError(Exception):
    """A token could not be minted, decoded or verified."""


class TokenStore:
    """An in-process index of issued tokens, by id and by subject.

    Sessions own their tokens; the store is the server-wide view used by
    introspection and by the admin listing. It keeps at most ``max_per_subject``
    tokens for one subject and drops the oldest when a new one is added.
    """

    __slots__ = ("_by_id", "_by_subject", "_revoked", "_clock", "_max_per_subject")

    def __init__(self, *, clock: Clock = system_clock, max_per_subject: int = 32) -> None:
        self._by_id: dict[str, Token] = {}
        self._by_subject: dict[str, list[str]] = {}
        self._revoked: set[str] = set()
        self._clock = clock
        self._max_per_subject = max_per_subject

    def add(self, token: Token) -> None:
        ids = self._by_subject.setdefault(token.subject, [])
        ids.append(token.id)
        self._by_id[token.id] = token
        while len(ids) > self._max_per_subject:
            dropped = ids.pop(0)
            self._by_id.pop(dropped, None)
            self._revoked.discard(dropped)

    def get(self, token_id: str) -> Token | None:
        return self._by_id.get(token_id)

    def revoke(self, token_id: str) -> bool:
        if token_id not in self._by_id:
            return False
        self._revoked.add(token_id)
        return True

    def is_revoked(self, token_id: str) -> bool:
        return token_id in self._revoked

    def for_subject(self, subject: str) -> list[Token]:
        return [self._by_id[i] for i in self._by_subject.get(subject, ()) if i in self._by_id]

    def purge_expired(self) -> int:
        """Forget tokens that expired before now. Returns how many were dropped."""
        now = self._clock.now()
        expired = [t.id for t in self._by_id.values() if t.is_expired(now)]
        for token_id in expired:
            token = self._by_id.pop(token_id)
            self._by_subject[token.subject].remove(token_id)
            self._revoked.discard(token_id)
        return len(expired)


def _signing_key() -> bytes:
    """The HMAC key: from the environment (or a file it names), else the development key."""
    value = os.environ.get(_SIGNING_KEY_ENV)
    path = os.environ.get(_SIGNING_KEY_FILE_ENV)
    if value is None and path:
        try:
            with open(path, encoding="utf-8") as handle:
                value = handle.read().strip()
        except OSError as exc:
            raise TokenError(f"cannot read signing key from {path}: {exc}") from exc
    if value is None:
        return _DEV_SIGNING_KEY
    key = value.encode("utf-8")
    if len(key) < 16:
        raise TokenError(f"{_SIGNING_KEY_ENV} must be at least 16 bytes long")
    return key


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    padding = "=" * (-len(text) % 4)
    try:
        return base64.urlsafe_b64decode(text + padding)
    except (ValueError, TypeError) as exc:
        raise TokenError("token segment is not valid base64url") from exc


def _normalise_scopes(scopes: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Deduplicate, validate and sort scopes so equal grants encode identically."""
    cleaned: set[str] = set()
    for scope in scopes:
        scope = scope.strip()
        if not scope:
            continue
        if not _SCOPE_RE.match(scope):
            raise TokenError(f"invalid scope {scope!r}")
        cleaned.add(scope)
    if len(cleaned) > MAX_SCOPES:
        raise TokenError(f"at most {MAX_SCOPES} scopes per token, got {len(cleaned)}")
    return tuple(sorted(cleaned))


def _sign(payload: bytes, *, key: bytes | None = None) -> str:
    """HMAC-SHA256 of ``payload`` under ``key`` (the configured key by default)."""
    if key is None:
        key = _signing_key()
    digest = hmac.new(key, payload, hashlib.sha256).digest()
    return _b64(digest)


def _encode(token: Token, *, key: bytes | None = None) -> str:
    """Serialise and sign a token into its wire form."""
    payload = {
        "jti": token.id,
        "sub": token.subject,
        "iat": token.issued_at.isoformat(timespec="seconds"),
        "exp": token.expires_at.isoformat(timespec="seconds"),
        "scp": list(token.scopes),
    }
    body = _b64(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8"))
    signature = _sign(f"{_TOKEN_PREFIX}.{body}".encode("ascii"), key=key)
    return f"{_TOKEN_PREFIX}.{body}.{signature}"


def decode_token(raw: str, *, key: bytes | None = None) -> Token:
    """Parse and check the signature of a wire token. Does not check expiry."""
    parts = raw.strip().split(".")
    if len(parts) != 3 or parts[0] != _TOKEN_PREFIX:
        raise TokenError("malformed token")
    prefix, body, signature = parts
    expected = _sign(f"{prefix}.{body}".encode("ascii"), key=key)
    if not hmac.compare_digest(expected, signature):
        raise TokenError("bad token signature")
    try:
        payload = json.loads(_unb64(body))
        token = Token(
            id=payload["jti"],
            subject=payload["sub"],
            issued_at=datetime.fromisoformat(payload["iat"]),
            expires_at=datetime.fromisoformat(payload["exp"]),
            scopes=_normalise_scopes(payload.get("scp", ())),
        )
    except (KeyError, ValueError, TypeError) as exc:
        raise TokenError("token payload is incomplete") from exc
    if token.expires_at <= token.issued_at:
        raise TokenError("token expires before it was issued")
    if not token.id or not token.subject:
        raise TokenError("token payload has an empty id or subject")
    return token


def _mint(
    session: Session,
    subject: str,
    ttl: timedelta = DEFAULT_TTL,
    scopes: tuple[str, ...] = (),
    *,
    clock: Clock = system_clock,
) -> Token:
    """Create, record and return a token. Callers check ``REFRESH_DISABLED``."""
    if not subject:
        raise TokenError("a token needs a subject")
    if ttl <= timedelta(0) or ttl > MAX_TTL:
        raise TokenError(f"ttl must be positive and at most {MAX_TTL}, got {ttl}")
    now = clock.now().replace(microsecond=0)
    token = Token(
        id=secrets.token_hex(8),
        subject=subject,
        issued_at=now,
        expires_at=now + ttl,
        scopes=_normalise_scopes(scopes),
    )
    session.store(token)
    return token


def mint_token(
    session: Session,
    subject: str,
    *,
    scopes: tuple[str, ...] = (),
    ttl: timedelta = DEFAULT_TTL,
    store: TokenStore | None = None,
    clock: Clock = system_clock,
) -> Token:
    """Issue a new token for ``subject`` within ``session``."""
    if REFRESH_DISABLED:
        log.warning("refusing to mint for %s: AUTH_REFRESH_DISABLED is set", subject)
        raise TokenError("token minting is disabled in this environment")
    if subject != session.user_id and not subject.startswith("svc:"):
        raise TokenError(f"session {session.session_id} cannot mint for {subject!r}")
    if subject.startswith("svc:") and not scopes:
        raise TokenError("service tokens must name their scopes explicitly")
    if store is not None:
        live = list_active_tokens(store, subject, clock=clock)
        if len(live) >= MAX_LIVE_TOKENS:
            raise TokenError(f"{subject!r} already holds {len(live)} live tokens")
    token = _mint(session, subject, ttl, scopes, clock=clock)
    if store is not None:
        store.add(token)
    log.info(
        "minted %s for %s (scopes=%s, expires=%s)",
        token.id, subject, ",".join(token.scopes) or "-", token.expires_at.isoformat(),
    )
    return token


def revoke_token(
    session: Session,
    token_id: str,
    *,
    store: TokenStore | None = None,
    clock: Clock = system_clock,
) -> None:
    """Revoke a token in its session (and the store). Expired tokens are left alone."""
    token = session.get(token_id)
    if token is None:
        raise TokenError(f"unknown token {token_id}")
    if token.is_expired(clock.now()):
        log.debug("not revoking %s: already expired at %s", token_id, token.expires_at)
        return
    if session.is_revoked(token_id):
        log.debug("token %s was already revoked", token_id)
    else:
        session.revoke(token_id)
        log.info("revoked %s for %s in session %s", token_id, token.subject, session.session_id)
    if store is not None:
        store.revoke(token_id)


def verify_token(
    raw: str,
    *,
    session: Session | None = None,
    store: TokenStore | None = None,
    clock: Clock = system_clock,
) -> Token | None:
    """The token ``raw`` encodes if it is genuine, live and not revoked; else None."""
    try:
        token = decode_token(raw)
    except TokenError as exc:
        log.debug("rejecting token: %s", exc)
        return None
    now = clock.now()
    if token.is_expired(now) or token.issued_at > now:
        log.debug("rejecting %s: outside its validity window at %s", token.id, now)
        return None
    if token.expires_at - token.issued_at > MAX_TTL:
        log.warning("rejecting %s: lifetime exceeds MAX_TTL", token.id)
        return None
    if session is not None and session.is_revoked(token.id):
        return None
    if store is not None and store.is_revoked(token.id):
        return None
    return token


def needs_refresh(token: Token, *, clock: Clock = system_clock) -> bool:
    """True once a token is within ``REFRESH_GRACE`` of expiring (or past it)."""
    return clock.now() + REFRESH_GRACE >= token.expires_at


def refresh_token(session: Session, token: Token) -> Token:
    """Return ``token`` while it is live, otherwise a replacement for the same subject.

    The old token is revoked in ``session`` once its replacement exists.
    """
    if token.expires_at > datetime.utcnow():
        return token
    if session.is_revoked(token.id):
        raise TokenError(f"token {token.id} was revoked and cannot be refreshed")
    new = _mint(session, token.subject, ttl=DEFAULT_TTL, scopes=token.scopes)
    session.revoke(token.id)
    return new


def exchange_token(
    session: Session,
    token: Token,
    scopes: tuple[str, ...],
    *,
    clock: Clock = system_clock,
) -> Token:
    """Trade a live token for one carrying a subset of its scopes."""
    if REFRESH_DISABLED:
        log.warning("refusing to exchange %s: AUTH_REFRESH_DISABLED is set", token.id)
        raise TokenError("token minting is disabled in this environment")
    now = clock.now()
    if token.is_expired(now) or session.is_revoked(token.id):
        raise TokenError(f"token {token.id} is not live")
    wanted = _normalise_scopes(scopes)
    extra = set(wanted) - set(token.scopes)
    if extra:
        raise TokenError(f"cannot widen scopes: {sorted(extra)}")
    remaining = token.expires_at - now
    narrowed = _mint(session, token.subject, min(remaining, DEFAULT_TTL), wanted, clock=clock)
    log.info("exchanged %s for %s (scopes=%s)", token.id, narrowed.id, ",".join(wanted) or "-")
    return narrowed


def rotate_session_tokens(
    session: Session,
    *,
    store: TokenStore | None = None,
    clock: Clock = system_clock,
) -> dict[str, Token]:
    """Replace every live token in ``session`` after a signing-key rotation.

    Returns a map from each old token id to its replacement; old tokens are revoked.
    Tokens already within ``REFRESH_GRACE`` of expiry are revoked without replacement:
    the client is about to refresh them anyway.
    """
    if REFRESH_DISABLED:
        log.warning("refusing to rotate session %s: AUTH_REFRESH_DISABLED is set",
                    session.session_id)
        raise TokenError("token minting is disabled in this environment")
    now = clock.now()
    replaced: dict[str, Token] = {}
    dropped = 0
    for old in sorted(session.active_tokens(now), key=lambda t: t.issued_at):
        session.revoke(old.id)
        if store is not None:
            store.revoke(old.id)
        if old.expires_at - now <= REFRESH_GRACE:
            dropped += 1
            continue
        new = _mint(session, old.subject, old.expires_at - now, old.scopes, clock=clock)
        if store is not None:
            store.add(new)
        replaced[old.id] = new
    log.info("rotated session %s: %d replaced, %d dropped near expiry",
             session.session_id, len(replaced), dropped)
    return replaced


def list_active_tokens(
    store: TokenStore,
    subject: str,
    *,
    clock: Clock = system_clock,
) -> list[Token]:
    """The subject's tokens that are neither expired nor revoked, newest first."""
    now = clock.now()
    live = [
        token
        for token in store.for_subject(subject)
        if not token.is_expired(now) and not store.is_revoked(token.id)
    ]
    live.sort(key=lambda t: t.issued_at, reverse=True)
    return live


def introspect(
    raw: str,
    store: TokenStore,
    *,
    clock: Clock = system_clock,
) -> dict[str, object]:
    """An RFC 7662-style description of ``raw``: ``{"active": False}`` when unusable."""
    try:
        token = decode_token(raw)
    except TokenError:
        return {"active": False}
    now = clock.now()
    if token.is_expired(now) or store.is_revoked(token.id):
        return {"active": False}
    is_service = token.subject.startswith("svc:")
    return {
        "active": True,
        "token_type": "access",
        "jti": token.id,
        "sub": token.subject,
        "username": None if is_service else token.subject,
        "client_id": token.subject.removeprefix("svc:") if is_service else "storefront",
        "scope": " ".join(token.scopes),
        "iat": int((token.issued_at - _EPOCH).total_seconds()),
        "exp": int((token.expires_at - _EPOCH).total_seconds()),
        "expires_in": max(0, int((token.expires_at - now).total_seconds())),
        "refresh_due": now + REFRESH_GRACE >= token.expires_at,
    }
