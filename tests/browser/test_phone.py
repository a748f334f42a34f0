"""The phone layout (issue 16 item 6) at 390x844 with touch: a whole Scotland game tapped to the
end, where on every turn the smallest legal hex in view is at least 44 CSS px, and after each tap
the Place button, the placement's points (P-1..P-5 preview) and the score strip are inside the
viewport without scrolling; hex labels can be shown on the board; a desktop still sees the whole
board and no strip. The screenshots of the board, a confirm and the end screen go to the
git-ignored screenshot folder (scripts/refresh-images.sh copies them into docs/img/)."""

from __future__ import annotations

import random
from typing import Any

from playwright.sync_api import Page

from browser.kit import TURN_DONE, LiveServer, diagnose, new_game, open_page, save_png, state

PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
                         "device_scale_factor": 2}
MINE_OR_END = "document.body.dataset.turn === 'mine' || document.body.dataset.phase === 'end'"
MIN_TARGET = 44  # CSS px: WCAG 2.5.5 (target size, enhanced) and the platforms' touch guidance

# Each legal hex a finger can tap: wholly inside the board and the window, and not covered (the
# zoom buttons lie over the board): its label and its smaller side in CSS px.
VISIBLE_LEGAL = """() => {
  const b = document.getElementById('board').getBoundingClientRect();
  const left = Math.max(b.left, 0), top = Math.max(b.top, 0);
  const right = Math.min(b.right, innerWidth), bottom = Math.min(b.bottom, innerHeight);
  const out = [];
  for (const g of document.querySelectorAll('#board g.space.legal')) {
    const r = g.querySelector('polygon.hex').getBoundingClientRect();
    const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    if (r.left >= left && r.right <= right && r.top >= top && r.bottom <= bottom && g.contains(hit))
      out.push([g.dataset.label, Math.min(r.width, r.height)]);
  }
  return out;
}"""

