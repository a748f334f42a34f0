"""The installable app (issue 26 item 2): the web app manifest, the service worker and the
offline page.

The service worker (web/sw.js, served at ``/sw.js`` so that its scope is the whole site) caches
the static shell — the page's modules, styles and icons, named here with a version that is the
hash of their contents, so a new release installs a new worker and drops the old cache — and
the offline page. It never touches ``/api/`` or the WebSocket, and never caches a page (they are
``no-store``; a seat's token lives in the browser's storage, never in a cached answer).
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from rebirth.engine.messages import languages, load_catalog
from rebirth.server.api.deps import SettingsDep
from rebirth.server.errors import ApiError, texts
from rebirth.server.pages.web import web_dir

router = APIRouter(tags=["page"])

SHELL_SUFFIXES = (".js", ".css", ".png", ".svg")
"""The files of web/ the service worker caches at install (the pages' modules and looks)."""

ICONS = ((192, "icon-192.png"), (512, "icon-512.png"))
"""The manifest's icons (drawn by scripts/make-icons.py)."""


def page_text(lang: str, key: str) -> str:
    """A page-catalog string (``page.json``) of ``lang``, else English."""
    for cat in (load_catalog(lang, "page"), load_catalog("en", "page")):
        if key in cat:
            return cat[key]
    raise KeyError(key)


@functools.lru_cache(maxsize=4)
def _shell(folder: str) -> tuple[list[str], str]:
    """The shell's URLs and their version (the hash of every file's name and contents)."""
    root = Path(folder)
    files = sorted(p for p in root.iterdir()
                   if p.is_file() and p.suffix in SHELL_SUFFIXES and p.name != "sw.js")
    digest = hashlib.sha256()
    for p in files:
        digest.update(p.name.encode() + b"\0" + p.read_bytes())
    offline = root / "offline.html"
    if offline.is_file():
        digest.update(offline.read_bytes())
    return ["/offline", *(f"/static/{p.name}" for p in files)], digest.hexdigest()[:16]


@router.get("/manifest.webmanifest", include_in_schema=False)
async def manifest(request: Request) -> JSONResponse:
    """The web app manifest (``?lang=`` for its name and description; English by default)."""
    lang = request.query_params.get("lang", "en")
    if lang not in languages():
        lang = "en"
    body: dict[str, Any] = {
        "name": page_text(lang, "app.name"), "short_name": page_text(lang, "app.short_name"),
        "description": page_text(lang, "app.description"), "lang": lang,
        "start_url": "/", "scope": "/", "id": "/", "display": "standalone",
        "background_color": "#fbfaf7", "theme_color": "#23395b",
        "icons": [*({"src": f"/static/{name}", "sizes": f"{px}x{px}", "type": "image/png", "purpose": "any"}
                    for px, name in ICONS),
                  {"src": "/static/icon-512.png", "sizes": "512x512", "type": "image/png",
                   "purpose": "maskable"}],
    }
    return JSONResponse(body, media_type="application/manifest+json",
                        headers={"Cache-Control": "public, max-age=3600"})


@router.get("/sw.js", include_in_schema=False)
async def service_worker(settings: SettingsDep) -> Response:
    """The service worker: its shell list and version filled in. Never cached beyond a
    revalidation (a new release must reach every browser)."""
    root = web_dir(settings)
    src = root / "sw.js"
    if not src.is_file():
        raise ApiError(404, "no_page", texts("server.page_missing", name="sw.js"))
    shell, version = _shell(str(root))
    code = src.read_text(encoding="utf-8").replace('"__SHELL__"', json.dumps(shell)).replace(
        "__VERSION__", version)
    return Response(code, media_type="text/javascript", headers={
        "Cache-Control": "no-cache", "Service-Worker-Allowed": "/"})


@router.get("/offline", include_in_schema=False)
async def offline(settings: SettingsDep) -> HTMLResponse:
    """The page the service worker shows when the server cannot be reached: the sentence in
    every language (JSON in an attribute, not a script: the CSP allows no inline script), the
    one shown picked by web/offline.js."""
    src = web_dir(settings) / "offline.html"
    if not src.is_file():
        raise ApiError(404, "no_page", texts("server.page_missing", name="offline.html"))
    keys = ("offline.title", "offline.body", "offline.retry")
    data = {lang: {k.split(".", 1)[1]: page_text(lang, k) for k in keys} for lang in languages()}
    block = html.escape(json.dumps(data, ensure_ascii=False), quote=True)
    page = src.read_text(encoding="utf-8").replace("__TEXTS__", block).replace(
        "__TITLE__", html.escape(data["en"]["title"]))
    return HTMLResponse(page, headers={"Cache-Control": "no-cache"})
