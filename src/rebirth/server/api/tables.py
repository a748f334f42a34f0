"""The table companion's REST API (``/api/tables``) and page (``/table``): a physical game
recorded entry by entry and scored by the engine's table mode (docs/table.md).

The authority is :mod:`rebirth.server.tables.authority` (one hub per table game, a registry made in the
app's lifespan); its storage functions live in :mod:`rebirth.server.persistence.store`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field

from rebirth.engine.board import MapError
from rebirth.engine.game import SetupError
from rebirth.engine.messages import UserError
from rebirth.server.api import answers as a
from rebirth.server.api.deps import BearerToken, SettingsDep, TablesDep
from rebirth.server.api.pages import page
from rebirth.server.errors import ApiError, known_lang, texts
from rebirth.server.pages.data import require_board
from rebirth.server.persistence.store import TableRow
from rebirth.server.tables.authority import (
    COLOURS,
    MAX_UNDO,
    TableHub,
    fresh_state,
)

router = APIRouter(tags=["table"])


# ---------------------------------------------------------------------- models

class NewTable(BaseModel):
    """``POST /api/tables``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    board: str = Field(default="scotland", max_length=40)
    players: int = Field(default=3, ge=2, le=4)
    names: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=4)
    colours: list[Annotated[str, Field(pattern=r"^#[0-9A-Fa-f]{6}$")]] = Field(default_factory=list,
                                                                                max_length=4)
    variants: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=10)
    start_player: int = Field(default=0, ge=0, le=3)
    display: list[Annotated[str, Field(max_length=16)]] = Field(default_factory=list, max_length=8)
    tower_tokens: list[Annotated[str, Field(max_length=32)] | None] | None = Field(default=None,
                                                                                 max_length=20)
    lang: str = Field(default="en", max_length=20)
    """A declared language (data/i18n/languages.json); another is ``unknown_lang``."""


class Entry(BaseModel):
    """``POST /api/tables/{id}/entries``: one entry. ``version`` (required: the number of entries
    the device has seen) guards against two devices entering the same move; ``seat`` (0-based,
    required for a player's entry, left out for an entered outcome) against entering a
    placement for the wrong player."""

    model_config = ConfigDict(extra="forbid", strict=True)
    entry: str = Field(min_length=1, max_length=64)
    seat: int | None = Field(default=None, ge=0, le=3)
    version: int = Field(ge=0)


class Undo(BaseModel):
    """``POST /api/tables/{id}/undo``: take back the last ``count`` entries."""

    model_config = ConfigDict(extra="forbid", strict=True)
    count: int = Field(default=1, ge=1, le=MAX_UNDO)
    version: int = Field(ge=0)


# ---------------------------------------------------------------------- set-up errors

def _setup_texts(exc: Exception) -> dict[str, str]:
    """The refused set-up in every language: the engine's own message (key + args), else
    (a KeyError or ValueError that no engine check names) the fixed sentence."""
    if isinstance(exc, UserError):
        return exc.texts()
    return texts("server.bad_game")


# ---------------------------------------------------------------------- routes

async def authed_table(gid: str, tables: TablesDep, token: BearerToken) -> TableHub:
    """The table game of the path, opened with its secret token."""
    return await tables.authed(gid, token)


AuthedTable = Annotated[TableHub, Depends(authed_table)]


@router.post("/api/tables", status_code=201, response_model=a.TableCreated)
async def create_table(body: NewTable, tables: TablesDep) -> dict[str, Any]:
    """A new table game: its id and its secret token (shown once; only its hash is stored)."""
    known_lang(body.lang)
    require_board(body.board)
    n = body.players
    names = [x.strip() for x in body.names]
    if body.names and len(names) != n:
        raise ApiError(400, "bad_seats", texts("server.bad_names", n=n, got=len(names)))
    names = [x or f"Player {i + 1}" for i, x in enumerate(names)] or [f"Player {i + 1}" for i in range(n)]
    colours = [c.upper() for c in body.colours] or list(COLOURS[:n])
    if len(colours) != n or len(set(colours)) != n:
        raise ApiError(400, "bad_colours", texts("server.bad_colours", n=n))
    if body.start_player >= n:
        sp = body.start_player + 1
        raise ApiError(400, "bad_game", texts("server.bad_start", sp=sp, n=n))
    setup: dict[str, Any] = {"start_player": body.start_player, "display": list(body.display),
                             "tower_tokens": body.tower_tokens}
    header = TableRow("", body.board, n, list(body.variants), names, colours, setup, body.lang)
    try:
        fresh_state(header)
    except (SetupError, MapError, ValueError, KeyError) as exc:
        raise ApiError(400, "bad_game", _setup_texts(exc)) from exc
    hub, token = await tables.create(header)
    return {"table": hub.id, "token": token, "url": f"/table/{hub.id}#t={token}"}


@router.get("/api/tables/{gid}", response_model=a.TableState)
async def table_state(hub: AuthedTable) -> dict[str, Any]:
    """The game now: view, scores, breakdown, what may be entered, the last entry's events."""
    async with hub.current():
        return hub.answer()


@router.post("/api/tables/{gid}/entries", response_model=a.TableState)
async def add_entry(body: Entry, hub: AuthedTable) -> dict[str, Any]:
    """Enter what happened at the table; the engine checks it (nothing changes on an error)."""
    async with hub.current():
        await hub.enter(body.entry, body.seat, body.version)
        return hub.answer()


@router.post("/api/tables/{gid}/undo", response_model=a.TableState)
async def undo(body: Undo, hub: AuthedTable) -> dict[str, Any]:
    """Take back the last ``count`` entries (deleted from the log in one transaction)."""
    async with hub.current():
        await hub.undo(body.count, body.version)
        return hub.answer()


@router.get("/api/tables/{gid}/record", response_model=a.TableRecord,
            response_model_exclude_unset=True)
async def record(hub: AuthedTable) -> dict[str, Any]:
    """The table record (``"table": true``; replays with ``rebirth replay``)."""
    async with hub.current():
        return hub.record()


@router.get("/table", include_in_schema=False)
async def table_page(settings: SettingsDep) -> FileResponse:
    """The companion's page (set-up form)."""
    return page(settings, "table.html")


@router.get("/table/{gid}", include_in_schema=False)
async def table_game_page(gid: str, settings: SettingsDep) -> FileResponse:
    """The companion's page of one game (the token is in the fragment)."""
    return page(settings, "table.html")
