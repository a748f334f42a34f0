"""The page: ``/`` (lobby), ``/game/{id}`` (the game page), ``/signin`` and ``/account``, and
``/static/...`` from ``rebirth/web``."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request, Response
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from rebirth.server.api.deps import RegistryDep, SettingsDep
from rebirth.server.api.share import og_tags
from rebirth.server.errors import ApiError, texts
from rebirth.server.pages.web import web_dir
from rebirth.server.settings import Settings

router = APIRouter(tags=["page"])


def page(settings: Settings, name: str) -> FileResponse:
    """One of the shipped HTML pages (404 ``no_page`` when it is not installed)."""
    path = web_dir(settings) / name
    if not path.is_file():
        raise ApiError(404, "no_page", texts("server.page_missing", name=name))
    # The page holds no secret itself, but links carry tokens in the fragment: no-store keeps
    # shared machines from offering an old game from the cache.
    return FileResponse(path, media_type="text/html", headers={"Cache-Control": "no-store"})


@router.get("/", include_in_schema=False)
async def index(settings: SettingsDep) -> FileResponse:
    """The lobby page."""
    return page(settings, "index.html")


@router.get("/game/{game_id}", include_in_schema=False)
async def game_page(game_id: str, settings: SettingsDep, registry: RegistryDep,
                    request: Request) -> Response:
    """The game page (the token is in the link's fragment, never sent here), with the game's
    Open Graph tags (server/api/share.py) so that a pasted link shows a preview."""
    answer = page(settings, "game.html")
    hub = await registry.get(game_id) if len(game_id) <= 64 else None
    if hub is None:
        return answer
    html = Path(answer.path).read_text(encoding="utf-8")
    async with hub.lock:
        tags = og_tags(settings, request, hub)
    html = html.replace("</head>", f"{tags}</head>", 1)
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


@router.get("/unsubscribe", include_in_schema=False)
async def unsubscribe_page(settings: SettingsDep) -> FileResponse:
    """The page of an e-mail's "stop these e-mails" link (its token in the fragment; the page
    asks before it posts it: a mail scanner's GET unsubscribes nobody)."""
    return page(settings, "unsubscribe.html")


@router.get("/signin", include_in_schema=False)
async def signin_page(settings: SettingsDep) -> FileResponse:
    """The sign-in page (the e-mailed link's code is in the fragment, never sent here)."""
    return page(settings, "signin.html")


@router.get("/account", include_in_schema=False)
async def account_page(settings: SettingsDep) -> FileResponse:
    """The account page (its data: ``GET /api/account`` with the session cookie)."""
    return page(settings, "account.html")


def static_files(settings: Settings) -> StaticFiles:
    """``/static/...``: the page's modules, styles and images."""
    return StaticFiles(directory=web_dir(settings), check_dir=False)
