"""REST of a guest's seat moving to another device (issue 25 item 2; docs/protocol.md,
"Transfer codes"): the seat's own link makes a one-time transfer code — ten minutes,
single-use, stored as a hash — shown as a link (the code in the fragment) and a QR code;
the other device claims it once and gets its own token of the same seat (both devices then
hold the seat)."""

from __future__ import annotations

import asyncio
from typing import Any

import segno
from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.exc import SQLAlchemyError

from rebirth.app.match import HUMAN
from rebirth.server.api import seatanswers as sa
from rebirth.server.api.deps import RegistryDep, SettingsDep
from rebirth.server.api.lobby import GameHub, GameToken
from rebirth.server.errors import ApiError, texts
from rebirth.server.operations.addresses import base_url
from rebirth.server.persistence import seatnotify

router = APIRouter(prefix="/api", tags=["transfer"])

REFUSED = {"bad_transfer": 403, "code_used": 409, "code_expired": 410}
"""The answer to a refused claim (:class:`~rebirth.server.persistence.seatnotify.TransferRefused`)."""


def transfer_link(base: str, game: str, code: str) -> str:
    """The transfer link: the code in the fragment (browsers never send it to a server, a
    log or a Referer); the page posts it once."""
    return f"{base}/game/{game}#x={code}"


def qr_data_uri(link: str) -> str:
    """The link as a QR code: an SVG ``data:`` URL (the page's CSP allows ``data:`` images)."""
    return str(segno.make(link, error="m").svg_data_uri(scale=4, border=2))


@router.post("/games/{game_id}/transfer", status_code=201, response_model=sa.TransferMade)
async def make_transfer(hub: GameHub, tok: GameToken, settings: SettingsDep, request: Request,
                        response: Response) -> dict[str, Any]:
    """A one-time transfer code of the token's own seat (a seat link only; the seat must be a
    human's). The seat's earlier unused code stops working."""
    if tok.role != "seat" or tok.seat is None:
        raise ApiError(403, "forbidden")
    if hub.match.seats[tok.seat].kind != HUMAN:
        raise ApiError(409, "not_human")
    try:
        code, expires = await asyncio.to_thread(seatnotify.make_transfer, hub.host.store, hub.id, tok.seat)
    except SQLAlchemyError as exc:
        raise ApiError(503, "server_error", texts("server.storage_failed")) from exc
    link = transfer_link(base_url(settings, request), hub.id, code)
    response.headers["Cache-Control"] = "no-store"
    return {"seat": tok.seat, "url": link, "qr": qr_data_uri(link), "expires": expires,
            "ttl_s": seatnotify.TRANSFER_TTL_S}


class TransferClaim(BaseModel):
    """``POST /api/games/{id}/transfer/claim``: the code of a transfer link (``#x=``)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    code: str = Field(min_length=1, max_length=64)


@router.post("/games/{game_id}/transfer/claim", response_model=sa.TransferClaimed)
async def claim_transfer(game_id: str, body: TransferClaim, registry: RegistryDep,
                         response: Response) -> dict[str, Any]:
    """The device that opens a transfer link gets its own token of the seat (once). A used,
    expired or unknown code gets no token and says which."""
    if len(game_id) > 64:
        raise ApiError(404, "unknown_game")
    try:
        got = await asyncio.to_thread(seatnotify.claim_transfer, registry.store, game_id, body.code)
    except seatnotify.TransferRefused as exc:
        raise ApiError(REFUSED[exc.code], exc.code, texts(f"server.{exc.code}")) from None
    except SQLAlchemyError as exc:
        raise ApiError(503, "server_error", texts("server.storage_failed")) from exc
    response.headers["Cache-Control"] = "no-store"
    return {"game": got.game, "role": "seat", "seat": got.seat, "token": got.token}
