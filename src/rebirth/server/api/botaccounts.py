"""Bot accounts and challenges (issue 27 item 2; docs/bot-api.md, docs/protocol.md "Bot API"),
after lichess' Bot API:

- ``POST /api/account/bot`` (session cookie): the account becomes a bot account, for good (not
  one that played a rated game), and gets an API token, shown once; ``POST
  /api/account/bot/token`` gives a new one (the old stops working), ``DELETE`` revokes it.
- ``Authorization: Bearer <API token>`` then works on the bot endpoints for the account's seats
  (server/api/bot.py), and on ``GET /api/bot/stream/events``: NDJSON lines ``challenge``,
  ``challengeCanceled``, ``challengeDeclined``, ``gameStart``, ``gameFinish``, a keep-alive
  empty line every ``bot_keepalive_s`` seconds.
- ``POST /api/challenges`` (a signed-in player): challenge a bot by name; the bot answers
  ``POST /api/challenges/{id}/accept`` (a game is made: the challenger's seat and the bot's,
  a ``remote`` seat) or ``/decline``; the challenger may ``/cancel`` while it is open and reads
  ``GET /api/challenges/{id}`` (once accepted: the game, its seat and this device's token).

Limits per bot account: ``REBIRTH_BOT_MAX_GAMES`` at once and ``REBIRTH_BOT_GAMES_PER_DAY``
accepted in 24 hours: a readable ``429`` with ``Retry-After``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Query, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection
from sqlalchemy.exc import SQLAlchemyError

from rebirth.app.match import HUMAN, REMOTE
from rebirth.engine.game import Game, SetupError
from rebirth.engine.messages import UserError
from rebirth.server.accounts.store import device_token, name_key, own_seat, set_game_meta
from rebirth.server.api.answers import Answer
from rebirth.server.api.bot import TokenWatch, limited, refused_to
from rebirth.server.api.deps import (
    BearerToken,
    CurrentAccount,
    MaybeAccount,
    RegistryDep,
    SettingsDep,
    bearer_token,
)
from rebirth.server.clocks.changes import ClockBody, spec_of
from rebirth.server.errors import ApiError, known_lang, texts
from rebirth.server.pages.data import require_board
from rebirth.server.persistence import botaccounts as ba
from rebirth.server.play.botevents import BotEvents
from rebirth.server.play.registry import Registry
from rebirth.server.play.stream import KEEPALIVE
from rebirth.server.settings import Settings

router = APIRouter(prefix="/api", tags=["bot accounts"])

NDJSON = "application/x-ndjson"


# ---------------------------------------------------------------------------- answers


class BotToken(Answer):
    """A bot account's new API token (shown once; ``Cache-Control: no-store``)."""

    name: str
    bot: bool
    token: str


class TokensRevoked(Answer):
    """``DELETE /api/account/bot/token``: how many live tokens were revoked."""

    revoked: int


class ChallengeAnswer(Answer):
    """A challenge: ``status`` ``open``, ``accepted``, ``declined`` or ``canceled``; once accepted,
    ``game`` and ``bot_seat``, and for the challenger its ``seat`` and this device's ``token``."""

    id: str
    challenger: str
    bot: str
    board: str
    players: int
    clock: dict[str, Any] | None
    variants: list[str]
    status: Literal["open", "accepted", "declined", "canceled"]
    reason: str | None
    game: str | None
    bot_seat: int | None
    seat: int | None = None
    token: str | None = None


# ---------------------------------------------------------------------------- who asks


class LimitError(ApiError):
    """A refusal with a ``Retry-After`` header (a bot's game limits)."""

    def __init__(self, code: str, text: dict[str, str], retry_after: int, details: dict[str, Any]) -> None:
        super().__init__(429, code, text, {**details, "retry_after": retry_after})
        self.retry_after = retry_after

    def response(self) -> JSONResponse:
        out = super().response()
        out.headers["Retry-After"] = str(self.retry_after)
        return out


async def bot_auth(registry: RegistryDep, token: BearerToken) -> ba.BotAuth:
    """The live bot account of the bearer API token (401 ``bad_token`` / ``revoked`` otherwise)."""
    got = await asyncio.to_thread(ba.auth, registry.store, token)
    if got.status == "revoked":
        raise ApiError(401, "revoked", texts("server.bot_token_revoked"))
    if got.status != "ok":
        raise ApiError(401, "bad_token")
    return got


BotDep = Annotated[ba.BotAuth, Depends(bot_auth)]


def _events(request: Request) -> BotEvents:
    ev: BotEvents = request.app.state.bot_events
    return ev


