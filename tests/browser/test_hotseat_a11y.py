"""Hot-seat hand-over keeps every seat's secrets from the next player (S-5, K-1), and the
pages pass an axe accessibility check; keyboard play places a tile."""

from __future__ import annotations

import random
import re
from typing import Any

from axe_playwright_python.sync_playwright import Axe

from browser.kit import LiveServer, diagnose, new_game, open_page, place_by_click, state

PRIVATE = "JSON.stringify({view: S.view, log: S.log, preview: S.preview, selected: S.selected})"


def cathedral_neighbours() -> set[str]:
    """Scotland spaces next to a cathedral: the first placement there draws a secret mission (K-1)."""
    from rebirth.engine.board import builtin_board

    b = builtin_board("scotland")
    return {b.spaces[i].label for c in b.cathedrals for i in c.spaces}


def test_hotseat_handover_shows_no_foreign_private_information(live_server: LiveServer,
                                                               new_context: Any) -> None:
    res = new_game(live_server, {"board": "scotland", "players": 3, "lang": "en", "hotseat": True, "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"},
        {"kind": "easy", "name": "Bot"}]})
    assert res["links"]["table"]
    page = open_page(new_context(), res["links"]["table"])
    rng = random.Random(2)
    near = cathedral_neighbours()
    secrets_seen: dict[int, set[str]] = {0: set(), 1: set()}
    handovers = 0
    while handovers < 6 or not (secrets_seen[0] and secrets_seen[1]):
        assert handovers < 40, "no secret mission was drawn"
        page.wait_for_selector("#claim")
        # Before the claim nothing private is on screen or in the page's memory.
        assert state(page, "S.seat") is None
        assert state(page, "S.view && S.view.hand") in (None, "")
        assert page.locator("#hand").inner_text() == ""
        page.locator("#claim").click()
        page.wait_for_function("window.rebirthState.seat !== null && document.body.dataset.turn === 'mine'")
        me = state(page, "S.seat")
        hand = state(page, "S.view.hand")
        secrets_seen[me] = set(state(page, "S.view.missions"))
        assert hand and hand in page.inner_text("#hand")
        # The other human's secret missions are neither in memory nor on screen.
        other = secrets_seen[1 - me]
        memory = state(page, PRIVATE)
        text = page.inner_text("body")
        for card in other:
            assert card not in memory and card not in text, f"seat {1 - me}'s mission {card} leaked"
        place_by_click(page, rng, prefer=near, until_mine=False)
        page.wait_for_function("window.rebirthState.seat === null")
        handovers += 1
        memory = state(page, PRIVATE)
        text = page.inner_text("body")
        assert '"private' not in memory
        for card in secrets_seen[me]:
            assert card not in memory and card not in text
        assert re.search(r"I am (Ailsa|Brodie)|Bots are playing", page.inner_text("#handover"))
    assert not page.errors  # type: ignore[attr-defined]


def serious(results: Any) -> list[str]:
    return [f"{v['id']}: {v['help']} ({len(v['nodes'])})" for v in results.response["violations"]
            if v.get("impact") in ("serious", "critical")]


def test_axe_and_keyboard_play(live_server: LiveServer, new_context: Any) -> None:
    """No serious or critical axe violations on the lobby and the game page (German too); a tile
    placed with the arrow keys and Enter; a phone in portrait gets the one-column layout."""
    axe = Axe()
    ctx = new_context()
    lobby = open_page(ctx, live_server.url + "/")
    lobby.select_option("#kind1", "easy")
    lobby.select_option("#kind2", "easy")
    lobby.locator("#create").click()
    lobby.wait_for_selector("#links-sec:not([hidden])")
    assert lobby.locator("#links .url").count() >= 2
    assert lobby.locator("#mine li a").count() >= 1
    assert serious(axe.run(lobby)) == []
    url = lobby.locator("#links .url").first.input_value()
    game = open_page(ctx, url)
    game.wait_for_function("document.body.dataset.turn === 'mine'")
    assert serious(axe.run(game)) == []
    # Keyboard: focus the board, arrows pick a legal space, Enter selects, Enter again places.
    before = state(game, "S.version")
    game.locator("#board").focus()
    game.keyboard.press("ArrowRight")
    cursor = state(game, "S.cursor")
    assert cursor in state(game, "S.view.legal_actions")
    game.evaluate("""() => { window.heard = []; const live = document.getElementById('live');
        new MutationObserver(() => window.heard.push(live.textContent))
          .observe(live, {childList: true, characterData: true, subtree: true}); }""")
    game.keyboard.press("Enter")
    game.wait_for_selector("#confirm-yes")
    game.keyboard.press("Enter")
    try:
        game.wait_for_function("(v) => window.rebirthState.version > v", arg=before)
    except Exception as exc:
        raise AssertionError(diagnose(game)) from exc
    placed = f"S.log.some(st => st.events.some(e => e.kind === 'place' && e.data.hex === '{cursor}'))"
    assert state(game, placed)
    # The placement is announced to screen readers (aria-live).
    game.wait_for_function("(l) => window.heard.some((x) => x.includes(l))", arg=cursor)
    game.select_option("#lang", "de")
    game.wait_for_function("document.documentElement.lang === 'de'")
    assert serious(axe.run(game)) == []
    # Phone, portrait: one column, and every button is at least 24 px in both directions.
    # (The phone is another browser: it takes a seat of its own game through its invitation.)
    invite = new_game(live_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
        {"kind": "human"}, {"kind": "easy"}]})["links"]["seats"][0]["url"]
    phone = open_page(new_context(viewport={"width": 390, "height": 844}, has_touch=True), invite)
    cols = phone.evaluate("getComputedStyle(document.getElementById('main')).gridTemplateColumns")
    assert len(cols.split()) == 1
    small = phone.evaluate("""[...document.querySelectorAll('button, select, input')]
        .filter(e => e.offsetParent !== null)
        .filter(e => { const r = e.getBoundingClientRect(); return r.width < 24 || r.height < 24; })
        .map(e => `${e.tagName}#${e.id}.${e.className}[${e.type || ''}]`)""")
    assert small == []
