"""REST of the notifications (docs/protocol.md): a seat's channels, read and set with its own
link, and "my games" — the games of the links a browser holds, whose turn it is, newest move
first. The tokens come in the request body (never in a URL, so never in a log)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select
from starlette.requests import HTTPConnection

from rebirth.server.api import answers as a
from rebirth.server.api import seatanswers as sa
from rebirth.server.api.deps import RegistryDep, SettingsDep
from rebirth.server.api.lobby import GameHub, GameToken
from rebirth.server.api.push import has_push, set_push
from rebirth.server.errors import ApiError, texts
from rebirth.server.notifications.notifier import Notifier, NotifySpec, checked, seat_link, subscribe
from rebirth.server.operations.addresses import base_url
from rebirth.server.persistence import seatnotify
from rebirth.server.persistence.store import actions, games
from rebirth.server.play.session import Hub

router = APIRouter(prefix="/api", tags=["notify"])

MAX_TOKENS = 50
"""The most links one "my games" request may ask about (the browser keeps 50)."""


def get_notifier(conn: HTTPConnection) -> Notifier:
    """The app's notifier."""
    n: Notifier = conn.app.state.notifier
    return n


NotifierDep = Annotated[Notifier, Depends(get_notifier)]


def _seat_of(tok: Any) -> int:
    if tok.role != "seat" or tok.seat is None:
        raise ApiError(403, "forbidden")
    seat: int = tok.seat
    return seat


@router.get("/games/{game_id}/notify", response_model=a.Channels)
async def get_channels(hub: GameHub, tok: GameToken, notifier: NotifierDep) -> dict[str, Any]:
    """The channels this seat's link chose (only that seat's own link may read them)."""
    seat = _seat_of(tok)
    sub = await asyncio.to_thread(notifier.outbox.sub, hub.id, seat)
    own = await asyncio.to_thread(seatnotify.policy, notifier.store, hub.id, seat)
    return {"seat": seat, "webhook": sub.webhook if sub else None, "email": sub.email if sub else None,
            "email_available": "email" in notifier.channels(), "policy": own,
            "policy_used": await notifier.policy(hub.id, seat),
            "push": await has_push(notifier, hub.id, seat)}


class ChannelsBody(NotifySpec):
    """``PUT /api/games/{id}/notify``: the channels, and when to notify (``policy``: ``away``
    — not while a page of the seat is open and visible — or ``every`` turn; null: the
    account's default, else ``away``)."""

    policy: Literal["away", "every"] | None = None


@router.put("/games/{game_id}/notify", response_model=a.Channels)
async def set_channels(body: ChannelsBody, hub: GameHub, tok: GameToken, notifier: NotifierDep,
                       settings: SettingsDep, request: Request) -> dict[str, Any]:
    """Set (or with nulls clear) this seat's webhook, e-mail and policy."""
    seat = _seat_of(tok)
    hook, mail = await checked(body, settings)
    link = seat_link(base_url(settings, request), hub.id, str(seat))
    await asyncio.to_thread(seatnotify.set_policy, notifier.store, hub.id, seat, body.policy)
    # Web push first (absent: kept), so the seat's row stays and its current turn is enqueued
    # on the push channel too (api/push.py).
    await set_push(notifier, hub.id, seat, body, settings)
    await subscribe(notifier, hub, seat, hook, mail, link)
    return {"seat": seat, "webhook": hook, "email": mail, "email_available": "email" in notifier.channels(),
            "policy": body.policy, "policy_used": await notifier.policy(hub.id, seat),
            "push": await has_push(notifier, hub.id, seat)}


@router.post("/unsubscribe", response_model=sa.Unsubscribed)
async def unsubscribe(notifier: NotifierDep,
                      u: Annotated[str, Query(min_length=1, max_length=64)]) -> dict[str, Any]:
    """One-click unsubscribe (RFC 8058; no sign-in): the e-mail's single-purpose token ``u``
    stops that seat's e-mail notices (its webhook stays). The body (``List-Unsubscribe=One-Click``
    from a mail client, or none from the page) is not read. An unknown token: 404."""
    got = await asyncio.to_thread(seatnotify.unsubscribe, notifier.store, u)
    if got is None:
        raise ApiError(404, "bad_unsubscribe", texts("server.bad_unsubscribe"))
    return {"unsubscribed": True}


class MyGames(BaseModel):
    """``POST /api/my-games``: the tokens of the links this browser holds."""

    model_config = ConfigDict(extra="forbid", strict=True)
    tokens: list[Annotated[str, Field(max_length=64)]] = Field(default_factory=list, max_length=MAX_TOKENS)


def _last_moves(registry: Any, ids: list[str]) -> dict[str, float]:
    """When each game last moved (its last logged step, else its creation)."""
    store = registry.store
    with store.engine.connect() as c:
        made = {r.id: float(r.created) for r in c.execute(
            select(games.c.id, games.c.created).where(games.c.id.in_(ids)))}
        moved = {r.game: float(r.last) for r in c.execute(
            select(actions.c.game, func.max(actions.c.created).label("last"))
            .where(actions.c.game.in_(ids)).group_by(actions.c.game))}
    return {g: moved.get(g, t) for g, t in made.items()}


@router.post("/my-games", response_model=a.MyGames)
async def my_games(body: MyGames, registry: RegistryDep) -> dict[str, Any]:
    """For each token (``i``: its place in the request): the game's public summary, the
    token's seat, whose turn it is and when the last move was; newest move first. A token that
    is unknown or revoked answers ``{"i": i, "gone": true}``. Tokens are never sent back."""
    found: list[tuple[int, Any, Hub]] = []
    out: list[dict[str, Any]] = []
    for i, t in enumerate(body.tokens):
        tok = await asyncio.to_thread(registry.store.token, t)
        hub = None if tok is None or tok.revoked else await registry.get(tok.game)
        if tok is None or hub is None or tok.revoked:
            out.append({"i": i, "gone": True})
            continue
        found.append((i, tok, hub))
    last = await asyncio.to_thread(_last_moves, registry, list({h.id for _, _, h in found}))
    for i, tok, hub in found:
        async with hub.lock:
            s = hub.summary()
            st = hub.match.state
            to_move = None if st.is_terminal() else st.current_player
        mine = tok.seat if tok.role == "seat" else None
        # A hot-seat device plays every human seat.
        yours = to_move is not None and (mine == to_move or (
            tok.role == "table" and hub.match.seats[to_move].kind == "human"))
        out.append({**s, "i": i, "role": tok.role, "seat": mine, "to_move": to_move, "your_turn": yours,
                    "last_move": last.get(hub.id)})
    out.sort(key=lambda g: -(g.get("last_move") or 0.0))
    return {"games": out}
