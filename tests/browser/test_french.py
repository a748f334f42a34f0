"""French in the browser (issue 24, item 5): a browser whose language is French gets the lobby,
a whole game against bots (created from the lobby's form, played by clicking to the end), the
score calculator and the table companion in French, on a desktop and on a phone (390x844); the
language menus list what the server's registry declares (GET /api/languages), not a list of the
page's own; no page overflows the phone's width. Screenshots go to build/screens-fr/ (ignored)."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from browser.kit import ROOT, TURN_DONE, LiveServer, open_page, place_by_click, state
from browser.test_calculator import CLICKS, click_hex, pick
from browser.test_phone import PHONE, VISIBLE_LEGAL
from browser.test_table_page import bot_game, enter, set_up
from rebirth.engine.i18n import registry
from rebirth.engine.records import table_entries

SHOTS = Path(os.environ.get("REBIRTH_SHOTS_FR", ROOT / "build" / "screens-fr"))
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 860}}
FRENCH = {"locale": "fr-FR"}

# Elements whose text is cut (clipped or with an ellipsis) or that stick out of the window.
OVERFLOW = """() => {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg, .sr-only, [hidden]') || el.closest('details:not([open]) > :not(summary)')) continue;
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue;  // visually hidden (a label for screen readers)
    const cs = getComputedStyle(el);
    const cut = el.scrollWidth > el.clientWidth + 1 && ['hidden', 'clip'].includes(cs.overflowX)
      && el.textContent.trim();
    const out_of_window = r.right > innerWidth + 1 && cs.position !== 'fixed';
    const what = `${el.tagName.toLowerCase()}#${el.id}.${el.className}`;
    if (cut || out_of_window) out.push(`${what}: ${el.textContent.trim().slice(0, 40)}`);
  }
  return { page: document.documentElement.scrollWidth - innerWidth, els: out.slice(0, 10) };
}"""


def shot(page: Page, name: str, *, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=full)


def check_fits(page: Page, where: str) -> None:
    """Nothing on the page is wider than the window or has its text cut; a phone's layout keeps
    the device's width (wider content makes a mobile browser zoom the whole page out)."""
    assert page.viewport_size is not None
    assert page.evaluate("innerWidth") == page.viewport_size["width"], where
    got = page.evaluate(OVERFLOW)
    assert got["page"] <= 0 and got["els"] == [], (where, got)


def check_menu(page: Page) -> None:
    """The language menu holds the registry's languages, each named in itself, French chosen."""
    options = page.locator("#lang option").evaluate_all("els => els.map(e => [e.value, e.textContent])")
    assert options == [[lang.code, lang.name] for lang in registry().languages]
    assert page.locator("#lang").input_value() == "fr"
    assert page.evaluate("document.documentElement.lang") == "fr"


def place(page: Page, rng: random.Random, phone: bool) -> None:
    """One placement: a click on a desktop; on a phone a tap on a legal hex in view, then Place."""
    if not phone:
        place_by_click(page, rng)
        return
    shown = page.evaluate(VISIBLE_LEGAL)
    assert shown, "no legal hex in view"
    label = rng.choice(shown)[0]
    page.locator(f"#board g.space[data-label='{label}'] polygon.hex").tap()
    page.wait_for_selector("#confirm-yes")
    before = state(page, "S.version")
    page.locator("#confirm-yes").tap()
    page.wait_for_function(TURN_DONE, arg=before)


