"""Open games and "Play now" (issue 25 item 5; docs/protocol.md "Open games"): a signed-in
creator leaves seats open and lists the game; any signed-in player takes one; "Play now" pairs
players who ask for the same board, player count and clock within a rating range that widens
with waiting. The database decides every race (server/persistence/open_games.py)."""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection
from sqlalchemy.exc import SQLAlchemyError

from rebirth.app.match import HUMAN
from rebirth.server.accounts.store import Account, device_token, own_seat, set_game_meta
from rebirth.server.api.answers import Answer
from rebirth.server.api.deps import CurrentAccount, RegistryDep, SettingsDep
from rebirth.server.clocks.changes import ClockBody, spec_of
from rebirth.server.errors import ApiError, texts
from rebirth.server.pages.data import require_board
from rebirth.server.persistence import open_games as og
from rebirth.server.persistence.ratings import displayed_rating
from rebirth.server.persistence.store import Store
from rebirth.server.play.registry import Registry

router = APIRouter(prefix="/api", tags=["open games"])


class OpenGame(Answer):
    """One listed game with a seat left."""

    game: str
    board: str
    players: int
    open_seats: int
    rated: bool
    clock: dict[str, Any] | None
    creator: str
    creator_bot: bool = False
    """The creator is a bot account (the "BOT" badge)."""


class OpenGames(Answer):
    """``GET /api/open-games``: newest first."""

    games: list[OpenGame]


class Joined(Answer):
    """``POST /api/games/{id}/join``: the seat taken, and this device's token of it (once)."""

    game: str
    seat: int
    token: str


class PlayNowBody(BaseModel):
    """``POST /api/play-now``: what the player wants to play."""

    model_config = ConfigDict(extra="forbid", strict=True)
    board: str = Field(default="scotland", max_length=40)
    players: int = Field(default=2, ge=2, le=4)
    clock: Annotated[ClockBody, Field(discriminator="kind")] | None = None


class Pairing(Answer):
    """A "Play now" ticket: ``waiting`` (``range``: the rating difference accepted now),
    ``paired`` (``game``, ``seat``: the player's seat, and ``token``: this device's token of it,
    shown to the ticket's account alone) or ``cancelled``."""

    ticket: str
    status: Literal["waiting", "paired", "cancelled"]
    board: str
    players: int
    clock: dict[str, Any] | None
    waited_s: float
    range: float
    game: str | None = None
    seat: int | None = None
    token: str | None = None


JOIN_STATUS = {"no_open_seat": 409, "already_seated": 409, "not_open": 409}
"""The answer to a refused join (:class:`rebirth.server.persistence.open_games.SeatRefused`)."""


@router.get("/open-games", response_model=OpenGames)
async def open_games(registry: RegistryDep) -> dict[str, Any]:
    """The listed games still playing with a seat open (board, players, clock, rated)."""
    try:
        return {"games": await asyncio.to_thread(og.list_open, registry.store)}
    except SQLAlchemyError as exc:
        raise ApiError(503, "server_error", texts("server.storage_failed")) from exc


@router.post("/games/{game_id}/join", response_model=Joined)
async def join(game_id: str, account: CurrentAccount, registry: RegistryDep,
               response: Response) -> dict[str, Any]:
    """Take the lowest open seat of the game: of two players racing for it exactly one gets
    it (409 ``no_open_seat`` for the other). The seat is the account's on every device."""
    if len(game_id) > 64:
        raise ApiError(404, "unknown_game")
    hub = await registry.get(game_id)
    if hub is None:
        raise ApiError(404, "unknown_game")
    if hub.value.over:
        raise ApiError(409, "not_open", texts("server.not_open"))
    try:
        got = await asyncio.to_thread(og.take_seat, registry.store, game_id, account.id, account.name)
    except og.SeatRefused as exc:
        # Another worker may have given the seat away: this one learns its new name now (its
        # notice may be lost, and a name is not a version the periodic check would notice).
        await hub.refresh()
        raise ApiError(JOIN_STATUS[exc.code], exc.code, texts(f"server.{exc.code}")) from None
    except SQLAlchemyError as exc:
        raise ApiError(503, "server_error", texts("server.storage_failed")) from exc
    await hub.seat_taken(got.seat, got.name)
    response.headers["Cache-Control"] = "no-store"
    return {"game": game_id, "seat": got.seat, "token": got.token}


def _clock_doc(body: ClockBody | None) -> dict[str, Any] | None:
    return None if body is None else body.model_dump()


def pairing_rating(store: Store, account: str, board: str, players: int) -> float:
    """The rating "Play now" pairs by: the account's displayed rating for this board and player
    count (a newcomer's: the start rating's)."""
    return float(displayed_rating(store, account, board, players))


