"""Accounts for the ratings tests, written straight into the accounts' and the seat
notifications' own tables (``accounts``, ``account_seats``, ``game_meta``, ``forfeits``):
helpers to give a game's seats to accounts, mark it rated and record a forfeit."""

from __future__ import annotations

import secrets
import time

from sqlalchemy import insert

from rebirth.server.persistence.accounts import account_seats, accounts, game_meta
from rebirth.server.persistence.seatnotify import forfeits
from rebirth.server.persistence.store import Store


def account(store: Store, name: str, *, deleted: bool = False) -> str:
    """A new account named ``name``; its id."""
    aid = secrets.token_hex(8)
    with store.tx() as c:
        c.execute(insert(accounts).values(id=aid, name=name, name_key=name.lower(), email=None,
                                          lang="en", created=time.time(), deleted=deleted, bot=False))
    return aid


def seat(store: Store, game: str, seat_no: int, account_id: str) -> None:
    """The seat is the account's."""
    with store.tx() as c:
        c.execute(insert(account_seats).values(game=game, seat=seat_no, account=account_id))


def rated(store: Store, game: str, creator: str | None = None, value: bool = True) -> None:
    """The game's creator asked for a rated game."""
    with store.tx() as c:
        c.execute(insert(game_meta).values(game=game, creator_account=creator, rated=value))


def forfeit(store: Store, game: str, seat_no: int, reason: str = "resigned") -> None:
    """The seat resigned (or ran out of time for good)."""
    with store.tx() as c:
        c.execute(insert(forfeits).values(game=game, seat=seat_no, reason=reason, at=time.time()))
