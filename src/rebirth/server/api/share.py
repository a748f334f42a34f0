"""Sharing a game (issue 26 item 5; docs/protocol.md "Sharing"): the public board as a PNG,
the finished game as an animated GIF, the public position (optionally some moves behind) for
the embeddable spectator view ``/embed/game/{id}``, and the Open Graph tags of the game page.

None of these needs a token, as a pasted link's preview has none: each shows only what the
game's spectators see (server/pages/share.py), never a seat's tiles, missions or a token.
"""

from __future__ import annotations

from html import escape
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import HTMLResponse

from rebirth.engine.board import builtin_board
from rebirth.engine.messages import text
from rebirth.server.api import answers as a
from rebirth.server.api.deps import SettingsDep
from rebirth.server.api.lobby import GameHub
from rebirth.server.errors import ApiError, texts
from rebirth.server.operations.addresses import base_url
from rebirth.server.pages.share import Pictures, Positions, positions
from rebirth.server.pages.web import web_dir
from rebirth.server.play.session import Session
from rebirth.server.settings import Settings

router = APIRouter(tags=["share"])

PNG: dict[int | str, dict[str, Any]] = {
    200: {"content": {"image/png": {"schema": {"type": "string", "format": "binary"}}},
          "description": "the public board as a PNG"}}
GIF: dict[int | str, dict[str, Any]] = {
    200: {"content": {"image/gif": {"schema": {"type": "string", "format": "binary"}}},
          "description": "the finished game, a frame per move"}}

Behind = Annotated[int, Query(ge=0, le=1000)]
"""Moves behind the game's last one (the embed's delay); past the start: the deal."""


def pictures(request: Request) -> Pictures:
    """This app's picture cache (made on first use)."""
    st = request.app.state
    if not hasattr(st, "pictures"):
        st.pictures = Pictures()
    out: Pictures = st.pictures
    return out


async def game_positions(request: Request, hub: Session) -> Positions:
    """The public positions of the game now (cached per game version)."""
    cache = pictures(request)
    async with hub.lock:
        version = hub.match.version
        pos = cache.positions.get(hub.id)
        if pos is None or pos.version != version:
            pos = positions(hub.match)
            cache.keep_positions(hub.id, pos)
    return pos


def caption(lang: str, pos: Positions, index: int) -> str:
    """"Move 12 of 80" (or "Move 12" while the game goes on) in the game's language."""
    if pos.over:
        return text("share.move_of", lang, n=index, total=pos.moves)
    return text("share.move", lang, n=index)


@router.get("/api/games/{game_id}/board.png", response_class=Response, responses=PNG)
async def board_png(game_id: str, hub: GameHub, request: Request) -> Response:
    """The public board now as a PNG (1000 px wide): the seats' names and scores, every
    placed tile and structure owner; what a spectator sees, no token needed (a link preview's
    ``og:image``). 503 ``no_pictures`` where the server lacks cairosvg's libcairo2."""
    pos = await game_positions(request, hub)
    try:
        data = await pictures(request).png(game_id, pos, pos.moves, caption(hub.row.lang, pos, pos.moves))
    except (ImportError, OSError) as exc:
        raise ApiError(503, "no_pictures", texts("server.no_pictures")) from exc
    # A preview may be cached a little; a new move is a new version (og:image carries it).
    return Response(data, media_type="image/png", headers={"Cache-Control": "public, max-age=30"})


@router.get("/api/games/{game_id}/game.gif", response_class=Response, responses=GIF)
async def game_gif(game_id: str, hub: GameHub, request: Request) -> Response:
    """The finished game as an animated GIF (640 px wide), a frame per move (at most
    160: a longer game shows every k-th move and the last); 409 ``not_over`` before the end
    (a game in play is shared as ``board.png``)."""
    pos = await game_positions(request, hub)
    if not pos.over:
        raise ApiError(409, "not_over", texts("share.not_over"))
    lang = hub.row.lang
    try:
        captions = [caption(lang, pos, k) for k in range(len(pos.views))]
        data = await pictures(request).gif(game_id, pos, captions, lang)
    except (ImportError, OSError) as exc:
        raise ApiError(503, "no_pictures", texts("server.no_pictures")) from exc
    return Response(data, media_type="image/gif", headers={"Cache-Control": "public, max-age=3600"})


@router.get("/api/games/{game_id}/public", response_model=a.PublicPosition)
async def public_position(hub: GameHub, request: Request, behind: Behind = 0) -> dict[str, Any]:
    """The spectators' view of the game ``behind`` moves ago (0: now; ignored once the game
    is over), for the embeddable view; no token needed."""
    pos = await game_positions(request, hub)
    shown = pos.moves if pos.over else max(0, pos.moves - behind)
    return {"game": hub.id, "board": pos.board, "names": list(pos.names), "lang": hub.row.lang,
            "over": pos.over, "moves": pos.moves, "move": shown, "behind": pos.moves - shown,
            "version": pos.versions[shown], "view": pos.views[shown]}


EMBED_CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
             "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
             "form-action 'none'; frame-ancestors *")
"""The embed's policy: any site may frame it (and only it: every other answer keeps the
guard's ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``)."""


@router.get("/embed/game/{game_id}", include_in_schema=False)
async def embed_page(game_id: str, settings: SettingsDep) -> Response:
    """The embeddable read-only spectator view (``?behind=N``: N moves behind)."""
    path = web_dir(settings) / "embed.html"
    if not path.is_file():
        raise ApiError(404, "no_page", texts("server.page_missing", name="embed.html"))
    return HTMLResponse(path.read_text(encoding="utf-8"),
                        headers={"Content-Security-Policy": EMBED_CSP, "Cache-Control": "no-cache"})


def og_tags(settings: Settings, request: Request, hub: Session) -> str:
    """The Open Graph and Twitter card tags of a game page: its title, a line on the game and
    the public board's PNG (absolute, from the public URL) as the preview's image."""
    m = hub.match
    lang = hub.row.lang
    base = base_url(settings, request)
    names = builtin_board(hub.row.board).source.get("name") or {}
    board = str(names.get(lang) or names.get("en") or hub.row.board)
    scores = m.view(None).scores
    line = ", ".join(f"{n} {s}" for n, s in zip(m.names, scores, strict=True))
    title = text("share.title", lang, board=board, players=len(m.names))
    over = m.state.is_terminal()
    desc = text("share.over" if over else "share.playing", lang, scores=line)
    image = f"{base}/api/games/{hub.id}/board.png?v={m.version}"
    page = f"{base}/game/{hub.id}"
    tags = [("property", "og:type", "website"), ("property", "og:site_name", "Rebirth"),
            ("property", "og:title", title), ("property", "og:description", desc),
            ("property", "og:url", page), ("property", "og:image", image),
            ("property", "og:image:type", "image/png"), ("property", "og:image:width", "1000"),
            ("property", "og:image:alt", title),
            ("name", "twitter:card", "summary_large_image"), ("name", "twitter:title", title),
            ("name", "twitter:description", desc), ("name", "twitter:image", image)]
    return "".join(f'<meta {k}="{n}" content="{escape(v, quote=True)}">\n' for k, n, v in tags)


__all__ = ["EMBED_CSP", "og_tags", "router"]
