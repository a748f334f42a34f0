"""Lobby REST (``/api``): new games with secret links, summaries, records, revoking links and
handing a leaver's seat to a bot (docs/protocol.md). Maps, catalogs and variants: :mod:`.data`."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection
from sqlalchemy.exc import SQLAlchemyError

from rebirth.app.match import HUMAN, OUTSIDE, REMOTE
from rebirth.bots.base import BotError
from rebirth.engine.board import MapError
from rebirth.engine.game import SetupError
from rebirth.engine.messages import UserError
from rebirth.server.accounts import store as accts
from rebirth.server.api import answers as a
from rebirth.server.api.deps import BearerToken, MaybeAccount, RegistryDep, SettingsDep
from rebirth.server.clocks.changes import ClockBody, ClockChanges, spec_of
from rebirth.server.errors import ApiError, known_lang, texts
from rebirth.server.notifications.notifier import NotifySpec, checked, forget, seat_link, subscribe
from rebirth.server.operations.addresses import base_url, is_loopback_host
from rebirth.server.operations.caps import Caps
from rebirth.server.operations.throttle import client_address
from rebirth.server.pages.data import require_board
from rebirth.server.persistence import botaccounts as bot_accounts
from rebirth.server.persistence import chat as chat_store
from rebirth.server.persistence import open_games as og
from rebirth.server.persistence.store import TokenRow
from rebirth.server.play import invites
from rebirth.server.play.invites import invite_link
from rebirth.server.play.session import Session as Hub
from rebirth.server.social.social import record_chat

router = APIRouter(prefix="/api", tags=["lobby"])

class SeatSpec(BaseModel):
    """One seat of a new game."""

    model_config = ConfigDict(extra="forbid", strict=True)
    kind: Literal["human", "open", "remote", "easy", "normal", "hard", "expert"] = "human"
    """``open``: a human seat any signed-in player may take (``POST /api/games/{id}/join``);
    ``remote``: a program plays the seat over the bot API (docs/bot-api.md); it claims the
    seat's invitation as a browser does."""
    name: str | None = Field(default=None, max_length=40)
    notify: NotifySpec | None = None
    """How a human seat's player is told it is their turn (server/notifications/notifier.py)."""
    account: Literal["me"] | None = None
    """``"me"``: the seat is the signed-in creator's own (server/accounts; needs the session)."""