def _refused(exc: ba.BotRefused) -> ApiError:
    status = {"unknown_bot": 404, "unknown_challenge": 404}.get(exc.code, 409)
    return ApiError(status, exc.code, texts(f"server.{exc.code}"))


# ---------------------------------------------------------------------------- bot accounts


@router.post("/account/bot", status_code=201, response_model=BotToken)
async def become_bot(account: CurrentAccount, registry: RegistryDep, response: Response) -> dict[str, Any]:
    """Make the signed-in account a bot account (irreversible; refused for one that played a
    rated game) and give it its API token, shown once."""
    try:
        token = await asyncio.to_thread(ba.upgrade, registry.store, account.id)
    except ba.BotRefused as exc:
        raise _refused(exc) from None
    response.headers["Cache-Control"] = "no-store"
    return {"name": account.name, "bot": True, "token": token}


@router.post("/account/bot/token", response_model=BotToken)
async def renew_token(account: CurrentAccount, registry: RegistryDep, response: Response) -> dict[str, Any]:
    """A new API token of the bot account (shown once); its earlier token stops working."""
    try:
        token = await asyncio.to_thread(ba.new_token, registry.store, account.id)
    except ba.BotRefused as exc:
        raise _refused(exc) from None
    response.headers["Cache-Control"] = "no-store"
    return {"name": account.name, "bot": True, "token": token}


@router.delete("/account/bot/token", response_model=TokensRevoked)
async def revoke_token(account: CurrentAccount, registry: RegistryDep) -> dict[str, Any]:
    """Revoke the bot account's API token: every request with it is refused (401) from now on."""
    return {"revoked": await asyncio.to_thread(ba.revoke_tokens, registry.store, account.id)}


# ---------------------------------------------------------------------------- limits


def _limits(settings: Settings) -> ba.Limits:
    return ba.Limits(settings.bot_max_games, settings.bot_games_per_day)


def limit_error(hit: ba.LimitReached, name: str) -> LimitError:
    """The readable 429 of a bot at its limits (``Retry-After``: when one more may start)."""
    if hit.limit == "concurrent":
        return LimitError("bot_busy", texts("server.bot_busy", bot=name, n=hit.most), hit.wait,
                          {"limit": "concurrent", "max": hit.most})
    return LimitError("bot_day_limit", texts("server.bot_day_limit", bot=name, n=hit.most, seconds=hit.wait),
                      hit.wait, {"limit": "per_day", "max": hit.most})


async def check_limits(store: Any, settings: Settings, bot: str, name: str) -> None:
    """429 when the bot plays ``bot_max_games`` games now or accepted ``bot_games_per_day`` in
    the last 24 hours (the early answer to a challenge; the accept decides in its transaction)."""
    hit = await asyncio.to_thread(ba.limits_now, store, bot, _limits(settings))
    if hit is not None:
        raise limit_error(hit, name)


# ---------------------------------------------------------------------------- challenges


