"""The score calculator: ``GET /calculator`` (the page) and ``POST /api/score`` (docs/server.md).

Nothing is stored: the position comes in the request (the page keeps it in its URL fragment)
and the answer is computed by :func:`rebirth.app.scoring.calculate`, the code ``rebirth score`` runs.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from rebirth.app.scoring import CalcAsk, calculate
from rebirth.engine.actions import ActionError
from rebirth.engine.board import MapError
from rebirth.engine.position import PositionError
from rebirth.engine.records import RecordError
from rebirth.server.api import answers as a
from rebirth.server.api.deps import SettingsDep
from rebirth.server.api.pages import page
from rebirth.server.errors import ApiError, known_lang
from rebirth.server.pages.data import require_board

router = APIRouter(tags=["calculator"])


class ScoreRequest(BaseModel):
    """``POST /api/score``: a Position JSON (docs/positions.md), the seat whose heat map is wanted,
    the language of the explanations and, optionally, one short name per seat."""

    model_config = ConfigDict(extra="ignore")
    position: dict[str, Any]
    seat: StrictInt = Field(default=0, ge=0, le=3)
    lang: str = Field(default="en", max_length=16)
    names: list[Annotated[str, Field(min_length=1, max_length=40)]] | None = Field(
        default=None, min_length=2, max_length=4)
    refresh: StrictBool = False
    """False (the default): facts the position gives are checked exactly as ``rebirth score``
    checks them; what it leaves out is derived from the tiles. True (the page after an edit,
    whose earlier derived facts may be stale): derive them again from the tiles, keeping only
    tie choices and fulfilled castle missions (:func:`rebirth.app.scoring.complete`)."""


def _text(exc: PositionError | ActionError) -> dict[str, str]:
    return exc.texts()


@router.get("/calculator", include_in_schema=False)
async def calculator_page(settings: SettingsDep) -> FileResponse:
    """The calculator page (the position lives in the link's fragment, never sent here)."""
    return page(settings, "calculator.html")


@router.post("/api/score", response_model=a.Score)
async def score(body: ScoreRequest) -> dict[str, Any]:
    """Everything the page shows, or 400 with a message (en, de) naming the field or hex; a full
    tie is the code ``ask`` with the choices in ``details.ask``."""
    lang = known_lang(body.lang)
    if isinstance(body.position.get("board"), str):
        # Only a shipped board's name, never a path: nothing on this machine is opened or
        # told apart by its existence (a path gets the answer of any unknown name).
        require_board(body.position["board"])
    try:
        # The engine is synchronous; a worker thread keeps the server answering meanwhile.
        out: dict[str, Any] = await run_in_threadpool(
            lambda: calculate(body.position, body.seat, lang, body.names, refresh=body.refresh))
    except CalcAsk as exc:
        raise ApiError(400, "ask", _text(exc), {"ask": exc.asks}) from None
    except (PositionError, ActionError) as exc:
        raise ApiError(400, "bad_position", _text(exc)) from None
    except (RecordError, MapError) as exc:
        raise ApiError(400, "bad_position", exc.texts()) from None
    return out
