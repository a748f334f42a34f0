"""The score calculator: ``GET /calculator`` (the page) and ``POST /api/score`` (docs/server.md).

Nothing is stored: the position comes in the request (the page keeps it in its URL fragment)
and the answer is computed by :func:`rebirth.scoring.calculate`, the code ``rebirth score`` runs.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, JSONResponse

from rebirth.engine.actions import ActionError
from rebirth.engine.board import MapError
from rebirth.engine.position import PositionError
from rebirth.engine.records import RecordError
from rebirth.scoring import CalcAsk, calculate
from rebirth.server.deps import SettingsDep
from rebirth.server.static import _page

router = APIRouter(tags=["calculator"])


def _bad(code: str, en: str, de: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": {"en": en, "de": de}, **extra}},
                        status_code=400)


@router.get("/calculator", include_in_schema=False)
async def calculator_page(settings: SettingsDep) -> FileResponse:
    """The calculator page (the position lives in the link's fragment, never sent here)."""
    return _page(settings, "calculator.html")


@router.post("/api/score")
async def score(request: Request) -> JSONResponse:
    """Body ``{"position": <Position JSON>, "seat": 0, "lang": "en", "names": [...]}`` → everything
    the page shows, or 400 with a message (en, de) naming the field or hex; a full tie adds ``ask``."""
    try:
        body = await request.json()
    except ValueError:
        return _bad("bad_json", "the request is not valid JSON", "die Anfrage ist kein gültiges JSON")
    if not isinstance(body, dict) or "position" not in body:
        return _bad("bad_message", "expected an object with 'position' (and 'seat', 'lang')",
                    "erwartet ein Objekt mit 'position' (und 'seat', 'lang')")
    seat = body.get("seat", 0)
    lang = body.get("lang", "en")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
        return _bad("bad_seat", f"'seat': {seat!r} is not a seat 0..3",
                    f"'seat': {seat!r} ist kein Sitz 0..3")
    if lang not in ("en", "de"):
        lang = "en"
    names = body.get("names")
    if names is not None and not (isinstance(names, list) and 2 <= len(names) <= 4
                                  and all(isinstance(x, str) and 0 < len(x) <= 40 for x in names)):
        return _bad("bad_names", "'names': one short name (1–40 characters) per seat",
                    "'names': je Sitz ein kurzer Name (1–40 Zeichen)")
    try:
        # The engine is synchronous; a worker thread keeps the server answering meanwhile.
        out = await run_in_threadpool(calculate, body["position"], seat, lang, names)
    except CalcAsk as exc:
        return _bad("ask", exc.text("en"), exc.text("de"), ask=exc.asks)
    except (PositionError, ActionError) as exc:
        return _bad("bad_position", exc.text("en"), exc.text("de"))
    except (RecordError, MapError) as exc:
        return _bad("bad_position", str(exc), str(exc))
    return JSONResponse(out)
