"""STAND-INS, deleted at merge: the tables of the accounts branch (``accounts``,
``account_seats``, ``game_meta``: migration 0008_accounts) and of the seat-notification branch
(``forfeits``) as far as the ratings read them, made in a test's database; and helpers to
give a game's seats to accounts and mark it rated as those branches will.

Once those branches are on main, :func:`create_standins` becomes a no-op (their migrations
make the tables) and :func:`account` / :func:`seat` / :func:`rated` write through their own
modules."""

from __future__ import annotations

import secrets
import time

from sqlalchemy import Boolean, Column, Float, Integer, MetaData, String, Table, insert

from rebirth.server.persistence.store import Store

standins = MetaData()
accounts = Table(
    "accounts", standins,
    Column("id", String(32), primary_key=True),
    Column("name", String(32), nullable=False, unique=True),
    Column("name_key", String(32), nullable=False, unique=True),
    Column("email", String(254), nullable=True),
    Column("lang", String(8), nullable=False, default="en"),
    Column("created", Float, nullable=False),
    Column("deleted", Boolean, nullable=False, default=False),
    Column("bot", Boolean, nullable=False, default=False),
    Column("notify", String(16), nullable=True),
)
account_seats = Table(
    "account_seats", standins,
    Column("game", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account", String(32), nullable=False, index=True),
)
game_meta = Table(
    "game_meta", standins,
    Column("game", String(32), primary_key=True),
    Column("creator_account", String(32), nullable=True),
    Column("rated", Boolean, nullable=False),
)
forfeits = Table(
    "forfeits", standins,
    Column("game", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("reason", String(16), nullable=False),
    Column("at", Float, nullable=False),
)


def create_standins(store: Store) -> None:
    """Make the stand-in tables in the store's database (idempotent)."""
    standins.create_all(store.engine, checkfirst=True)


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
