"""Issue 26 items 1 and 2 in Chromium: the installable app and the push permission flow.

* The service worker registers (scope /) and controls the page after a reload; the shell comes
  from its cache, ``/api/`` answers never do (not while online, not with the server stopped);
  with the server stopped a page opens as the offline page, in the user's language.
* The manifest names the app, ``display: standalone`` and two icons that exist (192 and 512 px).
* The push permission flow on a seat's page (phone 390x844 and desktop, English and German): an
  explanation first, then the browser's question, then "on" — the subscription reaches the server
  and the seat's turn arrives at a local push service as an encrypted push; iPhone outside the
  installed app gets the "add to home screen" hint; a push's ``/game/<id>?seat=<n>`` opens that seat.
Screenshots: test-output/screenshots/push-*.png, offline-*.png.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image
from playwright.sync_api import BrowserContext, Page

from browser.kit import LiveServer, new_game, open_page, save_png
from server.notifykit import wait_for
from server.pushkit import Browser, push_service

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 860}
IPHONE_UA = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
             "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1")


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose push endpoints may be on this machine (the local push service)."""
    srv = LiveServer(tmp_path_factory.mktemp("app") / "rebirth.db", webhook_allow_private=True,
                     notify_interval=0.05, notify_retry_s=0.05)
    srv.start()
    yield srv
    srv.stop()


def _until(page: Page, js: str, timeout: float = 15.0) -> Any:
    """Poll ``js`` with page.evaluate (no eval: the pages' CSP is on)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            got = page.evaluate(js)
        except Exception:  # the page is navigating
            got = None
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def controlled(page: Page) -> bool:
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    return bool(page.evaluate("navigator.serviceWorker.controller !== null"))


def test_manifest_and_icons(app_server: LiveServer) -> None:
    m = httpx.get(app_server.url + "/manifest.webmanifest", timeout=10)
    assert m.status_code == 200 and m.headers["content-type"].startswith("application/manifest+json")
    body = m.json()
    assert body["name"] == "Rebirth" and body["start_url"] == "/" and body["display"] == "standalone"
    sizes = {}
    for icon in body["icons"]:
        r = httpx.get(app_server.url + icon["src"], timeout=10)
        assert r.status_code == 200 and r.headers["content-type"] == "image/png"
        sizes[icon["sizes"]] = Image.open(io.BytesIO(r.content)).size
    assert sizes["192x192"] == (192, 192) and sizes["512x512"] == (512, 512)
    sw = httpx.get(app_server.url + "/sw.js", timeout=10)
    assert sw.status_code == 200 and "javascript" in sw.headers["content-type"]
    assert sw.headers["service-worker-allowed"] == "/" and sw.headers["cache-control"] == "no-cache"
    assert "__SHELL__" not in sw.text and "/static/game.js" in sw.text and '"/offline"' in sw.text


def test_the_worker_controls_the_page_and_never_serves_the_api(tmp_path: Path, new_context: Any) -> None:
    """Must-show: registered, in control after a reload; /api/ never from its cache; offline, a
    page opens as the offline page (English, then German for a German user)."""
    srv = LiveServer(tmp_path / "rebirth.db")
    srv.start()
    stopped = False
    try:
        res = new_game(srv, {"board": "scotland", "players": 2,
                             "seats": [{"kind": "human"}, {"kind": "normal"}]})
        ctx: BrowserContext = new_context(viewport=PHONE, bypass_csp=False)
        page = open_page(ctx, srv.url + "/")
        script = page.evaluate("navigator.serviceWorker.ready.then((r) => r.active.scriptURL)")
        assert script.endswith("/sw.js")
        assert page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)") == srv.url + "/"
        page.reload()
        page.wait_for_selector("body[data-ready='1']")
        assert controlled(page)
        served: list[tuple[str, bool]] = []
        page.on("response", lambda r: served.append((r.url, r.from_service_worker)))
        page.reload()
        page.wait_for_selector("body[data-ready='1']")
        page.evaluate("Promise.all([fetch('/api/languages'), fetch('/api/languages')]).then(() => 1)")
        api = [(u, sw) for u, sw in served if "/api/" in u]
        static = [(u, sw) for u, sw in served if "/static/" in u]
        assert api and not any(sw for _, sw in api), api
        assert static and all(sw for _, sw in static), static  # the shell from the worker's cache
        cached = page.evaluate("""caches.keys().then((ks) => Promise.all(ks.map((k) => caches.open(k)
            .then((c) => c.keys())))).then((all) => all.flat().map((r) => r.url))""")
        assert cached and not [u for u in cached if "/api/" in u or "/game/" in u], cached
        # A game page opened once, then the server stops.
        game = open_page(ctx, res["links"]["spectator"])
        assert controlled(game)
        srv.stop()
        stopped = True
        failed = page.evaluate("fetch('/api/languages').then(() => 'served', () => 'failed')")
        assert failed == "failed"  # never from the cache
        for lang, title in (("en", "You are offline"), ("de", "Keine Verbindung")):
            page.evaluate(f"localStorage.setItem('rebirth.lang', '{lang}')")
            page.goto(srv.url + "/game/" + res["game"])
            assert _until(page, "() => document.getElementById('offline-title')?.textContent") == title
            assert page.locator("#offline-retry").is_visible()
            save_png(page, f"offline-phone-{lang}.png")
    finally:
        if not stopped:
            srv.stop()


FAKE_PUSH = """(sub) => {
  if (!self.PushManager) return;
  let held = null;
  PushManager.prototype.subscribe = async function () {
    held = { endpoint: sub.endpoint, toJSON: () => sub,
             unsubscribe: async () => { held = null; return true; } };
    return held;
  };
  PushManager.prototype.getSubscription = async function () { return held; };
}"""
"""Headless Chromium has no push service to subscribe to: the test's subscription (keys made
here, endpoint the local push service) stands in for the browser vendor's."""