class ChallengeBody(BaseModel):
    """``POST /api/challenges``: the bot's account name and the game; seats past the
    challenger's and the bot's are the server's bots of level ``others``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    bot: str = Field(min_length=1, max_length=64)
    board: str = Field(default="scotland", max_length=40)
    players: int = Field(default=2, ge=2, le=4)
    others: Literal["easy", "normal", "hard", "expert"] = "normal"
    variants: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=10)
    clock: Annotated[ClockBody, Field(discriminator="kind")] | None = None
    lang: str = Field(default="en", max_length=20)


class _StoredClock(BaseModel):
    clock: Annotated[ClockBody, Field(discriminator="kind")] | None = None


class DeclineBody(BaseModel):
    """``POST /api/challenges/{id}/decline``: why (lichess' reasons)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    reason: Literal[ba.DECLINE_REASONS] = "generic"  # type: ignore[valid-type]


def _answer(ch: ba.Challenge, seat: int | None = None, token: str | None = None) -> dict[str, Any]:
    return {**ch.public(), "seat": seat, "token": token}


async def _challenger_answer(registry: Registry, ch: ba.Challenge, response: Response) -> dict[str, Any]:
    token = None
    if ch.status == "accepted" and ch.game is not None and ch.seat is not None:
        # The seat is the challenger's account's: this device's token of it, so the page opens it.
        token = await asyncio.to_thread(device_token, registry.store, ch.challenger, ch.game, ch.seat)
        response.headers["Cache-Control"] = "no-store"
    out = _answer(ch, ch.seat, token)
    if ch.status == "accepted" and ch.game is None:
        # Accepted but its game is still being made (or failed, and the challenge opens again):
        # "accepted" promises the game, its seat and a token (docs/bot-api.md), so not yet.
        out["status"] = "open"
    return out


@router.post("/challenges", status_code=201, response_model=ChallengeAnswer)
async def create_challenge(body: ChallengeBody, account: CurrentAccount, registry: RegistryDep,
                           settings: SettingsDep, request: Request) -> dict[str, Any]:
    """Challenge a bot account by name: it is told at once (``challenge`` event) and accepts or
    declines. A bot at its limits: 429 with ``Retry-After``; no such bot: 404 ``unknown_bot``."""
    known_lang(body.lang)
    require_board(body.board)
    spec_of(body.clock, settings.min_clock_s)  # a bad clock: 400 before anything is stored
    try:
        Game.create(body.board, body.players, tuple(body.variants))
    except (SetupError, ValueError) as exc:
        raise ApiError(400, "bad_game", exc.texts() if isinstance(exc, UserError)
                       else texts("server.bad_game")) from None
    store = registry.store
    found = await asyncio.to_thread(ba.bot_named, store, name_key(body.bot.strip()))
    if found is None:
        raise ApiError(404, "unknown_bot", texts("server.unknown_bot"))
    bot, bot_name = found
    await check_limits(store, settings, bot, bot_name)
    try:
        ch = await asyncio.to_thread(ba.create_challenge, store, account.id, bot, body.board, body.players,
                                     None if body.clock is None else body.clock.model_dump(),
                                     list(body.variants), body.others, body.lang)
    except ba.BotRefused as exc:
        raise _refused(exc) from None
    except SQLAlchemyError as exc:
        raise ApiError(503, "server_error", texts("server.storage_failed")) from exc
    await _events(request).wrote(bot)
    return _answer(ch, None)


async def _challenge_of(registry: Registry, challenge_id: str) -> ba.Challenge:
    ch = await asyncio.to_thread(ba.challenge, registry.store, challenge_id)
    if ch is None:
        raise ApiError(404, "unknown_challenge", texts("server.unknown_challenge"))
    return ch


@router.get("/challenges/{challenge_id}", response_model=ChallengeAnswer)
async def get_challenge(challenge_id: str, registry: RegistryDep, account: MaybeAccount,
                        response: Response,
                        authorization: Annotated[str | None, Header(max_length=200)] = None,
                        ) -> dict[str, Any]:
    """Where a challenge stands, for its challenger (session cookie) or its bot (Bearer token);
    anybody else: 404."""
    ch = await _challenge_of(registry, challenge_id)
    if authorization:
        bot = await bot_auth(registry, bearer_token(authorization))
        if bot.account != ch.bot:
            raise ApiError(404, "unknown_challenge", texts("server.unknown_challenge"))
        return _answer(ch, ch.bot_seat)
    if account is None or account.id != ch.challenger:
        raise ApiError(404, "unknown_challenge", texts("server.unknown_challenge"))
    return await _challenger_answer(registry, ch, response)


@router.post("/challenges/{challenge_id}/accept", response_model=ChallengeAnswer)
async def accept(challenge_id: str, bot: BotDep, registry: RegistryDep, settings: SettingsDep,
                 request: Request) -> dict[str, Any]:
    """The bot accepts: the game is made (the challenger's seat and the bot's ``remote`` seat,
    both their accounts'), and the bot is told ``gameStart``. Over its limits: 429."""
    store = registry.store
    try:
        ch = await asyncio.to_thread(ba.decide, store, challenge_id, "accepted", bot=bot.account,
                                     limits=_limits(settings))
    except ba.BotRefused as exc:
        raise _refused(exc) from None
    except ba.LimitReached as exc:
        raise limit_error(exc, bot.name) from None
    try:
        ch = await _start(registry, settings, ch)
    except Exception:
        await asyncio.to_thread(ba.reopen, store, ch.id)
        raise
    await _events(request).wrote(bot.account)
    return _answer(ch, ch.bot_seat)


async def _start(registry: Registry, settings: Settings, ch: ba.Challenge) -> ba.Challenge:
    """Make an accepted challenge's game: seat 0 the challenger's, seat 1 the bot's."""
    others = ch.others
    kinds = [HUMAN, REMOTE] + [others] * (ch.players - 2)
    names = [ch.challenger_name, ch.bot_name] + [f"{others.capitalize()} {i + 1}"
                                                 for i in range(2, ch.players)]
    clock = spec_of(_StoredClock.model_validate({"clock": ch.clock}).clock, settings.min_clock_s)

    def seats(c: Connection, gid: str) -> None:
        own_seat(c, gid, 0, ch.challenger)
        own_seat(c, gid, 1, ch.bot)
        set_game_meta(c, gid, ch.challenger, False)

    try:
        hub, _ = await registry.create(ch.board, kinds, names, ch.variants, ch.lang, False, clock,
                                       frozenset({0, 1}), seats)
    except SQLAlchemyError as exc:
        raise ApiError(503, "server_error", texts("server.storage_failed")) from exc
    return await asyncio.to_thread(ba.started, registry.store, ch, hub.id, 0, 1)


@router.post("/challenges/{challenge_id}/decline", response_model=ChallengeAnswer)
async def decline(challenge_id: str, bot: BotDep, registry: RegistryDep, request: Request,
                  body: DeclineBody | None = None) -> dict[str, Any]:
    """The bot declines (``reason``: lichess' reasons); the challenger sees ``declined``."""
    reason = "generic" if body is None else str(body.reason)
    try:
        ch = await asyncio.to_thread(ba.decide, registry.store, challenge_id, "declined", bot=bot.account,
                                     reason=reason)
    except ba.BotRefused as exc:
        raise _refused(exc) from None
    await _events(request).wrote(bot.account)
    return _answer(ch, ch.bot_seat)


@router.post("/challenges/{challenge_id}/cancel", response_model=ChallengeAnswer)
async def cancel(challenge_id: str, account: CurrentAccount, registry: RegistryDep,
                 request: Request) -> dict[str, Any]:
    """The challenger takes an open challenge back; the bot is told ``challengeCanceled``."""
    try:
        ch = await asyncio.to_thread(ba.decide, registry.store, challenge_id, "canceled",
                                     challenger=account.id)
    except ba.BotRefused as exc:
        raise _refused(exc) from None
    await _events(request).wrote(ch.bot)
    return _answer(ch, None)


# ---------------------------------------------------------------------------- the events stream

EVENTS_DOC: dict[int | str, dict[str, Any]] = {
    200: {"description": "NDJSON lines: challenge, challengeCanceled, challengeDeclined, gameStart, "
                         "gameFinish (docs/bot-api.md)",
          "content": {NDJSON: {"schema": {"type": "string"}}}},
}


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":"), sort_keys=True).encode() + b"\n"


