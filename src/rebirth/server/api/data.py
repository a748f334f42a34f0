"""Data endpoints (``/api``): shipped maps, message catalogs and rule variants (docs/protocol.md).

They read only what the package ships; a board is only ever a shipped board's *name* (checked
against the list of shipped files), never a path.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from rebirth.engine.game import IRELAND_VARIANTS, SCOTLAND_VARIANTS, VARIANTS
from rebirth.server.api import answers as a
from rebirth.server.errors import LANGS, ApiError, texts
from rebirth.server.pages.data import KINDS, data_json, data_names, require_board
from rebirth.server.pages.facts import board_facts

router = APIRouter(prefix="/api", tags=["data"])



@router.get("/boards/{board}", response_model=a.BoardData)
async def board_data(board: str) -> dict[str, Any]:
    """A shipped map (for drawing), its mission cards and tower tokens, and its facts
    (server/pages/facts.py)."""
    require_board(board, 404, "unknown_board")
    out: dict[str, Any] = {"board": board, "map": data_json("maps", board), "missions": None, "tokens": None,
                           "facts": board_facts(board)}
    if board in data_names("missions"):
        out["missions"] = data_json("missions", board)
    if f"{board}_towers" in data_names("tokens"):
        out["tokens"] = data_json("tokens", f"{board}_towers")
    return out


@router.get("/i18n/{lang}", response_model=a.Catalog)
async def catalog(lang: str) -> dict[str, Any]:
    """The engine's catalog and the page's strings of ``lang`` (both in data/i18n)."""
    if lang not in LANGS:
        raise ApiError(404, "unknown_lang", texts("server.unknown_lang", lang=repr(lang[:20])))
    # One folder holds every catalog (docs/messages.md): the page's strings are data/i18n/page.
    return {"lang": lang, "events": data_json("i18n", lang), "page": data_json("i18n/page", lang)}


@router.get("/variants", response_model=a.Variants)
async def variants() -> dict[str, Any]:
    """Every rule variant with its explanation (en, de) and the boards it applies to."""
    return {"variants": [{"name": k, "text": dict(v), "boards": [b for b, vs in (
        ("scotland", SCOTLAND_VARIANTS), ("ireland", IRELAND_VARIANTS)) if k in vs]}
        for k, v in VARIANTS.items()],
        "kinds": list(KINDS)}
