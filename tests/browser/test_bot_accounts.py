"""Bot accounts in a real browser (issue 27 item 2): the account page's "Bot account" section
upgrades the account (after a confirmation), shows the API token once and revokes it; the
"BOT" badge stands next to the bot account's name on the game page's seats, the player page and
the lobby's open games; English and German. Screenshots go to /tmp/shots/botapi2/."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page

from browser.kit import LiveServer, open_page, server_and_store
from rebirth.server.accounts.store import account_for_email, new_session, rename
from rebirth.server.persistence.store import Store

SHOTS = Path("/tmp/shots/botapi2")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Store]]:
    with server_and_store(tmp_path_factory.mktemp("botaccounts") / "rebirth.db") as both:
        yield both


def _signed_in(
    new_context: object, srv: LiveServer, store: Store, email: str, name: str, lang: str = "en"
) -> tuple[BrowserContext, str, dict[str, str]]:
    acct = account_for_email(store, email, lang)
    assert rename(store, acct.id, name)
    sid = new_session(store, acct.id, "browser test")
    ctx: BrowserContext = new_context(locale=lang)  # type: ignore[operator]
    ctx.add_cookies([{"name": "rebirth_session", "value": sid, "url": srv.url}])
    ctx.add_init_script(f"localStorage.setItem('rebirth.lang', '{lang}')")
    return ctx, acct.id, {"Cookie": f"rebirth_session={sid}", "Origin": srv.url}


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_account_page_makes_a_bot_account_and_the_badge_shows(
    new_context: object, server: tuple[LiveServer, Store], lang: str
) -> None:
    srv, store = server
    ctx, _bot_id, _ = _signed_in(
        new_context, srv, store, f"robo-{lang}@example.org", f"Robo{lang.upper()}", lang
    )
    page = open_page(ctx, f"{srv.url}/account")
    assert page.is_visible("#bot-upgrade") and page.is_hidden("#bot-renew")
    page.once("dialog", lambda d: d.accept())
    page.click("#bot-upgrade")
    page.wait_for_selector("#bot-token-box:not([hidden])")
    token = page.text_content("#bot-token") or ""
    assert token.startswith("bot_")
    assert page.is_visible("#bot-state .bot-badge") and page.is_hidden("#bot-upgrade")
    _shot(page, f"account-bot-{lang}.png")
    # The token works: a challenge by a human, accepted with it, makes a game.
    hctx, _hid, human = _signed_in(
        new_context, srv, store, f"human-{lang}@example.org", f"Human{lang.upper()}", lang
    )
    r = httpx.post(
        f"{srv.url}/api/challenges",
        json={"bot": f"Robo{lang.upper()}", "board": "ireland"},
        headers=human,
        timeout=10,
    )
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    r = httpx.post(
        f"{srv.url}/api/challenges/{cid}/accept", headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    assert r.status_code == 200, r.text
    gid = r.json()["game"]
    game = open_page(hctx, f"{srv.url}/game/{gid}?seat=0")
    game.wait_for_selector("li.player[data-seat='1'] .bot-badge")
    assert game.locator("li.player[data-seat='0'] .bot-badge").count() == 0
    badge = game.locator("li.player[data-seat='1'] .bot-badge")
    assert badge.text_content() == "BOT" and (badge.get_attribute("title") or "")
    # Said once: the badge, not also the "Bot" mark; and whether the program is connected.
    seat1 = game.locator("li.player[data-seat='1']")
    assert seat1.locator(".botmark").count() == 0 and seat1.locator(".dot").count() == 1
    _shot(game, f"game-bot-badge-{lang}.png")
    player = hctx.new_page()
    player.goto(f"{srv.url}/players/Robo{lang.upper()}")
    player.wait_for_selector("#who .bot-badge")
    _shot(player, f"player-bot-badge-{lang}.png")
    human_page = hctx.new_page()
    human_page.goto(f"{srv.url}/players/Human{lang.upper()}")
    human_page.wait_for_function("document.getElementById('who').textContent.includes('Human')")
    assert human_page.locator("#who .bot-badge").count() == 0
    # Revoked from the page: the token is refused.
    page.click("#bot-revoke")
    deadline = time.monotonic() + 10
    while (
        httpx.get(
            f"{srv.url}/api/bot/stream/events",
            params={"limit": 1},
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        ).status_code
        != 401
    ):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    page.wait_for_selector("#bot-revoke:disabled")
    assert page.errors == [] and game.errors == []  # type: ignore[attr-defined]
    ctx.close()
    hctx.close()
