"""Vacation per account per calendar year (issue 26 item 3; migration ``0016_vacation``): a seat
held by a signed-in account draws its vacation from the account's yearly allowance
(``REBIRTH_VACATION_DAYS`` a year) across all its games; a guest seat keeps its allowance per
game (``app/clock.py``). Going away reserves what the account has left this year with one
conditional UPDATE (of two workers or two games, only one can take the same days); coming back
gives back what was not used. Synchronous (SQLAlchemy Core): call it off the event loop.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

from sqlalchemy import Column, Connection, Float, ForeignKey, Integer, String, Table, insert, select, update
from sqlalchemy.exc import IntegrityError

from rebirth.server.persistence.accounts import account_seats
from rebirth.server.persistence.store import StaleWrite, Store, metadata

vacation_years = Table(
    "vacation_years", metadata,
    Column("account", String(32), ForeignKey("accounts.id"), primary_key=True),
    Column("year", Integer, primary_key=True),
    Column("used_s", Float, nullable=False),  # seconds reserved or used in that calendar year
)


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


def account_of(store: Store, game: str, seat: int) -> str | None:
    """The account that holds ``seat`` of ``game`` (None: a guest's seat)."""
    with store.engine.connect() as c:
        r = c.execute(select(account_seats.c.account).where(
            account_seats.c.game == game, account_seats.c.seat == seat)).scalar_one_or_none()
    return None if r is None else str(r)
