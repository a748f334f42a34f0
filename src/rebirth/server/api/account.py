"""Accounts REST (``/api/account...``; issue 25 items 1 and 2, docs/protocol.md "Accounts"):
sign-in by an e-mailed link, the session cookie, the account page's data, sessions, the
display name, deletion, the seats of an account on every device, and passkeys.

Every route that changes something with the session cookie refuses a foreign ``Origin``
(server/accounts/auth.py); the sign-in routes, which set the cookie, too.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from rebirth.server.accounts import passkeys as pk
from rebirth.server.accounts import store as accts
from rebirth.server.accounts.auth import refuse_foreign, secure_cookie
from rebirth.server.accounts.ratings import ratings_of
from rebirth.server.accounts.signin import SigninMailer, use_code, well_formed
from rebirth.server.api import account_answers as aa
from rebirth.server.api.deps import CurrentAccount, RegistryDep, SettingsDep
from rebirth.server.clocks.changes import now
from rebirth.server.errors import ApiError, known_lang, texts
from rebirth.server.notifications.notifier import turn_key
from rebirth.server.operations.addresses import base_url
from rebirth.server.operations.throttle import Throttle
from rebirth.server.persistence import botaccounts as bot_accounts
from rebirth.server.persistence import vacation as vacstore
from rebirth.server.settings import Settings

router = APIRouter(prefix="/api/account", tags=["account"])

MAX_HELD = 200
"""Seat tokens one browser may send to be attached at sign-in."""

MAX_TURN_LOOKS = 50
"""Ongoing games whose turn ``GET /api/account`` looks up (the newest ones)."""


class EmailBody(BaseModel):
    """``POST /api/account/email``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    email: str = Field(min_length=3, max_length=254)
    lang: str = Field(default="en", max_length=20)


class SigninBody(BaseModel):
    """``POST /api/account/signin``: the code of the link (``#c=``) and, optionally, the seat
    tokens this browser holds (attached to the account)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    code: str = Field(min_length=1, max_length=64)
    seats: list[str] = Field(default_factory=list, max_length=MAX_HELD)


class SeatsBody(BaseModel):
    """``POST /api/account/seats``: seat tokens this browser holds."""

    model_config = ConfigDict(extra="forbid", strict=True)
    tokens: list[str] = Field(max_length=MAX_HELD)


class NameBody(BaseModel):
    """``POST /api/account/name``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(max_length=64)


class RevokeBody(BaseModel):
    """``POST /api/account/sessions/revoke``: the sessions to end (``ids``); none given: all."""

    model_config = ConfigDict(extra="forbid", strict=True)
    ids: list[str] | None = Field(default=None, max_length=100)


def set_session_cookie(response: Response, sid: str, request: Request, settings: Settings) -> None:
    """The session cookie: opaque, ``HttpOnly``, ``SameSite=Lax``, ``Secure`` behind HTTPS."""
    response.set_cookie(accts.SESSION_COOKIE, sid, max_age=int(accts.SESSION_SECONDS), path="/",
                        httponly=True, samesite="lax", secure=secure_cookie(request, settings))


def clear_session_cookie(response: Response, request: Request, settings: Settings) -> None:
    """Tell the browser to forget the session cookie."""
    response.delete_cookie(accts.SESSION_COOKIE, path="/", httponly=True, samesite="lax",
                           secure=secure_cookie(request, settings))


async def signed_in(request: Request, response: Response, registry: RegistryDep, settings: Settings,
                    account: accts.Account, held: list[str]) -> dict[str, Any]:
    """Start a session of ``account`` (the cookie), attach the seats of ``held``; the answer."""
    agent = (request.headers.get("user-agent") or "")[:200]
    sid = await asyncio.to_thread(accts.new_session, registry.store, account.id, agent)
    set_session_cookie(response, sid, request, settings)
    got = await asyncio.to_thread(accts.link_seats, registry.store, account.id, held) if held else []
    response.headers["Cache-Control"] = "no-store"
    return {"account": account.public(), "seats": [{"game": g, "seat": s} for g, s in got]}


@router.post("/email", status_code=202, response_model=aa.MailSent)
async def ask_link(body: EmailBody, request: Request, settings: SettingsDep) -> dict[str, Any]:
    """Mail a sign-in link to ``email``: 202 for any well-formed address, known or not (the
    link is made and sent in the background)."""
    refuse_foreign(request, settings)
    lang = known_lang(body.lang)
    if not well_formed(body.email):
        raise ApiError(400, "bad_email", texts("server.bad_email"), {"field": "email"})
    if not settings.smtp_host:
        raise ApiError(503, "mail_off", texts("server.mail_off"))
    throttle: Throttle = request.app.state.throttle
    refusal = await throttle.check("signin_email", accts.normal_email(body.email))
    if refusal is not None:
        raise ApiError(429, "rate_limited", refusal.text(), refusal.details())
    mailer: SigninMailer = request.app.state.signin_mailer
    mailer.request(accts.normal_email(body.email), lang, base_url(settings, request))
    return {"status": "sent"}


