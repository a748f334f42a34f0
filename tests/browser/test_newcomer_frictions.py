"""A newcomer's browser-side frictions (issue 26 item 6), in Chromium with a context per seat, on
a phone (390x844) and a desktop: a browser refused a used invitation watches the game as a
spectator (the server's public view) with a sentence and a way back to the lobby; no flow leaves
a token in the address bar, and a reload still opens what the link opened; the calculator's and
the table companion's hexes and controls are touch targets of at least 44 CSS px on a phone; a
big clock with an amber and a red state (icon and words too); the table companion's texts
(plural points, an entry in words, the hidden board heading in German), the game page's
set-aside tiles explained and no notification form on the end screen. Screenshots go to the
screenshot folder (REBIRTH_SHOTS)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from browser.kit import LiveServer, new_game, open_page, save_png, state, stored_tokens
from browser.test_table_page import bot_game
from rebirth.engine.records import table_entries

PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 860}}
DEVICES = [("phone", PHONE), ("desktop", DESKTOP)]
MIN_TARGET = 44  # CSS px, as tests/browser/test_phone.py

TWO_HUMANS = {"board": "scotland", "players": 3, "lang": "en", "seats": [
    {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}, {"kind": "easy", "name": "Cat"}]}

# The visible controls smaller than MIN_TARGET in either direction (a radio button or a
# checkbox counts with the label around it: a tap on the label is a tap on it).
SMALL_CONTROLS = """(min) => [...document.querySelectorAll('button, input, select, textarea, a, summary')]
  .filter((el) => el.offsetParent !== null && getComputedStyle(el).visibility !== 'hidden')
  .map((el) => { const wrap = ['radio', 'checkbox', 'file'].includes(el.type) ? el.closest('label') : null;
    return [`${el.tagName}#${el.id}.${el.className}`, (wrap || el).getBoundingClientRect()]; })
  .filter(([, r]) => r.width < min || r.height < min)
  .map(([n, r]) => `${n} ${r.width.toFixed(1)}x${r.height.toFixed(1)}`)"""

# The hexes wholly inside the board's box and not covered (a finger can tap them): their smaller side.
HEXES_IN_VIEW = """(sel) => { const b = document.querySelector(sel).getBoundingClientRect(); const out = [];
  for (const g of document.querySelectorAll(sel + ' g.space')) {
    const r = g.querySelector('polygon.hex').getBoundingClientRect();
    const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    if (r.left >= b.left && r.right <= b.right && r.top >= b.top
        && r.bottom <= Math.min(b.bottom, innerHeight)
        && g.contains(hit)) out.push([g.dataset.label, Math.min(r.width, r.height)]);
  }
  return out; }"""


TILE_NAMES = {"en": {"E": "Energy farm", "F": "Food farm", "S1": "Settlement (1)", "S2": "Settlement (2)",
                     "S3": "Settlement (3)", "S4": "Settlement (4)"},
              "de": {}}


def _german(page: Page) -> None:
    page.add_init_script("localStorage.setItem('rebirth.lang', 'de')")


def _page(ctx: Any, url: str, lang: str = "en") -> Page:
    """A page of ``url`` in ``lang`` (German: as the user's choice), its errors collected."""
    page: Page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    if lang == "de":
        _german(page)
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page


def _absolute(server: LiveServer, url: str) -> str:
    return url if url.startswith("http") else server.url + url


def _no_secret(url: str, *secrets: str) -> None:
    assert "#t=" not in url and "#i=" not in url and "#x=" not in url and "#c=" not in url, url
    for s in secrets:
        assert s not in url, url


# ------------------------------------------------------------------ 1. the refused browser


@pytest.mark.parametrize(("device", "kind"), DEVICES)
def test_a_refused_browser_watches_the_game_with_a_way_back_to_the_lobby(
        live_server: LiveServer, new_context: Any, device: str, kind: dict[str, Any]) -> None:
    res = new_game(live_server, TWO_HUMANS)
    invite = res["links"]["seats"][0]["url"]
    a = open_page(new_context(), invite)
    a.wait_for_function("window.rebirthState.seat === 0")
    (token,) = stored_tokens(a).values()
    for lang, sentence, lobby in (
            ("en", "This invitation was already taken in another browser", "Back to the lobby"),
            ("de", "Diese Einladung wurde schon in einem anderen Browser", "Zurück zur Startseite")):
        page = _page(new_context(**kind), invite, lang)
        assert page.evaluate("document.body.dataset.claim") == "claimed"
        # A sentence from the catalog, capitalised, and the way back to the lobby.
        notice = page.locator("#refused")
        assert notice.is_visible() and notice.inner_text().startswith(sentence)
        link = page.locator("#refused a#to-lobby")
        assert link.inner_text() == lobby and link.get_attribute("href") == "/"
        box = link.bounding_box()
        assert box and box["height"] >= MIN_TARGET
        # The spectators' public view: the board, the players' panels and scores, no hand, no token.
        page.wait_for_function("window.rebirthState.view !== null")
        assert state(page, "S.role") == "spectator" and state(page, "S.seat") is None
        assert state(page, "S.view.hand") is None and state(page, "S.view.missions") == []
        assert page.locator("#players li.player").count() == 3
        assert page.locator("#hand-sec").is_hidden()
        assert stored_tokens(page) == {} and token not in page.content()
        _no_secret(page.url, invite.split("#i=")[1])
        save_png(page, f"refused-{device}-{lang}.png")
        # The lobby is one tap away.
        link.click()
        page.wait_for_url(live_server.url + "/")
        assert not page.errors  # type: ignore[attr-defined]


# ------------------------------------------------------------------ 2. no token in the address bar

AUTOPLAY = """() => { window.__autoplay = setInterval(() => {
  const S = window.rebirthState;
  if (S.view && S.view.phase !== "end" && S.seat !== null && S.view.current_player === S.seat
      && !S.sent && S.view.legal_actions.length) {
    S.sent = window.rebirthSocket.send({ type: "act", action: S.view.legal_actions[0], version: S.version });
  }
}, 15); }"""


def test_the_rematch_link_leaves_no_token_in_the_address_bar_and_reloads(
        live_server: LiveServer, new_context: Any) -> None:
    """The rematch page (`#t=`, the seat's new token) keeps the token in this browser only: the
    address shows `#s=N` at once, a reload opens the seat again. The end screen of the first
    game has no notification form any more (nothing left to be told about)."""
    res = new_game(live_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "easy", "name": "Bot"}]})
    ctx = new_context(**PHONE)
    page = open_page(ctx, res["links"]["seats"][0]["url"])
    page.wait_for_function("window.rebirthState.view !== null")
    assert page.locator("#notify-sec").is_visible()
    page.evaluate(AUTOPLAY)
    page.wait_for_function("document.body.dataset.phase === 'end'", timeout=120000)
    page.evaluate("clearInterval(window.__autoplay)")
    assert page.locator("#notify-sec").is_hidden()
    page.locator("#rematch").click()
    page.wait_for_selector("#rematch-link")
    link = page.locator("#rematch-link").get_attribute("href") or ""
    new_token = link.split("#t=")[1]
    new_gid = link.split("/game/")[1].split("#")[0]
    page.locator("#rematch-link").tap()
    page.wait_for_url(f"**/game/{new_gid}#s=0")
    page.wait_for_function("window.rebirthState.seat === 0 && window.rebirthState.role === 'seat'")
    _no_secret(page.url, new_token)
    assert stored_tokens(page)[f"rebirth.seat.{new_gid}.0"] == new_token
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_function("window.rebirthState.seat === 0 && window.rebirthState.role === 'seat'")
    _no_secret(page.url, new_token)
    assert not page.errors  # type: ignore[attr-defined]


