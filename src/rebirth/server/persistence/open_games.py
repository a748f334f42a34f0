"""Open seats, the lobby's list of open games and "Play now" pairing (issue 25 item 5;
migration ``0015_open``). Synchronous (SQLAlchemy Core): call it off the event loop.

PostgreSQL (or the one SQLite file) is the source of truth across workers. Two players racing
for a seat: each tries ``UPDATE open_seats SET account = me WHERE … AND account IS NULL``; the
database lets exactly one of the updates change the row (PostgreSQL re-checks the condition on
the row version it locked; SQLite's writers are serialised), so exactly one gets the seat.
Pairing claims the tickets it pairs the same way (``… WHERE status = 'waiting'``, all or none).
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    func,
    insert,
    select,
    update,
)

from rebirth.server.persistence.accounts import account_seats, accounts
from rebirth.server.persistence.store import Store, games, hash_token, metadata, seats, tokens

open_seats = Table(
    "open_seats", metadata,
    Column("game", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account", String(32), ForeignKey("accounts.id"), nullable=True),  # None: still open
    Column("taken", Float, nullable=True),
)

listings = Table(
    "listings", metadata,
    Column("game", String(32), ForeignKey("games.id"), primary_key=True),
    Column("board", String(64), nullable=False),
    Column("players", Integer, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("clock", Text, nullable=True),  # the clock's JSON as created (None: no clock)
    Column("creator", String(32), ForeignKey("accounts.id"), nullable=False),
    Column("created", Float, nullable=False),
)

pairing = Table(
    "pairing", metadata,
    Column("id", String(32), primary_key=True),  # the ticket: not a secret (the account is checked)
    Column("account", String(32), ForeignKey("accounts.id"), nullable=False, index=True),
    Column("pool", String(200), nullable=False),  # board, players and clock: who may meet
    Column("board", String(64), nullable=False),
    Column("players", Integer, nullable=False),
    Column("clock", Text, nullable=True),
    Column("rating", Float, nullable=False),
    Column("created", Float, nullable=False),
    Column("polled", Float, nullable=False),  # the page's last ask: a closed page is not paired
    Column("status", String(16), nullable=False),  # waiting / matched / paired / cancelled / failed
    Column("game", String(32), nullable=True),
    Column("seat", Integer, nullable=True),
    Index("ix_pairing_pool_status", "pool", "status"),
)

RANGE_START = 100.0
"""The displayed-rating difference two players accept at once (docs/ratings.md: 40 display
points are one openskill mu)."""
RANGE_GROWTH = 10.0
"""How much wider the accepted difference gets per second of waiting."""
RANGE_MAX = 1000.0
"""The widest it gets (after 90 s: anyone in the pool)."""
POLL_STALE = 15.0
"""A waiting ticket whose page has not asked about it for this long is dropped: its player left
(the page asks every two seconds)."""


class SeatRefused(Exception):
    """Why a join was refused: ``no_open_seat``, ``already_seated``, ``not_open``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def clock_text(clock: dict[str, Any] | None) -> str | None:
    """The stored (canonical) form of a game's clock as created; None: no clock."""
    return None if clock is None else json.dumps(clock, sort_keys=True, separators=(",", ":"))


def open_game(c: Connection, game: str, seats_open: list[int], creator: str, board: str,
              players: int, rated: bool, clock: dict[str, Any] | None, listed: bool) -> None:
    """A new game's open seats (and its lobby listing), in the creating transaction."""
    for s in seats_open:
        c.execute(insert(open_seats).values(game=game, seat=s, account=None, taken=None))
    if listed:
        c.execute(insert(listings).values(game=game, board=board, players=players, rated=rated,
                                          clock=clock_text(clock), creator=creator, created=time.time()))


@dataclass(frozen=True)
class Joined:
    """A seat taken: which, and the new device's seat token (shown once)."""

    seat: int
    token: str
    name: str


