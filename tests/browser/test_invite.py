"""Seats belong to whoever takes them (issue 15 item 7), in real browsers (one context per
browser): the first browser that opens an invitation claims the seat and keeps its token in
local storage, the address bar then carries no secret; a second browser opening the claimed
invitation is refused with the catalog's words and gets no token; the admin's revoke gives a new
invitation and the old token is refused over HTTP and the WebSocket; the lobby claims the
creator's own seat (hot-seat: the device) in the creator's browser."""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
from websockets.sync.client import connect
from websockets.typing import Origin

from browser.kit import LiveServer, new_game, open_page, place_by_click, state, stored_tokens

TWO_HUMANS = {"board": "scotland", "players": 3, "lang": "en", "seats": [
    {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}, {"kind": "easy", "name": "Cat"}]}


def _ws_answer(server: LiveServer, gid: str, token: str) -> dict[str, Any]:
    """The answer to a hello with ``token`` over a real WebSocket."""
    with connect(f"ws://127.0.0.1:{server.port}/ws/games/{gid}", origin=Origin(server.url)) as ws:
        ws.send(json.dumps({"type": "hello", "token": token, "since": -1}))
        while True:
            msg: dict[str, Any] = json.loads(ws.recv(timeout=10))
            if msg["type"] != "presence":
                return msg


def test_a_seat_token_lives_only_in_the_browser_that_claimed_it(live_server: LiveServer,
                                                                 new_context: Any) -> None:
    res = new_game(live_server, TWO_HUMANS)
    gid, invite = res["game"], res["links"]["seats"][0]["url"]
    ctx_a, ctx_b = new_context(), new_context()
    a = open_page(ctx_a, invite)
    a.wait_for_function("document.body.dataset.turn === 'mine' || window.rebirthState.seat === 0")
    assert state(a, "S.seat") == 0 and state(a, "S.role") == "seat"
    held = stored_tokens(a)
    assert list(held) == [f"rebirth.seat.{gid}.0"]
    token = held[f"rebirth.seat.{gid}.0"]
    # The address bar no longer carries the invitation (nor the token).
    code = invite.split("#i=")[1]
    assert a.url.endswith(f"/game/{gid}#s=0") and code not in a.url and token not in a.url
    # The token is not in the create answer, and it works for that seat only.
    assert token not in json.dumps(res)
    assert _ws_answer(live_server, gid, token)["seat"] == 0

    # Browser B opens the same (claimed) invitation: the catalog's words, no token, the
    # spectators' public view (issue 26 item 6: tests/browser/test_newcomer_frictions.py).
    b = open_page(ctx_b, invite)
    assert b.evaluate("document.body.dataset.claim") == "claimed"
    assert "already taken in another browser" in b.inner_text("#refused")
    assert stored_tokens(b) == {}
    b.wait_for_function("window.rebirthState.view !== null")
    assert state(b, "S.role") == "spectator" and state(b, "S.seat") is None
    assert state(b, "S.view.hand") is None
    assert token not in b.content()
    # In German too (the catalog's text).
    ctx_de = new_context(locale="de-DE")
    de = ctx_de.new_page()
    de.add_init_script("localStorage.setItem('rebirth.lang', 'de')")
    de.goto(invite)
    de.wait_for_selector("body[data-ready='1']")
    assert "anderen Browser" in de.inner_text("#refused")

    # A later visit of A without any fragment uses the stored token.
    again = open_page(ctx_a, f"{live_server.url}/game/{gid}")
    again.wait_for_function("window.rebirthState.seat === 0")
    assert not a.errors and not b.errors  # type: ignore[attr-defined]