def test_spectator_admin_transfer_and_table_links_leave_no_token_in_the_address_bar(
        live_server: LiveServer, new_context: Any) -> None:
    res = new_game(live_server, TWO_HUMANS)
    gid = res["game"]
    # The invitation (`#i=`): claimed, then `#s=0`.
    seat = open_page(new_context(), res["links"]["seats"][0]["url"])
    seat.wait_for_function("window.rebirthState.seat === 0")
    _no_secret(seat.url, res["links"]["seats"][0]["url"].split("#i=")[1])
    (seat_token,) = stored_tokens(seat).values()
    # The spectator's and the admin's links (`#t=`), in one browser: each keeps its own slot.
    ctx = new_context()
    for role in ("spectator", "admin"):
        url = res["links"][role]
        secret = url.split("#t=")[1]
        page = open_page(ctx, url)
        page.wait_for_function("(r) => window.rebirthState.role === r", arg=role)
        page.wait_for_url(f"**/game/{gid}#s={role}")
        _no_secret(page.url, secret)
        page.reload()
        page.wait_for_selector("body[data-ready='1']")
        page.wait_for_function("(r) => window.rebirthState.role === r", arg=role)
        _no_secret(page.url, secret)
    # A transfer code (`#x=`): gone from the address bar, the seat opens again after a reload.
    r = httpx.post(f"{live_server.url}/api/games/{gid}/transfer",
                   headers={"Authorization": f"Bearer {seat_token}"}, timeout=10)
    assert r.status_code == 201, r.text
    code = r.json()["url"].split("#x=")[1]
    moved = open_page(new_context(), _absolute(live_server, r.json()["url"]))
    moved.wait_for_function("window.rebirthState.seat === 0")
    _no_secret(moved.url, code)
    moved.reload()
    moved.wait_for_selector("body[data-ready='1']")
    moved.wait_for_function("window.rebirthState.seat === 0")
    # The table companion's link (`#t=`): kept on the device, gone from the address bar.
    t = httpx.post(f"{live_server.url}/api/tables", json={"board": "scotland", "players": 2,
                   "names": ["Ailsa", "Brodie"], "start_player": 0}, timeout=10)
    assert t.status_code == 201, t.text
    table = open_page(new_context(), _absolute(live_server, t.json()["url"]))
    table.wait_for_function("window.tableState.data !== null")
    _no_secret(table.url, t.json()["token"])
    table.reload()
    table.wait_for_selector("body[data-ready='1']")
    table.wait_for_function("window.tableState.data !== null")
    assert not seat.errors and not moved.errors and not table.errors  # type: ignore[attr-defined]


