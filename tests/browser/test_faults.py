"""The faults a first game showed (issue 16 item 5), each checked in the browser: the score
preview is of the hex being placed, bots are not "offline", "My games" names who a link plays,
the lobby scrolls to its links, the replay shows castle and cathedral holders and keeps its
buttons in view, the calculator's refusals are in view, the table companion's board does not
jump on a tap, the variant descriptions are plain, and keyboard help only where there is one."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page

from browser.kit import LiveServer, new_game, open_page, state
from browser.test_phone import VISIBLE_LEGAL

# Every hex a finger can tap on the table's board (VISIBLE_LEGAL without the "legal" filter).
IN_VIEW_HEXES = VISIBLE_LEGAL.replace("g.space.legal", "g.space")

PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
                         "device_scale_factor": 2}


def legal_labels(page: Page) -> list[str]:
    return [x for x in page.locator("#board g.space.legal").evaluate_all(
        "els => els.map(e => e.dataset.label)")]


def in_viewport(page: Page, selector: str) -> bool:
    """The element's box lies inside the window (nothing of it scrolled away)."""
    return bool(page.evaluate("""(sel) => {
        const r = document.querySelector(sel).getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
    }""", selector))


def two_seat_page(server: LiveServer, new_context: Any) -> Page:
    res = new_game(server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "easy", "name": "Brodie"}]})
    page = open_page(new_context(), res["links"]["seats"][0]["url"])
    page.wait_for_function("document.body.dataset.turn === 'mine'")
    return page


def test_bots_are_not_offline(live_server: LiveServer, new_context: Any) -> None:
    """Issue 16 item 5: a bot seat is marked as a bot, never with the "offline" dot."""
    page = two_seat_page(live_server, new_context)
    bot = page.locator("#players li[data-seat='1']")
    assert bot.locator(".botmark").inner_text() == "Bot"
    assert bot.locator(".dot").count() == 0 and "Offline" not in bot.inner_html()
    assert page.locator("#players li[data-seat='0'] .dot.on").count() == 1


def test_preview_is_of_the_hex_being_placed(live_server: LiveServer, new_context: Any) -> None:
    """Issue 16 item 5 (P-1..P-5 preview): with "Place S3 on B7" shown, the mouse crossing another
    legal hex on its way to the button does not change the preview; the placed hex is B7."""
    page = two_seat_page(live_server, new_context)
    for turn in range(3):
        labels = legal_labels(page)
        chosen, crossed = labels[turn], labels[-1 - turn]
        page.locator(f"#board g.space[data-label='{chosen}'] polygon.hex").click()
        page.wait_for_function("(l) => (window.rebirthState.preview || {}).action === l", arg=chosen)
        assert f"on {chosen}" in page.inner_text("#confirm-yes")
        # On its way to the button the mouse crosses another legal hex.
        page.locator(f"#board g.space[data-label='{crossed}'] polygon.hex").hover()
        page.wait_for_timeout(400)  # a preview of the crossed hex would have arrived by now
        assert state(page, "S.preview.action") == chosen
        assert f"({chosen})" in page.inner_text("#preview h3")
        before = state(page, "S.version")
        page.locator("#confirm-yes").click()
        page.wait_for_function("(v) => window.rebirthState.version > v", arg=before)
        placed = state(page, f"S.log.filter(st => st.version > {before}).flatMap(st => st.events)"
                             ".filter(e => e.kind === 'place' && e.seat === 0).map(e => e.data.hex)")
        assert placed == [chosen]
        page.wait_for_function("document.body.dataset.turn === 'mine'")
    assert not page.errors  # type: ignore[attr-defined]