@router.get("/bot/stream/events", response_class=StreamingResponse, responses=EVENTS_DOC)
async def events(bot: BotDep, registry: RegistryDep, settings: SettingsDep, request: Request,
                 token: BearerToken, limit: Annotated[int | None, Query(ge=1, le=100_000)] = None) -> Any:
    """The bot account's events as NDJSON: first the challenges waiting for it and its games
    under way (lines without ``id``), then each new event as it is committed (``id``: its
    number); an empty line when nothing happened for ``bot_keepalive_s`` seconds. ``limit``: the
    stream ends after that many lines."""
    refused = await limited(request, settings, f"events:{bot.account}")
    if refused is not None:
        return refused
    hub = _events(request)
    watch = TokenWatch(refused_to(lambda: bot_auth(registry, token)), settings.bot_keepalive_s)
    lines = _event_lines(hub, registry, settings, bot.account, limit, watch)
    return StreamingResponse(lines, media_type=NDJSON,
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def _event_lines(hub: BotEvents, registry: Registry, settings: Settings, account: str,
                       limit: int | None, watch: TokenWatch) -> AsyncIterator[bytes]:
    store = registry.store
    wake = hub.listen(account)
    left = limit
    try:
        # The number first, then the state: an event between the two comes twice, never not.
        last = await asyncio.to_thread(ba.last_event, store, account)
        waiting = await asyncio.to_thread(ba.open_challenges, store, account)
        games = await asyncio.to_thread(ba.ongoing, store, account)
        lines = [_line({"type": "challenge", "challenge": ch.public()}) for ch in waiting]
        lines += [_line({"type": "gameStart", "game": {"id": g, "seat": s}}) for g, s in games]
        quiet = time.monotonic()
        while True:
            for line in lines:
                yield line
                quiet = time.monotonic()
                if left is not None:
                    left -= 1
                    if left == 0:
                        return
            due = quiet + settings.bot_keepalive_s - time.monotonic()
            wait = min(settings.bot_events_poll_s, max(0.01, due))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), wait)
            wake.clear()
            if await watch.revoked():
                return  # the reconnect is refused 401 ``revoked``
            rows = await asyncio.to_thread(ba.events_after, store, account, last)
            lines = []
            for n, kind, body in rows:
                lines.append(_line({"type": kind, "id": n, **body}))
                last = n
            if not lines and time.monotonic() - quiet >= settings.bot_keepalive_s:
                yield KEEPALIVE
                quiet = time.monotonic()
    finally:
        hub.leave(account, wake)