def lobby_and_game(live_server: LiveServer, new_context: Any, kind: dict[str, Any], tag: str) -> None:
    ctx = new_context(**kind, **FRENCH)
    lobby = open_page(ctx, live_server.url + "/")
    check_menu(lobby)
    assert lobby.locator("h2").first.inner_text() == "Nouvelle partie"
    assert "Créer la partie" in lobby.inner_text("#create")
    shot(lobby, f"{tag}-lobby.png", full=True)
    check_fits(lobby, "lobby")
    lobby.select_option("#players", "2")
    lobby.wait_for_selector("#kind1")
    lobby.select_option("#kind1", "easy")
    with lobby.expect_response("**/api/games") as created:
        lobby.click("#create")
    sent = created.value.request.post_data_json
    assert created.value.status == 201 and sent is not None and sent["lang"] == "fr"
    lobby.wait_for_selector("#links-sec:not([hidden])")
    shot(lobby, f"{tag}-lobby-links.png", full=True)
    check_fits(lobby, "lobby links")
    url = lobby.locator("#links input.url").first.input_value()

    game = open_page(ctx, url)
    check_menu(game)
    game.wait_for_function("document.body.dataset.turn === 'mine' || document.body.dataset.phase === 'end'")
    assert game.inner_text("#status") == "À vous : posez votre tuile"
    rng = random.Random(5)
    turns = 0
    while game.evaluate("document.body.dataset.phase") != "end":
        if turns == 6:
            if kind is PHONE:
                label = game.evaluate(VISIBLE_LEGAL)[0][0]
                game.locator(f"#board g.space[data-label='{label}'] polygon.hex").tap()
                game.wait_for_selector("#confirm-yes")
                assert "Poser" in game.inner_text("#confirm-yes")
            else:
                game.locator("#board g.space.legal").first.hover()
            game.wait_for_selector("#preview h3")
            assert "Si vous posez ici" in game.inner_text("#preview")
            shot(game, f"{tag}-game.png")
            check_fits(game, "game")
        place(game, rng, kind is PHONE)
        turns += 1
        assert turns < 60, "the game did not end"
    assert game.inner_text("#status") == "Fin de la partie"
    assert game.locator(".winner").inner_text().startswith(("Vainqueur", "Victoire partagée"))
    assert "Scores finaux" in game.inner_text("#end")
    game.evaluate("document.getElementById('end').scrollIntoView()")
    shot(game, f"{tag}-game-end.png")
    check_fits(game, "end")
    # The log speaks French too (the engine's event sentences from the French catalog).
    assert " pose " in game.inner_text("#log")
    assert not game.errors  # type: ignore[attr-defined]


def test_lobby_and_a_whole_game_in_french_on_a_desktop(live_server: LiveServer, new_context: Any) -> None:
    lobby_and_game(live_server, new_context, DESKTOP, "desktop")


def test_lobby_and_a_whole_game_in_french_on_a_phone(live_server: LiveServer, new_context: Any) -> None:
    lobby_and_game(live_server, new_context, PHONE, "phone")


def test_calculator_in_french(live_server: LiveServer, new_context: Any) -> None:
    for kind, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = open_page(new_context(**kind, **FRENCH), live_server.url + "/calculator")
        check_menu(page)
        assert page.locator("h1").first.inner_text().endswith("Calculateur de score")
        for seat, tile, hx in CLICKS:
            pick(page, seat, tile)
            click_hex(page, hx)
            assert state(page, "S.error") is None, (hx, state(page, "S.error"))
        # The report, worded by the server in the page's language.
        assert "Décompte final, règle par règle" in page.inner_text("body")
        assert "Vainqueur" in page.inner_text("#winner") or "Victoire partagée" in page.inner_text("#winner")
        shot(page, f"{tag}-calculator.png", full=True)
        check_fits(page, "calculator")
        assert not page.errors  # type: ignore[attr-defined]


def typed(page: Page, text: str) -> None:
    """One table entry typed into the entry box (a phone's hexes are small for a test's taps)."""
    before = page.evaluate("window.tableState.data.version")
    page.fill("#typed-entry", text)
    page.locator("#typed button").tap()
    page.wait_for_function("(v) => window.tableState.data.version > v && document.body.dataset.busy === '0'",
                           arg=before)


def test_table_companion_in_french(live_server: LiveServer, new_context: Any) -> None:
    rec, _ = bot_game("scotland", 5)
    for kind, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = open_page(new_context(**kind, **FRENCH), live_server.url + "/table")
        check_menu(page)
        assert "Nouvelle partie de table" in page.inner_text("body")
        shot(page, f"{tag}-table-setup.png", full=True)
        check_fits(page, "table set-up")
        set_up(page, rec)
        check_menu(page)
        for group in table_entries(rec)[:10]:
            for entry in group:
                if kind is PHONE:
                    typed(page, entry.get("action") or entry["chance"])
                else:
                    enter(page, entry)
        assert "touchez la case où la tuile a été posée" in page.inner_text("#prompt")
        assert "Dernière saisie" in page.inner_text("body")
        shot(page, f"{tag}-table-play.png", full=True)
        check_fits(page, "table")
        assert not page.errors  # type: ignore[attr-defined]
