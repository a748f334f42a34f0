"""The score calculator page (/calculator, issue 9): a position built by clicking scores as
``rebirth score`` scores its exported JSON (E-2, T-7, C-5, E-3); bad entries (P-3/P-4, a tile on
a castle, a cut-off URL fragment, broken JSON) are refused with a message and change nothing;
axe finds no serious or critical violation; screenshots (test-output/screenshots/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

from browser.kit import LiveServer, open_page, save_png, state
from rebirth.cli.main import main

SETTLED = "(v) => window.rebirthState.version > v && window.rebirthState.busy === 0"

# Scotland, 3 players: Kirkwall completed (T-3), two farms at Dunrobin (C-1), a food pair.
CLICKS = [(0, "S3", "M2"), (1, "S1", "M3"), (0, "F", "J8"), (2, "E", "H14"), (2, "E", "G14"),
          (1, "S2", "C7"), (0, "F", "I9")]


def settle(page: Page, action: Any) -> None:
    before = state(page, "S.version")
    action()
    page.wait_for_function(SETTLED, arg=before)


def pick(page: Page, seat: int, tile: str) -> None:
    if not page.locator(f"#pick-seat input[value='{seat}']").is_checked():
        settle(page, lambda: page.locator(f"#pick-seat input[value='{seat}']").check())
    page.locator(f"#pick-tile input[value='{tile}']").check()


# A phone shows the calculator's board zoomed (issue 26 item 6): pan a hex outside the board's
# box into its middle first, as a finger would.
PAN_TO = """(l) => { const v = window.rebirthState.view; const svg = document.getElementById('board-svg');
  const b = svg.getBoundingClientRect();
  const r = svg.querySelector(`g.space[data-label='${l}'] polygon.hex`).getBoundingClientRect();
  if (r.left >= b.left && r.right <= b.right - 56 && r.top >= b.top && r.bottom <= b.bottom) return;
  const [x, y] = v.centre(l); const [, , w, hh] = v.vb; v.setViewBox([x - w / 2, y - hh / 2, w, hh]); }"""


def click_hex(page: Page, label: str) -> None:
    page.evaluate(PAN_TO, label)
    settle(page, lambda: page.locator(f"#board-svg g.space[data-label='{label}'] polygon.hex").click())


def serious(results: Any) -> list[str]:
    return [f"{v['id']}: {v['help']} ({len(v['nodes'])})" for v in results.response["violations"]
            if v.get("impact") in ("serious", "critical")]


def page_numbers(page: Page, n: int, cats: list[str]) -> dict[str, Any]:
    scores = [int(page.locator(f"[data-score='{q}']").inner_text()) for q in range(n)]
    breakdown = [{c: int(page.locator(f"[data-cat='{c}:{q}']").inner_text()) for c in cats} for q in range(n)]
    return {"scores": scores, "breakdown": breakdown}


def test_calculator(live_server: LiveServer, new_context: Any, tmp_path: Path,
                    capsys: pytest.CaptureFixture[str]) -> None:
    ctx = new_context(viewport={"width": 1280, "height": 900})
    page = open_page(ctx, live_server.url + "/calculator")
    for seat, tile, hx in CLICKS[:-1]:
        pick(page, seat, tile)
        click_hex(page, hx)
        assert state(page, "S.error") is None, (hx, state(page, "S.error"))
    # Keyboard entry: type the hex label and press Enter.
    pick(page, *CLICKS[-1][:2])
    page.locator("#hex").fill(CLICKS[-1][2])
    settle(page, lambda: page.locator("#hex").press("Enter"))
    assert state(page, "S.error") is None
    assert len(state(page, "S.pos.tiles")) == len(CLICKS)

    # Export → rebirth score on the file: the page shows the same numbers.
    page.locator("#export").click()
    exported = json.loads(page.locator("#json").input_value())
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(exported), encoding="utf-8")
    assert main(["score", str(path), "--json"]) == 0
    want = json.loads(capsys.readouterr().out)
    got = page_numbers(page, 3, want["categories"])
    assert got == {"scores": want["scores"], "breakdown": want["breakdown"]}
    assert sum(want["scores"]) > 0 and state(page, "S.result.winners") == want["winners"]
    # The same tiebreak (E-3), told with the page's colour names instead of "Player n".
    assert state(page, "S.result.tiebreak.by") == want["tiebreak"]["by"]
    assert want["tiebreak"]["text"].replace("Player 1", "Orange (A)").replace(
        "Player 2", "Sky blue (B)").replace("Player 3", "Green (C)") == page.locator("#tiebreak").inner_text()
    assert [d["district"] for d in want["settlements"]] == ["kirkwall", "stornoway"]

    # The URL fragment reproduces the position in a fresh page.
    url = page.url
    again = open_page(ctx, url)
    again.wait_for_function("window.rebirthState.result && window.rebirthState.busy === 0")
    assert page_numbers(again, 3, want["categories"]) == got
    again.close()

    # axe: no serious or critical violation (heat map shown, in German too); screenshots.
    page.select_option("#heat-tile", "S3")
    page.locator("#overlay input[value='heat']").check()
    assert page.locator("#heat-list li").count() > 0
    axe = Axe()
    assert serious(axe.run(page)) == []
    save_png(page, "calculator-desktop.png")
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#overlay input[value='clusters']").check()
    page.locator("#pick-tile").scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, document.getElementById('pick-tile').offsetTop - 8)")
    save_png(page, "calculator-phone.png")
    page.set_viewport_size({"width": 1280, "height": 900})

    # Bad entries are refused, naming the hex; nothing changes.
    before = state(page, "JSON.stringify(S.pos)")
    pick(page, 1, "S1")
    click_hex(page, "K2")  # a farm space (P-4)
    assert "K2" in page.locator("#alert").inner_text()
    page.locator("#hex").fill("I8")  # Dunrobin Castle
    settle(page, lambda: page.locator("#hex").press("Enter"))
    assert "I8" in page.locator("#alert").inner_text()
    page.locator("#json").fill('{"format": "rebirth-position", "tiles": [')
    settle(page, lambda: page.locator("#import").click())
    assert "JSON" in page.locator("#alert").inner_text()
    assert state(page, "JSON.stringify(S.pos)") == before
    assert page.url.split("&seat=")[0] == url.split("&seat=")[0]


    # A full tie at Dunrobin Castle (1 farm each): only history decides (C-3), so the page asks.
    settle(page, lambda: page.locator("#clear").click())
    pick(page, 0, "F")
    click_hex(page, "J7")
    pick(page, 1, "E")
    click_hex(page, "H8")
    # Entered in this order, the first placer keeps it (C-3); the page shows the choice to change.
    assert page.locator("#ask-sec").is_visible() and "I8" in page.locator("#ask").inner_text()
    assert state(page, "S.result.castles.find((c) => c.castle === 'dunrobin').holder") == 0
    settle(page, lambda: page.select_option("#ask-dunrobin", "1"))
    assert state(page, "S.result.castles.find((c) => c.castle === 'dunrobin').holder") == 1
    # A position that does not say: the scores wait for the answer.
    pos = state(page, "S.pos")
    pos["castles"] = {}
    page.locator("#json").fill(json.dumps(pos))
    settle(page, lambda: page.locator("#import").click())
    assert state(page, "S.result") is None and state(page, "S.ask[0].id") == "dunrobin"
    settle(page, lambda: page.select_option("#ask-dunrobin", "0"))
    assert state(page, "S.result.castles.find((c) => c.castle === 'dunrobin').holder") == 0

    # Ireland, by clicking: the same numbers as `rebirth score` on the export (E-4 tie on Tara).
    settle(page, lambda: page.select_option("#board", "ireland"))
    for seat, tile, hx in [(2, "F", "L10"), (0, "S2", "I11"), (1, "F", "I15"), (0, "S1", "J10")]:
        pick(page, seat, tile)
        click_hex(page, hx)
        assert state(page, "S.error") is None, (hx, state(page, "S.error"))
    settle(page, lambda: page.select_option("#token-hill_of_tara", "mission1"))
    page.locator("#export").click()
    path.write_text(page.locator("#json").input_value(), encoding="utf-8")
    assert main(["score", str(path), "--json"]) == 0
    want = json.loads(capsys.readouterr().out)
    assert want["board"] == "ireland" and want["castles"][3]["holder"] == 1  # Kilkenny, C-1
    shown = page_numbers(page, 3, want["categories"])
    assert shown == {"scores": want["scores"], "breakdown": want["breakdown"]}
    assert state(page, "S.result.winners") == want["winners"]

    # A cut-off fragment: a clear message, the page stays usable on its default board.
    cut = open_page(ctx, url[: len(url) - 40])
    cut.wait_for_function("window.rebirthState.busy === 0")
    assert cut.locator("#alert").is_visible()
    assert "address" in cut.locator("#alert").inner_text()
    cut.select_option("#lang", "de")
    cut.wait_for_function("document.documentElement.lang === 'de' && window.rebirthState.busy === 0")
    assert serious(axe.run(cut)) == []
    assert page.errors == [] and cut.errors == []  # type: ignore[attr-defined]
