"""Bot accounts, their API tokens, challenges and the bots' event log (issue 27 item 2;
migration ``0018_botaccounts``). Synchronous (SQLAlchemy Core): call it off the event loop.

The database is the source of truth across workers, as for open seats: a challenge is decided
by ``UPDATE challenges SET status = … WHERE id = … AND status = 'open'`` — exactly one of an
accept, a decline and a cancel racing on two workers changes the row. What a bot is told
(``GET /api/bot/stream/events``) is a row of :data:`bot_events`, numbered in commit order; a
stream reads the rows after the last one it sent, woken by this worker's own writes, by Redis'
lossy notices of the others' (server/realtime/broker.py) and by a periodic look.

Every API token is stored as its SHA-256 digest (:func:`hash_token`); it is shown once. Event
bodies carry public facts only: names, boards, clocks, game ids and seats — no token, no card.
"""

from __future__ import annotations

import json
import math
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
from sqlalchemy.exc import IntegrityError

from rebirth.server.persistence.accounts import account_seats, accounts, game_meta
from rebirth.server.persistence.open_games import clock_text
from rebirth.server.persistence.store import Store, games, hash_token, metadata

bot_tokens = Table(
    "bot_tokens", metadata,
    Column("hash", String(64), primary_key=True),  # SHA-256 hex of the token (shown once)
    Column("account", String(32), ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created", Float, nullable=False),
    Column("revoked", Boolean, nullable=False),
)

challenges = Table(
    "challenges", metadata,
    Column("id", String(32), primary_key=True),  # not a secret: both sides are checked
    Column("challenger", String(32), ForeignKey("accounts.id"), nullable=False, index=True),
    Column("bot", String(32), ForeignKey("accounts.id"), nullable=False),
    Column("board", String(64), nullable=False),
    Column("players", Integer, nullable=False),
    Column("clock", Text, nullable=True),  # the clock's JSON as asked (None: no clock)
    Column("variants", Text, nullable=False),  # a JSON list
    Column("others", String(16), nullable=False),  # the server bots' level at the other seats
    Column("lang", String(8), nullable=False),
    Column("status", String(16), nullable=False),  # open / accepted / declined / canceled
    Column("created", Float, nullable=False),
    Column("decided", Float, nullable=True),
    Column("reason", String(32), nullable=True),  # a decline's reason
    Column("game", String(32), nullable=True),
    Column("seat", Integer, nullable=True),  # the challenger's seat
    Column("bot_seat", Integer, nullable=True),
    Index("ix_challenges_bot_status", "bot", "status"),
)

bot_events = Table(
    "bot_events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account", String(32), ForeignKey("accounts.id"), nullable=False, index=True),
    Column("kind", String(32), nullable=False),
    Column("body", Text, nullable=False),  # the event's JSON object (public facts only)
    Column("created", Float, nullable=False),
    Column("key", String(96), nullable=True, unique=True),  # once-only events (a game's finish)
)

EVENT_KINDS = ("challenge", "challengeCanceled", "challengeDeclined", "gameStart", "gameFinish")
"""What a bot's events stream tells it (docs/bot-api.md)."""
DECLINE_REASONS = ("generic", "later", "tooFast", "tooSlow", "variant", "casual", "rated", "board",
                   "players")
"""Why a bot declines (lichess' reasons, and the board or player count)."""
DAY = 86400.0


class BotRefused(Exception):
    """Why a bot-account change was refused: ``already_bot``, ``not_bot``, ``has_rated_games``,
    ``unknown_bot``, ``unknown_challenge``, ``challenge_closed``, ``self_challenge``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Limits:
    """A bot's game limits (0: none): games at once, and accepted in 24 hours."""

    concurrent: int = 0
    per_day: int = 0


class LimitReached(Exception):
    """An accept over a bot's limits: ``limit`` (``concurrent`` or ``per_day``), its ``max``,
    and the seconds until one more may start."""

    def __init__(self, limit: str, most: int, wait: int) -> None:
        super().__init__(limit)
        self.limit = limit
        self.most = most
        self.wait = wait


BUSY_RETRY_S = 60
"""``Retry-After`` of a bot that plays its most games at once (a game's end is not known in
advance: a minute, then ask again)."""


@dataclass(frozen=True)
class BotAuth:
    """What a bot API token stands for: a live bot account (``status`` ``ok``), or why not
    (``revoked``; ``unknown``: no such token)."""

    status: str
    account: str = ""
    name: str = ""


