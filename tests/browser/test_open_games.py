"""Open games and "Play now" in the browser (issue 25 item 5): an open game joined from the lobby
by another signed-in player, and "Play now" pairing two players — each person in a context of
their own, phone and desktop. (Sign-in itself is tested in its own browser tests; here each
person's browser holds a session made for them.)"""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import BrowserContext

from browser.kit import LiveServer, open_page, save_png
from rebirth.server.accounts.store import account_for_email, new_session

PHONE = {"width": 390, "height": 844}


def signed_in(srv: LiveServer, new_context: Any, email: str, **kw: Any) -> tuple[BrowserContext, str, str]:
    store = srv.server.config.app.state.registry.store  # type: ignore[union-attr]
    acct = account_for_email(store, email, "en")
    sid = new_session(store, acct.id, "browser test")
    ctx: BrowserContext = new_context(**kw)
    ctx.add_cookies([{"name": "rebirth_session", "value": sid, "url": srv.url}])
    return ctx, sid, acct.name


def test_an_open_game_is_joined_from_the_lobby(live_server: LiveServer, new_context: Any) -> None:
    _, ann_sid, _ = signed_in(live_server, new_context, "ann.open@example.org")
    r = httpx.post(live_server.url + "/api/games", timeout=10,
                   headers={"Cookie": f"rebirth_session={ann_sid}", "Origin": live_server.url},
                   json={"board": "ireland", "players": 2, "rated": True,
                         "seats": [{"kind": "human", "name": "Ann"}, {"kind": "open"}]})
    assert r.status_code == 201, r.text
    gid = r.json()["game"]
    bob, _, bob_name = signed_in(live_server, new_context, "bob.open@example.org", viewport=PHONE)
    page = open_page(bob, live_server.url + "/")
    page.wait_for_selector("#open-sec[data-ready='1']")
    item = page.locator(f"#open-list button[data-game='{gid}']")
    item.scroll_into_view_if_needed()
    assert "Ireland" in page.locator("#open-list").inner_text()
    box = item.bounding_box()
    assert box is not None and box["height"] >= 44  # a phone's touch target
    save_png(page, "open-games-phone.png")
    item.click()
    page.wait_for_url(f"**/game/{gid}#s=1")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_function("() => window.rebirthState && window.rebirthState.seat === 1")
    assert bob_name in page.locator("body").inner_text()
    save_png(page, "open-game-joined-phone.png")
    # A signed-out browser sees why it cannot join, and where to sign in.
    guest = open_page(new_context(), live_server.url + "/")
    guest.wait_for_selector("#open-sec[data-ready='1']")
    assert guest.locator("#open-signin").is_visible() and not guest.locator("#playnow").is_visible()
    assert not page.errors and not guest.errors  # type: ignore[attr-defined]


def test_play_now_pairs_two_players(live_server: LiveServer, new_context: Any) -> None:
    cai, _, cai_name = signed_in(live_server, new_context, "cai.pair@example.org")
    dan, _, dan_name = signed_in(live_server, new_context, "dan.pair@example.org", viewport=PHONE)
    pages = []
    for ctx in (cai, dan):
        p = open_page(ctx, live_server.url + "/")
        p.wait_for_selector("#open-sec[data-ready='1']")
        p.select_option("#pn-board", "scotland")
        p.select_option("#pn-players", "2")
        pages.append(p)
    pages[0].click("#pn-go")
    pages[0].wait_for_selector("#pn-stop:not([hidden])")
    assert "Looking for players" in pages[0].locator("#pn-status").inner_text()
    save_png(pages[0], "play-now-waiting-desktop.png")
    pages[1].click("#pn-go")
    for p in pages:
        p.wait_for_url("**/game/**#s=*", timeout=20000)
        p.wait_for_selector("body[data-ready='1']")
        p.wait_for_function("() => window.rebirthState && window.rebirthState.names.length === 2")
    names = pages[0].evaluate("() => window.rebirthState.names")
    assert sorted(names) == sorted([cai_name, dan_name])
    seats = [p.evaluate("() => window.rebirthState.seat") for p in pages]
    assert sorted(seats) == [0, 1] and pages[0].url.split("/game/")[1].split("#")[0] == \
        pages[1].url.split("/game/")[1].split("#")[0]
    save_png(pages[1], "play-now-paired-phone.png")
    assert not any(p.errors for p in pages)  # type: ignore[attr-defined]
