"""Rematch REST (``/api``, issue 16 item 4; docs/protocol.md): start a finished game's one
rematch and ask for one's own link to it. The logic is in :mod:`.social`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from rebirth.server.api import answers as a
from rebirth.server.api.deps import BearerToken, SettingsDep
from rebirth.server.api.lobby import GameHub, GameToken, _link
from rebirth.server.operations.addresses import base_url

router = APIRouter(prefix="/api", tags=["lobby"])


async def _answer(hub: GameHub, tok: GameToken, token: str, settings: SettingsDep, request: Request,
                  created: bool | None = None) -> dict[str, Any]:
    derived = await hub.social.link_token(tok, token)
    new = hub.social.rematch
    out: dict[str, Any] = {"game": new, "role": tok.role,
                           "url": _link(base_url(settings, request), new, derived)
                           if new is not None and derived is not None else None}
    if created is not None:
        out["created"] = created
    return out


@router.post("/games/{game_id}/rematch", response_model=a.RematchStarted)
async def start_rematch(hub: GameHub, tok: GameToken, token: BearerToken, settings: SettingsDep,
                        request: Request) -> dict[str, Any]:
    """A player (the hot-seat table, the admin) starts the finished game's rematch — or, when
    someone was first, gets the same one. The answer holds the caller's own new link only."""
    _, created = await hub.social.start_rematch(tok)
    return await _answer(hub, tok, token, settings, request, created)


@router.get("/games/{game_id}/rematch", response_model=a.RematchLink)
async def get_rematch(hub: GameHub, tok: GameToken, token: BearerToken, settings: SettingsDep,
                      request: Request) -> dict[str, Any]:
    """The caller's own link to the rematch (``game`` null: none yet). Spectators get the
    rematch's spectator link."""
    return await _answer(hub, tok, token, settings, request)
