"""The calculator and Ireland's castle missions (issue 26 item 6; I-10, C-1, C-2): who
fulfilled a castle mission earlier can be marked (castles can be lost again, so the tiles
cannot say), the heat map then does not pay it again, and a fulfilment the tiles gave goes
when the tile that gave it is erased. Phone 390x844 (the marks are 44 px targets) and desktop."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page

from browser.kit import LiveServer, open_page, save_png, state
from browser.test_calculator import click_hex, pick, settle

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def fulfilled(page: Page, mid: str) -> list[int]:
    got: list[int] = state(page, f"S.result.public.find((p) => p.card === '{mid}').fulfilled")
    return got


def heat_at(page: Page, hex_: str, tile: str) -> int:
    got: int = state(page, f"S.result.heat.cells.find((c) => c.hex === '{hex_}' && c.tile === '{tile}')"
                           ".points[S.result.heat.seat]")
    return got


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_castle_missions_marked_paid_and_unmarked_by_erasing(live_server: LiveServer, new_context: Any,
                                                             viewport: dict[str, int]) -> None:
    ctx = new_context(viewport=viewport)
    page = open_page(ctx, live_server.url + "/calculator")
    settle(page, lambda: page.select_option("#board", "ireland"))
    settle(page, lambda: page.select_option("#players", "2"))
    # I09 (2 castles at once) on display in place of I08 (S-8: always 8 on display), imported.
    pos = state(page, "S.pos")
    pos["display"] = [m if m != "I08" else "I09" for m in pos["display"]]
    page.locator("#json").fill(json.dumps(pos))
    settle(page, lambda: page.locator("#import").click())
    assert state(page, "S.pos.display").count("I09") == 1
    # E19 lies next to Blarney and Ross: one farm there takes both (C-1), which meets I09.
    unpaid = heat_at(page, "E19", "F")
    pick(page, 0, "F")
    click_hex(page, "E19")
    assert fulfilled(page, "I09") == [0]
    # Erased: the tiles no longer meet it and nobody marked it, so nobody has fulfilled it.
    page.locator("#pick-tile input[value='erase']").check()
    click_hex(page, "E19")
    assert fulfilled(page, "I09") == []
    assert heat_at(page, "E19", "F") == unpaid
    # Marked as fulfilled earlier by seat A: listed although the tiles do not meet it, and the
    # heat map no longer pays its 6 points (I-10: once per seat) for the same farm.
    box = page.locator("[data-paid='I09'][data-seat='0']")
    if viewport is PHONE:
        label = box.locator("xpath=..").bounding_box()
        assert label is not None and label["height"] >= 44, label
    settle(page, lambda: box.check(force=True))
    assert fulfilled(page, "I09") == [0]
    assert state(page, "S.pos.fulfilled") == {"I09": [0]}
    assert heat_at(page, "E19", "F") == unpaid - 6
    save_png(page, f"calc-castle-paid-{'phone' if viewport is PHONE else 'desktop'}.png")
    # The mark is part of the address: a reload keeps it, and unmarking gives the points back.
    page.reload()
    page.wait_for_function("window.rebirthState.busy === 0 && window.rebirthState.pos?.board === 'ireland'")
    assert state(page, "S.paid") == {"I09": [0]} and fulfilled(page, "I09") == [0]
    settle(page, lambda: page.locator("[data-paid='I09'][data-seat='0']").uncheck())
    assert fulfilled(page, "I09") == [] and heat_at(page, "E19", "F") == unpaid
    assert page.errors == []  # type: ignore[attr-defined]
