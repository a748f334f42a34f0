"""Issue 26 items 4 and 5 in Chromium: "since your last turn" (a seat that comes back sees the
others' moves step by step, then the board now; skippable; phone and desktop, English and
German) and the embeddable spectator view (framed by another page; the game page is not)."""

from __future__ import annotations

import functools
import http.server
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from browser.kit import LiveServer, new_game, open_page, save_png, state

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 860}


def _summary(server: LiveServer, gid: str) -> dict[str, Any]:
    out: dict[str, Any] = httpx.get(f"{server.url}/api/games/{gid}", timeout=10).json()
    return out


def _play(page: Page) -> None:
    """This page's seat makes its first legal move through the page's own socket (a tap on the
    board is the phone tests' business) and waits for the server's answer."""
    page.wait_for_function("document.body.dataset.turn === 'mine'")
    before = state(page, "S.version")
    page.evaluate(
        "window.rebirthSocket.send({type: 'act', action: window.rebirthState.view.legal_actions[0], "
        "version: window.rebirthState.version})"
    )
    page.wait_for_function("(v) => window.rebirthState.version > v", arg=before)


def _wait_turn(page: Page, seat: int) -> None:
    page.wait_for_function(
        "(s) => window.rebirthState.view && window.rebirthState.view.current_player === s", arg=seat
    )


@pytest.mark.parametrize(
    ("lang", "viewport"), [("en", PHONE), ("de", DESKTOP), ("de", PHONE), ("en", DESKTOP)]
)
def test_since_your_last_turn(
    live_server: LiveServer, new_context: Any, lang: str, viewport: dict[str, int]
) -> None:
    g = new_game(
        live_server,
        {
            "board": "scotland",
            "players": 3,
            "lang": lang,
            "seats": [
                {"kind": "human", "name": "Ailsa"},
                {"kind": "human", "name": "Brodie"},
                {"kind": "easy", "name": "Bot"},
            ],
        },
    )
    gid = g["game"]
    ctx_a = new_context(viewport=viewport)
    ctx_b = new_context(viewport=viewport)
    a = open_page(ctx_a, g["links"]["seats"][0]["url"])
    b = open_page(ctx_b, g["links"]["seats"][1]["url"])
    # Ailsa moves once (and Brodie, if he starts), then leaves.
    moved = False
    while not moved:
        cur = _summary(live_server, gid)
        turn = state(a, "S.view.current_player")
        if turn == 0:
            _play(a)
            moved = True
        elif turn == 1:
            _wait_turn(b, 1)
            _play(b)
        time.sleep(0.2)
        assert cur["status"] == "playing"
    a.close()
    # The others move while she is away: Brodie places a tile and the bot its own.
    _wait_turn(b, 1)
    _play(b)
    deadline = time.monotonic() + 30
    while state(b, "S.view.current_player") != 0:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    # She comes back: the recap opens on the board as she left it, then each move since.
    a = open_page(ctx_a, f"{live_server.url}/game/{gid}#s=0")
    a.wait_for_selector("#recap:not([hidden])")
    assert a.locator("#recap-h").inner_text() == (
        "Since your last turn" if lang == "en" else "Seit deinem letzten Zug"
    )
    assert a.locator("#recap").get_attribute("data-step") == "1"
    text = a.locator("#recap").inner_text()
    assert "Brodie" in text
    name = f"recap-{lang}-{'phone' if viewport is PHONE else 'desktop'}.png"
    save_png(a, name)
    # Touch-sized buttons on the phone too.
    for sel in ("#recap-prev", "#recap-next", "#recap-skip"):
        box = a.locator(sel).bounding_box()
        assert box and box["height"] >= 44 and box["width"] >= 44, sel
    # Step through: Brodie's move, the bot's, then "the board now" closes it.
    steps = 0
    while not a.locator("#recap").is_hidden():
        a.locator("#recap-next").click()
        steps += 1
        assert steps < 10
    assert steps >= 2
    assert a.evaluate("document.activeElement && document.activeElement.id") == "board"
    # Reopened, nothing new happened: no recap (this browser already showed it).
    a.close()
    a = open_page(ctx_a, f"{live_server.url}/game/{gid}#s=0")
    a.wait_for_timeout(400)
    assert a.locator("#recap").is_hidden()
    assert a.errors == []  # type: ignore[attr-defined]


