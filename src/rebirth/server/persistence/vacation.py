"""Vacation per account per calendar year (issue 26 item 3; migrations ``0016_vacation`` and
``0019_vacation_away``): a seat held by a signed-in account draws its vacation from the account's
yearly allowance (``REBIRTH_VACATION_DAYS`` a year) across all its games; a guest seat keeps its
allowance per game (``app/clock.py``).

An account is away for one period at a time (``vacation_away``), however many of its games it
pauses: the first game that goes away reserves what the account has left this year (one
conditional UPDATE: of two workers or two games, only one can take the same days) and opens the
period; the other games join it, each with what is left of the period; when the last one is
back, the days of the period are charged once — the calendar time it lasted, at most what was
reserved — and the rest goes back to the year. Synchronous (SQLAlchemy Core): call it off the
event loop.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import (
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    String,
    Table,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from rebirth.server.persistence.accounts import account_seats
from rebirth.server.persistence.store import StaleWrite, Store, games, metadata

vacation_years = Table(
    "vacation_years", metadata,
    Column("account", String(32), ForeignKey("accounts.id"), primary_key=True),
    Column("year", Integer, primary_key=True),
    Column("used_s", Float, nullable=False),  # seconds reserved or used in that calendar year
)


vacation_away = Table(
    "vacation_away", metadata,
    Column("account", String(32), ForeignKey("accounts.id"), primary_key=True),
    Column("year", Integer, nullable=False),  # the year the days were reserved from
    Column("since", Float, nullable=False),  # wall time the period began
    Column("reserved_s", Float, nullable=False),  # seconds reserved for it
)
vacation_games = Table(
    "vacation_games", metadata,
    Column("account", String(32), ForeignKey("accounts.id"), primary_key=True),
    Column("game", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
)
"""The seats away in an account's period: a row per game and seat, so a game that ends while
away leaves it by deleting its rows (idempotent: :func:`game_over`)."""


@dataclass(frozen=True)
class Away:
    """An account's vacation period under way (``games``: the seats away in it)."""

    year: int
    since: float
    reserved_s: float
    games: int

    def left_at(self, t: float) -> float:
        """Seconds of the period left at wall time ``t`` (what a game joining then may pause)."""
        return max(0.0, self.reserved_s - max(0.0, t - self.since))


def _period(c: Connection, account: str, lock: bool = False) -> Away | None:
    q = select(vacation_away).where(vacation_away.c.account == account)
    if lock and c.dialect.name == "postgresql":
        # FOR UPDATE: games joining and leaving the period take their turns (SQLite's BEGIN
        # IMMEDIATE already serialises writers).
        q = q.with_for_update()
    r = c.execute(q).first()
    if r is None:
        return None
    n = c.execute(select(func.count()).select_from(vacation_games).where(
        vacation_games.c.account == account)).scalar() or 0
    return Away(int(r.year), float(r.since), float(r.reserved_s), int(n))


def away_of(store: Store, account: str) -> Away | None:
    """The account's vacation period under way, or None."""
    with store.engine.connect() as c:
        return _period(c, account)


def go_away_in(account: str, year: int, left_s: float, cap_s: float, joined: Away | None,
               game: str, seat: int, t: float) -> Callable[[Connection], None]:
    """``seat`` of ``game`` (held by ``account``) goes away, in its clock's transaction: it opens
    the account's period (reserving ``left_s``, all the year has left) or joins ``joined``, the
    period read before. What changed meanwhile (another game opened or closed a period):
    :class:`StaleWrite`, nothing stored (the caller reads again)."""
    reserve = reserve_in(account, year, left_s, cap_s)

    def run(c: Connection) -> None:
        now_open = _period(c, account, lock=True)
        if joined is None:
            if now_open is not None:
                raise StaleWrite(f"account {account}: a vacation began meanwhile")
            reserve(c)
            try:
                c.execute(insert(vacation_away).values(account=account, year=year, since=t,
                                                       reserved_s=left_s))
            except IntegrityError:  # the whole transaction is given up: the reservation too
                raise StaleWrite(f"account {account}: a vacation began meanwhile") from None
        elif now_open is None or now_open.since != joined.since:
            raise StaleWrite(f"account {account}: the vacation ended meanwhile")
        c.execute(delete(vacation_games).where(vacation_games.c.account == account,
                                               vacation_games.c.game == game, vacation_games.c.seat == seat))
        c.execute(insert(vacation_games).values(account=account, game=game, seat=seat))

    return run


