"""The account page sends the player on vacation in every turn-clock game at once and brings them
back (issue 26 item 3, as BGA's vacation mode does): one period, its days counted once; at
390x844 in English and German (screenshots kept for a person to look at)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page

from browser.kit import SHOTS, LiveServer, open_page, server_and_store
from browser.test_bot_accounts import _signed_in
from rebirth.server.persistence.store import Store


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Store]]:
    with server_and_store(tmp_path_factory.mktemp("vacation") / "rebirth.db") as both:
        yield both


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=False)


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_account_page_goes_on_vacation_in_every_turn_game(new_context: object,
                                                               server: tuple[LiveServer, Store],
                                                               lang: str) -> None:
    srv, store = server
    ctx, _acct, headers = _signed_in(new_context, srv, store, f"vera-{lang}@example.org",
                                     f"Vera{lang.upper()}", lang)
    games = []
    for _ in range(2):
        r = httpx.post(f"{srv.url}/api/games", headers=headers, timeout=10, json={
            "players": 2, "lang": lang, "seats": [{"kind": "human", "account": "me"}, {"kind": "human"}],
            "clock": {"kind": "turn", "per_move_s": 86400}})
        assert r.status_code == 201, r.text
        games.append(r.json()["game"])
    page = open_page(ctx, f"{srv.url}/account")
    page.set_viewport_size({"width": 390, "height": 844})
    button = page.locator("#vacation-all")
    go = {"en": "Go on vacation in all my games", "de": "In allen meinen Partien in Urlaub gehen"}[lang]
    assert button.inner_text() == go
    box = button.bounding_box()
    assert box is not None and box["height"] >= 44  # a phone's touch target
    button.click()
    went = {"en": "On vacation in 2 games with a turn clock.",
            "de": "Im Urlaub in 2 Partien mit Zuguhr."}[lang]
    page.wait_for_function(f"document.getElementById('status').textContent === {went!r}")
    assert button.inner_text() == {"en": "I am back", "de": "Ich bin zurück"}[lang]
    assert page.locator("#vacation-state").inner_text()
    for g in games:
        clock = httpx.get(f"{srv.url}/api/games/{g}", timeout=10).json()["clock"]
        assert clock["away"][0] is True
    page.locator("#vacation-year").scroll_into_view_if_needed()
    _shot(page, f"account-vacation-phone-{lang}.png")
    button.click()
    page.wait_for_function("document.getElementById('vacation-all').dataset.away === ''")
    for g in games:
        assert httpx.get(f"{srv.url}/api/games/{g}", timeout=10).json()["clock"]["away"][0] is False
    assert not page.errors  # type: ignore[attr-defined]
