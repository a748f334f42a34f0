"""Clock changes need agreement in the browser (issue 26 item 6), one context per seat: one
player asks for more time, the other sees the proposal with Accept/Decline (44 px on a phone)
and nothing changes until they accept; a decline drops the next one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from browser.kit import LiveServer, new_game, open_page

SHOTS = Path(os.environ.get("REBIRTH_SHOTS_FRICTIONS", "/tmp/shots/frictions-server"))
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def test_a_clock_change_waits_for_the_other_player(live_server: LiveServer, new_context: Any) -> None:
    res = new_game(live_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}],
        "clock": {"kind": "realtime", "initial_s": 600, "increment_s": 0}})
    a = open_page(new_context(), res["links"]["seats"][0]["url"])
    b = open_page(new_context(**PHONE), res["links"]["seats"][1]["url"])
    a.locator("#clock-add").click()
    a.wait_for_selector("#clock-proposal")
    assert "Brodie" in (a.locator("#clock-proposal").text_content() or "")
    assert a.locator("#clock-accept").count() == 0 and a.locator("#clock-withdraw").count() == 1
    b.wait_for_selector("#clock-proposal #clock-accept")
    assert "Ailsa asks to add 1:00 for everyone." in (b.locator("#clock-proposal").text_content() or "")
    for sel in ("#clock-accept", "#clock-decline"):
        box = b.locator(sel).bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44, (sel, box)
    SHOTS.mkdir(parents=True, exist_ok=True)
    b.locator("#clock-proposal").scroll_into_view_if_needed()
    b.screenshot(path=str(SHOTS / "clock-proposal-phone.png"))
    assert a.evaluate("window.rebirthClock.frame.left[0]") <= 600  # nothing changed yet
    b.locator("#clock-accept").click()
    for p in (a, b):
        p.wait_for_function("window.rebirthClock.frame.left[0] > 600 && !window.rebirthClock.frame.proposal")
        p.wait_for_selector("#log li.ev-clock.clock-added")
    # Brodie asks to turn it off; Ailsa declines: the clock stays on.
    b.locator("#clock-off").click()
    a.wait_for_selector("#clock-proposal #clock-decline")
    a.screenshot(path=str(SHOTS / "clock-proposal-desktop.png"))
    a.locator("#clock-decline").click()
    for p in (a, b):
        p.wait_for_function("window.rebirthClock.frame.enabled && !window.rebirthClock.frame.proposal")
        p.wait_for_selector("#log li.ev-clock.clock-declined")
    assert not a.errors and not b.errors  # type: ignore[attr-defined]
