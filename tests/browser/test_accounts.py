"""Accounts in real browsers (issue 25 items 1 and 2; one Chromium context per person): sign-in
by the e-mailed link caught by a local SMTP server, a passkey registered and used with
Chromium's virtual authenticator, the same seat played from a second browser after sign-in, and
a notification's seat link opened in a fresh browser: sign-in, then the seat. The pages are
looked at on a phone (390x844) and a desktop; their controls are 44 px touch targets."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page

from browser.kit import LiveServer, _free_port, place_by_click, save_png, state
from server import notifykit
from server.accountkit import code_of

PHONE = {"width": 390, "height": 844}


class MailServer:
    """A live server on ``localhost`` (a passkey's RP id must be a domain, not an IP) whose
    sign-in mails go to a local SMTP server."""

    def __init__(self, srv: LiveServer, smtp: notifykit.Smtp) -> None:
        self.srv, self.smtp, self.url = srv, smtp, srv.url

    def link(self, n: int, timeout: float = 15.0) -> str:
        """The sign-in link of the ``n``-th mail (1-based)."""
        deadline = time.monotonic() + timeout
        while len(self.smtp.box) < n:
            assert time.monotonic() < deadline, "no sign-in mail came"
            time.sleep(0.05)
        return f"{self.url}/signin#c={code_of(self.smtp.box[n - 1])}"


@pytest.fixture(scope="module")
def mail_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailServer]:
    with notifykit.smtp_server() as smtp:
        port = _free_port()
        srv = LiveServer(tmp_path_factory.mktemp("accounts") / "rebirth.db", port=port,
                         public_url=f"http://localhost:{port}", smtp_host="127.0.0.1", smtp_port=smtp.port)
        srv.url = f"http://localhost:{port}"
        srv.start()
        try:
            yield MailServer(srv, smtp)
        finally:
            srv.stop()


def _open(ctx: BrowserContext, url: str) -> Page:
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    return page


def _signin_by_mail(page: Page, ms: MailServer, address: str) -> None:
    """On the sign-in page: ask for a link, open the mailed link in the same browser."""
    page.wait_for_selector("body[data-ready='1']")
    n = len(ms.smtp.box) + 1
    page.fill("#email", address)
    page.click("#send")
    page.wait_for_selector("#sent:not([hidden])")
    page.goto(ms.link(n))


def _small_targets(page: Page) -> list[str]:
    """The visible controls smaller than 44 px in either direction."""
    out: list[str] = page.evaluate("""() => [...document.querySelectorAll('button, input, select, a')]
      .filter((el) => el.offsetParent !== null)
      .map((el) => [el.id || el.textContent.trim().slice(0, 20), el.getBoundingClientRect()])
      .filter(([, r]) => r.height < 44 || r.width < 44).map(([n, r]) => `${n} ${r.width}x${r.height}`)""")
    return out


def _new_game(ms: MailServer) -> dict[str, Any]:
    seats = [{"kind": "human", "name": "Ailsa"}, {"kind": "easy"}]
    body = {"board": "scotland", "players": 2, "lang": "en", "seats": seats}
    r = httpx.post(ms.url + "/api/games", json=body)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def test_signin_by_the_emailed_link(mail_server: MailServer, new_context: Any) -> None:
    for name, viewport in (("desktop", {"width": 1280, "height": 860}), ("phone", PHONE)):
        ctx = new_context(viewport=viewport)
        page = _open(ctx, mail_server.url + "/signin")
        page.wait_for_selector("body[data-ready='1']")
        assert _small_targets(page) == []
        save_png(page, f"accounts-signin-{name}.png")
        _signin_by_mail(page, mail_server, f"mail-{name}@example.org")
        page.wait_for_url("**/account")
        page.wait_for_selector("body[data-ready='1']")
        assert page.input_value("#name").startswith("Traveller-")
        assert f"mail-{name}@example.org" in page.inner_text("#email")
        assert "#c=" not in page.url
        assert _small_targets(page) == []
        save_png(page, f"accounts-account-{name}.png")
        # The lobby's header names the account.
        lobby = _open(ctx, mail_server.url + "/")
        lobby.wait_for_selector("body[data-ready='1']")
        assert lobby.inner_text("#account-link").startswith("Traveller-")
        assert page.errors == [] and lobby.errors == []  # type: ignore[attr-defined]


def test_a_passkey_registered_and_used(mail_server: MailServer, new_context: Any) -> None:
    ctx = new_context()
    page = _open(ctx, mail_server.url + "/signin")
    cdp = ctx.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True}})
    _signin_by_mail(page, mail_server, "passkey@example.org")
    page.wait_for_url("**/account")
    page.wait_for_selector("body[data-ready='1']")
    me = page.input_value("#name")
    page.click("#add-passkey")
    page.wait_for_selector("#passkeys li[data-passkey]")
    # Signed out, then in again with the passkey alone.
    page.click("#signout")
    page.wait_for_url(mail_server.url + "/")
    page.goto(mail_server.url + "/signin")
    page.wait_for_selector("body[data-ready='1']")
    page.click("#passkey")
    page.wait_for_url("**/account")
    page.wait_for_selector("body[data-ready='1']")
    assert page.input_value("#name") == me
    assert len(mail_server.smtp.box) >= 1
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_same_seat_from_a_second_browser_after_signin(mail_server: MailServer, new_context: Any) -> None:
    g = _new_game(mail_server)
    gid = g["game"]
    home = new_context()
    a = _open(home, g["links"]["seats"][0]["url"])
    a.wait_for_selector("body[data-ready='1']")
    a.wait_for_function("window.rebirthState.seat === 0")
    # Signing in in this browser attaches its seat to the account.
    a.goto(mail_server.url + "/signin")
    _signin_by_mail(a, mail_server, "two@example.org")
    a.wait_for_url("**/account")
    a.wait_for_selector(f"#games li[data-game='{gid}']")
    # A second browser (work): signs in, opens the seat from "My games", plays it.
    work = new_context()
    b = _open(work, mail_server.url + "/signin")
    _signin_by_mail(b, mail_server, "two@example.org")
    b.wait_for_url("**/account")
    b.wait_for_selector(f"#games li[data-game='{gid}'] a")
    b.click(f"#games li[data-game='{gid}'] a")
    b.wait_for_selector("body[data-ready='1']")
    b.wait_for_function("window.rebirthState.seat === 0 && window.rebirthState.view !== null")
    assert state(b, "S.role") == "seat"
    b.wait_for_function("document.body.dataset.turn === 'mine'")
    place_by_click(b, random.Random(1))
    save_png(b, "accounts-second-device-desktop.png")
    # The first browser still holds the seat and sees the move.
    a.goto(f"{mail_server.url}/game/{gid}#s=0")
    a.wait_for_selector("body[data-ready='1']")
    a.wait_for_function("window.rebirthState.seat === 0 && window.rebirthState.version >= 2")
    assert a.errors == [] and b.errors == []  # type: ignore[attr-defined]


def test_a_notification_link_in_a_fresh_browser_signs_in_then_opens_the_seat(
        mail_server: MailServer, new_context: Any) -> None:
    g = _new_game(mail_server)
    gid = g["game"]
    home = new_context()
    a = _open(home, g["links"]["seats"][0]["url"])
    a.wait_for_function("window.rebirthState.seat === 0")
    a.goto(mail_server.url + "/signin")
    _signin_by_mail(a, mail_server, "notice@example.org")
    a.wait_for_url("**/account")
    # The notification's link carries no secret: /game/<id>?seat=0.
    fresh = new_context(viewport=PHONE)
    c = _open(fresh, f"{mail_server.url}/game/{gid}?seat=0")
    c.wait_for_url("**/signin?next=*")
    c.wait_for_selector("#needed:not([hidden])")
    save_png(c, "accounts-signin-needed-phone.png")
    _signin_by_mail(c, mail_server, "notice@example.org")
    c.wait_for_url(f"**/game/{gid}*")
    c.wait_for_selector("body[data-ready='1']")
    c.wait_for_function("window.rebirthState.seat === 0 && window.rebirthState.role === 'seat'")
    assert c.errors == []  # type: ignore[attr-defined]


def test_another_accounts_seat_link_gives_no_seat(mail_server: MailServer, new_context: Any,
                                                  tmp_path: Path) -> None:
    g = _new_game(mail_server)
    gid = g["game"]
    owner = new_context()
    a = _open(owner, g["links"]["seats"][0]["url"])
    a.wait_for_function("window.rebirthState.seat === 0")
    a.goto(mail_server.url + "/signin")
    _signin_by_mail(a, mail_server, "owner@example.org")
    a.wait_for_url("**/account")
    other = new_context()
    b = _open(other, mail_server.url + "/signin")
    _signin_by_mail(b, mail_server, "intruder@example.org")
    b.wait_for_url("**/account")
    b.goto(f"{mail_server.url}/game/{gid}?seat=0")
    b.wait_for_function("document.getElementById('status').textContent.length > 0")
    assert state(b, "S.seat") is None and state(b, "S.view") is None