def test_the_admins_revoke_gives_a_new_invitation_and_the_old_token_is_refused(
        live_server: LiveServer, new_context: Any) -> None:
    res = new_game(live_server, {**TWO_HUMANS, "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "easy", "name": "Bot"},
        {"kind": "easy", "name": "Cat"}]})
    gid = res["game"]
    old = open_page(new_context(), res["links"]["seats"][0]["url"])
    old.wait_for_function("document.body.dataset.turn === 'mine'")
    (old_token,) = stored_tokens(old).values()
    admin_ctx = new_context()
    admin = open_page(admin_ctx, res["links"]["admin"])
    admin.locator("button.revoke[data-seat='0']").click()
    admin.wait_for_function("Object.keys(window.rebirthState.newLinks).length === 1")
    new_url = admin.locator(".revoke-box .url").input_value()
    assert "#i=" in new_url and new_url != res["links"]["seats"][0]["url"]
    # The admin's browser holds no seat token: only the admin link's own, kept when the page
    # took it out of the address bar (issue 26 item 6).
    assert list(stored_tokens(admin)) == [f"rebirth.seat.{gid}.admin"]
    assert admin.evaluate(f"JSON.parse(localStorage.getItem('rebirth.seat.{gid}.admin')).role") == "admin"
    old.wait_for_function("window.rebirthState.error !== ''")
    r = httpx.get(f"{live_server.url}/api/games/{gid}/record",
                  headers={"Authorization": f"Bearer {old_token}"}, timeout=10)
    assert r.status_code == 403 and r.json()["error"]["code"] == "revoked"
    assert _ws_answer(live_server, gid, old_token)["code"] == "revoked"
    fresh = open_page(new_context(), new_url)
    fresh.wait_for_function("document.body.dataset.turn === 'mine'")
    place_by_click(fresh, random.Random(2))
    (new_token,) = stored_tokens(fresh).values()
    assert new_token != old_token


def test_the_lobby_claims_the_creators_seat_in_the_creators_browser(live_server: LiveServer,
                                                                     new_context: Any) -> None:
    ctx = new_context()
    page = ctx.new_page()
    with page.expect_response("**/api/games") as created:
        page.goto(live_server.url + "/")
        page.wait_for_selector("#kind2")
        page.select_option("#kind1", "human")
        page.click("#create")
    body = created.value.text()
    page.wait_for_selector("#links-sec:not([hidden])")
    urls = page.locator("#links input.url").evaluate_all("els => els.map(e => e.value)")
    gid = json.loads(body)["game"]
    # Own seat (no secret in its link), Brodie's invitation, spectator, admin.
    assert urls[0] == f"{live_server.url}/game/{gid}#s=0"
    assert "#i=" in urls[1] and len(urls) == 4
    held = stored_tokens(page)
    assert list(held) == [f"rebirth.seat.{gid}.0"]
    assert held[f"rebirth.seat.{gid}.0"] not in body
    mine = open_page(ctx, urls[0])
    mine.wait_for_function("window.rebirthState.seat === 0 && window.rebirthState.role === 'seat'")
    # Another browser with the creator's own link gets nothing (the seat is in the creator's).
    stranger = new_context().new_page()
    stranger.goto(urls[0])
    stranger.wait_for_function("document.getElementById('status').textContent !== ''")
    assert stored_tokens(stranger) == {}


def test_the_lobby_claims_every_hot_seat_seat_for_the_creating_device(live_server: LiveServer,
                                                                      new_context: Any) -> None:
    ctx = new_context()
    page = ctx.new_page()
    page.goto(live_server.url + "/")
    page.wait_for_selector("#kind2")
    page.select_option("#kind1", "human")
    page.check("#hotseat")
    page.click("#create")
    page.wait_for_selector("#links-sec:not([hidden])")
    urls = page.locator("#links input.url").evaluate_all("els => els.map(e => e.value)")
    assert urls[0].endswith("#s=table") and not any("#i=" in u for u in urls)
    gid = urls[0].split("/game/")[1].split("#")[0]
    assert list(stored_tokens(page)) == [f"rebirth.seat.{gid}.table"]
    device = open_page(ctx, urls[0])
    device.wait_for_function("window.rebirthState.role === 'table'")
    assert state(device, "S.seats") == [0, 1]