@dataclass(frozen=True)
class Challenge:
    """One challenge, as stored."""

    id: str
    challenger: str
    challenger_name: str
    bot: str
    bot_name: str
    board: str
    players: int
    clock: dict[str, Any] | None
    variants: list[str]
    others: str
    lang: str
    status: str
    created: float
    reason: str | None
    game: str | None
    seat: int | None
    bot_seat: int | None

    def public(self) -> dict[str, Any]:
        """The challenge as both sides see it (the events' ``challenge`` object)."""
        return {"id": self.id, "challenger": self.challenger_name, "bot": self.bot_name,
                "board": self.board, "players": self.players, "clock": self.clock,
                "variants": self.variants, "status": self.status, "reason": self.reason,
                "game": self.game, "bot_seat": self.bot_seat}


# ---------------------------------------------------------------------------- accounts and tokens


def _new_token(c: Connection, account: str) -> str:
    token = "bot_" + secrets.token_urlsafe(24)
    c.execute(insert(bot_tokens).values(hash=hash_token(token), account=account, created=time.time(),
                                        revoked=False))
    return token


def upgrade(store: Store, account: str) -> str:
    """Make ``account`` a bot account (for good) and give it its first API token (shown once).
    Refused for a bot account already and for an account that played a rated game."""
    with store.tx() as c:
        r = c.execute(select(accounts.c.bot).where(accounts.c.id == account)).first()
        if r is None:
            raise BotRefused("unknown_bot")
        if r.bot:
            raise BotRefused("already_bot")
        rated = c.execute(select(func.count()).select_from(account_seats).join(
            game_meta, game_meta.c.game == account_seats.c.game).where(
            account_seats.c.account == account, game_meta.c.rated.is_(True))).scalar()
        if rated:
            raise BotRefused("has_rated_games")
        c.execute(update(accounts).where(accounts.c.id == account).values(bot=True))
        return _new_token(c, account)


def new_token(store: Store, account: str) -> str:
    """A new API token of a bot account; its earlier tokens stop working."""
    with store.tx() as c:
        bot = c.execute(select(accounts.c.bot).where(accounts.c.id == account)).scalar()
        if not bot:
            raise BotRefused("not_bot")
        c.execute(update(bot_tokens).where(bot_tokens.c.account == account).values(revoked=True))
        return _new_token(c, account)


def revoke_tokens(store: Store, account: str) -> int:
    """Revoke every API token of ``account``; how many were live."""
    with store.tx() as c:
        return int(c.execute(update(bot_tokens).where(bot_tokens.c.account == account,
                                                       bot_tokens.c.revoked.is_(False))
                             .values(revoked=True)).rowcount)


def live_tokens(store: Store, account: str) -> int:
    """How many live API tokens the account has (the account page says whether one exists)."""
    with store.engine.connect() as c:
        return int(c.execute(select(func.count()).select_from(bot_tokens).where(
            bot_tokens.c.account == account, bot_tokens.c.revoked.is_(False))).scalar() or 0)


def auth(store: Store, token: str) -> BotAuth:
    """What ``token`` stands for (:class:`BotAuth`)."""
    if not token.startswith("bot_") or len(token) > 100:
        return BotAuth("unknown")
    with store.engine.connect() as c:
        r = c.execute(select(bot_tokens.c.revoked, accounts.c.id, accounts.c.name, accounts.c.deleted,
                             accounts.c.bot).join(accounts, accounts.c.id == bot_tokens.c.account)
                      .where(bot_tokens.c.hash == hash_token(token))).first()
    if r is None:
        return BotAuth("unknown")
    if r.revoked or r.deleted or not r.bot:
        return BotAuth("revoked")
    return BotAuth("ok", r.id, r.name)


def bot_named(store: Store, key: str) -> tuple[str, str] | None:
    """``(id, name)`` of the live bot account whose name's compared form
    (accounts/store.py ``name_key``) is ``key``, or None."""
    with store.engine.connect() as c:
        r = c.execute(select(accounts.c.id, accounts.c.name).where(
            accounts.c.name_key == key, accounts.c.bot.is_(True),
            accounts.c.deleted.is_(False))).first()
    return None if r is None else (r.id, r.name)


def bot_names(store: Store, names: list[str]) -> set[str]:
    """Which of ``names`` are the names of bot accounts (the "BOT" badge)."""
    if not names:
        return set()
    with store.engine.connect() as c:
        return {str(n) for n in c.execute(select(accounts.c.name).where(
            accounts.c.name.in_(names), accounts.c.bot.is_(True), accounts.c.deleted.is_(False))).scalars()}


def bot_seats(store: Store, game: str) -> set[int]:
    """The seats of ``game`` that bot accounts hold (the "BOT" badge of the game page)."""
    with store.engine.connect() as c:
        return {int(s) for s in c.execute(select(account_seats.c.seat).join(
            accounts, accounts.c.id == account_seats.c.account).where(
            account_seats.c.game == game, accounts.c.bot.is_(True))).scalars()}


# ---------------------------------------------------------------------------- limits


