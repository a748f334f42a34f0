"""Issue 16 item 2 in the browser (one context per seat): the page tells its seat when it
becomes their turn — the tab title "(Your turn) …", the favicon badge, the sound they chose —
and takes it back when the turn passes; the seat's notification form sets its webhook, which
then receives that seat's turn with its own link; "My games" in the lobby says whose turn it is."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page

from browser.kit import LiveServer, new_game, open_page, place_by_click, token_of
from server.notifykit import receiver, wait_for

YOUR_TURN = "(Your turn) Rebirth"


@pytest.fixture(scope="module")
def notify_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose webhooks may reach this machine (the local receiver)."""
    srv = LiveServer(tmp_path_factory.mktemp("notify") / "rebirth.db", webhook_allow_private=True,
                     notify_interval=0.05, notify_retry_s=0.05)
    srv.start()
    yield srv
    srv.stop()


def whose(pages: list[Page]) -> int:
    for _ in range(200):
        for i, p in enumerate(pages):
            if p.evaluate("document.body.dataset.turn") == "mine":
                return i
        pages[0].wait_for_timeout(100)
    raise AssertionError("nobody's turn")


def test_the_tab_title_and_badge_change_when_it_becomes_your_turn(notify_server: LiveServer,
                                                                   new_context: Any) -> None:
    res = new_game(notify_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}]})
    links = [s["url"] for s in res["links"]["seats"]]
    pages = [open_page(new_context(), u) for u in links]
    rng = random.Random(3)
    with receiver() as rec:
        mover = whose(pages)
        other = 1 - mover
        pages[mover].wait_for_function(f"document.title === {json.dumps(YOUR_TURN)}")
        assert pages[other].title() == "Rebirth"
        icon = "document.querySelector(\"link[rel='icon']\").href"
        assert pages[mover].evaluate(icon).startswith("data:image/svg")
        assert pages[other].evaluate(icon) == "data:,"
        # The waiting seat chooses a sound and a webhook in its form.
        w = pages[other]
        w.locator("#notify-sound").check()
        w.fill("#notify-webhook", rec.url("/waiting"))
        w.locator("#notify-save").click()
        w.wait_for_function("document.getElementById('notify-msg').textContent === 'Saved.'")
        # A bad address: a clear error in the form, nothing changes.
        w.fill("#notify-webhook", "ftp://example.org/x")
        w.locator("#notify-save").click()
        w.wait_for_function("document.getElementById('notify-msg').textContent.includes('http')")
        signals = "import('/static/notify.js').then((m) => m.turnSignal.signals.sounds)"
        sounds = w.evaluate(signals)
        # The mover plays until the turn passes: the other page's title and badge change.
        while whose(pages) == mover:
            place_by_click(pages[mover], rng, until_mine=False)
        w.wait_for_function(f"document.title === {json.dumps(YOUR_TURN)}")
        assert w.evaluate("document.body.dataset.badge") == "turn"
        pages[mover].wait_for_function("document.title === 'Rebirth'")
        assert pages[mover].evaluate("document.body.dataset.badge") == ""
        assert w.evaluate(signals) == sounds + 1
        # The webhook the page saved got this turn, with that seat's own link only.
        assert wait_for(lambda: len(rec.on("/waiting")) == 1)
        body = json.loads(rec.hits[0].body)
        assert body["url"].endswith(token_of(links[other]))
        assert token_of(links[mover]) not in rec.hits[0].body.decode()
        for p in pages:
            assert p.errors == []  # type: ignore[attr-defined]

        # "My games" in the lobby of the waiting seat's browser: its turn, the other's not.
        lobby = w.context.new_page()
        lobby.goto(notify_server.url + "/")
        lobby.wait_for_selector(f"#mine li[data-game='{res['game']}'] .mine-status")
        assert lobby.inner_text(f"#mine li[data-game='{res['game']}'] .mine-status") == "your turn"
        lobby2 = pages[mover].context.new_page()
        lobby2.goto(notify_server.url + "/")
        lobby2.wait_for_selector(f"#mine li[data-game='{res['game']}'] .mine-status")
        waiting = ["Ailsa", "Brodie"][other]
        assert lobby2.inner_text(f"#mine li[data-game='{res['game']}'] .mine-status") == f"{waiting}'s turn"


