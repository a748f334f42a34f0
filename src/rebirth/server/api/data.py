"""Data endpoints (``/api``): shipped maps, message catalogs and rule variants (docs/protocol.md).

They read only what the package ships; a board is only ever a shipped board's *name* (checked
against the list of shipped files), never a path.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from rebirth.engine.game import IRELAND_VARIANTS, SCOTLAND_VARIANTS, VARIANTS
from rebirth.engine.i18n import registry
from rebirth.engine.messages import load_catalog
from rebirth.server.api import answers as a
from rebirth.server.errors import known_lang
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


@router.get("/languages", response_model=a.Languages)
async def languages() -> dict[str, Any]:
    """The declared languages in menu order (the registry, data/i18n/languages.json): the
    pages' language menus are filled from this, never from a list of their own."""
    return {"languages": [{"code": lang.code, "name": lang.name} for lang in registry().languages]}


@router.get("/i18n/{lang}", response_model=a.Catalog)
async def catalog(lang: str) -> dict[str, Any]:
    """The engine's catalog and the page's strings of ``lang`` (data/i18n/<lang>/)."""
    known_lang(lang, 404)
    return {"lang": lang, "events": load_catalog(lang, "messages"), "page": load_catalog(lang, "page")}


@router.get("/variants", response_model=a.Variants)
async def variants() -> dict[str, Any]:
    """Every rule variant with its explanation (en, de) and the boards it applies to."""
    return {"variants": [{"name": k, "text": dict(v), "boards": [b for b, vs in (
        ("scotland", SCOTLAND_VARIANTS), ("ireland", IRELAND_VARIANTS)) if k in vs]}
        for k, v in VARIANTS.items()],
        "kinds": list(KINDS)}