@router.post("/signin", response_model=aa.SignedIn)
async def signin(body: SigninBody, request: Request, response: Response, registry: RegistryDep,
                 settings: SettingsDep) -> dict[str, Any]:
    """Spend a sign-in code: the account (made on the first sign-in), a session cookie, and
    the seats of the tokens sent attached to it. A used, expired or unknown code: 403."""
    refuse_foreign(request, settings)
    email = await asyncio.to_thread(use_code, registry.store, body.code)
    if email is None:
        raise ApiError(403, "bad_code", texts("server.bad_code"))
    account = await asyncio.to_thread(accts.account_for_email, registry.store, email, "en")
    return await signed_in(request, response, registry, settings, account, body.seats)


@router.post("/signout", response_model=aa.Revoked)
async def signout(account: CurrentAccount, request: Request, response: Response, registry: RegistryDep,
                  settings: SettingsDep) -> dict[str, Any]:
    """End this browser's session."""
    n = await asyncio.to_thread(accts.revoke_sessions, registry.store, account.id, [account.session[:16]])
    clear_session_cookie(response, request, settings)
    return {"revoked": n}


@router.get("", response_model=aa.AccountPage)
async def account_page(account: CurrentAccount, registry: RegistryDep) -> dict[str, Any]:
    """The account, its seats (newest first; whose turn in the ongoing ones) and its ratings."""
    store = registry.store
    held = await asyncio.to_thread(accts.seats_of, store, account.id)
    out: list[dict[str, Any]] = []
    looks = 0
    for game, seat, status, created in held:
        mine = False
        hub = None
        if status == "playing" and looks < MAX_TURN_LOOKS:
            looks += 1
            hub = await registry.get(game)
        if hub is not None:
            key = turn_key(hub.match)
            mine = key is not None and key[1] == seat
            board, players = hub.row.board, hub.game.players
        else:
            row = await asyncio.to_thread(store.game, game)
            board, players = (row.board, row.players) if row is not None else ("", 0)
        out.append({"game": game, "seat": seat, "status": status, "your_turn": mine, "board": board,
                    "players": players, "created": round(created, 3)})
    rated = await asyncio.to_thread(ratings_of, store, account.id)
    year = vacstore.year_of(now())
    left = await asyncio.to_thread(vacstore.left, store, account.id, year,
                                   registry.settings.vacation_days * 86400)
    away = await asyncio.to_thread(vacstore.away_of, store, account.id)
    if away is not None and away.year == year:
        left += away.left_at(now())  # what the period under way has not used yet
    tokens = await asyncio.to_thread(bot_accounts.live_tokens, store, account.id) if account.bot else 0
    return {**account.public(), "notify": account.notify, "games": out, "ratings": rated,
            "vacation": {"year": year, "left_s": round(left, 3), "away": away is not None},
            "bot": account.bot,
            "bot_token": tokens > 0}


@router.get("/sessions", response_model=aa.Sessions)
async def sessions(account: CurrentAccount, registry: RegistryDep) -> dict[str, Any]:
    """The account's live sessions (``current``: this browser's)."""
    rows = await asyncio.to_thread(accts.sessions_of, registry.store, account.id)
    return {"sessions": [{**r, "current": r["id"] == account.session[:16]} for r in rows]}


@router.post("/sessions/revoke", response_model=aa.Revoked)
async def revoke_sessions(account: CurrentAccount, registry: RegistryDep, request: Request,
                          response: Response, settings: SettingsDep,
                          body: RevokeBody | None = None) -> dict[str, Any]:
    """End the sessions named (``ids``), or every session of the account (this one too)."""
    ids = None if body is None else body.ids
    n = await asyncio.to_thread(accts.revoke_sessions, registry.store, account.id, ids)
    if ids is None or account.session[:16] in ids:
        clear_session_cookie(response, request, settings)
    return {"revoked": n}


@router.post("/name", response_model=aa.AccountPublic)
async def rename(body: NameBody, account: CurrentAccount, registry: RegistryDep) -> dict[str, Any]:
    """Change the display name: unique (case-insensitive), 3-24 letters, digits and a few
    signs, and nothing a bot seat or the server could be taken for."""
    name = body.name.strip()
    fault = accts.name_fault(name)
    if fault is not None:
        why = texts(f"server.name_{fault}", low=accts.NAME_MIN, high=accts.NAME_MAX)
        raise ApiError(400, "bad_name", why, {"field": "name", "reason": fault})
    if not await asyncio.to_thread(accts.rename, registry.store, account.id, name):
        raise ApiError(409, "name_taken", texts("server.name_taken"), {"field": "name"})
    got = await asyncio.to_thread(accts.account_by_id, registry.store, account.id)
    assert got is not None
    return got.public()


@router.delete("", response_model=aa.Deleted)
async def delete_account(account: CurrentAccount, registry: RegistryDep, request: Request,
                         response: Response, settings: SettingsDep) -> dict[str, Any]:
    """Delete the account: e-mail address, passkeys and sessions go; its games keep their
    seats under an anonymous name."""
    await asyncio.to_thread(accts.delete_account, registry.store, account.id)
    clear_session_cookie(response, request, settings)
    return {"deleted": True}