# ------------------------------------------------------------------ 3. touch targets on a phone


def _check_targets(page: Page, board: str, what: str) -> list[tuple[str, float]]:
    shown: list[tuple[str, float]] = page.evaluate(HEXES_IN_VIEW, board)
    assert len(shown) >= 8, f"{what}: only {len(shown)} hexes in view"
    small = [x for x in shown if x[1] < MIN_TARGET]
    assert not small, f"{what}: hexes under {MIN_TARGET} px: {small[:5]}"
    assert page.evaluate(SMALL_CONTROLS, MIN_TARGET) == [], what
    return shown


def test_the_calculator_and_the_table_companion_have_44_px_targets_on_a_phone(
        live_server: LiveServer, new_context: Any) -> None:
    ctx = new_context(**PHONE)
    calc = open_page(ctx, live_server.url + "/calculator")
    shown = _check_targets(calc, "#board-svg", "calculator")
    # A tap on a hex in view puts the chosen tile there.
    calc.locator("#pick-tile input[value='F']").check()
    label = shown[len(shown) // 2][0]
    before = state(calc, "S.version")
    calc.locator(f"#board-svg g.space[data-label='{label}'] polygon.hex").tap()
    calc.wait_for_function("(v) => window.rebirthState.version > v && window.rebirthState.busy === 0",
                           arg=before)
    assert any(x["hex"] == label for x in state(calc, "S.pos.tiles"))
    _check_targets(calc, "#board-svg", "calculator after a tap")
    calc.evaluate("window.scrollTo(0, 0)")
    save_png(calc, "calculator-phone-en.png")
    table = open_page(ctx, live_server.url + "/table")
    assert table.evaluate(SMALL_CONTROLS, MIN_TARGET) == []
    table.select_option("#s-players", "2")
    table.fill("#s-name-0", "Ailsa")
    table.fill("#s-name-1", "Brodie")
    table.locator("#s-create").tap()
    table.wait_for_function("window.tableState && window.tableState.data !== null "
                            "&& document.body.dataset.ready === '1'")
    legal = set(table.evaluate("Object.keys(window.tableState.data.legal.hexes)"))
    shown = _check_targets(table, "#board", "table companion")
    assert any(lab in legal for lab, _ in shown), "no open hex in view"
    save_png(table, "table-phone-en.png")
    # Tap an open hex, pick its tile: the entry is made; the targets stay large.
    hexes = [lab for lab, _ in shown if lab in legal]
    table.locator(f"#board g.space[data-label='{hexes[0]}'] polygon.hex").tap()
    table.locator("#picker button.tile-btn").first.tap()
    table.wait_for_function("window.tableState.data.version === 1 && document.body.dataset.busy === '0'")
    _check_targets(table, "#board", "table companion after an entry")
    assert not calc.errors and not table.errors  # type: ignore[attr-defined]


# ------------------------------------------------------------------ 4. the big clock

SET_LEFT = """(s) => { const C = window.rebirthClock;
  C.frame.left[C.frame.running] = s; C.at = Date.now() / 1000; }"""


@pytest.mark.parametrize(("device", "kind"), DEVICES)
def test_a_big_clock_with_amber_and_red_near_the_end(live_server: LiveServer, new_context: Any,
                                                     device: str, kind: dict[str, Any]) -> None:
    """The running clock of the seat to move, >= 28 px digits; under 1 minute of a 5-minute bank
    amber ("Little time left", an icon), under 20 s red ("Almost out of time"). The page shows
    what the server last said; the test sets what it said (no waiting for real minutes)."""
    for lang in ("en", "de"):
        res = new_game(live_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
            {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}],
            "clock": {"kind": "realtime", "initial_s": 300, "increment_s": 5}})
        running = httpx.get(f"{live_server.url}/api/games/{res['game']}").json()["clock"]["running"]
        page = _page(new_context(**kind), res["links"]["seats"][running]["url"], lang)
        page.wait_for_function("document.body.dataset.turn === 'mine'")
        big = page.locator("#bigclock")
        assert big.is_visible()
        assert big.get_attribute("data-level") == "" and big.get_attribute("data-seat") == str(running)
        digits = page.locator("#bigclock .bigclock-time")
        size = float(digits.evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)"))
        assert size >= 28, size
        assert digits.inner_text().startswith(("4:", "5:"))
        assert big.inner_text().startswith("Your time" if lang == "en" else "Deine Zeit")
        normal_bg = big.evaluate("(e) => getComputedStyle(e).backgroundColor")
        save_png(page, f"clock-{device}-{lang}-normal.png")
        page.evaluate(SET_LEFT, 50)
        page.wait_for_function("document.getElementById('bigclock').dataset.level === 'low'")
        assert "level-low" in (big.get_attribute("class") or "")
        assert ("Little time left" if lang == "en" else "Nur noch wenig Zeit") in big.inner_text()
        amber = big.evaluate("(e) => getComputedStyle(e).backgroundColor")
        assert amber != normal_bg
        # The player's own card says so too.
        card = page.locator(f".player[data-seat='{running}'] .clock")
        assert "level-low" in (card.get_attribute("class") or "")
        save_png(page, f"clock-{device}-{lang}-low.png")
        page.evaluate(SET_LEFT, 15)
        page.wait_for_function("document.getElementById('bigclock').dataset.level === 'critical'")
        assert ("Almost out of time" if lang == "en" else "Die Zeit ist fast abgelaufen") in big.inner_text()
        assert "⚠" in big.inner_text()
        red = big.evaluate("(e) => getComputedStyle(e).backgroundColor")
        assert red not in (amber, normal_bg)
        save_png(page, f"clock-{device}-{lang}-critical.png")
        if device == "phone":
            # The board still leaves room: the Place button and the points in view after a tap.
            shown = page.evaluate(HEXES_IN_VIEW, "#board")
            label = next(lab for lab, _ in shown if lab in state(page, "S.view.legal_actions"))
            page.locator(f"#board g.space[data-label='{label}'] polygon.hex").tap()
            page.wait_for_selector("#preview .points")
            for sel in ("#confirm-yes", "#preview .points", "#bigclock"):
                assert page.evaluate("""(sel) => {
                    const r = document.querySelector(sel).getBoundingClientRect();
                    return r.top >= 0 && r.bottom <= innerHeight; }""", sel), sel
        assert not page.errors  # type: ignore[attr-defined]