async def _answer(registry: Registry, t: og.Ticket, response: Response) -> dict[str, Any]:
    now = time.time()
    status = "waiting" if t.status in ("waiting", "matched") else t.status
    if status not in ("waiting", "paired", "cancelled"):
        status = "cancelled"
    token = None
    if status == "paired" and t.game is not None and t.seat is not None:
        # The seat is the account's (any device of it may open it); this device's token now,
        # so the page opens the game at once.
        token = await asyncio.to_thread(device_token, registry.store, t.account, t.game, t.seat)
        response.headers["Cache-Control"] = "no-store"
    return {"ticket": t.id, "status": status, "board": t.board, "players": t.players, "clock": t.clock,
            "waited_s": round(max(0.0, now - t.created), 1),
            "range": round(og.accepted_range(now - t.created), 1), "game": t.game, "seat": t.seat,
            "token": token}


async def _pair(registry: Registry, t: og.Ticket, lang: str) -> og.Ticket:
    """Try to pair ``t``; when this call claimed a group, make its game (a rated game of the
    group's accounts, in random seat order) and tell every ticket its seat."""
    group = await asyncio.to_thread(og.match, registry.store, t.id)
    if group is None:
        now: og.Ticket | None = await asyncio.to_thread(og.ticket, registry.store, t.id)
        return now or t
    secrets.SystemRandom().shuffle(group)
    names = await asyncio.to_thread(og.names_of, registry.store, [g.account for g in group])
    clock = spec_of(_clock_body(t.clock), registry.settings.min_clock_s)

    def seats_of_group(c: Connection, gid: str) -> None:
        for seat, g in enumerate(group):
            own_seat(c, gid, seat, g.account)
        set_game_meta(c, gid, None, True)

    try:
        hub, _ = await registry.create(t.board, [HUMAN] * len(group), [names[g.account] for g in group],
                                       [], lang, False, clock, frozenset(range(len(group))), seats_of_group)
    except Exception:
        await asyncio.to_thread(og.unmatch, registry.store, group)
        raise
    await asyncio.to_thread(og.paired, registry.store, group, hub.id)
    made: og.Ticket | None = await asyncio.to_thread(og.ticket, registry.store, t.id)
    return made or t


def _clock_body(doc: dict[str, Any] | None) -> ClockBody | None:
    if doc is None:
        return None
    return PlayNowBody.model_validate({"clock": doc}, strict=False).clock


@router.post("/play-now", status_code=201, response_model=Pairing)
async def play_now(body: PlayNowBody, account: CurrentAccount, registry: RegistryDep,
                   settings: SettingsDep, response: Response) -> dict[str, Any]:
    """Ask to be paired (the account's earlier ask is cancelled); paired at once when players
    are waiting, else the page asks ``GET /api/play-now/{ticket}`` until it is."""
    require_board(body.board)
    spec_of(body.clock, settings.min_clock_s)  # a bad clock: 400 before anything is stored
    try:
        rating = await asyncio.to_thread(pairing_rating, registry.store, account.id, body.board, body.players)
        t = await asyncio.to_thread(og.ask, registry.store, account.id, body.board, body.players,
                                    _clock_doc(body.clock), rating)
        t = await _pair(registry, t, account.lang)
    except SQLAlchemyError as exc:
        raise ApiError(503, "server_error", texts("server.storage_failed")) from exc
    return await _answer(registry, t, response)


async def _own_ticket(registry: Registry, ticket: str, account: Account) -> og.Ticket:
    t = await asyncio.to_thread(og.ticket, registry.store, ticket) if len(ticket) <= 32 else None
    if t is None or t.account != account.id:
        raise ApiError(404, "unknown_ticket", texts("server.unknown_ticket"))
    return t


@router.get("/play-now/{ticket}", response_model=Pairing)
async def play_now_status(ticket: str, account: CurrentAccount, registry: RegistryDep,
                          response: Response) -> dict[str, Any]:
    """Where the ask stands; while waiting, each ask tries to pair again (the accepted range is
    wider by now)."""
    t = await _own_ticket(registry, ticket, account)
    try:
        if t.status == "waiting":
            t = await _pair(registry, t, account.lang)
    except SQLAlchemyError as exc:
        raise ApiError(503, "server_error", texts("server.storage_failed")) from exc
    return await _answer(registry, t, response)


@router.delete("/play-now/{ticket}", response_model=Pairing)
async def play_now_cancel(ticket: str, account: CurrentAccount, registry: RegistryDep,
                          response: Response) -> dict[str, Any]:
    """Stop waiting (a ticket paired already stays paired: its game is made)."""
    t = await _own_ticket(registry, ticket, account)
    await asyncio.to_thread(og.cancel, registry.store, t.id, account.id)
    after: og.Ticket | None = await asyncio.to_thread(og.ticket, registry.store, t.id)
    return await _answer(registry, after or t, response)