def test_lobby_scrolls_to_the_links_and_my_games_names_the_seat(live_server: LiveServer,
                                                                new_context: Any) -> None:
    """Issue 16 item 5: after "Create game" the links (below the form) are scrolled into view;
    "My games" names the game by board and seat ("Scotland · Ailsa"), never "Scotland · scotland",
    also after the game's page was opened; the variant descriptions say no "(seed 001)"."""
    ctx = new_context()
    lobby = open_page(ctx, live_server.url + "/")
    variants = lobby.inner_text("#variants")
    assert variants and "seed" not in variants.lower()
    lobby.fill("#name0", "Ailsa")
    lobby.locator("#create").click()
    lobby.wait_for_selector("#links-sec:not([hidden])")
    lobby.wait_for_function("window.scrollY > 0")
    # Scrolled to the links: their heading and every link in view.
    assert in_viewport(lobby, "#links-h") and in_viewport(lobby, "#links li:last-child")
    url = lobby.locator("#links input.url").first.input_value()
    game = open_page(ctx, url)
    game.wait_for_function("window.rebirthState.seat === 0")
    lobby = open_page(ctx, live_server.url + "/")
    first = lobby.locator("#mine li a").first.inner_text()
    assert first.startswith("Scotland · Ailsa · "), first
    assert "scotland" not in first
    assert not lobby.errors and not game.errors  # type: ignore[attr-defined]


def finished_bot_game(server: LiveServer) -> str:
    """A finished 3-bot Scotland game; returns its spectator link."""
    res = new_game(server, {"board": "scotland", "players": 3, "lang": "en", "seats": [
        {"kind": "easy", "name": "Ailsa"}, {"kind": "easy", "name": "Brodie"},
        {"kind": "easy", "name": "Cat"}]})
    url: str = res["links"]["spectator"]
    return url


def test_replay_shows_holders_and_end_keeps_the_buttons(live_server: LiveServer, new_context: Any) -> None:
    """Issue 16 item 5 (C-1…C-3, K-1): the replay's last step shows the same castle holders and
    cathedral pieces as the final board, an earlier step fewer; the End key does not scroll the
    replay's buttons away."""
    page = open_page(new_context(viewport={"width": 1000, "height": 560}), finished_bot_game(live_server))
    page.wait_for_function("document.body.dataset.phase === 'end'", timeout=60000)
    final = page.locator("#board .structure .owner").count()
    assert final > 0
    page.locator("#replay-open").click()
    page.wait_for_selector("#replay:not([hidden])")
    card = "document.querySelector('#replay .card')"
    assert page.evaluate(f"{card}.scrollHeight > {card}.clientHeight"), "the replay card must scroll"
    assert page.locator("#replay-board .structure .owner").count() == 0  # step 0: nothing held yet
    page.keyboard.press("End")
    assert page.evaluate("document.querySelector('#replay .card').scrollTop") == 0
    assert in_viewport(page, "#replay-prev") and in_viewport(page, "#replay-next")
    assert page.locator("#replay-board .structure .owner").count() == final
    owners = page.locator("#board .structure").evaluate_all(
        "els => els.map(e => [e.dataset.label, e.querySelectorAll('.owner').length])")
    replayed = page.locator("#replay-board .structure").evaluate_all(
        "els => els.map(e => [e.dataset.label, e.querySelectorAll('.owner').length])")
    assert owners == replayed
    castles = page.locator("#board .structure.castle .owner").count()
    cathedrals = page.locator("#board .structure.cathedral .owner").count()
    assert castles > 0 and cathedrals > 0
    # Halfway through fewer pieces stand than at the end.
    total = int(page.locator("#replay").get_attribute("data-step") or 0)
    for _ in range(total // 2):
        page.keyboard.press("ArrowLeft")
    assert 0 < page.locator("#replay-board .structure .owner").count() < final
    page.keyboard.press("Home")
    assert in_viewport(page, "#replay-next")
    assert not page.errors  # type: ignore[attr-defined]


def test_keyboard_help_only_where_there_is_a_keyboard(live_server: LiveServer, new_context: Any) -> None:
    """Issue 16 item 5: the arrow-key help shows with a fine pointer (a desktop), not on a phone."""
    res = new_game(live_server, {"board": "ireland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Aoife"}, {"kind": "easy", "name": "Brian"}]})
    url = res["links"]["seats"][0]["url"]
    desk = open_page(new_context(), url)
    assert desk.locator("#keys-help").is_visible()
    assert "Arrow keys" in desk.inner_text("#keys-help")
    phone = open_page(new_context(**PHONE), url)
    assert phone.evaluate("matchMedia('(pointer: coarse)').matches")
    assert phone.locator("#keys-help").is_hidden()


