"""Clock REST (``/api``, issue 16 item 1): a timed-out seat taken back by its own link, time added
or the clock turned off (WCAG 2.2.1). The clock's changes: :mod:`rebirth.server.clocks.changes`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from rebirth.server.api import answers as a
from rebirth.server.api.lobby import GameHub, GameToken
from rebirth.server.clocks.changes import Adjust, ClockAnswer, ClockAnswerBody, ClockChange, TakeBack
from rebirth.server.errors import ApiError

router = APIRouter(prefix="/api", tags=["clock"])


@router.post("/games/{game_id}/seats/{seat}/back", response_model=a.GameSummary)
async def take_back(seat: int, hub: GameHub, tok: GameToken) -> dict[str, Any]:
    """A player whose time ran out takes their seat back from the bot (only that seat's link, or
    the hot-seat table the player sits at)."""
    if not 0 <= seat < hub.game.players:
        raise ApiError(404, "unknown_seat")
    if not (tok.role == "table" or (tok.role == "seat" and tok.seat == seat)):
        raise ApiError(403, "forbidden")
    await hub.move_clock(TakeBack(hub.host.store, seat=seat))
    async with hub.lock:
        return hub.summary()


@router.post("/games/{game_id}/clock", response_model=a.GameSummary)
async def change_clock(body: ClockChange, hub: GameHub, tok: GameToken) -> dict[str, Any]:
    """Add time for every seat, or turn the clock off: the admin or any player may ask (a player
    who needs more time must be able to get it, WCAG 2.2.1); spectators may not. It applies once
    every other human seat agreed (or the creator, in a game created with ``clock_changes``
    ``"creator"``); until then it is the clock's ``proposal``."""
    if tok.role not in ("admin", "seat", "table"):
        raise ApiError(403, "forbidden")
    await hub.move_clock(Adjust(hub.host.store, change=body, role=tok.role, seat=tok.seat))
    async with hub.lock:
        return hub.summary()


@router.post("/games/{game_id}/clock/answer", response_model=a.GameSummary)
async def answer_clock(body: ClockAnswerBody, hub: GameHub, tok: GameToken) -> dict[str, Any]:
    """An asked seat accepts or declines the clock's proposal (the proposer or the admin link
    may withdraw it); the last acceptance applies it."""
    if tok.role not in ("admin", "seat", "table"):
        raise ApiError(403, "forbidden")
    await hub.move_clock(ClockAnswer(hub.host.store, accept=body.accept, role=tok.role, seat=tok.seat))
    async with hub.lock:
        return hub.summary()