def take_seat(store: Store, game: str, account: str, name: str) -> Joined:
    """Give ``account`` the lowest open seat of ``game``; the race is decided by the database
    (see the module docstring). The seat's name becomes the account's in the same transaction."""
    with store.tx() as c:
        rows = c.execute(select(open_seats.c.seat, open_seats.c.account)
                         .where(open_seats.c.game == game).order_by(open_seats.c.seat)).all()
        if not rows:
            raise SeatRefused("not_open")
        mine = c.execute(select(account_seats.c.seat).where(
            account_seats.c.game == game, account_seats.c.account == account)).first()
        if mine is not None:
            raise SeatRefused("already_seated")
        for r in rows:
            if r.account is not None:
                continue
            won = c.execute(update(open_seats).where(
                open_seats.c.game == game, open_seats.c.seat == r.seat, open_seats.c.account.is_(None))
                .values(account=account, taken=time.time())).rowcount
            if won == 1:
                seat = int(r.seat)
                token = secrets.token_urlsafe(24)
                c.execute(insert(account_seats).values(game=game, seat=seat, account=account))
                c.execute(insert(tokens).values(hash=hash_token(token), game=game, role="seat", seat=seat,
                                                revoked=False))
                c.execute(update(seats).where(seats.c.game == game, seats.c.seat == seat).values(name=name))
                return Joined(seat, token, name)
        raise SeatRefused("no_open_seat")


def open_seat_numbers(store: Store, game: str) -> list[int]:
    """The seats of ``game`` still open."""
    with store.engine.connect() as c:
        return [int(s) for s in c.execute(select(open_seats.c.seat).where(
            open_seats.c.game == game, open_seats.c.account.is_(None)).order_by(open_seats.c.seat)).scalars()]


def list_open(store: Store, limit: int = 100) -> list[dict[str, Any]]:
    """The listed games still playing with at least one open seat, newest first."""
    left = (select(open_seats.c.game, func.count().label("n")).where(open_seats.c.account.is_(None))
            .group_by(open_seats.c.game).subquery())
    q = (select(listings, left.c.n, accounts.c.name.label("creator_name"),
                accounts.c.bot.label("creator_bot"))
         .join(left, left.c.game == listings.c.game)
         .join(games, games.c.id == listings.c.game)
         .join(accounts, accounts.c.id == listings.c.creator)
         .where(games.c.status == "playing")
         .order_by(listings.c.created.desc()).limit(limit))
    with store.engine.connect() as c:
        rows = c.execute(q).all()
    return [{"game": r.game, "board": r.board, "players": int(r.players), "open_seats": int(r.n),
             "rated": bool(r.rated), "clock": None if r.clock is None else json.loads(r.clock),
             "creator": r.creator_name, "creator_bot": bool(r.creator_bot)} for r in rows]


# ---------------------------------------------------------------------------- pairing

@dataclass(frozen=True)
class Ticket:
    """A player asking to be paired."""

    id: str
    account: str
    pool: str
    board: str
    players: int
    clock: dict[str, Any] | None
    rating: float
    created: float
    status: str
    game: str | None
    seat: int | None


def _ticket(r: Any) -> Ticket:
    return Ticket(r.id, r.account, r.pool, r.board, int(r.players),
                  None if r.clock is None else json.loads(r.clock), float(r.rating), float(r.created),
                  r.status, r.game, None if r.seat is None else int(r.seat))


def pool_of(board: str, players: int, clock: dict[str, Any] | None) -> str:
    """Who may be paired together: the same board, player count and clock."""
    return f"{board}/{players}/{clock_text(clock) or '-'}"


def accepted_range(waited: float) -> float:
    """The rating difference a player accepts after ``waited`` seconds."""
    return min(RANGE_MAX, RANGE_START + RANGE_GROWTH * max(0.0, waited))


def ask(store: Store, account: str, board: str, players: int, clock: dict[str, Any] | None,
        rating: float) -> Ticket:
    """A new ticket (the account's older waiting tickets are cancelled: one ask at a time)."""
    t = Ticket(secrets.token_urlsafe(12), account, pool_of(board, players, clock), board, players, clock,
               rating, time.time(), "waiting", None, None)
    with store.tx() as c:
        c.execute(update(pairing).where(pairing.c.account == account, pairing.c.status == "waiting")
                  .values(status="cancelled"))
        c.execute(insert(pairing).values(id=t.id, account=account, pool=t.pool, board=board, players=players,
                                         clock=clock_text(clock), rating=rating, created=t.created,
                                         polled=t.created, status="waiting"))
    return t


