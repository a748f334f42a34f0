"""The puzzle page (/puzzles, issue 27 item 4) in Chromium on a phone (390×844) and a desktop:
the daily puzzle drawn with the game page's board, its legal spaces at least 44 CSS px on the
phone, a tap on a wrong space answers with an explanation (not just "wrong"), the best space
is marked; a theme's stream; every control at least 44×44 px; no CSP violation, no page error."""

from __future__ import annotations

from typing import Any

import pytest

from browser.kit import LiveServer, open_page, save_png, state
from rebirth.app import puzzles as pz

RECORD = """window.__csp = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));"""
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 860}


def _small_targets(page: Any) -> list[str]:
    found: list[str] = page.evaluate("""() => [...document.querySelectorAll(
        'main select, main button, main input')]
      .filter((e) => e.offsetParent !== null)
      .map((e) => [e.id || e.textContent.trim(), e.getBoundingClientRect()])
      .filter(([, r]) => r.width < 44 || r.height < 44)
      .map(([n, r]) => `${n} ${Math.round(r.width)}x${Math.round(r.height)}`)""")
    return found


def _legal_sizes(page: Any) -> list[float]:
    sizes: list[float] = page.evaluate("""() => [...document.querySelectorAll(
        '#board-svg .space.legal .hex')]
      .map((e) => e.getBoundingClientRect())
      .filter((r) => r.right > 0 && r.left < innerWidth && r.bottom > 0 && r.top < innerHeight)
      .map((r) => Math.min(r.width, r.height))""")
    return sizes


@pytest.mark.parametrize("viewport,tag", [(PHONE, "phone"), (DESKTOP, "desktop")])
def test_the_daily_puzzle_is_answered_by_a_tap_and_explained(
        live_server: LiveServer, new_context: Any, viewport: dict[str, int], tag: str) -> None:
    ctx = new_context(viewport=viewport, bypass_csp=False, has_touch=tag == "phone")
    ctx.add_init_script(RECORD)
    page = open_page(ctx, f"{live_server.url}/puzzles?lang=en")
    shown = state(page, "S.puzzle")
    puzzle = pz.shipped().get(shown["id"])
    assert puzzle is not None and "best" not in shown
    assert page.locator("#board-svg .space.legal").count() == len(puzzle.view.legal_actions)
    assert page.locator("#task").inner_text().startswith("You are Player")
    if tag == "phone":
        sizes = _legal_sizes(page)
        assert sizes and min(sizes) >= 44, sizes
    save_png(page, f"puzzles-{tag}.png")
    assert _small_targets(page) == []
    # A wrong answer, by a tap (a click on desktop) on a legal space that is not the best.
    wrong = next(a for a in puzzle.view.legal_actions if a != puzzle.best)
    page.evaluate("(l) => document.querySelector(`#board-svg .space[data-label='${l}']`)"
                  ".dispatchEvent(new MouseEvent('click', {bubbles: true}))", wrong)
    assert page.locator("#answer").input_value() == wrong
    version = state(page, "S.version")
    page.locator("#submit").click()
    page.wait_for_function(f"() => window.rebirthState.version > {version}")
    assert page.locator("#verdict").inner_text() == f"Your answer: {wrong}"
    text = page.locator("#explanation").inner_text()
    assert text.startswith("Not the best move:")  # said once, by the explanation
    assert f"the best is {puzzle.best}" in text and f"{wrong} (" in text and "deals" in text
    assert page.locator(f"#board-svg .space.answer-best[data-label='{puzzle.best}']").count() == 1
    assert page.locator(f"#board-svg .space.answer-wrong[data-label='{wrong}']").count() == 1
    page.locator("#result").scroll_into_view_if_needed()
    save_png(page, f"puzzles-{tag}-wrong.png")
    assert page.evaluate("() => window.__csp") == []
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_theme_stream_and_an_illegal_typed_answer(live_server: LiveServer, new_context: Any) -> None:
    ctx = new_context(viewport=PHONE, bypass_csp=False, has_touch=True)
    page = open_page(ctx, f"{live_server.url}/puzzles?lang=de")
    version = state(page, "S.version")
    page.locator("#themes button[data-mode='castle_control']").click()
    page.wait_for_function(f"() => window.rebirthState.version > {version}")
    shown = state(page, "S.puzzle")
    assert "castle_control" in shown["themes"]
    assert page.locator("#task-h").inner_text().startswith("Burgen: Rätsel 1 von")
    page.locator("#answer").fill("Z99")
    version = state(page, "S.version")
    page.locator("#submit").click()
    page.wait_for_function(f"() => window.rebirthState.version > {version}")
    assert "Z99 ist hier nicht spielbar" in page.locator("#explanation").inner_text()
    save_png(page, "puzzles-phone-theme-illegal-de.png")
    version = state(page, "S.version")
    page.locator("#next").click()
    page.wait_for_function(f"() => window.rebirthState.version > {version}")
    assert state(page, "S.offset") == 1 and state(page, "S.result") is None
    assert page.errors == []  # type: ignore[attr-defined]