def test_a_turn_clock_turns_amber_then_red_before_the_last_reminder(live_server: LiveServer,
                                                                    new_context: Any) -> None:
    res = new_game(live_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}],
        "clock": {"kind": "turn", "per_move_s": 86400}})
    running = httpx.get(f"{live_server.url}/api/games/{res['game']}").json()["clock"]["running"]
    page = open_page(new_context(**PHONE), res["links"]["seats"][1 - running]["url"])
    page.wait_for_function("window.rebirthState.view !== null")
    big = page.locator("#bigclock")
    # The other player's clock runs: named, not "your time".
    assert big.inner_text().startswith(("Ailsa's time", "Brodie's time"))
    assert big.get_attribute("data-level") == ""
    page.evaluate(SET_LEFT, 4 * 3600)      # under 20% of a day
    page.wait_for_function("document.getElementById('bigclock').dataset.level === 'low'")
    page.evaluate(SET_LEFT, 3000)          # under the last reminder (1 h)
    page.wait_for_function("document.getElementById('bigclock').dataset.level === 'critical'")


# ------------------------------------------------------------------ 5. texts


def _table_until_one_point(server: LiveServer) -> tuple[str, str, list[dict[str, Any]]]:
    """A table game entered over REST up to the first entry that scores exactly 1 point for a
    seat; returns its id, token and the entries left."""
    rec, _ = bot_game("scotland", 5)
    t = httpx.post(f"{server.url}/api/tables", json={
        "board": "scotland", "players": 2, "names": ["Ailsa", "Brodie"],
        "start_player": rec["setup"]["start_player"]}, timeout=10).json()
    flat = [e for group in table_entries(rec) for e in group]
    for i, e in enumerate(flat):
        st = _post_entry(server, t["table"], t["token"], e)
        gained = [0, 0]
        for ev in st["last"]["events"]:
            if ev.get("points") and ev.get("seat") in (0, 1):
                gained[ev["seat"]] += ev["points"]
        if 1 in gained and st["last"]["fact"]["kind"] == "place":
            return t["table"], t["token"], flat[i + 1:]
    raise AssertionError("no entry scored exactly 1 point")