def ticket(store: Store, ticket_id: str) -> Ticket | None:
    with store.engine.connect() as c:
        r = c.execute(select(pairing).where(pairing.c.id == ticket_id)).first()
    return None if r is None else _ticket(r)


def cancel(store: Store, ticket_id: str, account: str) -> bool:
    """Stop waiting (False: the ticket was paired already, or is not the account's)."""
    with store.tx() as c:
        return bool(c.execute(update(pairing).where(
            pairing.c.id == ticket_id, pairing.c.account == account, pairing.c.status == "waiting")
            .values(status="cancelled")).rowcount)


def _fits(a: Ticket, b: Ticket, now: float) -> bool:
    # Both must accept the difference: each one's range grows with its own wait.
    d = abs(a.rating - b.rating)
    return d <= accepted_range(now - a.created) and d <= accepted_range(now - b.created)


def choose(me: Ticket, others: list[Ticket], now: float) -> list[Ticket] | None:
    """``me`` and ``players - 1`` others who all accept each other, the closest in rating and
    then the longest waiting first; None: not enough yet."""
    group = [me]
    for o in sorted(others, key=lambda o: (abs(o.rating - me.rating), o.created)):
        if o.account in {g.account for g in group}:
            continue
        if all(_fits(o, g, now) for g in group):
            group.append(o)
            if len(group) == me.players:
                return group
    return None


def match(store: Store, ticket_id: str, now: float | None = None) -> list[Ticket] | None:
    """Try to pair ``ticket_id`` now: the group is claimed (``matched``) all or none, so a ticket
    is in at most one game whichever workers try at once. Returns the claimed group (seat order:
    the caller's to choose), or None."""
    now = time.time() if now is None else now
    with store.tx() as c:
        r = c.execute(select(pairing).where(pairing.c.id == ticket_id)).first()
        if r is None or r.status != "waiting":
            return None
        me = _ticket(r)
        c.execute(update(pairing).where(pairing.c.id == me.id).values(polled=now))
        c.execute(update(pairing).where(pairing.c.pool == me.pool, pairing.c.status == "waiting",
                                        pairing.c.polled < now - POLL_STALE).values(status="cancelled"))
        rows = c.execute(select(pairing).where(pairing.c.pool == me.pool, pairing.c.status == "waiting",
                                               pairing.c.id != me.id).order_by(pairing.c.created)
                         .limit(200)).all()
        group = choose(me, [_ticket(x) for x in rows], now)
        if group is None:
            return None
        ids = [g.id for g in group]
        won = c.execute(update(pairing).where(pairing.c.id.in_(ids), pairing.c.status == "waiting")
                        .values(status="matched")).rowcount
        if won != len(ids):
            # Another worker claimed one of them first: this transaction changes nothing.
            c.rollback()
            return None
    return group


def paired(store: Store, group: list[Ticket], game: str) -> None:
    """The game of a claimed group is made: each ticket learns its game and seat (list order)."""
    with store.tx() as c:
        for seat, t in enumerate(group):
            c.execute(update(pairing).where(pairing.c.id == t.id)
                      .values(status="paired", game=game, seat=seat))


def unmatch(store: Store, group: list[Ticket]) -> None:
    """The game of a claimed group could not be made: its tickets wait again."""
    with store.tx() as c:
        c.execute(update(pairing).where(pairing.c.id.in_([t.id for t in group]),
                                        pairing.c.status == "matched").values(status="waiting"))


def names_of(store: Store, ids: list[str]) -> dict[str, str]:
    with store.engine.connect() as c:
        return {r.id: r.name for r in c.execute(select(accounts.c.id, accounts.c.name)
                                                 .where(accounts.c.id.in_(ids))).all()}

