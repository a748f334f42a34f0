"""Post-game analysis over REST (issue 17 item 2): a finished game's analysis
(:func:`rebirth.analysis.analyse` on its complete record) as a background job.

``POST /api/games/{id}/analysis`` starts the job, or answers it when it is done;
``GET`` reports its progress without starting anything. The analysis runs in a worker
thread (off the event loop), one at a time on the whole server (it is CPU-heavy and the
other games keep moving) and at most once per game, language and budget; results are
cached. A game still being played is refused: an analysis would tell a seat what the search
infers about the others' hidden tiles.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response

from rebirth.analysis import DEFAULT_WORLDS
from rebirth.server.api import answers as a
from rebirth.server.api.deps import SettingsDep
from rebirth.server.api.lobby import GameHub, GameToken
from rebirth.server.errors import ApiError, known_lang, texts
from rebirth.server.play.session import Hub, log

router = APIRouter(prefix="/api", tags=["analysis"])

CACHE_SIZE = 32
"""Analyses kept per server process (each is some 100 kB of JSON)."""

NOT_OVER = texts("analysis.not_over")
"""The refusal of an unfinished game (an analysis would show what the search infers)."""

Key = tuple[str, str, int]
"""(game, language, worlds per decision)."""


@dataclass
class Job:
    """One analysis: its progress (record entries done of total), then its result."""

    entries: int = 0
    """Record entries analysed so far (of ``total``)."""
    total: int = 0
    result: dict[str, Any] | None = None
    failed: bool = False
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        if self.result is not None:
            return {"status": "done", "analysis": self.result}
        return {"status": "failed" if self.failed else "running", "done": self.entries,
                "total": self.total}


class _Analyses:
    """The jobs of one app (kept on ``app.state``): running ones and a cache of finished ones."""

    def __init__(self) -> None:
        self.jobs: OrderedDict[Key, Job] = OrderedDict()
        # One CPU-heavy analysis at a time on the whole server: a game's players keep moving.
        self.running = asyncio.Semaphore(1)

    @property
    def cache(self) -> dict[Key, dict[str, Any]]:
        """The finished analyses by key."""
        return {k: j.result for k, j in self.jobs.items() if j.result is not None}

    def start(self, key: Key, record: dict[str, Any]) -> Job:
        job = Job()
        self.jobs[key] = job
        job.task = asyncio.get_running_loop().create_task(self._run(key, job, record))
        while len(self.jobs) > CACHE_SIZE:
            old = next(k for k, j in self.jobs.items() if j.task is None or j.task.done())
            self.jobs.pop(old)
        return job

    async def _run(self, key: Key, job: Job, record: dict[str, Any]) -> None:
        def progress(done: int, total: int) -> None:
            # Called from the worker thread; two int stores, read by the loop's answers.
            job.total = total
            job.entries = done

        try:
            async with self.running:
                job.result = await asyncio.to_thread(_analyse, record, key[1], key[2], progress)
        except Exception:  # a failed analysis is reported, and may be asked for again
            log.exception("analysis of game %s failed", key[0])
            job.failed = True


def _analyses(request: Request) -> _Analyses:
    st = request.app.state
    if not hasattr(st, "analyses"):
        st.analyses = _Analyses()
    out: _Analyses = st.analyses
    return out


def _analyse(record: dict[str, Any], lang: str, worlds: int,
             progress: Any) -> dict[str, Any]:
    from rebirth.analysis import analyse

    return analyse(record, worlds=worlds, seed=0, lang=lang, progress=progress).to_json()


async def finished_game(hub: GameHub, _tok: GameToken) -> Hub:
    """The game of the path, asked with a valid link of it (the lobby's dependencies: 404, then
    401/403), once it is over (409 ``not_over``)."""
    if not hub.match.state.is_terminal():
        raise ApiError(409, "not_over", NOT_OVER)
    return hub


FinishedGame = Annotated[Hub, Depends(finished_game)]
"""A finished game the caller holds a link of."""


PROGRESS: dict[int | str, dict[str, Any]] = {
    202: a.described(a.AnalysisProgress, "the analysis is under way (or failed: ask again)")}
"""The routes' other success: an analysis not done yet."""

Budget = Annotated[int | None, Query(ge=2, le=DEFAULT_WORLDS)]
"""Worlds per decision; None: the server's ``REBIRTH_ANALYSIS_WORLDS``."""
Lang = Annotated[str, Query(max_length=20)]
"""A declared language (data/i18n/languages.json); another is ``unknown_lang``."""


@router.post("/games/{game_id}/analysis", response_model=a.AnalysisAnswer, responses=PROGRESS)
async def start_analysis(game_id: str, hub: FinishedGame, request: Request, response: Response,
                         settings: SettingsDep, lang: Lang = "en", budget: Budget = None) -> dict[str, Any]:
    """Start the analysis of a finished game (202 with its progress), or answer it once done
    (200); any holder of one of the game's links may ask. ``budget`` (worlds per decision)
    may only lower the server's default (docs/analysis.md)."""
    known_lang(lang)
    an = _analyses(request)
    key = (game_id, lang, budget or settings.analysis_worlds)
    job = an.jobs.get(key)
    if job is None or job.failed:
        async with hub.lock:
            record = hub.match.record(for_seat=None)
        job = an.start(key, record)
    an.jobs.move_to_end(key)
    response.status_code = 200 if job.result is not None else 202
    return job.to_json()


@router.get("/games/{game_id}/analysis", response_model=a.AnalysisAnswer, responses=PROGRESS)
async def analysis_status(game_id: str, _hub: FinishedGame, request: Request, response: Response,
                          settings: SettingsDep, lang: Lang = "en", budget: Budget = None) -> dict[str, Any]:
    """The progress or the result of a finished game's analysis; 404 ``no_analysis`` (the one
    error shape) when none was started for this language and budget."""
    known_lang(lang)
    job = _analyses(request).jobs.get((game_id, lang, budget or settings.analysis_worlds))
    if job is None:
        raise ApiError(404, "no_analysis", texts("server.no_analysis"))
    response.status_code = 200 if job.result is not None else 202
    return job.to_json()