class NewGame(BaseModel):
    """``POST /api/games``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    board: str = Field(default="scotland", max_length=40)
    players: int = Field(default=3, ge=2, le=4)
    seats: list[SeatSpec] = Field(default_factory=list, max_length=4)
    variants: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=10)
    lang: str = Field(default="en", max_length=20)
    """A declared language (data/i18n/languages.json); another is ``unknown_lang``."""
    hotseat: bool = False
    chat_in_record: bool = False
    """The creator's choice: the record export carries the game's chat (server/social/social.py)."""
    clock: Annotated[ClockBody, Field(discriminator="kind")] | None = None
    """None: no clock (server/clocks/changes.py)."""
    clock_changes: ClockChanges = "agreement"
    """Who must agree to add time or turn the clock off: ``agreement``, every human seat;
    ``creator``, the creator alone (their admin link, or their own seat: the ``"account": "me"``
    one, else the first human seat, which the lobby claims in the creator's browser)."""
    rated: bool = False
    """The signed-in creator asks for a rated game (stored in ``game_meta``; the ratings rate it)."""
    listed: bool = True
    """A game with open seats is listed in the lobby (``GET /api/open-games``); false: only
    players who were sent its address can take them."""


def _link(base: str, game: str, token: str) -> str:
    """A spectator or admin link: its token in the fragment (those are not invitations)."""
    # The token goes in the fragment: browsers never send it to a server or in a Referer.
    return f"{base}/game/{game}#t={token}"


async def game_hub(game_id: str, registry: RegistryDep) -> Hub:
    """The game of the path (404 ``unknown_game``)."""
    if len(game_id) > 64:
        raise ApiError(404, "unknown_game")
    hub = await registry.get(game_id)
    if hub is None:
        raise ApiError(404, "unknown_game")
    return hub


async def game_token(game_id: str, registry: RegistryDep, token: BearerToken) -> TokenRow:
    """What the bearer token grants in the game of the path (401/403 otherwise)."""
    tok = await asyncio.to_thread(registry.store.token, token)
    if tok is None or tok.game != game_id:
        raise ApiError(403, "bad_token")
    if tok.revoked:
        raise ApiError(403, "revoked")
    return tok


GameHub = Annotated[Hub, Depends(game_hub)]
GameToken = Annotated[TokenRow, Depends(game_token)]


@router.post("/games", status_code=201, response_model=a.GameCreated)
async def create_game(body: NewGame, registry: RegistryDep, settings: SettingsDep,
                      request: Request, account: MaybeAccount) -> dict[str, Any]:
    """Deal a new game; the answer holds the seats' invitations (no seat's token), the
    spectator and the admin link, once. Signed in, a seat ``"account": "me"`` is the
    creator's own and ``rated`` is recorded."""
    known_lang(body.lang)
    require_board(body.board)
    clock = spec_of(body.clock, settings.min_clock_s)
    specs = list(body.seats) or [SeatSpec(kind="human")] + [SeatSpec(kind="normal")] * (body.players - 1)
    if len(specs) != body.players:
        raise ApiError(400, "bad_seats", texts("server.bad_seats", players=body.players, n=len(specs)))
    mine = [i for i, s in enumerate(specs) if s.account == "me"]
    opened = frozenset(i for i, s in enumerate(specs) if s.kind == "open")
    if (mine or body.rated or opened) and account is None:
        raise ApiError(401, "signin_required", texts("server.signin_required"))
    if len(mine) > 1 or any(specs[i].kind != HUMAN for i in mine) or (mine and body.hotseat):
        raise ApiError(400, "bad_seats", texts("server.account_seat"), {"field": "seats"})
    if opened and body.hotseat:
        raise ApiError(400, "bad_seats", texts("server.open_hotseat"), {"field": "seats"})
    if any(specs[i].notify is not None for i in opened):
        raise ApiError(400, "bad_notify", texts("server.notify_open"), {"field": "notify"})
    kinds: list[str] = [HUMAN if s.kind == "open" else s.kind for s in specs]
    # Checked before anything is made: a bad address creates no game.
    channels = {i: await checked(s.notify, settings) for i, s in enumerate(specs)}
    if any(any(channels[i]) and k != HUMAN for i, k in enumerate(kinds)):
        raise ApiError(400, "bad_notify", texts("server.notify_bot"), {"field": "notify"})
    names = [(s.name or "").strip()
             or (account.name if account is not None and i in mine else "")
             or (f"Player {i + 1}" if s.kind == HUMAN else
                 f"Open seat {i + 1}" if s.kind == "open" else f"{s.kind.capitalize()} {i + 1}")
             for i, s in enumerate(specs)]
    also = None
    if opened and account is not None:
        also = partial(_open_seats, seats_open=sorted(opened), creator=account.id, board=body.board,
                       players=body.players, rated=body.rated, clock=None if body.clock is None else
                       body.clock.model_dump(), listed=body.listed)
    caps: Caps = request.app.state.caps
    client = client_address(request.scope, settings)
    try:
        # One creation at a time in this process: the caps' counts cannot be passed by a burst.
        async with caps.create_lock:
            await asyncio.to_thread(caps.check_create, client, kinds)
            hub, toks = await registry.create(body.board, kinds, names, list(body.variants), body.lang,
                                              body.hotseat, clock, opened, also,
                                              (body.clock_changes, _creator_seat(mine, kinds, opened)))
            await asyncio.to_thread(caps.created, hub.id, client)
        await asyncio.to_thread(chat_store.set_in_record, registry.store, hub.id, body.chat_in_record)
        if account is not None:
            await asyncio.to_thread(_account_game, registry.store, hub.id, account.id, mine, body.rated)
    except (SetupError, MapError, BotError, ValueError) as exc:
        # Every refusal of the engine and the bots is a UserError; anything else (a bug)
        # gets the fixed sentence, never the exception's English text.
        raise ApiError(400, "bad_game", exc.texts() if isinstance(exc, UserError)
                       else texts("server.bad_game")) from exc
    except SQLAlchemyError as exc:
        raise ApiError(503, "server_error", texts("server.storage_failed")) from exc
    gid = hub.id
    base = base_url(settings, request)
    for i, (hook, mail) in channels.items():
        if hook or mail:
            await subscribe(request.app.state.notifier, hub, i, hook, mail,
                            seat_link(base, gid, "table" if body.hotseat else str(i)))
    return {
        "game": gid,
        # Links built on a loopback address work on this computer only; the lobby says so.
        "base": {"url": base, "loopback": is_loopback_host(urlsplit(base).hostname),
                 "public": bool(settings.public_url)},
        # Invitations, not tokens (issue 15 item 7): a seat's token goes only to the browser
        # that claims its invitation (POST /api/games/{game}/claim).
        "links": {
            "seats": [{"seat": i, "name": names[i], "kind": kinds[i],
                       "url": invite_link(base, gid, toks["seats"][i]) if i in toks["seats"] else None}
                      for i in range(len(kinds))],
            "table": invite_link(base, gid, toks["table"]) if toks["table"] else None,
            "spectator": _link(base, gid, toks["spectator"]),
            "admin": _link(base, gid, toks["admin"]),
        },
    }


def _creator_seat(mine: list[int], kinds: list[str], opened: frozenset[int]) -> int | None:
    """The creator's own seat: the signed-in creator's, else the first invited human seat (the
    one the lobby claims in the creator's browser); None: no human seat."""
    if mine:
        return mine[0]
    return next((i for i, k in enumerate(kinds) if k == HUMAN and i not in opened), None)


def _account_game(store: Any, game: str, account: str, mine: list[int], rated: bool) -> None:
    """A signed-in creator's game: who made it, whether it is rated, the creator's own seat."""
    with store.tx() as c:
        accts.set_game_meta(c, game, account, rated)
        for seat in mine:
            accts.own_seat(c, game, seat, account)


def _open_seats(c: Connection, game: str, **kw: Any) -> None:
    og.open_game(c, game, **kw)


@router.get("/games/{game_id}", response_model=a.GameSummary)
async def game_summary(hub: GameHub) -> dict[str, Any]:
    """The public summary of a game (``bots``: the seats bot accounts hold)."""
    async with hub.lock:
        out = hub.summary()
    held = await asyncio.to_thread(bot_accounts.bot_seats, hub.host.store, hub.id)
    return {**out, "bots": [i in held for i in range(len(out["names"]))]}


@router.get("/games/{game_id}/record", response_model=a.GameRecord,
            response_model_exclude_unset=True)
async def game_record(hub: GameHub, tok: GameToken) -> dict[str, Any]:
    """The record: complete after the end; mid-game redacted for the token's seat."""
    seat = tok.seat if tok.role == "seat" else None
    async with hub.lock:
        record = hub.match.record(for_seat=seat)
    return await record_chat(hub.host.store, hub.id, record)


@router.post("/games/{game_id}/seats/{seat}/revoke", response_model=a.Reopened)
async def revoke(game_id: str, seat: int, registry: RegistryDep, hub: GameHub,
                 tok: GameToken, settings: SettingsDep, request: Request) -> dict[str, Any]:
    """The admin re-opens a seat: a new invitation; the old token (and invitation) stop working
    at once. The admin never gets a token (a hot-seat game: the device's invitation is new)."""
    if tok.role != "admin":
        raise ApiError(403, "forbidden")
    if not 0 <= seat < hub.game.players:
        raise ApiError(404, "unknown_seat")
    if hub.match.seats[seat].kind not in OUTSIDE:
        raise ApiError(409, "not_human")
    # A remote seat has its own invitation in a hot-seat game too: re-opening it is the seat's.
    hotseat = hub.row.hotseat and hub.match.seats[seat].kind != REMOTE
    try:
        role, code = await asyncio.to_thread(invites.reopen, registry.store, game_id, seat, hotseat)
    except SQLAlchemyError as exc:
        raise ApiError(503, "server_error") from exc
    old = [c.token_hash for c in hub.conns if c.role == role and (role == "table" or c.seat == seat)]
    old += [st.token_hash for st in hub.room.streams if role == "seat" and st.seat == seat]
    # The seat changes hands: the old player's channels are not the new one's.
    await forget(request.app.state.notifier, game_id, seat)
    for h in {h for h in old if h is not None}:
        await hub.close_token(h)
    await hub.announce()  # other workers close their sockets of the revoked link
    return {"seat": seat, "role": role, "url": invite_link(base_url(settings, request), game_id, code)}


class ClaimBody(BaseModel):
    """``POST /api/games/{game}/claim``: the code of an invitation link (``#i=``)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    invite: str = Field(min_length=1, max_length=64)


CLAIM_STATUS = {"bad_token": 403, "revoked": 403, "claimed": 409}
"""The answer to a refused claim (server/play/invites.py ``ClaimRefused``)."""


@router.post("/games/{game_id}/claim", response_model=a.Claimed)
async def claim_seat(game_id: str, body: ClaimBody, registry: RegistryDep,
                     response: Response) -> dict[str, Any]:
    """The first browser that opens an invitation takes its seat and gets the seat's token
    (once; the page keeps it). Any later claim of it is refused and gets no token."""
    if len(game_id) > 64:
        raise ApiError(404, "unknown_game")
    try:
        got = await asyncio.to_thread(invites.claim, registry.store, game_id, body.invite)
    except invites.ClaimRefused as exc:
        raise ApiError(CLAIM_STATUS[exc.code], exc.code) from None
    except SQLAlchemyError as exc:
        raise ApiError(503, "server_error") from exc
    # Shown once, to this browser: no cache may keep it.
    response.headers["Cache-Control"] = "no-store"
    return {"game": got.game, "role": got.role, "seat": got.seat, "token": got.token}


@router.post("/games/{game_id}/seats/{seat}/bot", response_model=a.GameSummary)
async def hand_to_bot(seat: int, settings: SettingsDep, hub: GameHub, tok: GameToken) -> dict[str, Any]:
    """Another player hands a leaver's seat to a bot so the game can finish."""
    if not 0 <= seat < hub.game.players:
        raise ApiError(404, "unknown_seat")
    allowed = (tok.role == "seat" and tok.seat != seat) or tok.role == "admin"
    if not allowed:
        raise ApiError(403, "forbidden")
    await hub.hand_to_bot(seat, settings.offline_grace)
    return hub.summary()