def _post_entry(server: LiveServer, tid: str, token: str, e: dict[str, Any]) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {token}"}
    cur = httpx.get(f"{server.url}/api/tables/{tid}", headers=auth, timeout=10).json()
    body: dict[str, Any] = {"entry": e.get("action") or e["chance"], "version": cur["version"]}
    if "action" in e:
        body["seat"] = e["seat"]
    r = httpx.post(f"{server.url}/api/tables/{tid}/entries", json=body,
                   headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_the_table_companion_speaks_in_words(live_server: LiveServer, new_context: Any) -> None:
    tid, token, rest = _table_until_one_point(live_server)
    for lang, gain, placed, heading in (("en", "+1 point", " placed ", "Board"),
                                        ("de", "+1 Punkt", " legte ", "Spielplan")):
        for device, kind in DEVICES:
            page = _page(new_context(**kind), f"{live_server.url}/table/{tid}#t={token}", lang)
            page.wait_for_function("window.tableState.data !== null")
            lines = page.locator("#why .t-gain").all_inner_texts()
            assert any(x.endswith(gain) for x in lines), lines
            assert not any(x.endswith(gain + ("s" if lang == "en" else "e")) for x in lines), lines
            # The entry in words (the tile's name and the space), its wire form after it.
            fact = page.evaluate("window.tableState.data.last.fact")
            entry = page.locator("#why .t-entry").inner_text()
            assert placed in entry and f"{fact['hex']}" in entry and not entry.startswith(fact["text"]), entry
            assert TILE_NAMES[lang].get(fact["tile"], "") in entry, entry
            assert page.locator("#why .t-entry code").inner_text() == fact["text"]
            # The log of entries too.
            assert placed in page.locator("#log li").last.inner_text()
            assert not page.errors  # type: ignore[attr-defined]
            page.locator("#why").scroll_into_view_if_needed()
            save_png(page, f"table-entry-{device}-{lang}.png")
            # The hidden board heading in the page's language, naming the board.
            assert page.locator("#board-h").text_content() == heading
            assert page.get_attribute("#board", "aria-labelledby") == "board-h"
    # The end screen (every entry made), English and German, phone and desktop.
    for e in rest:
        _post_entry(live_server, tid, token, e)
    for lang in ("en", "de"):
        for device, kind in DEVICES:
            page = _page(new_context(**kind), f"{live_server.url}/table/{tid}#t={token}", lang)
            page.wait_for_selector("#end:not([hidden])")
            page.evaluate("document.getElementById('end').scrollIntoView()")
            save_png(page, f"table-end-{device}-{lang}.png")


def test_the_calculators_board_is_named_in_the_pages_language(live_server: LiveServer,
                                                               new_context: Any) -> None:
    page = _page(new_context(), live_server.url + "/calculator", "de")
    assert page.get_attribute("#board-svg", "aria-label") == "Spielplan"
    assert page.locator("#board-h").text_content() == "Spielplan"


@pytest.mark.parametrize(("lang", "words"), [("en", ("Set aside at the start", "out of this game")),
                                             ("de", ("Zu Beginn beiseitegelegt", "aus dem Spiel"))])
def test_the_set_aside_tiles_are_explained(live_server: LiveServer, new_context: Any, lang: str,
                                           words: tuple[str, str]) -> None:
    """S-3: a Scotland seat's two set-aside tiles, named and explained in a sentence."""
    res = new_game(live_server, {"board": "scotland", "players": 2, "lang": lang, "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "easy", "name": "Bot"}]})
    page = _page(new_context(**PHONE), res["links"]["seats"][0]["url"], lang)
    page.wait_for_function("window.rebirthState.view !== null")
    aside = state(page, "S.view.set_aside")
    assert len(aside) == 2
    text = page.locator("#setaside .setaside").inner_text()
    assert text.startswith(words[0]) and words[1] in text, text
    for code in aside:  # each tile named, its code after it (the game is dealt from a secret seed)
        assert f"{TILE_NAMES[lang].get(code, '')} ({code})" in text, text
    assert not page.errors  # type: ignore[attr-defined]
