"""Lobby REST (``/api``): new games with secret links, summaries, records, revoking links,
handing a leaver's seat to a bot, maps, message catalogs and variants (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import json
import secrets
from importlib import resources
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, Header, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.exc import SQLAlchemyError

from rebirth.bots.base import BotError
from rebirth.engine.board import MapError
from rebirth.engine.game import VARIANTS, SetupError
from rebirth.match import HUMAN
from rebirth.server.addresses import base_url, is_loopback_host
from rebirth.server.deps import RegistryDep, SettingsDep
from rebirth.server.facts import board_facts
from rebirth.server.hub import Hub, LobbyError
from rebirth.server.store import TokenRow, hash_token

router = APIRouter(prefix="/api", tags=["lobby"])

KINDS = (HUMAN, "easy", "normal", "hard")
LANGS = ("en", "de")


def _data_names(folder: str) -> list[str]:
    base = resources.files("rebirth") / "data" / folder
    return sorted(p.name[:-5] for p in base.iterdir() if p.name.endswith(".json"))


def _data_json(folder: str, name: str) -> Any:
    return json.loads((resources.files("rebirth") / "data" / folder / f"{name}.json").read_text("utf-8"))


class SeatSpec(BaseModel):
    """One seat of a new game."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["human", "easy", "normal", "hard"] = "human"
    name: str | None = Field(default=None, max_length=40)


class NewGame(BaseModel):
    """``POST /api/games``."""

    model_config = ConfigDict(extra="forbid")
    board: str = Field(default="scotland", max_length=40)
    players: int = Field(default=3, ge=2, le=4)
    seats: list[SeatSpec] = Field(default_factory=list, max_length=4)
    variants: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=10)
    lang: Literal["en", "de"] = "en"
    hotseat: bool = False


def _link(base: str, game: str, token: str) -> str:
    # The token goes in the fragment: browsers never send it to a server or in a Referer.
    return f"{base}/game/{game}#t={token}"


def _bearer(authorization: str | None) -> str:
    if not authorization or not authorization.startswith("Bearer ") or len(authorization) > 200:
        raise LobbyError(401, "bad_token")
    return authorization[len("Bearer "):].strip()


async def _hub(registry: RegistryDep, game_id: str) -> Hub:
    if len(game_id) > 64:
        raise LobbyError(404, "unknown_game")
    hub = await registry.get(game_id)
    if hub is None:
        raise LobbyError(404, "unknown_game")
    return hub


async def _token(registry: RegistryDep, game_id: str, authorization: str | None) -> TokenRow:
    tok = await asyncio.to_thread(registry.store.token, _bearer(authorization))
    if tok is None or tok.game != game_id:
        raise LobbyError(403, "bad_token")
    if tok.revoked:
        raise LobbyError(403, "revoked")
    return tok


AuthHeader = Annotated[str | None, Header()]


@router.post("/games", status_code=201)
async def create_game(body: NewGame, registry: RegistryDep, settings: SettingsDep,
                      request: Request) -> dict[str, Any]:
    """Deal a new game; the answer holds every secret link once."""
    if body.board not in _data_names("maps"):
        raise LobbyError(400, "bad_board", {"en": f"unknown board {body.board!r}",
                                            "de": f"unbekannter Spielplan {body.board!r}"})
    specs = list(body.seats) or [SeatSpec(kind="human")] + [SeatSpec(kind="normal")] * (body.players - 1)
    if len(specs) != body.players:
        raise LobbyError(400, "bad_seats", {
            "en": f"{body.players} players need {body.players} seats, got {len(specs)}",
            "de": f"{body.players} Spieler brauchen {body.players} Plätze, nicht {len(specs)}"})
    kinds: list[str] = [s.kind for s in specs]
    names = [(s.name or "").strip()
             or (f"Player {i + 1}" if s.kind == HUMAN else f"{s.kind.capitalize()} {i + 1}")
             for i, s in enumerate(specs)]
    try:
        hub, toks = await registry.create(body.board, kinds, names, list(body.variants), body.lang,
                                          body.hotseat)
    except (SetupError, MapError, BotError, ValueError) as exc:
        raise LobbyError(400, "bad_game", {"en": str(exc), "de": str(exc)}) from exc
    except SQLAlchemyError as exc:
        raise LobbyError(503, "server_error") from exc
    gid = hub.id
    base = base_url(settings, request)
    return {
        "game": gid,
        # Links built on a loopback address work on this computer only; the lobby says so.
        "base": {"url": base, "loopback": is_loopback_host(urlsplit(base).hostname),
                 "public": bool(settings.public_url)},
        "links": {
            "seats": [{"seat": i, "name": names[i], "kind": kinds[i],
                       "url": _link(base, gid, toks["seats"][i]) if i in toks["seats"] else None}
                      for i in range(len(kinds))],
            "table": _link(base, gid, toks["table"]) if toks["table"] else None,
            "spectator": _link(base, gid, toks["spectator"]),
            "admin": _link(base, gid, toks["admin"]),
        },
    }


