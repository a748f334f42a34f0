"""A seat's moves between devices, its notification policy, its e-mail unsubscribe tokens and
the forfeits (migration ``0009_seatnotify``; issue 25 items 2, 4 and 6).

* ``seat_transfers``: a guest's one-time transfer code (its SHA-256 only), short-lived and
  single-use; claiming it stores a *second* token row for the same seat (both devices then
  hold the seat) in the same transaction that marks the code used — of two claimers exactly one
  wins (a conditional ``UPDATE … WHERE used IS NULL``).
* ``notify_prefs``: per seat ``away`` (no notice while a page of that seat is open and visible)
  or ``every`` (every turn); no row: the account's default, else ``away``.
* ``notify_unsub``: single-purpose unsubscribe tokens (one per e-mail sent, hash only): each
  grants exactly one thing, clearing that seat's e-mail address (the one it was sent to).
* ``forfeits``: who resigned or ran out of time for good — they finish last for ratings.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import (
    Column,
    Connection,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from rebirth.server.persistence.store import StaleWrite, Store, hash_token, metadata, seats, tokens

TRANSFER_TTL_S = 600.0
"""A transfer code lasts ten minutes."""

POLICIES = ("away", "every")
"""A seat's notification policy: ``away`` (the default) or ``every`` turn."""

REASONS = ("resigned", "timeout")
"""Why a seat forfeited."""

seat_transfers = Table(
    "seat_transfers", metadata,
    Column("hash", String(64), primary_key=True),  # SHA-256 hex of the code
    Column("game", String(32), ForeignKey("games.id"), nullable=False, index=True),
    Column("seat", Integer, nullable=False),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
    Column("used", Float, nullable=True),  # when it was claimed (None: not yet)
)

