"""Post-game analysis over REST (issue 17 item 2, server part): ``POST
/api/games/{id}/analysis`` runs :func:`rebirth.analysis.analyse` on a finished game's
complete record in a worker thread (off the event loop), one analysis at a time on the
server and per game, and caches the result. A game still being played is refused: an
analysis would tell a seat what the search infers about the others' hidden tiles."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Query, Request

from rebirth.analysis import DEFAULT_WORLDS
from rebirth.engine.messages import text
from rebirth.server.deps import RegistryDep
from rebirth.server.hub import LobbyError

router = APIRouter(prefix="/api", tags=["analysis"])

CACHE_SIZE = 32
"""Analyses kept per server process (each is some 100 kB of JSON)."""

NOT_OVER = {lang: text("analysis.not_over", lang) for lang in ("en", "de")}
"""The refusal of an unfinished game (an analysis would show what the search infers)."""


class _Analyses:
    """The cache and the locks of one app (kept on ``app.state``)."""

    def __init__(self) -> None:
        self.cache: OrderedDict[tuple[str, str, int], dict[str, Any]] = OrderedDict()
        self.per_game: dict[str, asyncio.Lock] = {}
        # One CPU-heavy analysis at a time on the whole server: a game's players keep moving.
        self.running = asyncio.Semaphore(1)


def _analyses(request: Request) -> _Analyses:
    st = request.app.state
    if not hasattr(st, "analyses"):
        st.analyses = _Analyses()
    out: _Analyses = st.analyses
    return out


def _run(record: dict[str, Any], lang: str, worlds: int) -> dict[str, Any]:
    from rebirth.analysis import analyse

    return analyse(record, worlds=worlds, seed=0, lang=lang).to_json()


@router.post("/games/{game_id}/analysis")
async def game_analysis(
        game_id: str, request: Request, registry: RegistryDep,
        lang: Literal["en", "de"] = "en",
        budget: Annotated[int, Query(ge=2, le=DEFAULT_WORLDS)] = DEFAULT_WORLDS,
        authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
    """The analysis of a finished game (docs/analysis.md) for any holder of one of its links;
    ``budget`` (worlds per decision) may only lower the server's default."""
    if len(game_id) > 64:
        raise LobbyError(404, "unknown_game")
    hub = await registry.get(game_id)
    if hub is None:
        raise LobbyError(404, "unknown_game")
    if not authorization or not authorization.startswith("Bearer ") or len(authorization) > 200:
        raise LobbyError(401, "bad_token")
    tok = await asyncio.to_thread(registry.store.token, authorization[len("Bearer "):].strip())
    if tok is None or tok.game != game_id:
        raise LobbyError(403, "bad_token")
    if tok.revoked:
        raise LobbyError(403, "revoked")
    async with hub.lock:
        if hub.summary()["status"] != "over":
            raise LobbyError(409, "not_over", NOT_OVER)
        record = hub.match.record(for_seat=None)
    an = _analyses(request)
    key = (game_id, lang, budget)
    lock = an.per_game.setdefault(game_id, asyncio.Lock())
    async with lock:
        if key not in an.cache:
            async with an.running:
                an.cache[key] = await asyncio.to_thread(_run, record, lang, budget)
            while len(an.cache) > CACHE_SIZE:
                an.cache.popitem(last=False)
        an.cache.move_to_end(key)
        return an.cache[key]
