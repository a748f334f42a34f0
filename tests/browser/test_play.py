"""The browser game played by clicking: a whole Scotland game against bots, two humans on
Ireland (extra tile I-7 and ×2 marker I-8 decisions), the replay viewer, the languages."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page

from browser.kit import (
    LiveServer,
    diagnose,
    new_game,
    open_page,
    place_by_click,
    save_png,
    state,
    stored_tokens,
)


def replay_json(record: dict[str, Any], tmp: Path) -> dict[str, Any]:
    path = tmp / "record.json"
    path.write_text(json.dumps(record), "utf-8")
    out = subprocess.run([sys.executable, "-c", "from rebirth.cli.main import entry; entry()",
                          "replay", "--json", str(path)], capture_output=True, text=True, check=True)
    data: dict[str, Any] = json.loads(out.stdout)
    return data


def test_scotland_human_against_two_bots_to_the_end(live_server: LiveServer, new_context: Any,
                                                    tmp_path: Path) -> None:
    """A whole 3-player Scotland game by clicking; the page's final scores equal `rebirth replay`
    of the exported record (E-3)."""
    res = new_game(live_server, {"board": "scotland", "players": 3, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "easy", "name": "Brodie"},
        {"kind": "easy", "name": "Cat"}]})
    url = res["links"]["seats"][0]["url"]
    page = open_page(new_context(), url)
    page.wait_for_function("document.body.dataset.turn === 'mine' || document.body.dataset.phase === 'end'")
    # The seat's token is the one this browser claimed with the invitation (issue 15 item 7).
    (page_token,) = stored_tokens(page).values()
    rng = random.Random(3)
    turns = 0
    while page.evaluate("document.body.dataset.phase") != "end":
        if turns == 12:
            # Mid-game: hover a space to show the ghost tile and the engine's preview (P-1..P-5).
            first = page.locator("#board g.space.legal").first
            first.hover()
            page.wait_for_selector("#preview h3")
            assert "If you place here" in page.inner_text("#preview")
            save_png(page, "web-board.png")
        place_by_click(page, rng)
        turns += 1
        assert turns < 60, "the game did not end"
    assert turns >= 30
    assert page.inner_text("#status") == "Game over"
    shown = [int(x) for x in page.locator(".final-score").all_inner_texts()]
    record = httpx.get(f"{live_server.url}/api/games/{res['game']}/record",
                       headers={"Authorization": f"Bearer {page_token}"}, timeout=10).json()
    assert replay_json(record, tmp_path)["scores"] == shown
    assert page.locator(".winner").inner_text().startswith("Winner:")
    assert page.locator(".chart polyline").count() == 3
    # The last placement of every player is highlighted; every tile carries its letter.
    assert page.locator("#board g.space.last").count() == 3
    letters = set(page.locator("#board .tile-letter").all_text_contents())
    assert {"A", "B", "C"} <= letters
    save_end(page)
    assert not page.errors  # type: ignore[attr-defined]

    # The replay viewer steps through the finished game with the arrow keys.
    page.locator("#replay-open").click()
    page.wait_for_selector("#replay:not([hidden])")
    assert page.locator("#replay").get_attribute("data-step") == "0"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.locator("#replay").get_attribute("data-step") == "2"
    # Each step names its action from the complete record, e.g. "Brodie: C11".
    action = page.locator("#replay .replay-action").inner_text()
    assert action.split(": ")[1] in {a["action"] for a in record["actions"]}
    assert page.locator("#replay-board .tile-hex").count() >= 1
    page.keyboard.press("End")
    final_tiles = page.locator("#replay-board .tile-hex").count()
    assert final_tiles == page.locator("#board .tile-hex").count()
    page.keyboard.press("ArrowLeft")
    assert int(page.locator("#replay").get_attribute("data-step") or 0) > 2
    page.keyboard.press("Escape")
    assert page.locator("#replay").is_hidden()


def save_end(page: Page) -> None:
    """The end screen (breakdown, winner, chart) as docs/img/web-end.png."""
    page.set_viewport_size({"width": 1100, "height": 900})
    page.evaluate("document.getElementById('end').scrollIntoView()")
    save_png(page, "web-end.png")
    page.set_viewport_size({"width": 1280, "height": 860})


def tower_neighbours() -> set[str]:
    """Labels of the Ireland spaces next to a tower (visiting towers draws tokens, I-5..I-9)."""
    from rebirth.engine.board import builtin_board

    b = builtin_board("ireland")
    return {b.spaces[i].label for t in b.towers for i in t.spaces}


def test_ireland_two_humans_with_extra_tile_and_double(seeded_server: LiveServer, new_context: Any) -> None:
    """Two people in two browser contexts play Ireland until each decision has come up: an extra
    tile is placed (I-7) and a ×2 marker put on a public mission (I-8)."""
    res = new_game(seeded_server, {"board": "ireland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Aoife"}, {"kind": "human", "name": "Brian"}]})
    pages = [open_page(new_context(), s["url"]) for s in res["links"]["seats"]]
    # One player places without the confirm step: the preference is honoured.
    pages[1].locator("#pref-confirm").uncheck()
    rng = random.Random(5)
    near = tower_neighbours()
    seen_extra = seen_mark = False
    turns = 0
    while not (seen_extra and seen_mark and turns >= 6):
        turns += 1
        assert turns < 70, f"no extra tile ({seen_extra}) or ×2 decision ({seen_mark}) came up"
        who = whose_turn(pages)
        phase = state(who, "S.view.phase")
        if phase == "mark":
            assert "×2" in who.inner_text("#prompt")
            button = who.locator("#prompt button.mark").first
            mission = (button.get_attribute("data-action") or "").split()[1]
            before = state(who, "S.version")
            button.click()
            who.wait_for_function("(v) => window.rebirthState.version > v", arg=before)
            seen_mark = True
            other = pages[1 - pages.index(who)]
            other.wait_for_function("(v) => window.rebirthState.version > v", arg=before)
            # Both players see the marker on that public mission.
            assert "×2" in other.locator(f"#public li[data-id='{mission}']").inner_text()
            continue
        if phase == "extra":
            assert "Extra tile" in who.inner_text("#prompt")
            seen_extra = True
        place_by_click(who, rng, prefer=near, until_mine=False)
    for p in pages:
        assert not p.errors  # type: ignore[attr-defined]
    # The log explains each score with its rule id, in German too.
    assert pages[0].locator("#log .rule").count() > 5
    pages[0].select_option("#lang", "de")
    pages[0].wait_for_function("document.documentElement.lang === 'de'")
    assert "Protokoll" in pages[0].inner_text("#log-h")
    assert " legt " in pages[0].inner_text("#log")


def whose_turn(pages: list[Page]) -> Page:
    """The page whose turn it is (waiting up to 20 s for one)."""
    for _ in range(200):
        for p in pages:
            if p.evaluate("document.body.dataset.turn") == "mine":
                return p
        pages[0].wait_for_timeout(100)
    raise AssertionError("nobody's turn: " + "; ".join(diagnose(p) for p in pages))


def test_reconnect_resyncs_by_version(live_server: LiveServer, new_context: Any) -> None:
    """A dropped socket reconnects by itself (backoff with jitter) and gets exactly the steps it
    missed: no step twice, none lost."""
    res = new_game(live_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}]})
    pages = [open_page(new_context(), s["url"]) for s in res["links"]["seats"]]
    delays = pages[0].evaluate("""async () => { const { GameSocket } = await import('/static/net.js');
        return [0, 1, 2, 3, 6, 12].map((n) => [n, GameSocket.backoff(n)]); }""")
    for n, d in delays:
        cap = min(30000, 500 * 2 ** n)
        assert cap / 2 <= d <= cap
    rng = random.Random(9)
    for k in range(3):
        mover = whose_turn(pages)
        other = pages[1 - pages.index(mover)]
        other.evaluate("window.rebirthSocket.ws.close()")
        label = place_by_click(mover, rng, until_mine=False)
        target = state(mover, "S.version")
        other.wait_for_function("(v) => window.rebirthState.version === v", arg=target)
        assert other.locator("#conn").inner_text() == "Online"
        assert other.evaluate("window.rebirthSocket.reconnects") == 1 + k // 2
        versions = state(other, "S.log.map((s) => s.version)")
        assert versions == sorted(set(versions)), "a step arrived twice"
        assert state(other, f"S.log.some(st => st.events.some(e => e.data && e.data.hex === '{label}'))")


def test_leaver_handed_to_a_bot(live_server: LiveServer, new_context: Any) -> None:
    """When a player leaves, the other hands the seat to a bot and the game goes on."""
    res = new_game(live_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}]})
    ctx_b = new_context()
    a = open_page(new_context(), res["links"]["seats"][0]["url"])
    b = open_page(ctx_b, res["links"]["seats"][1]["url"])
    a.wait_for_function("window.rebirthState.online[1] === true")
    b.close(run_before_unload=True)
    a.wait_for_function("window.rebirthState.online[1] === false", timeout=5000)
    button = a.locator("button.tobot[data-seat='1']")
    a.wait_for_timeout(600)  # the server's grace time in these tests: 0.5 s
    button.click()
    a.wait_for_function("window.rebirthState.kinds[1] !== 'human'")
    rng = random.Random(4)
    for _ in range(3):
        a.wait_for_function("document.body.dataset.turn === 'mine'")
        place_by_click(a, rng)
    assert state(a, "S.view.placed[1]") >= 2


def test_admin_revokes_a_link_and_pan_zoom(live_server: LiveServer, new_context: Any) -> None:
    """The creator's admin link replaces a seat's link: the old page is refused at once, the new
    link plays. Dragging pans and the wheel zooms the board only, and a drag never places."""
    res = new_game(live_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "easy", "name": "Bot"}]})
    old = open_page(new_context(), res["links"]["seats"][0]["url"])
    old.wait_for_function("document.body.dataset.turn === 'mine'")
    box0 = old.evaluate("document.getElementById('board').getAttribute('viewBox')")
    b = old.locator("#board").bounding_box()
    assert b is not None
    old.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
    old.mouse.wheel(0, -300)
    zoomed = old.evaluate("document.getElementById('board').getAttribute('viewBox')")
    assert zoomed != box0
    old.mouse.down()
    old.mouse.move(b["x"] + b["width"] / 2 + 80, b["y"] + b["height"] / 2 + 40, steps=5)
    old.mouse.up()
    assert old.evaluate("document.getElementById('board').getAttribute('viewBox')") != zoomed
    assert old.evaluate("window.scrollY") == 0
    assert state(old, "S.selected") is None and state(old, "S.sent") is False
    admin = open_page(new_context(), res["links"]["admin"])
    admin.locator("button.revoke[data-seat='0']").click()
    admin.wait_for_function("Object.keys(window.rebirthState.newLinks).length === 1")
    new_url = admin.locator(".revoke-box .url").input_value()
    assert new_url != res["links"]["seats"][0]["url"]
    old.wait_for_function("window.rebirthState.error !== ''")
    fresh = open_page(new_context(), new_url)
    fresh.wait_for_function("document.body.dataset.turn === 'mine'")
    place_by_click(fresh, random.Random(1))


def test_the_games_language_is_the_default_of_its_links(live_server: LiveServer, new_context: Any) -> None:
    """A game created in German opens in German for a friend who never chose a language;
    the language menu still wins once used."""
    res = new_game(live_server, {"board": "ireland", "players": 2, "lang": "de", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "easy", "name": "Brodie"}]})
    url = res["links"]["seats"][0]["url"]
    ctx = new_context()
    page = open_page(ctx, url)
    page.wait_for_function("document.documentElement.lang === 'de'")
    assert page.locator("#lang").input_value() == "de"
    page.select_option("#lang", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")
    again = open_page(ctx, url)  # the user's choice is remembered over the game's
    again.wait_for_timeout(300)
    assert again.evaluate("document.documentElement.lang") == "en"
    assert not page.errors and not again.errors  # type: ignore[attr-defined]