@router.post("/seats", response_model=aa.Attached)
async def attach_seats(body: SeatsBody, account: CurrentAccount, registry: RegistryDep) -> dict[str, Any]:
    """Attach the seats of these tokens (this browser's) to the account; the ones it holds."""
    got = await asyncio.to_thread(accts.link_seats, registry.store, account.id, body.tokens)
    return {"seats": [{"game": g, "seat": s} for g, s in got]}


@router.post("/games/{game_id}/seats/{seat}/token", response_model=aa.DeviceToken)
async def seat_token(game_id: str, seat: int, account: CurrentAccount, registry: RegistryDep,
                     response: Response) -> dict[str, Any]:
    """A seat token for this device, for a seat of the account (no secret link needed: the
    session is the proof). 403 ``not_your_seat`` for anybody else's seat."""
    if len(game_id) > 64 or not 0 <= seat < 8:
        raise ApiError(403, "not_your_seat", texts("server.not_your_seat"))
    tok = await asyncio.to_thread(accts.device_token, registry.store, account.id, game_id, seat)
    if tok is None:
        raise ApiError(403, "not_your_seat", texts("server.not_your_seat"))
    response.headers["Cache-Control"] = "no-store"
    return {"game": game_id, "seat": seat, "token": tok}


# ---------------------------------------------------------------------------- passkeys


class PasskeyBody(BaseModel):
    """The browser's answer to a passkey ceremony: the handle of its options and the
    ``PublicKeyCredential`` as JSON (``credential.toJSON()``)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    handle: str = Field(min_length=1, max_length=64)
    credential: dict[str, Any]
    label: str = Field(default="", max_length=64)
    seats: list[str] = Field(default_factory=list, max_length=MAX_HELD)
    """A sign-in: the seat tokens this browser holds (attached to the account)."""


def _rp(request: Request, settings: Settings) -> pk.RelyingParty:
    return pk.RelyingParty.of(base_url(settings, request))


def _refused() -> ApiError:
    return ApiError(403, "bad_passkey", texts("server.bad_passkey"))


@router.get("/passkeys", response_model=aa.Passkeys)
async def list_passkeys(account: CurrentAccount, registry: RegistryDep) -> dict[str, Any]:
    """The account's passkeys."""
    return {"passkeys": await asyncio.to_thread(pk.passkeys_of, registry.store, account.id)}


@router.post("/passkeys/options", response_model=aa.PasskeyOptions)
async def passkey_options(account: CurrentAccount, registry: RegistryDep, request: Request,
                          settings: SettingsDep) -> dict[str, Any]:
    """Start registering a passkey: the options for ``navigator.credentials.create``."""
    try:
        handle, options = await asyncio.to_thread(pk.registration_options, registry.store,
                                                  _rp(request, settings), account)
    except pk.PasskeyRefused:
        raise _refused() from None
    return {"handle": handle, "options": options}


@router.post("/passkeys", response_model=aa.PasskeyInfo)
async def add_passkey(body: PasskeyBody, account: CurrentAccount, registry: RegistryDep, request: Request,
                      settings: SettingsDep) -> dict[str, Any]:
    """Finish registering a passkey (its challenge is spent, whatever the outcome)."""
    try:
        return await asyncio.to_thread(pk.register, registry.store, _rp(request, settings), account,
                                       body.handle, body.credential, body.label.strip() or "passkey")
    except pk.PasskeyRefused:
        raise _refused() from None


@router.delete("/passkeys/{credential_id}", response_model=aa.Passkeys)
async def remove_passkey(credential_id: str, account: CurrentAccount,
                         registry: RegistryDep) -> dict[str, Any]:
    """Forget one passkey; the ones left."""
    if not await asyncio.to_thread(pk.remove, registry.store, account.id, credential_id[:512]):
        raise ApiError(404, "not_found", texts("server.not_found", status=404))
    return {"passkeys": await asyncio.to_thread(pk.passkeys_of, registry.store, account.id)}


@router.post("/passkey/options", response_model=aa.PasskeyOptions)
async def passkey_signin_options(registry: RegistryDep, request: Request,
                                 settings: SettingsDep) -> dict[str, Any]:
    """Start a passkey sign-in: the options for ``navigator.credentials.get``."""
    refuse_foreign(request, settings)
    handle, options = await asyncio.to_thread(pk.signin_options, registry.store, _rp(request, settings))
    return {"handle": handle, "options": options}


@router.post("/passkey/signin", response_model=aa.SignedIn)
async def passkey_signin(body: PasskeyBody, request: Request, response: Response, registry: RegistryDep,
                         settings: SettingsDep) -> dict[str, Any]:
    """Finish a passkey sign-in: a session cookie, as the e-mailed link gives."""
    refuse_foreign(request, settings)
    try:
        account_id = await asyncio.to_thread(pk.verify_signin, registry.store, _rp(request, settings),
                                             body.handle, body.credential)
    except pk.PasskeyRefused:
        raise _refused() from None
    account = await asyncio.to_thread(accts.account_by_id, registry.store, account_id)
    if account is None:
        raise _refused()
    return await signed_in(request, response, registry, settings, account, body.seats)