def test_calculator_refusal_in_view_and_grammar(live_server: LiveServer, new_context: Any) -> None:
    """Issue 16 item 5 (P-4): a refusal while the user works far down the page (importing JSON)
    appears in view; putting a settlement on an energy space says "an energy space"."""
    page = open_page(new_context(viewport={"width": 1280, "height": 700}), live_server.url + "/calculator")
    page.locator("#json").scroll_into_view_if_needed()
    page.fill("#json", "{ not json")
    page.locator("#import").click()
    page.wait_for_selector("#alert:not([hidden])")
    assert page.evaluate("window.scrollY") > 0
    assert in_viewport(page, "#alert")
    assert "cannot be read" in page.inner_text("#alert")
    energy = page.evaluate("""async () => {
        const d = await (await fetch('/api/boards/scotland')).json();
        return d.facts.labels[d.map.spaces.findIndex(s => s.kind === 'energy')]; }""")
    page.locator("#pick-tile input[value='S1']").check(force=True)
    page.fill("#hex", energy)
    page.locator("#hexform button[type=submit]").click()
    page.wait_for_function("(e) => document.getElementById('alert').textContent.includes(e)", arg=energy)
    text = page.inner_text("#alert")
    assert "is an energy space" in text, text
    assert not re.search(r"\ba [aeiou]", text), text
    assert in_viewport(page, "#alert")


def test_table_board_does_not_jump_on_a_tap(live_server: LiveServer, new_context: Any) -> None:
    """Issue 16 item 5: on a phone, tapping a hex (the tile picker opens), picking the tile,
    cancelling and tapping a taken hex (a refusal) leave the board where it was."""
    page = open_page(new_context(**PHONE), live_server.url + "/table")
    page.select_option("#s-players", "2")
    page.fill("#s-name-0", "Ailsa")
    page.fill("#s-name-1", "Brodie")
    page.locator("#s-create").click()
    page.wait_for_url("**/table/*")
    page.wait_for_selector("body[data-ready='1']")
    # No keyboard on a phone: the tap help only (issue 16 item 5).
    assert "Tap the hex" in page.inner_text("#t-keys")
    assert page.locator("#t-keys .keys-help").is_hidden()

    def box() -> tuple[float, float, float, float]:
        b = page.locator("#board").bounding_box()
        assert b is not None
        return (round(b["x"]), round(b["y"]), round(b["width"]), round(b["height"]))

    start = box()
    moved: list[str] = []
    placed: list[str] = []
    for k in range(4):
        # The open hexes a finger can tap (a phone frames the board around them: issue 26 item 6).
        legal = sorted(label for label, _ in page.evaluate(VISIBLE_LEGAL))
        label = legal[(7 * k) % len(legal)]
        page.locator(f"#board g.space[data-label='{label}'] polygon.hex").tap()
        page.wait_for_selector("#picker:not([hidden])")
        if box() != start:
            moved.append(f"tap {label}: {start} -> {box()}")
        # The picker sheet never hides the hex it asks about: the board pans instead.
        tapped = page.locator(f"#board g.space[data-label='{label}'] polygon.hex").bounding_box()
        sheet = page.locator("#picker").bounding_box()
        assert tapped and sheet and tapped["y"] + tapped["height"] <= sheet["y"] + 1, (label, tapped, sheet)
        if k == 0:
            page.locator("#picker-cancel").tap()
            if box() != start:
                moved.append(f"cancel: {box()}")
            page.locator(f"#board g.space[data-label='{label}'] polygon.hex").tap()
        before = int(page.evaluate("window.tableState.data.version"))
        page.locator("#picker button.tile-btn").first.tap()
        page.wait_for_function("(v) => window.tableState.data.version > v && "
                               "document.body.dataset.busy === '0'", arg=before)
        placed.append(label)
        if box() != start:
            moved.append(f"pick at {label}: {box()}")
    # A taken hex: a refusal is shown over the board, which stays put.
    taken = next(x for x in placed if any(lab == x for lab, _ in page.evaluate(IN_VIEW_HEXES)))
    page.locator(f"#board g.space[data-label='{taken}'] polygon.hex").tap()
    page.wait_for_function("document.getElementById('error').textContent !== ''")
    assert "already taken" in page.inner_text("#error")
    if box() != start:
        moved.append(f"refusal: {box()}")
    assert page.evaluate("window.scrollY") == 0
    assert not moved, moved
    assert not page.errors  # type: ignore[attr-defined]
