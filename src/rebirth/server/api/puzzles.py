"""Puzzles (``/api/puzzles``, issue 27 item 4; docs/puzzles.md) and the page ``/puzzles``.

The puzzles are the shipped file (:func:`rebirth.app.puzzles.shipped`); nothing a solver is
shown holds the answer. An answer is judged by :func:`rebirth.app.puzzles.answer`; a
signed-in solver's first answer to a puzzle moves its puzzle rating (Elo against the puzzle's
rating, :mod:`rebirth.server.persistence.puzzles`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict

from rebirth.app import puzzles as pz
from rebirth.server.api import puzzle_answers as a
from rebirth.server.api.deps import MaybeAccount, RegistryDep, SettingsDep
from rebirth.server.api.pages import page
from rebirth.server.errors import ApiError, known_lang, texts
from rebirth.server.persistence import puzzles as store

router = APIRouter(tags=["puzzles"])

PuzzleId = Annotated[str, Path(min_length=1, max_length=40)]
STREAM_LIMIT = 20
"""Puzzles per page of a stream at most."""


class AnswerAsk(BaseModel):
    """``POST /api/puzzles/{id}/answer``: the move (a hex label such as ``J13``). Anything
    else is judged too (wrong, with the reason), never refused."""

    model_config = ConfigDict(extra="ignore")
    action: Any = None


def _puzzle(pid: str) -> pz.Puzzle:
    found = pz.shipped().get(pid)
    if found is None:
        raise ApiError(404, "no_puzzle", texts("server.no_puzzle"))
    return found


@router.get("/puzzles", include_in_schema=False)
async def puzzles_page(settings: SettingsDep) -> FileResponse:
    """The puzzle page: the daily puzzle and streams by theme."""
    return page(settings, "puzzles.html")


@router.get("/api/puzzles/daily", response_model=a.PuzzleShown, response_model_exclude_unset=True)
async def daily(date: Annotated[dt.date | None, Query()] = None) -> dict[str, Any]:
    """The puzzle of the day (UTC; ``?date=YYYY-MM-DD`` for another day): the same for everyone."""
    day = date or dt.datetime.now(dt.UTC).date()
    out = pz.shipped().daily(day).public_json()
    out["date"] = day.isoformat()
    return out


@router.get("/api/puzzles", response_model=a.PuzzleStream)
async def stream(theme: Annotated[str | None, Query(max_length=40)] = None,
                 offset: Annotated[int, Query(ge=0, le=100_000)] = 0,
                 limit: Annotated[int, Query(ge=1, le=STREAM_LIMIT)] = 10) -> dict[str, Any]:
    """The puzzles of ``theme`` (all without one), easiest first, ``limit`` from ``offset``."""
    ps = pz.shipped()
    if theme is not None and theme not in ps.themes:
        raise ApiError(400, "unknown_theme", texts("server.unknown_theme"),
                       {"themes": list(ps.themes)})
    found = ps.by_theme(theme)
    return {"theme": theme, "themes": {t.id: list(t.rules) for t in ps.themes.values()},
            "total": len(found), "offset": offset,
            "puzzles": [p.public_json() for p in found[offset:offset + limit]]}


@router.get("/api/puzzles/{puzzle_id}", response_model=a.PuzzleShown,
            response_model_exclude_unset=True)
async def one(puzzle_id: PuzzleId) -> dict[str, Any]:
    """One puzzle as a solver sees it."""
    return _puzzle(puzzle_id).public_json()


@router.post("/api/puzzles/{puzzle_id}/answer", response_model=a.PuzzleVerdict,
             response_model_exclude_unset=True)
async def answer(puzzle_id: PuzzleId, body: AnswerAsk, registry: RegistryDep,
                 account: MaybeAccount,
                 lang: Annotated[str, Query(max_length=16)] = "en") -> dict[str, Any]:
    """Right or wrong, the best move, and why in the engine's own score texts."""
    puzzle = _puzzle(puzzle_id)
    language = known_lang(lang)
    verdict = await asyncio.to_thread(pz.answer, puzzle, body.action, language)
    out = verdict.to_json()
    if account is not None:
        out["rating"] = await asyncio.to_thread(
            store.record_attempt, registry.store, account.id, puzzle.id, puzzle.rating,
            verdict.correct)
    return out
