"""Issue 16 item 2 in the browser (one context per seat): the page tells its seat when it
becomes their turn — the tab title "(Your turn) …", the favicon badge, the sound they chose —
and takes it back when the turn passes; the seat's notification form sets its webhook, which
then receives that seat's turn with its own link; "My games" in the lobby says whose turn it is."""

from __future__ import annotations

import email
import email.policy
import json
import random
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest
from playwright.sync_api import Page

from browser.kit import LiveServer, new_game, open_page, place_by_click
from server.notifykit import Smtp, receiver, smtp_server, wait_for

YOUR_TURN = "(Your turn) Rebirth"
HIDDEN = "Object.defineProperty(document, 'hidden', { get: () => true });"
"""The page in the background, as the Page Visibility API reports it."""


@pytest.fixture(scope="module")
def mailbox() -> Iterator[Smtp]:
    """A local SMTP server (aiosmtpd) the notification e-mails go to."""
    with smtp_server() as smtp:
        yield smtp


@pytest.fixture(scope="module")
def notify_server(tmp_path_factory: pytest.TempPathFactory, mailbox: Smtp) -> Iterator[LiveServer]:
    """A server whose webhooks may reach this machine (the local receiver) and which mails
    through the local SMTP server."""
    srv = LiveServer(tmp_path_factory.mktemp("notify") / "rebirth.db", webhook_allow_private=True,
                     notify_interval=0.05, notify_retry_s=0.05, smtp_host="127.0.0.1", smtp_port=mailbox.port,
                     notify_grace=0.5)
    srv.start()
    yield srv
    srv.stop()


def seat_token(page: Page, game: str) -> str:
    """The token the page's browser got by claiming its seat (web/seat.js keeps it)."""
    tok: str = page.evaluate(f"""Object.keys(localStorage).filter((k) => k.startsWith('rebirth.seat.{game}.'))
        .map((k) => JSON.parse(localStorage.getItem(k)).token)[0]""")
    assert tok
    return tok


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
        # The waiting seat chooses a sound, a webhook and "every turn" in its form (its page is
        # open and visible: with the default "away" it would get no notice, issue 25 item 6).
        w = pages[other]
        w.locator("#notify-sound").check()
        w.fill("#notify-webhook", rec.url("/waiting"))
        w.locator("#notify-policy-every").check()
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
        assert body["url"] == f"{notify_server.url}/game/{res['game']}?seat={other}"
        for secret in [u.split("#i=")[1] for u in links] + [seat_token(p, res["game"]) for p in pages]:
            assert secret not in rec.hits[0].body.decode()
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




def mail_text(data: bytes) -> str:
    msg = email.message_from_bytes(data, policy=email.policy.default)
    body = msg.get_body(("plain",))
    assert body is not None
    content: str = body.get_content()
    return content


def test_a_turn_based_game_notifies_each_turn_once_by_webhook_and_email(
        notify_server: LiveServer, mailbox: Smtp, new_context: Any) -> None:
    """Issue 16 must-show: a turn-based game played in two browser contexts (one per seat) where
    a webhook receiver and a local SMTP server each get exactly one notification per turn of
    their seat, holding that seat's link and no other seat's token — with the pages in the
    background (``document.hidden``: issue 25 item 6 tells nobody who is looking)."""
    with receiver() as rec:
        mails = ["ailsa@example.org", "brodie@example.org"]
        res = new_game(notify_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
            {"kind": "human", "name": "Ailsa", "notify": {"webhook": rec.url("/0"), "email": mails[0]}},
            {"kind": "human", "name": "Brodie", "notify": {"webhook": rec.url("/1"), "email": mails[1]}}]})
        links = [s["url"] for s in res["links"]["seats"]]
        ctxs = [new_context() for _ in links]
        for c in ctxs:
            c.add_init_script(HIDDEN)
        pages = [open_page(c, u) for c, u in zip(ctxs, links, strict=True)]
        # No secret in a notification: neither invitation nor any seat's token.
        secrets = [u.split("#i=")[1] for u in links] + [seat_token(p, res["game"]) for p in pages]
        rng = random.Random(5)
        turns = [0, 0]

        def got(seat: int) -> tuple[int, int]:
            return (len(rec.on(f"/{seat}")), sum(mails[seat] in m.rcpt for m in mailbox.box))

        def told(seat: int) -> bool:
            return got(seat) == (turns[seat], turns[seat])

        last = whose(pages)
        turns[last] += 1
        while sum(turns) < 7:
            assert wait_for(partial(told, last), timeout=15), (turns, got(0), got(1))
            place_by_click(pages[last], rng, until_mine=False)
            now = whose(pages)
            if now != last:
                turns[now] += 1
                last = now
        assert wait_for(partial(told, last), timeout=15)
        pages[0].wait_for_timeout(500)  # a second notification would have arrived by now
        assert [got(0), got(1)] == [(turns[0], turns[0]), (turns[1], turns[1])]
        for seat in (0, 1):
            texts = [h.body.decode() for h in rec.on(f"/{seat}")] + [
                mail_text(m.data) for m in mailbox.box if mails[seat] in m.rcpt]
            for raw in texts + [m.data.decode() for m in mailbox.box if mails[seat] in m.rcpt]:
                assert not any(s in raw for s in secrets)
            for text in texts:
                assert f"/game/{res['game']}?seat={seat}" in text
        for p in pages:
            assert p.errors == []  # type: ignore[attr-defined]


def test_the_browser_notification_when_permitted_and_the_page_is_hidden(notify_server: LiveServer,
                                                                       new_context: Any) -> None:
    """Issue 16 item 2: "the browser's Notification API when permitted" — a seat that chose it,
    in a browser that allows it, gets one notification when its turn comes while the page is in
    the background (here: `document.hidden` reported true)."""
    res = new_game(notify_server, {"board": "scotland", "players": 2, "lang": "en", "seats": [
        {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}]})
    links = [s["url"] for s in res["links"]["seats"]]
    ctxs = [new_context(permissions=["notifications"]) for _ in links]
    for c in ctxs:
        c.add_init_script("Object.defineProperty(document, 'hidden', { get: () => true });"
                          "window.__shown = [];"
                          "const N = window.Notification;"
                          "window.Notification = class extends N { constructor(t, o) { super(t, o);"
                          " window.__shown.push(t); } };"
                          "Object.defineProperty(window.Notification, 'permission',"
                          " { get: () => 'granted' });")
    pages = [open_page(c, u) for c, u in zip(ctxs, links, strict=True)]
    mover = whose(pages)
    w = pages[1 - mover]
    w.locator("#notify-browser").check()
    assert w.evaluate("JSON.parse(localStorage.getItem(Object.keys(localStorage).find("
                      "(k) => k.startsWith('rebirth.notify.')))).browser") is True
    rng = random.Random(11)
    while whose(pages) == mover:
        place_by_click(pages[mover], rng, until_mine=False)
    w.wait_for_function(f"document.title === {json.dumps(YOUR_TURN)}")
    assert w.evaluate("window.__shown") == [YOUR_TURN]
    assert pages[mover].evaluate("window.__shown") == []  # it did not choose them
