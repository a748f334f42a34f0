"""Accounts (issue 25; migration ``0008_accounts``): optional player accounts, their sessions,
single-use sign-in codes, passkeys, the seats an account holds and per-game account facts.

Every secret is stored only as a SHA-256 digest (the session id a cookie carries, a sign-in
code); a passkey's public key is no secret. An account's seats are rows of
:data:`account_seats`: the seat belongs to that account, whichever device opens it (the device
gets a seat token of its own, a second ``tokens`` row of the same seat). Functions on these
tables live in :mod:`rebirth.server.accounts`.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Table,
    false,
    text,
)

from rebirth.server.persistence.store import metadata

NOTIFY_POLICIES = ("away", "every")
"""An account's default notification policy: a notice only while no page of the seat is open
and visible (``away``), or on every turn (``every``)."""

accounts = Table(
    "accounts", metadata,
    Column("id", String(32), primary_key=True),  # random, URL-safe
    Column("name", String(32), nullable=False, unique=True),  # the display name as typed
    Column("name_key", String(32), nullable=False, unique=True),  # casefolded: names unique
    Column("email", String(254), nullable=True, unique=True),  # lower-case; NULL once deleted
    Column("lang", String(8), nullable=False),
    Column("created", Float, nullable=False),
    Column("deleted", Boolean, nullable=False, server_default=false()),
    Column("bot", Boolean, nullable=False, server_default=false()),  # a bot's account (later issue)
    Column("notify", String(16), nullable=False, server_default=text("'away'")),
)

account_sessions = Table(
    "account_sessions", metadata,
    Column("hash", String(64), primary_key=True),  # SHA-256 hex of the session id (the cookie's)
    Column("account", String(32), ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created", Float, nullable=False),
    Column("seen", Float, nullable=False),
    Column("agent", String(200), nullable=False),  # the browser's User-Agent, shortened
    Column("revoked", Boolean, nullable=False, server_default=false()),
)

signin_codes = Table(
    "signin_codes", metadata,
    Column("hash", String(64), primary_key=True),  # SHA-256 hex of the code (the link's)
    Column("email", String(254), nullable=False, index=True),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
    Column("used", Boolean, nullable=False, server_default=false()),
)

passkeys = Table(
    "passkeys", metadata,
    Column("credential_id", String(512), primary_key=True),  # base64url
    Column("account", String(32), ForeignKey("accounts.id"), nullable=False, index=True),
    Column("public_key", LargeBinary, nullable=False),  # COSE key (no secret)
    Column("sign_count", Integer, nullable=False),
    Column("created", Float, nullable=False),
    Column("label", String(64), nullable=False),
)

webauthn_challenges = Table(
    "webauthn_challenges", metadata,
    Column("hash", String(64), primary_key=True),  # SHA-256 hex of the challenge's handle
    Column("challenge", String(128), nullable=False),  # base64url: single-use, short-lived
    Column("account", String(32), nullable=True),  # a registration's account; None: a sign-in
    Column("expires", Float, nullable=False),
)

account_seats = Table(
    "account_seats", metadata,
    Column("game", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account", String(32), ForeignKey("accounts.id"), nullable=False, index=True),
)

game_meta = Table(
    "game_meta", metadata,
    Column("game", String(32), ForeignKey("games.id"), primary_key=True),
    Column("creator_account", String(32), ForeignKey("accounts.id"), nullable=True),
    Column("rated", Boolean, nullable=False, server_default=false()),
)