@router.get("/games/{game_id}")
async def game_summary(game_id: str, registry: RegistryDep) -> dict[str, Any]:
    """The public summary of a game."""
    hub = await _hub(registry, game_id)
    async with hub.lock:
        return hub.summary()


@router.get("/games/{game_id}/record")
async def game_record(game_id: str, registry: RegistryDep,
                      authorization: AuthHeader = None) -> dict[str, Any]:
    """The record: complete after the end; mid-game redacted for the token's seat."""
    hub = await _hub(registry, game_id)
    tok = await _token(registry, game_id, authorization)
    seat = tok.seat if tok.role == "seat" else None
    async with hub.lock:
        return hub.match.record(for_seat=seat)


@router.post("/games/{game_id}/seats/{seat}/revoke")
async def revoke(game_id: str, seat: int, registry: RegistryDep, settings: SettingsDep,
                 request: Request, authorization: AuthHeader = None) -> dict[str, Any]:
    """The admin replaces a seat's link; the old one stops working at once."""
    hub = await _hub(registry, game_id)
    tok = await _token(registry, game_id, authorization)
    if tok.role != "admin":
        raise LobbyError(403, "forbidden")
    if not 0 <= seat < hub.game.players:
        raise LobbyError(404, "unknown_seat")
    if hub.match.seats[seat].kind != HUMAN:
        raise LobbyError(409, "not_human")
    new = secrets.token_urlsafe(24)
    old = [c.token_hash for c in hub.conns if c.role == "seat" and c.seat == seat]
    await asyncio.to_thread(registry.store.replace_seat_token, game_id, seat, hash_token(new))
    for h in {h for h in old if h is not None}:
        await hub.close_token(h)
    return {"seat": seat, "url": _link(base_url(settings, request), game_id, new)}


@router.post("/games/{game_id}/seats/{seat}/bot")
async def hand_to_bot(game_id: str, seat: int, registry: RegistryDep, settings: SettingsDep,
                      authorization: AuthHeader = None) -> dict[str, Any]:
    """Another player hands a leaver's seat to a bot so the game can finish."""
    hub = await _hub(registry, game_id)
    tok = await _token(registry, game_id, authorization)
    if not 0 <= seat < hub.game.players:
        raise LobbyError(404, "unknown_seat")
    allowed = (tok.role == "seat" and tok.seat != seat) or tok.role == "admin"
    if not allowed:
        raise LobbyError(403, "forbidden")
    await hub.hand_to_bot(seat, settings.offline_grace)
    return hub.summary()


@router.get("/boards/{board}")
async def board_data(board: str) -> dict[str, Any]:
    """A shipped map (for drawing), its mission cards and tower tokens, and its facts (server/facts.py)."""
    if board not in _data_names("maps"):
        raise LobbyError(404, "unknown_board", {"en": f"unknown board {board!r}",
                                                "de": f"unbekannter Spielplan {board!r}"})
    out: dict[str, Any] = {"board": board, "map": _data_json("maps", board), "missions": None, "tokens": None,
                           "facts": board_facts(board)}
    if board in _data_names("missions"):
        out["missions"] = _data_json("missions", board)
    if f"{board}_towers" in _data_names("tokens"):
        out["tokens"] = _data_json("tokens", f"{board}_towers")
    return out


@router.get("/i18n/{lang}")
async def catalog(lang: str, settings: SettingsDep) -> dict[str, Any]:
    """The engine's catalog and the page's strings of ``lang`` (both in data/i18n)."""
    if lang not in LANGS:
        raise LobbyError(404, "unknown_lang", {"en": f"no language {lang!r} (en, de)",
                                               "de": f"keine Sprache {lang!r} (en, de)"})
    # One folder holds every catalog (docs/messages.md): the page's strings are data/i18n/page.
    return {"lang": lang, "events": _data_json("i18n", lang), "page": _data_json("i18n/page", lang)}


@router.get("/variants")
async def variants() -> dict[str, Any]:
    """Every rule variant with its explanation (en, de) and the boards it applies to."""
    from rebirth.engine.game import IRELAND_VARIANTS, SCOTLAND_VARIANTS

    return {"variants": [{"name": k, "text": dict(v), "boards": [b for b, vs in (
        ("scotland", SCOTLAND_VARIANTS), ("ireland", IRELAND_VARIANTS)) if k in vs]}
        for k, v in VARIANTS.items()],
        "kinds": list(KINDS)}
