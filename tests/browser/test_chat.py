"""Chat and rematch in the browser (issue 16 items 3 and 4, "what it must show"): chat between
two contexts with an HTML message shown as text (a desktop and a phone at 390x844), the panel
hidden during a hot-seat hand-over, and a rematch started from the end screen whose new link
the second context follows."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Dialog, Page

from browser.kit import LiveServer, new_game, open_page, save_png, state, stored_tokens

HTML = "<img src=x onerror=alert(1)>"
NAME = "<b>Brodie</b>"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

# Plays this page's seat whenever it is to move (its first legal action, through the page's own
# socket): a game between two pages ends in seconds, and the end screen is then the real one.
AUTOPLAY = """() => { window.__autoplay = setInterval(() => {
  const S = window.rebirthState;
  if (S.view && S.view.phase !== "end" && S.seat !== null && S.view.current_player === S.seat
      && !S.sent && S.view.legal_actions.length) {
    S.sent = window.rebirthSocket.send({ type: "act", action: S.view.legal_actions[0], version: S.version });
  }
}, 15); }"""


def _dialogs(page: Page) -> list[str]:
    seen: list[str] = []

    def saw(d: Dialog) -> None:
        seen.append(d.message)
        d.dismiss()

    page.on("dialog", saw)
    return seen


def _say(page: Page, text: str) -> None:
    page.locator("#chat-input").fill(text)
    page.locator("#chat-input").press("Enter")


def test_chat_between_two_pages_shows_html_as_text(live_server: LiveServer, new_context: Any) -> None:
    """Item 3: a message and a name containing HTML show as text on the other page (no element
    made, no script run); the spectator is marked; a flood gets a clear error in the panel;
    the phone's controls are touch-sized and inside the screen."""
    res = new_game(live_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": NAME}]})
    desk = open_page(new_context(), res["links"]["seats"][0]["url"])
    phone = open_page(new_context(**PHONE), res["links"]["seats"][1]["url"])
    watcher = open_page(new_context(), res["links"]["spectator"])
    alerts = [_dialogs(p) for p in (desk, phone, watcher)]
    for p in (desk, phone, watcher):
        p.wait_for_selector("#chat-sec:not([hidden]) #chat-input")
        assert p.locator("#chat-log .chat-empty").inner_text() == "No messages yet."

    _say(desk, HTML)
    for p in (desk, phone, watcher):
        p.wait_for_selector("#chat-log .chat-msg[data-seq='1']")
        assert p.locator("#chat-log .chat-msg .chat-text").inner_text() == HTML
        assert p.locator("#chat-log img").count() == 0
    phone.locator("#chat-input").scroll_into_view_if_needed()
    save_png(phone, "web-chat-phone.png")

    # The phone answers by tapping Send; its name, HTML too, is text.
    phone.locator("#chat-input").fill("<i>hi</i> & bye")
    phone.locator("#chat-send").tap()
    desk.wait_for_selector("#chat-log .chat-msg[data-seq='2']")
    msg = desk.locator("#chat-log .chat-msg[data-seq='2']")
    assert msg.locator(".chat-who").inner_text() == NAME
    assert msg.locator(".chat-text").inner_text() == "<i>hi</i> & bye"
    assert desk.locator("#chat-log .chat-msg b b, #chat-log i").count() == 0
    # Screen readers hear the new message (the page's polite live region).
    desk.wait_for_function("document.getElementById('live').textContent.includes('<i>hi</i> & bye')")

    # Players write under their seat's name; only a spectator has a name field.
    assert phone.locator("#chat-name").is_hidden() and desk.locator("#chat-name").is_hidden()
    assert watcher.locator("#chat-name").is_visible()
    # The spectator gives a name and is marked as a spectator.
    watcher.locator("#chat-name").fill("<script>x</script>")
    _say(watcher, "nice move")
    phone.wait_for_selector("#chat-log .chat-msg[data-seq='3'].from-spectator")
    third = phone.locator("#chat-log .chat-msg[data-seq='3']")
    assert third.locator(".chat-who").inner_text() == "<script>x</script>"
    assert "(spectator)" in third.inner_text()
    assert phone.locator("#chat-log script").count() == 0
    desk.locator("#chat-sec").scroll_into_view_if_needed()
    save_png(desk, "web-chat.png")

    # Touch targets on the phone, inside the 390 px width.
    for sel in ("#chat-send", "#chat-input"):
        box = phone.locator(sel).bounding_box()
        assert box is not None and box["height"] >= 44, sel
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, sel

    # A flood: the 6th message within 10 s is refused with a clear error, shown in the panel.
    for i in range(4):
        _say(desk, f"m{i}")
    desk.wait_for_selector("#chat-log .chat-msg[data-seq='7']")
    _say(desk, "one too many")
    desk.wait_for_function("document.getElementById('chat-error').textContent.includes('at most 5')")
    assert desk.locator("#chat-log .chat-msg").count() == 7
    assert alerts == [[], [], []]
    for p in (desk, phone, watcher):
        assert not p.errors  # type: ignore[attr-defined]


def test_the_chat_is_hidden_during_a_hot_seat_hand_over(live_server: LiveServer, new_context: Any) -> None:
    """Item 3 "hidden during a hot-seat hand-over screen"."""
    res = new_game(live_server, {"board": "scotland", "players": 2, "lang": "en", "hotseat": True, "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}]})
    page = open_page(new_context(), res["links"]["table"])
    page.wait_for_selector("#handover:not([hidden]) #claim")
    assert page.locator("#chat-sec").is_hidden()
    page.locator("#claim").click()
    page.wait_for_selector("#chat-sec:not([hidden]) #chat-input")
    _say(page, "my turn")
    page.wait_for_selector("#chat-log .chat-msg[data-seq='1']")
    # The player's move hands the device over: the panel goes with everything else.
    page.evaluate(AUTOPLAY)
    page.wait_for_selector("#handover:not([hidden])")
    page.evaluate("clearInterval(window.__autoplay)")
    assert page.locator("#chat-sec").is_hidden()
    assert not page.errors  # type: ignore[attr-defined]


def test_a_rematch_started_from_the_end_screen(live_server: LiveServer, new_context: Any) -> None:
    """Item 4: at the end one click offers the rematch; each player's page shows its own new
    link; the second context follows it into the new game at its own seat, same names, the
    other player starting."""
    res = new_game(live_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}]})
    a = open_page(new_context(), res["links"]["seats"][0]["url"])
    b = open_page(new_context(**PHONE), res["links"]["seats"][1]["url"])
    for p in (a, b):
        p.evaluate(AUTOPLAY)
    for p in (a, b):
        p.wait_for_function("document.body.dataset.phase === 'end'", timeout=120000)
        p.evaluate("clearInterval(window.__autoplay)")
    old_start = state(a, "S.log[0] && S.log.find((s) => s.seat !== null).seat")
    a.wait_for_selector("#rematch-box #rematch")
    assert "next player starts" in a.inner_text("#rematch-box")
    a.locator("#rematch").click()
    a.wait_for_selector("#rematch-link")
    b.wait_for_selector("#rematch-link")
    link_a, link_b = (p.locator("#rematch-link").get_attribute("href") or "" for p in (a, b))
    assert link_a != link_b and link_a.split("#")[0] == link_b.split("#")[0]
    # Each page holds only its own new token.
    assert link_a.split("#t=")[1] not in b.content() and link_b.split("#t=")[1] not in a.content()
    save_png(b, "web-rematch-phone.png")
    b.locator("#rematch-link").tap()
    b.wait_for_url(link_b.split("#")[0] + "#*")
    b.wait_for_selector("body[data-ready='1']")
    b.wait_for_function("window.rebirthState.view !== null")
    assert state(b, "S.seat") == 1 and state(b, "S.names") == ["Ailsa", "Brodie"]
    assert state(b, "S.view.current_player") == 1 - old_start
    assert not a.errors and not b.errors  # type: ignore[attr-defined]


