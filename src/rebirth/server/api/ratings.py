"""Ratings, leaderboards and public profiles (``/api``, issue 25 items 3 and 4;
docs/protocol.md, docs/ratings.md), and the pages ``/leaderboard`` and ``/players/{name}``."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.responses import FileResponse

from rebirth.server.api import rating_answers as a
from rebirth.server.api.deps import RegistryDep, SettingsDep
from rebirth.server.api.pages import page
from rebirth.server.errors import ApiError, texts
from rebirth.server.pages.data import require_board
from rebirth.server.persistence import botaccounts as bot_accounts
from rebirth.server.persistence import ratings as rs
from rebirth.server.persistence.store import Store

router = APIRouter(tags=["ratings"])

Board = Annotated[str, Query(max_length=40)]
Players = Annotated[int, Query(ge=2, le=4)]
Name = Annotated[str, Path(min_length=1, max_length=32)]
LEADERBOARD_LIMIT = 100
"""Entries of a leaderboard at most."""


def ratings_of(store: Store, account_id: str) -> list[dict[str, Any]]:
    """``GET /api/account``'s ``"ratings"``: the account's rating per board × player count
    (:class:`~rebirth.server.api.rating_answers.AccountRating`). Synchronous: call off the loop."""
    return rs.ratings_of(store, account_id)


@router.get("/api/ratings", response_model=a.Leaderboard)
async def leaderboard(registry: RegistryDep, board: Board = "scotland",
                      players: Players = 2) -> dict[str, Any]:
    """The leaderboard of a board × player count, best displayed rating first: accounts with
    at least ``min_games`` rated games there."""
    require_board(board)
    rows = await asyncio.to_thread(rs.leaderboard, registry.store, board, players, LEADERBOARD_LIMIT)
    return {"board": board, "players": players, "min_games": rs.MIN_GAMES, "ratings": rows}


def _profile(store: Store, name: str) -> dict[str, Any] | None:
    found = rs.account_by_name(store, name)
    if found is None:
        return None
    account, shown = found
    rated = {(r["board"], r["players"]): r for r in rs.ratings_of(store, account)}
    hist: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for h in rs.history(store, account):
        hist.setdefault((h.pop("board"), h.pop("players")), []).append(h)
    stats = {(s["board"], s["players"]): s for s in rs.statistics(store, account)}
    out = []
    for key in sorted(set(stats) | set(rated)):
        s = stats.get(key, {"games": 0, "win_share": 0.0, "average_score": 0.0})
        r = rated.get(key)
        out.append({"board": key[0], "players": key[1], "games": s["games"],
                    "win_share": s["win_share"], "average_score": s["average_score"],
                    "rating": None if r is None else r["rating"],
                    "rated_games": 0 if r is None else r["games"], "history": hist.get(key, [])})
    recent = [{k: g[k] for k in ("game", "board", "players", "seat", "score", "place", "scores",
                                 "rated", "at")} | {"page": f"/game/{g['game']}"}
              for g in rs.recent_games(store, account)]
    bot = bool(bot_accounts.bot_names(store, [shown]))
    return {"name": shown, "bot": bot, "stats": out, "recent": recent}


@router.get("/api/players/{name}", response_model=a.Profile)
async def profile(name: Name, registry: RegistryDep) -> dict[str, Any]:
    """A player's public profile: per board × player count the finished games, win share,
    average score, rating and its history; the latest finished games. 404 ``unknown_player``."""
    out = await asyncio.to_thread(_profile, registry.store, name)
    if out is None:
        raise ApiError(404, "unknown_player", texts("server.unknown_player"))
    return out


@router.get("/leaderboard", include_in_schema=False)
async def leaderboard_page(settings: SettingsDep) -> FileResponse:
    """The leaderboards page."""
    return page(settings, "leaderboard.html")


@router.get("/players/{name}", include_in_schema=False)
async def profile_page(name: str, settings: SettingsDep) -> FileResponse:
    """A player's public profile page (it asks ``/api/players/{name}``)."""
    return page(settings, "player.html")