IN_VIEW = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth; }"""


def in_view(page: Page, selector: str) -> bool:
    return bool(page.evaluate(IN_VIEW, selector))


def test_phone_game_tapped_to_the_end(live_server: LiveServer, new_context: Any) -> None:
    res = new_game(live_server, {"board": "scotland", "players": 3, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "easy", "name": "Brodie"},
        {"kind": "easy", "name": "Cat"}]})
    page = open_page(new_context(**PHONE), res["links"]["seats"][0]["url"])
    page.wait_for_function(MINE_OR_END)
    rng = random.Random(11)
    turns = 0
    smallest: list[float] = []
    while page.evaluate("document.body.dataset.phase") != "end":
        turns += 1
        assert turns < 60, "the game did not end"
        page.wait_for_function("document.body.dataset.turn === 'mine'")
        shown = page.evaluate(VISIBLE_LEGAL)
        assert shown, f"turn {turns}: no legal hex in view: {diagnose(page)}"
        smallest.append(min(size for _, size in shown))
        assert smallest[-1] >= MIN_TARGET, f"turn {turns}: a legal hex of {smallest[-1]:.1f} px"
        if turns == 1:
            assert page.locator("#scorebar .chip").count() == 3
        if turns == 4:
            # Hex labels on the board, on demand (and remembered).
            assert page.locator("#board .hex-label").first.is_hidden()
            page.locator("#pref-labels").tap()
            assert page.locator("#pref-labels").get_attribute("aria-pressed") == "true"
            assert page.locator(f"#board g.space[data-label='{shown[0][0]}'] .hex-label").is_visible()
        if turns == 10:
            save_png(page, "phone-board.png")
        label = rng.choice(shown)[0]
        page.locator(f"#board g.space[data-label='{label}'] polygon.hex").tap()
        page.wait_for_selector("#confirm-yes")
        page.wait_for_function("(l) => (window.rebirthState.preview || {}).action === l", arg=label)
        page.wait_for_selector("#preview .points")
        # Without scrolling: the Place button, what the placement scores, everyone's scores.
        assert page.evaluate("window.scrollY") == 0
        for sel in ("#confirm-yes", "#preview .points", "#scorebar"):
            assert in_view(page, sel), f"turn {turns}: {sel} is outside the viewport after a tap"
        assert label in page.inner_text("#confirm-yes")
        if turns == 10:
            save_png(page, "phone-confirm.png")
        before = state(page, "S.version")
        page.locator("#confirm-yes").tap()
        page.wait_for_function(TURN_DONE, arg=before)
    assert turns >= 30
    # The strip shows the final scores too.
    final = [int(x) for x in page.locator("#scorebar .chip-score").all_inner_texts()]
    assert final == state(page, "S.view.scores")
    # The whole final board is shown again.
    vb = [round(float(x)) for x in (page.get_attribute("#board", "viewBox") or "").split()]
    assert vb == [round(x) for x in state(page, "S.model.box")]
    page.evaluate("document.getElementById('end').scrollIntoView()")
    assert page.locator(".winner").is_visible()
    save_png(page, "phone-end.png")
    assert not page.errors  # type: ignore[attr-defined]
    print(f"smallest legal hex in view per turn: min {min(smallest):.1f} px, "
          f"max {max(smallest):.1f} px over {turns} turns")


def test_desktop_keeps_the_whole_board(live_server: LiveServer, new_context: Any) -> None:
    """Issue 16 item 6, "keep desktop good": at 1280x860 the board shows all of the map on a turn,
    with no score strip; the labels toggle works there too."""
    res = new_game(live_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "easy", "name": "Brodie"}]})
    page = open_page(new_context(), res["links"]["seats"][0]["url"])
    page.wait_for_function("document.body.dataset.turn === 'mine'")
    vb = [float(x) for x in (page.get_attribute("#board", "viewBox") or "").split()]
    box = state(page, "S.model.box")
    assert [round(x) for x in vb] == [round(x) for x in box]
    assert page.locator("#scorebar").is_hidden()
    page.locator("#pref-labels").click()
    assert page.locator("#board .hex-label").first.is_visible()


def test_phone_extra_tile_keeps_targets_and_points_in_view(seeded_server: LiveServer,
                                                           new_context: Any) -> None:
    """Ireland on a phone (I-7): when an extra tile's prompt takes height from the board above it,
    the legal hexes are still at least 44 CSS px and the placement's points still in view."""
    from rebirth.engine.board import builtin_board

    ireland = builtin_board("ireland")
    near = {ireland.spaces[i].label for tw in ireland.towers for i in tw.spaces}
    res = new_game(seeded_server, {"board": "ireland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Aoife"}, {"kind": "easy", "name": "Brian"}]})
    page = open_page(new_context(**PHONE), res["links"]["seats"][0]["url"])
    rng = random.Random(2)
    extra = 0
    for turn in range(30):
        page.wait_for_function(MINE_OR_END)
        phase = state(page, "S.view.phase")
        if phase == "end" or extra >= 2:
            break
        before = state(page, "S.version")
        if phase == "mark":
            page.locator("#prompt button.mark").first.tap()
            page.wait_for_function("(v) => window.rebirthState.version > v", arg=before)
            continue
        shown = page.evaluate(VISIBLE_LEGAL)
        assert shown and min(size for _, size in shown) >= MIN_TARGET, (turn, phase, shown)
        label = rng.choice([s for s in shown if s[0] in near] or shown)[0]
        page.locator(f"#board g.space[data-label='{label}'] polygon.hex").tap()
        page.wait_for_function("(l) => (window.rebirthState.preview || {}).action === l", arg=label)
        page.wait_for_selector("#preview .points")
        for sel in ("#confirm-yes", "#preview .points", "#scorebar"):
            assert in_view(page, sel), f"turn {turn} ({phase}): {sel} is outside the viewport"
        if phase == "extra":
            extra += 1
            assert in_view(page, "#prompt") and "Extra tile" in page.inner_text("#prompt")
        page.locator("#confirm-yes").tap()
        page.wait_for_function("(v) => window.rebirthState.version > v", arg=before)
    assert extra >= 1, "no extra tile came up"
    assert not page.errors  # type: ignore[attr-defined]