def limits_now(store: Store, account: str, limits: Limits) -> LimitReached | None:
    """:func:`over_limits` read now (a challenge made to a bot at its limits is refused early;
    the accept decides again, in its transaction)."""
    with store.engine.connect() as c:
        return over_limits(c, account, limits, time.time())


def _started_since(c: Connection, account: str, since: float) -> list[float]:
    return [float(t) for t in c.execute(select(challenges.c.decided).where(
        challenges.c.bot == account, challenges.c.status == "accepted",
        challenges.c.decided >= since).order_by(challenges.c.decided)).scalars()]


def _playing(c: Connection, account: str) -> int:
    return int(c.execute(select(func.count(func.distinct(account_seats.c.game))).select_from(
        account_seats).join(games, games.c.id == account_seats.c.game).where(
        account_seats.c.account == account, games.c.status == "playing")).scalar() or 0)


def over_limits(c: Connection, account: str, limits: Limits, now: float) -> LimitReached | None:
    """Whether one more game would put the bot over ``limits``: its games playing, plus the
    challenges it accepted whose game is still being made (those count at once, so two
    accepts at the same moment cannot both slip under the limit)."""
    if limits.concurrent:
        making = int(c.execute(select(func.count()).select_from(challenges).where(
            challenges.c.bot == account, challenges.c.status == "accepted",
            challenges.c.game.is_(None))).scalar() or 0)
        if _playing(c, account) + making >= limits.concurrent:
            return LimitReached("concurrent", limits.concurrent, BUSY_RETRY_S)
    if limits.per_day:
        starts = _started_since(c, account, now - DAY)
        if len(starts) >= limits.per_day:
            # One more may start when the oldest of the last ``per_day`` leaves the window.
            frees = starts[len(starts) - limits.per_day] + DAY
            return LimitReached("per_day", limits.per_day, max(1, math.ceil(frees - now)))
    return None


# ---------------------------------------------------------------------------- events


def _event(c: Connection, account: str, kind: str, body: dict[str, Any], key: str | None = None) -> None:
    c.execute(insert(bot_events).values(account=account, kind=kind, body=json.dumps(body, sort_keys=True),
                                        created=time.time(), key=key))


def last_event(store: Store, account: str) -> int:
    """The number of the account's latest event (0: none)."""
    with store.engine.connect() as c:
        return int(c.execute(select(func.max(bot_events.c.id)).where(bot_events.c.account == account))
                   .scalar() or 0)


def events_after(store: Store, account: str, after: int,
                 limit: int = 100) -> list[tuple[int, str, dict[str, Any]]]:
    """The account's events after number ``after``, oldest first: ``(id, kind, body)``."""
    with store.engine.connect() as c:
        rows = c.execute(select(bot_events.c.id, bot_events.c.kind, bot_events.c.body).where(
            bot_events.c.account == account, bot_events.c.id > after).order_by(bot_events.c.id)
            .limit(limit)).all()
    return [(int(r.id), str(r.kind), json.loads(r.body)) for r in rows]


def game_finished(store: Store, game: str, scores: list[int], winners: list[int]) -> list[str]:
    """A game is over: each bot account seated in it is told once (whichever workers see the
    end, however often the game is loaded again). Returns the accounts told now."""
    told: list[str] = []
    with store.engine.connect() as c:
        rows = c.execute(select(account_seats.c.account, account_seats.c.seat).join(
            accounts, accounts.c.id == account_seats.c.account).where(
            account_seats.c.game == game, accounts.c.bot.is_(True))).all()
    for r in rows:
        try:
            with store.tx() as c:
                body = {"game": {"id": game, "seat": int(r.seat), "scores": scores, "winners": winners}}
                _event(c, r.account, "gameFinish", body, key=f"finish:{game}:{int(r.seat)}")
            told.append(str(r.account))
        except IntegrityError:
            continue  # told already
    return told


# ---------------------------------------------------------------------------- challenges

_SELECT = select(challenges, accounts.c.name.label("challenger_name")).join(
    accounts, accounts.c.id == challenges.c.challenger)


def _challenge(c: Connection, r: Any) -> Challenge:
    bot_name = c.execute(select(accounts.c.name).where(accounts.c.id == r.bot)).scalar() or ""
    return Challenge(r.id, r.challenger, r.challenger_name, r.bot, str(bot_name), r.board, int(r.players),
                     None if r.clock is None else json.loads(r.clock), list(json.loads(r.variants)),
                     r.others, r.lang, r.status,
                     float(r.created), r.reason, r.game, None if r.seat is None else int(r.seat),
                     None if r.bot_seat is None else int(r.bot_seat))


def challenge(store: Store, challenge_id: str) -> Challenge | None:
    """The challenge ``challenge_id`` (None: unknown)."""
    if len(challenge_id) > 32:
        return None
    with store.engine.connect() as c:
        r = c.execute(_SELECT.where(challenges.c.id == challenge_id)).first()
        return None if r is None else _challenge(c, r)