notify_prefs = Table(
    "notify_prefs", metadata,
    Column("game", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("policy", String(16), nullable=False),  # away / every
)

notify_unsub = Table(
    "notify_unsub", metadata,
    Column("hash", String(64), primary_key=True),  # SHA-256 hex of the token
    Column("game", String(32), ForeignKey("games.id"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("email", String(254), nullable=False),  # the address it was sent to
    Column("created", Float, nullable=False),
    Index("ix_notify_unsub_game", "game", "seat"),
)

forfeits = Table(
    "forfeits", metadata,
    Column("game", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("reason", String(16), nullable=False),  # resigned / timeout
    Column("at", Float, nullable=False),
)


def new_secret() -> str:
    """A fresh secret: 192 random bits, URL-safe (as every token of the server)."""
    return secrets.token_urlsafe(24)


# ---------------------------------------------------------------------------------- transfers


class TransferRefused(Exception):
    """A transfer code that gives no token: ``code`` is ``bad_transfer`` (unknown, another game's),
    ``code_used`` or ``code_expired``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Transferred:
    """A won transfer: the game, the seat and the new device's token (shown once)."""

    game: str
    seat: int
    token: str


def make_transfer(store: Store, game: str, seat: int, ttl: float = TRANSFER_TTL_S) -> tuple[str, float]:
    """A new transfer code of ``seat``; returns ``(code, expires)``. The seat's earlier unused
    codes stop working (one code at a time)."""
    code = new_secret()
    now = time.time()
    t = seat_transfers
    with store.tx() as c:
        c.execute(delete(t).where(t.c.game == game, t.c.seat == seat, t.c.used.is_(None)))
        c.execute(insert(t).values(hash=hash_token(code), game=game, seat=seat, created=now,
                                   expires=now + ttl))
    return code, now + ttl


def claim_transfer(store: Store, game: str, code: str) -> Transferred:
    """Claim a transfer code: exactly one claimer gets a new token of its seat; the seat's
    other tokens stay valid (both devices hold the seat)."""
    h = hash_token(code)
    t = seat_transfers
    now = time.time()
    with store.tx() as c:
        row = c.execute(select(t).where(t.c.hash == h)).first()
        if row is None or row.game != game:
            raise TransferRefused("bad_transfer")
        if row.used is not None:
            raise TransferRefused("code_used")
        if row.expires < now:
            raise TransferRefused("code_expired")
        won = c.execute(update(t).where(t.c.hash == h, t.c.used.is_(None)).values(used=now)).rowcount
        if won != 1:
            raise TransferRefused("code_used")
        token = new_secret()
        c.execute(insert(tokens).values(hash=hash_token(token), game=game, role="seat", seat=row.seat,
                                        revoked=False))
    return Transferred(game, int(row.seat), token)


# ---------------------------------------------------------------------------------- policies


def policy(store: Store, game: str, seat: int) -> str | None:
    """The seat's own policy (None: it chose none — the account's default applies)."""
    p = notify_prefs
    with store.engine.connect() as c:
        r = c.execute(select(p.c.policy).where(p.c.game == game, p.c.seat == seat)).first()
    return None if r is None else str(r.policy)


def set_policy(store: Store, game: str, seat: int, value: str | None) -> None:
    """Set (None: clear) the seat's policy."""
    p = notify_prefs
    with store.tx() as c:
        c.execute(delete(p).where(p.c.game == game, p.c.seat == seat))
        if value is not None:
            c.execute(insert(p).values(game=game, seat=seat, policy=value))


def postpone_young(store: Store, job_id: int, worker: str, grace: float) -> bool:
    """A claimed outbox row made less than ``grace`` seconds ago is handed back, due at its
    creation plus ``grace`` (no attempt counted); True when it was. (Policy ``away``: a page
    that is opening gets the time to say it is visible.)"""
    from rebirth.server.persistence.outbox import notify_outbox  # the outbox's own table

    o = notify_outbox
    now = time.time()
    with store.tx() as c:
        made = c.execute(select(o.c.created).where(o.c.id == job_id)).scalar_one_or_none()
        if made is None or made + grace <= now:
            return False
        c.execute(update(o).where(o.c.id == job_id, o.c.claimed_by == worker)
                  .values(due=made + grace, claimed_by=None, claimed_at=None))
    return True


# ---------------------------------------------------------------------------------- unsubscribe


def unsubscribe_token(store: Store, game: str, seat: int, email: str) -> str:
    """A new single-purpose unsubscribe token for one e-mail to ``email`` (its hash stored)."""
    tok = new_secret()
    with store.tx() as c:
        c.execute(insert(notify_unsub).values(hash=hash_token(tok), game=game, seat=seat, email=email,
                                              created=time.time()))
    return tok


def unsubscribe(store: Store, token: str) -> tuple[str, int] | None:
    """Stop the e-mails of the token's seat: its address is cleared if it is still the one the
    token was sent to (a webhook stays). Returns ``(game, seat)``; None: an unknown token.
    Idempotent (a second click changes nothing and answers the same)."""
    from rebirth.server.persistence.outbox import notify_subs  # the seat's channels

    u, s = notify_unsub, notify_subs
    with store.tx() as c:
        r = c.execute(select(u).where(u.c.hash == hash_token(token))).first()
        if r is None:
            return None
        c.execute(update(s).where(s.c.game == r.game, s.c.seat == r.seat, s.c.email == r.email)
                  .values(email=None, updated=time.time()))
        c.execute(delete(s).where(s.c.game == r.game, s.c.seat == r.seat, s.c.email.is_(None),
                                  s.c.webhook.is_(None)))
    return str(r.game), int(r.seat)


# ---------------------------------------------------------------------------------- forfeits


def forfeit_in(game: str, seat: int, reason: str) -> Callable[[Connection], None]:
    """The insert of a forfeit, to run in another change's transaction (a time-out's); a seat
    that forfeited before keeps its first reason."""
    if reason not in REASONS:
        raise ValueError(reason)

    def write(c: Connection) -> None:
        f = forfeits
        if c.execute(select(f.c.seat).where(f.c.game == game, f.c.seat == seat)).first() is None:
            c.execute(insert(f).values(game=game, seat=seat, reason=reason, at=time.time()))
    return write


def unforfeit_in(game: str, seat: int, reason: str) -> Callable[[Connection], None]:
    """The delete of a forfeit of ``reason`` (a timed-out seat taken back by its player: its
    time did not run out for good)."""
    def write(c: Connection) -> None:
        f = forfeits
        c.execute(delete(f).where(f.c.game == game, f.c.seat == seat, f.c.reason == reason))
    return write


def resign(store: Store, game: str, seat: int, to: str) -> None:
    """A seat resigns: it is played by ``to`` from now on and its forfeit is recorded, in one
    transaction; only if it is still a human's (else :class:`StaleWrite`: another worker's
    change came first)."""
    with store.tx() as c:
        n = c.execute(update(seats).where(seats.c.game == game, seats.c.seat == seat, seats.c.kind == "human")
                      .values(kind=to)).rowcount
        if n != 1:
            raise StaleWrite(f"game {game}: seat {seat} is no longer a human's")
        forfeit_in(game, seat, "resigned")(c)


def record_forfeit(store: Store, game: str, seat: int, reason: str) -> bool:
    """Record that ``seat`` forfeited (the first reason holds). False: recorded before."""
    if reason not in REASONS:
        raise ValueError(reason)
    try:
        with store.tx() as c:
            c.execute(insert(forfeits).values(game=game, seat=seat, reason=reason, at=time.time()))
    except IntegrityError:
        return False
    return True


def forfeits_of(store: Store, game: str) -> dict[int, str]:
    """The seats of ``game`` that forfeited, and why."""
    f = forfeits
    with store.engine.connect() as c:
        return {int(r.seat): str(r.reason) for r in c.execute(select(f).where(f.c.game == game))}


def account_policy(store: Store, game: str, seat: int) -> str | None:
    """The default policy of the account that holds ``seat`` (its ``notify``), or None (a
    guest's seat). The notifier's ``default_policy``."""
    from rebirth.server.persistence.accounts import account_seats, accounts  # the accounts' tables

    with store.engine.connect() as c:
        r = c.execute(select(accounts.c.notify).join(account_seats, account_seats.c.account == accounts.c.id)
                      .where(account_seats.c.game == game, account_seats.c.seat == seat)).first()
    return None if r is None else str(r.notify)
