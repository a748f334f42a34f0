"""REST of web push and vacations (issue 26 items 1 and 3, docs/protocol.md): the server's VAPID
public key, a seat's push subscription (set through ``PUT /api/games/{id}/notify``, whose
``push`` field these helpers handle) and a seat's vacation."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request

from rebirth.server.api import answers as a
from rebirth.server.api.deps import CurrentAccount, RegistryDep
from rebirth.server.api.lobby import GameHub, GameToken
from rebirth.server.authority.kernel import Unchanged
from rebirth.server.clocks.changes import Vacation, VacationChange, now
from rebirth.server.errors import ApiError
from rebirth.server.notifications.notifier import Notifier, NotifySpec
from rebirth.server.notifications.push import checked_push
from rebirth.server.persistence import push as pushstore
from rebirth.server.persistence import vacation as vacstore
from rebirth.server.play.session import Session
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
    allowance; its other games away join the same period, charged once). Shown in the game's
    log (``clock.vacation``, ``clock.vacation_end``)."""
    if tok.role != "seat" or tok.seat is None:
        raise ApiError(403, "forbidden")
    await set_vacation(hub, tok.seat, body.on, _notifier(request))
    async with hub.lock:
        return hub.summary()


async def set_vacation(hub: Session, seat: int, on: bool, notifier: Notifier) -> bool:
    """Send ``seat`` of ``hub``'s game on vacation or bring it back (False: it already was so).
    An account's seat joins or opens the account's period, read here; when another game of the
    account opened or closed one meanwhile, the period is read again (once)."""
    store = hub.host.store
    account = await asyncio.to_thread(vacstore.account_of, store, hub.id, seat)
    cap = hub.host.settings.vacation_days * 86400
    for attempt in (1, 2):
        t = now()
        year = vacstore.year_of(t)
        left = 0.0
        joined = None
        if account is not None:
            # The year's rest before the period: a period opened between the two reads is then
            # joined (its days are no longer in the year's rest).
            left = await asyncio.to_thread(vacstore.left, store, account, year, cap)
            joined = await asyncio.to_thread(vacstore.away_of, store, account)
            if on and joined is not None:
                left = joined.left_at(t)
            elif not on and joined is not None and joined.games <= 1:
                # The last game back: what the period did not use is the account's again.
                left += joined.left_at(t) if joined.year == year else 0.0
        move = Vacation(store, seat=seat, on=on, account=account, year=year, left_s=left, cap_s=cap,
                        joined=joined if on else None)
        try:
            await hub.move_clock(move)
        except Unchanged:  # already so: nothing to do
            return False
        except ApiError as exc:
            # Another game of the account opened or closed the period meanwhile: read again.
            racing = exc.code == "conflict" or (exc.code == "no_vacation_left" and account is not None)
            if not racing or attempt == 2:
                raise
            continue
        break
    # Back: the deadline came nearer, so the seat's reminders are judged again now.
    if not on and await asyncio.to_thread(notifier.outbox.recheck, hub.id, seat) > 0:
        notifier.wake()
    return True


@router.post("/account/vacation", response_model=a.AccountVacation)
async def account_vacation(body: VacationChange, account: CurrentAccount, registry: RegistryDep,
                           request: Request) -> dict[str, Any]:
    """The signed-in player goes on vacation in every game of theirs with a turn clock (or is
    back in all of them): one period, its days charged once (``games``: the games changed)."""
    changed: list[str] = []
    for game, seat in await asyncio.to_thread(vacstore.turn_games_of, registry.store, account.id):
        hub = await registry.get(game)
        if hub is None:
            continue
        try:
            if await set_vacation(hub, seat, body.on, _notifier(request)):
                changed.append(game)
        except ApiError as exc:
            if exc.code == "no_vacation":  # no running turn clock there (any more)
                continue
            if changed and exc.code == "no_vacation_left":
                continue  # the period's days ran out on the way: the games it reached stay away
            raise
    away = await asyncio.to_thread(vacstore.away_of, registry.store, account.id)
    return {"away": away is not None, "games": changed}