def open_challenges(store: Store, bot: str) -> list[Challenge]:
    """The challenges waiting for ``bot``'s answer, oldest first."""
    with store.engine.connect() as c:
        rows = c.execute(_SELECT.where(challenges.c.bot == bot, challenges.c.status == "open")
                         .order_by(challenges.c.created).limit(100)).all()
        return [_challenge(c, r) for r in rows]


def ongoing(store: Store, account: str) -> list[tuple[str, int]]:
    """The account's games still playing: ``(game, seat)``, oldest first."""
    with store.engine.connect() as c:
        rows = c.execute(select(account_seats.c.game, account_seats.c.seat).join(
            games, games.c.id == account_seats.c.game).where(
            account_seats.c.account == account, games.c.status == "playing")
            .order_by(games.c.created).limit(200)).all()
    return [(str(r.game), int(r.seat)) for r in rows]


def create_challenge(store: Store, challenger: str, bot: str, board: str, players: int,
                     clock: dict[str, Any] | None, variants: list[str], others: str, lang: str) -> Challenge:
    """A new open challenge; the bot is told (a ``challenge`` event in the same transaction)."""
    if challenger == bot:
        raise BotRefused("self_challenge")
    cid = secrets.token_urlsafe(9)
    with store.tx() as c:
        c.execute(insert(challenges).values(id=cid, challenger=challenger, bot=bot, board=board,
                                            players=players,
                                            clock=clock_text(clock), variants=json.dumps(sorted(variants)),
                                            others=others, lang=lang[:8], status="open", created=time.time()))
        got = _challenge(c, c.execute(_SELECT.where(challenges.c.id == cid)).one())
        _event(c, bot, "challenge", {"challenge": got.public()})
    return got


def decide(store: Store, challenge_id: str, status: str, *, bot: str | None = None,
           challenger: str | None = None, reason: str | None = None,
           limits: Limits | None = None) -> Challenge:
    """Accept, decline or cancel an open challenge: of several racing, exactly one changes it
    (``challenge_closed`` for the others). ``bot``/``challenger``: who may (the other side: unknown).
    A decline or a cancel tells the bot; an accept's ``gameStart`` comes with its game. An
    accept over ``limits`` raises :class:`LimitReached`, nothing changed: judged in the same
    transaction, behind a lock of the bot's account row, so racing accepts are counted in turn."""
    with store.tx() as c:
        r = c.execute(_SELECT.where(challenges.c.id == challenge_id)).first()
        if r is None or (bot is not None and r.bot != bot) \
                or (challenger is not None and r.challenger != challenger):
            raise BotRefused("unknown_challenge")
        if status == "accepted" and limits is not None:
            # FOR UPDATE on PostgreSQL; SQLite's BEGIN IMMEDIATE already serialises writers.
            q = select(accounts.c.id).where(accounts.c.id == r.bot)
            if c.dialect.name == "postgresql":
                q = q.with_for_update()
            c.execute(q)
            hit = over_limits(c, str(r.bot), limits, time.time())
            if hit is not None:
                raise hit
        won = c.execute(update(challenges).where(challenges.c.id == challenge_id,
                                                 challenges.c.status == "open")
                        .values(status=status, decided=time.time(), reason=reason)).rowcount
        if won != 1:
            raise BotRefused("challenge_closed")
        got = _challenge(c, c.execute(_SELECT.where(challenges.c.id == challenge_id)).one())
        if status == "declined":
            _event(c, got.bot, "challengeDeclined", {"challenge": got.public()})
        elif status == "canceled":
            _event(c, got.bot, "challengeCanceled", {"challenge": got.public()})
    return got


def reopen(store: Store, challenge_id: str) -> None:
    """An accepted challenge whose game could not be made is open again."""
    with store.tx() as c:
        c.execute(update(challenges).where(challenges.c.id == challenge_id, challenges.c.status == "accepted",
                                           challenges.c.game.is_(None))
                  .values(status="open", decided=None))


def started(store: Store, ch: Challenge, game: str, seat: int, bot_seat: int) -> Challenge:
    """The game of an accepted challenge is made: the challenge names it, the bot is told."""
    with store.tx() as c:
        c.execute(update(challenges).where(challenges.c.id == ch.id)
                  .values(game=game, seat=seat, bot_seat=bot_seat))
        got = _challenge(c, c.execute(_SELECT.where(challenges.c.id == ch.id)).one())
        _event(c, ch.bot, "gameStart", {"game": {"id": game, "seat": bot_seat, "board": ch.board,
                                                 "players": ch.players, "challenge": ch.id,
                                                 "opponent": ch.challenger_name}})
    return got