def _leave(c: Connection, account: str, t: float, game: str, seat: int | None) -> None:
    """``game``'s seat (None: all its seats) leaves the account's period; the last one closes
    it: its calendar time (at most what was reserved) stays used, the rest goes back to the year
    it was reserved from."""
    period = _period(c, account, lock=True)
    if period is None:
        return  # nothing open (a vacation from before periods were kept): nothing to give back
    q = delete(vacation_games).where(vacation_games.c.account == account, vacation_games.c.game == game)
    if seat is not None:
        q = q.where(vacation_games.c.seat == seat)
    c.execute(q)
    if (c.execute(select(func.count()).select_from(vacation_games).where(
            vacation_games.c.account == account)).scalar() or 0) > 0:
        return
    refund_in(account, period.year, period.left_at(t))(c)
    c.execute(delete(vacation_away).where(vacation_away.c.account == account))


def come_back_in(account: str, game: str, seat: int, t: float) -> Callable[[Connection], None]:
    """``seat`` of ``game`` is back, in its clock's transaction (the last one closes the period)."""

    def run(c: Connection) -> None:
        _leave(c, account, t, game, seat)

    return run


def game_over(store: Store, game: str, t: float) -> int:
    """A game that ended leaves the vacation periods its seats were away in (the last one
    closes its period); the accounts concerned. Idempotent: nothing left to do the second time."""
    with store.tx() as c:
        accounts_away = sorted({str(a) for a in c.execute(select(vacation_games.c.account).where(
            vacation_games.c.game == game)).scalars()})
        for account in accounts_away:
            _leave(c, account, t, game, None)
    return len(accounts_away)


def year_of(t: float) -> int:
    """The calendar year (UTC) of wall time ``t``."""
    return datetime.datetime.fromtimestamp(t, datetime.UTC).year


def left(store: Store, account: str, year: int, cap_s: float) -> float:
    """Seconds of vacation ``account`` has left in ``year`` (its row made when missing)."""
    with store.tx() as c:
        used = c.execute(select(vacation_years.c.used_s).where(
            vacation_years.c.account == account, vacation_years.c.year == year)).scalar_one_or_none()
    if used is None:
        try:
            with store.tx() as c:
                c.execute(insert(vacation_years).values(account=account, year=year, used_s=0.0))
        except IntegrityError:  # another request made it first
            pass
        used = 0.0
    return max(0.0, cap_s - float(used))


def reserve_in(account: str, year: int, take_s: float, cap_s: float) -> Callable[[Connection], None]:
    """The reservation of ``take_s`` seconds, in the vacation's clock transaction: only while the
    account still has them this year (otherwise :class:`StaleWrite`, and nothing is stored)."""

    def run(c: Connection) -> None:
        n = c.execute(update(vacation_years).where(
            vacation_years.c.account == account, vacation_years.c.year == year,
            vacation_years.c.used_s + take_s <= cap_s + 1e-6).values(
                used_s=vacation_years.c.used_s + take_s)).rowcount
        if n != 1:
            raise StaleWrite(f"account {account}: not {take_s} s of vacation left in {year}")

    return run


def refund_in(account: str, year: int, back_s: float) -> Callable[[Connection], None]:
    """What a vacation that ended did not use goes back to the year it was reserved from."""

    def run(c: Connection) -> None:
        row = c.execute(select(vacation_years.c.used_s).where(
            vacation_years.c.account == account, vacation_years.c.year == year)).scalar_one_or_none()
        if row is not None:
            c.execute(update(vacation_years).where(
                vacation_years.c.account == account, vacation_years.c.year == year).values(
                    used_s=max(0.0, float(row) - back_s)))

    return run


def turn_games_of(store: Store, account: str) -> list[tuple[str, int]]:
    """The account's seats ``(game, seat)`` in games still playing (the caller keeps those with
    a turn clock: the clock is the game's live state)."""
    with store.engine.connect() as c:
        rows = c.execute(select(account_seats.c.game, account_seats.c.seat).join(
            games, games.c.id == account_seats.c.game).where(
            account_seats.c.account == account, games.c.status == "playing").order_by(
            account_seats.c.game, account_seats.c.seat)).all()
    return [(str(g), int(q)) for g, q in rows]


def account_of(store: Store, game: str, seat: int) -> str | None:
    """The account that holds ``seat`` of ``game`` (None: a guest's seat)."""
    with store.engine.connect() as c:
        r = c.execute(select(account_seats.c.account).where(
            account_seats.c.game == game, account_seats.c.seat == seat)).scalar_one_or_none()
    return None if r is None else str(r)