def _seat_page(srv: LiveServer, ctx: BrowserContext, lang: str) -> tuple[Page, dict[str, Any]]:
    res = new_game(srv, {"board": "scotland", "players": 2, "lang": lang,
                         "seats": [{"kind": "human", "name": "Ailsa"}, {"kind": "normal"}]})
    page = open_page(ctx, res["links"]["seats"][0]["url"])
    page.wait_for_selector("#push-explain, #push-ios, #push-on")
    return page, res


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_push_permission_flow(app_server: LiveServer, new_context: Any, lang: str, device: str) -> None:
    """Must-show: explanation first, then the question, then on; the seat's turn then arrives
    as an encrypted push at the local push service, with the seat's page and no secret."""
    with push_service() as svc:
        browser = Browser(svc.endpoint(f"/b/{lang}/{device}"))
        ctx: BrowserContext = new_context(viewport=PHONE if device == "phone" else DESKTOP, bypass_csp=False)
        ctx.grant_permissions(["notifications"], origin=app_server.url)
        page, res = _seat_page(app_server, ctx, lang)
        page.evaluate(f"({FAKE_PUSH})({json.dumps(browser.subscription())})")
        explain = page.locator("#push-explain")
        assert explain.is_visible() and page.locator("#push-enable").is_visible()
        words = {"en": "Your browser will then ask", "de": "Dein Browser fragt dann"}[lang]
        assert words in explain.inner_text()
        page.locator("#push").scroll_into_view_if_needed()
        save_png(page, f"push-{device}-{lang}-1-explain.png")
        page.locator("#push-enable").click()
        page.wait_for_selector("#push-on")
        assert page.locator("#push-disable").is_visible()
        page.locator("#push").scroll_into_view_if_needed()
        save_png(page, f"push-{device}-{lang}-2-on.png")
        # The seat (seat 0 plays against a bot): its turn comes as a push (now, or after the bot).
        assert wait_for(lambda: len(svc.hits) >= 1, timeout=20), svc.hits
        data = browser.decrypt(svc.hits[0])
        assert data["kind"] == "turn" and data["url"] == f"/game/{res['game']}?seat=0"
        text = json.dumps(data)
        assert res["links"]["seats"][0]["url"].split("#i=")[1] not in text
        stored = page.evaluate("Object.values(localStorage).filter((v) => v.includes('token')).join(' ')")
        token = json.loads(stored.split(" ")[0])["token"]
        assert token not in text
        assert page.errors == []  # type: ignore[attr-defined]
        page.locator("#push-disable").click()
        page.wait_for_selector("#push-explain")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_iphone_outside_the_app_gets_the_home_screen_hint(app_server: LiveServer, new_context: Any,
                                                          lang: str) -> None:
    ctx: BrowserContext = new_context(viewport=PHONE, user_agent=IPHONE_UA, is_mobile=True, has_touch=True)
    page, _ = _seat_page(app_server, ctx, lang)
    hint = page.locator("#push-ios")
    assert hint.is_visible() and not page.locator("#push-enable").count()
    assert {"en": "Add to Home Screen", "de": "Zum Home-Bildschirm"}[lang] in hint.inner_text()
    page.locator("#push").scroll_into_view_if_needed()
    save_png(page, f"push-phone-{lang}-ios.png")


