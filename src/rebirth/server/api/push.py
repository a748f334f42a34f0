"""REST of web push and vacations (issue 26 items 1 and 3, docs/protocol.md): the server's VAPID
public key, a seat's push subscription (set through ``PUT /api/games/{id}/notify``, whose
``push`` field these helpers handle) and a seat's vacation."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from fastapi import APIRouter, Request

from rebirth.server.api import answers as a
from rebirth.server.api.lobby import GameHub, GameToken
from rebirth.server.authority.kernel import Unchanged
from rebirth.server.clocks.changes import Vacation, VacationChange, now
from rebirth.server.errors import ApiError
from rebirth.server.notifications.notifier import Notifier, NotifySpec
from rebirth.server.notifications.push import checked_push
from rebirth.server.persistence import push as pushstore
from rebirth.server.persistence import vacation as vacstore
from rebirth.server.settings import Settings

router = APIRouter(prefix="/api", tags=["push"])


def _notifier(request: Request) -> Notifier:
    n: Notifier = request.app.state.notifier
    return n


@router.get("/push/key", response_model=a.PushKey)
async def push_key(request: Request) -> dict[str, Any]:
    """The server's VAPID public key (base64url, an uncompressed P-256 point): a browser's
    ``applicationServerKey``. Made at the first start and kept in the database."""
    return {"key": await _notifier(request).push.public_key()}


async def has_push(notifier: Notifier, game: str, seat: int) -> bool:
    """The seat has a push subscription."""
    return await asyncio.to_thread(pushstore.get, notifier.store, game, seat) is not None


async def set_push(notifier: Notifier, game: str, seat: int, body: NotifySpec, settings: Settings) -> None:
    """The ``push`` of a ``PUT /api/games/{id}/notify``: absent, nothing changes; null, the
    seat's subscription goes; a subscription, it is checked (the webhooks' SSRF guard) and
    stored (the caller then enqueues the seat's current turn)."""
    if "push" not in body.model_fields_set:
        return
    if body.push is None:
        await asyncio.to_thread(pushstore.drop, notifier.store, game, seat)
        return
    spec = await checked_push(body.push, settings)
    await asyncio.to_thread(pushstore.save, notifier.store, pushstore.PushSub(
        game, seat, spec.endpoint.strip(), spec.keys.p256dh, spec.keys.auth))


@router.post("/games/{game_id}/vacation", response_model=a.GameSummary)
async def vacation(body: VacationChange, hub: GameHub, tok: GameToken, request: Request) -> dict[str, Any]:
    """A seat's player goes on vacation (``{"on": true}``) or is back (``false``): only that
    seat's own link. Turn clocks only (409 ``no_vacation``); with no vacation left, 409
    ``no_vacation_left`` (a signed-in player's seat: none left of the account's yearly
    allowance, shared by all its games). Shown in the game's log (``clock.vacation``,
    ``clock.vacation_end``)."""
    if tok.role != "seat" or tok.seat is None:
        raise ApiError(403, "forbidden")
    store = hub.host.store
    account = await asyncio.to_thread(vacstore.account_of, store, hub.id, tok.seat)
    cap = hub.host.settings.vacation_days * 86400
    year = vacstore.year_of(now())
    left = 0.0 if account is None else await asyncio.to_thread(vacstore.left, store, account, year, cap)
    with contextlib.suppress(Unchanged):  # already so: nothing to do
        await hub.move_clock(Vacation(store, seat=tok.seat, on=body.on, account=account, year=year,
                                      left_s=left, cap_s=cap))
    if not body.on:  # the deadline came nearer: the seat's reminders are judged again now
        notifier = _notifier(request)
        if await asyncio.to_thread(notifier.outbox.recheck, hub.id, tok.seat):
            notifier.wake()
    async with hub.lock:
        return hub.summary()