def test_the_creator_chooses_in_the_lobby_whether_the_record_carries_the_chat(
        live_server: LiveServer, new_context: Any) -> None:
    """Item 3 "exported with the record (or not, as the creator chooses)": the lobby's box
    sends `chat_in_record`; the game's record then carries the chat written on its page."""
    lobby = new_context().new_page()
    lobby.goto(live_server.url + "/")
    lobby.wait_for_selector("#kind2")
    assert "chat" in lobby.inner_text("label:has(#chat-in-record)").lower()
    lobby.check("#chat-in-record")
    lobby.uncheck("#playme")  # the seat's invitation is opened below, in the player's own browser
    with lobby.expect_response(lambda r: r.url.endswith("/api/games") and r.request.method == "POST") as got:
        lobby.click("#create")
    assert got.value.request.post_data_json["chat_in_record"] is True
    seat0 = got.value.json()["links"]["seats"][0]["url"]
    page = open_page(new_context(), seat0)
    page.wait_for_selector("#chat-sec:not([hidden]) #chat-input")
    _say(page, HTML)
    page.wait_for_selector("#chat-log .chat-msg[data-seq='1']")
    (tok,) = stored_tokens(page).values()  # the claimed seat's token, kept by this browser only
    rec = page.evaluate("""async (t) => {
      const r = await fetch(`/api/games/${window.rebirthState.gameId}/record`,
        { headers: { Authorization: `Bearer ${t}` } });
      return r.json(); }""", tok)
    assert [m["text"] for m in rec["chat"]] == [HTML]