def test_recap_is_skippable_and_shows_only_what_the_seat_saw(
    live_server: LiveServer, new_context: Any
) -> None:
    g = new_game(
        live_server,
        {
            "board": "ireland",
            "players": 2,
            "seats": [{"kind": "human", "name": "Ailsa"}, {"kind": "easy", "name": "Bot"}],
        },
    )
    gid = g["game"]
    ctx = new_context(viewport=PHONE)
    a = open_page(ctx, g["links"]["seats"][0]["url"])
    _wait_turn(a, 0)
    _play(a)
    a.close()
    # Forget what this browser showed: as if she had left before the bot's answer.
    a = ctx.new_page()
    a.goto(f"{live_server.url}/static/index.html")
    a.evaluate(
        "Object.keys(localStorage).filter((k) => k.startsWith('rebirth.seen.'))"
        ".forEach((k) => localStorage.removeItem(k))"
    )
    a.close()
    a = open_page(ctx, f"{live_server.url}/game/{gid}#s=0")
    a.wait_for_selector("#recap:not([hidden])")
    # Her own log's steps only (the server's per-seat events): the recap's lines come from them.
    lines = a.locator("#recap .recap-lines li").all_inner_texts()
    log = state(a, "S.log.map((st) => st.events.map((e) => e.key)).flat()")
    assert lines and log
    a.locator("#recap-skip").click()
    assert a.locator("#recap").is_hidden()
    assert a.locator("#main").evaluate("(m) => m.inert") is False


def test_embedded_view_is_framed_and_the_game_page_is_not(
    live_server: LiveServer, new_context: Any, tmp_path: Path
) -> None:
    g = new_game(
        live_server,
        {
            "board": "scotland",
            "players": 2,
            "seats": [{"kind": "easy", "name": "Ailsa"}, {"kind": "easy", "name": "Brodie"}],
        },
    )
    gid = g["game"]
    deadline = time.monotonic() + 60
    while _summary(live_server, gid)["status"] != "over":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    for lang, viewport in (("en", DESKTOP), ("de", PHONE)):
        ctx = new_context(viewport=viewport, bypass_csp=False)
        page = open_page(ctx, f"{live_server.url}/embed/game/{gid}?lang={lang}")
        assert page.locator("#embed-scores li").count() == 2
        assert page.locator("#board g.space .tile-hex").count() > 10
        save_png(page, f"embed-{lang}-{'phone' if viewport is PHONE else 'desktop'}.png")
        assert page.errors == []  # type: ignore[attr-defined]
    # Another site frames it: the embed loads inside, the game page is refused.
    ctx = new_context(viewport=DESKTOP, bypass_csp=False)
    host = ctx.new_page()
    html = (
        f'<iframe id="e" src="{live_server.url}/embed/game/{gid}?behind=3" width="600" height="500">'
        f'</iframe><iframe id="g" src="{live_server.url}/game/{gid}" width="300" height="200"></iframe>'
    )
    # Another origin's page: a second server on loopback (another port: another origin).
    site = tmp_path / "site"
    site.mkdir()
    (site / "blog.html").write_text(html, encoding="utf-8")
    quiet = type("Quiet", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *a: None})
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(quiet, directory=str(site)))
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        host.goto(f"http://localhost:{other.server_address[1]}/blog.html")
        host.wait_for_timeout(1500)
        _check_frames(host, gid)
    finally:
        other.shutdown()
        other.server_close()


def _check_frames(host: Page, gid: str) -> None:
    urls = [f.url for f in host.frames]
    embed = next((f for f in host.frames if "/embed/" in f.url), None)
    assert embed, urls
    # The embed's document loaded in the frame (not Chromium's refusal page); whether its script
    # finishes inside a third-party frame is not checked here yet (see the report).
    assert "chrome-error" not in embed.url
    game = next((f for f in host.frames if f.url.endswith(f"/game/{gid}") or "chrome-error" in f.url), None)
    assert game, urls
    assert game.evaluate("document.body && document.body.dataset.ready || null") is None
    save_png(host, "embed-framed.png")
