"""The data files the server ships and serves (maps, mission cards, tokens, catalogs) and the
checks of what a request names in them."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from rebirth.app.match import HUMAN, REMOTE
from rebirth.server.errors import ApiError, texts

KINDS = (HUMAN, "open", "easy", "normal", "hard", "expert", REMOTE)
"""The seat kinds a new game may have (``open``: a human seat for any signed-in player;
``remote``: a program's, over the bot API)."""


def data_names(folder: str) -> list[str]:
    """The names of the JSON files shipped in ``rebirth/data/<folder>``."""
    base = resources.files("rebirth") / "data" / folder
    return sorted(p.name[:-5] for p in base.iterdir() if p.name.endswith(".json"))


def data_json(folder: str, name: str) -> Any:
    """One shipped JSON file (``name`` must come from :func:`data_names`)."""
    return json.loads((resources.files("rebirth") / "data" / folder / f"{name}.json").read_text("utf-8"))


def require_board(board: Any, status: int = 400, code: str = "bad_board") -> str:
    """``board`` when it names a shipped map; otherwise an :class:`ApiError` (no file is opened)."""
    if not isinstance(board, str) or board not in data_names("maps"):
        shown = board if isinstance(board, str) else str(board)
        raise ApiError(status, code, texts("server.unknown_board", board=repr(shown[:40])))
    return board