def test_denied_permission_says_how_to_allow(app_server: LiveServer, new_context: Any) -> None:
    ctx: BrowserContext = new_context(viewport=PHONE)
    page, _ = _seat_page(app_server, ctx, "en")
    # Chromium answers a headless permission question with "denied" unless it was granted.
    page.evaluate("() => { Notification.requestPermission = async () => 'denied';"
                  " Object.defineProperty(Notification, 'permission', { get: () => 'denied' }); }")
    page.locator("#push-enable").click()
    page.wait_for_selector("#push-denied")
    assert page.locator("#push-enable").is_disabled()
    page.locator("#push").scroll_into_view_if_needed()
    save_png(page, "push-phone-en-denied.png")


def test_a_push_link_opens_the_seat(app_server: LiveServer, new_context: Any) -> None:
    """``/game/<id>?seat=<n>`` (what a push opens) acts as the seat this browser holds, and the
    address bar ends as ``#s=<n>``: no secret anywhere in it."""
    ctx: BrowserContext = new_context(viewport=PHONE)
    _page, res = _seat_page(app_server, ctx, "en")
    other = ctx.new_page()
    other.goto(f"{app_server.url}/game/{res['game']}?seat=0")
    other.wait_for_selector("body[data-ready='1']")
    other.wait_for_selector("#push-explain")
    assert other.url.endswith(f"/game/{res['game']}#s=0")
    deadline = time.monotonic() + 10
    while other.evaluate("window.rebirthState?.role") != "seat" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert other.evaluate("[window.rebirthState.role, window.rebirthState.seat]") == ["seat", 0]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_vacation_control_pauses_and_the_log_says_so(app_server: LiveServer, new_context: Any,
                                                     lang: str) -> None:
    """Issue 26 item 3 on the page: a seat of a turn-based game goes on vacation and comes back
    with the clock box's button; both are lines in the game's log, and the seat's clock line
    says it is on vacation."""
    res = new_game(app_server, {"board": "scotland", "players": 2, "lang": lang,
                                "clock": {"kind": "turn", "per_move_s": 86400},
                                "seats": [{"kind": "human", "name": "Ailsa"},
                                          {"kind": "human", "name": "Brodie"}]})
    page = open_page(new_context(viewport=PHONE), res["links"]["seats"][0]["url"])
    page.wait_for_selector("#vacation-start")
    assert page.locator("#vacation-left").inner_text()
    page.locator("#vacation-start").click()
    page.wait_for_selector("#vacation-end")
    went = {"en": "Ailsa went on vacation", "de": "Ailsa ist im Urlaub"}[lang]
    page.wait_for_selector(f"#log li.ev-clock:has-text('{went}')")
    away = {"en": "on vacation", "de": "im Urlaub"}[lang]
    assert away in page.locator(".clock[data-seat='0']").inner_text()
    page.locator("#clock-box").scroll_into_view_if_needed()
    save_png(page, f"vacation-phone-{lang}.png")
    page.locator("#vacation-end").click()
    page.wait_for_selector("#vacation-start")
    back = {"en": "Ailsa is back from vacation", "de": "Ailsa ist aus dem Urlaub zurück"}[lang]
    page.wait_for_selector(f"#log li.ev-clock:has-text('{back}')")
    assert page.errors == []  # type: ignore[attr-defined]
