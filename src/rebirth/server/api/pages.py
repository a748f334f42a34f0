"""The page: ``/`` (lobby), ``/game/{id}`` (the game page) and ``/static/...`` from ``rebirth/web``."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request, Response
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from rebirth.server.api.deps import RegistryDep, SettingsDep
from rebirth.server.errors import ApiError, texts
from rebirth.server.settings import Settings

WEB = Path(__file__).resolve().parents[2] / "web"
"""The page shipped in the package (owned by the page, not the server)."""

router = APIRouter(tags=["page"])


def web_dir(settings: Settings) -> Path:
    """The folder the page is served from."""
    return Path(settings.web_dir) if settings.web_dir else WEB


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
    from rebirth.server.api.share import og_tags

    answer = page(settings, "game.html")
    hub = await registry.get(game_id) if len(game_id) <= 64 else None
    if hub is None:
        return answer
    html = Path(answer.path).read_text(encoding="utf-8")
    async with hub.lock:
        tags = og_tags(settings, request, hub)
    html = html.replace("</head>", f"{tags}</head>", 1)
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


def static_files(settings: Settings) -> StaticFiles:
    """``/static/...``: the page's modules, styles and images."""
    return StaticFiles(directory=web_dir(settings), check_dir=False)
