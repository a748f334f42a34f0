"""The leaderboard and a player's public profile (issue 25 items 3 and 4) in Chromium, on a
phone (390×844) and a desktop: the board × player count selectors, the rating history chart
(an inline SVG drawn by web/ratingchart.js), touch targets of at least 44 CSS px, no CSP
violation and no page error. The accounts are the stand-ins of tests/server/ratingskit.py."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from browser.kit import LiveServer, new_game, open_page, save_png, state
from rebirth.server.persistence import ratings as rs
from rebirth.server.persistence.store import Store
from server import ratingskit

RECORD = """window.__csp = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));"""
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 860}
HUMANS = [{"kind": "human", "name": "A"}, {"kind": "human", "name": "B"}]


@pytest.fixture(scope="module")
def rated_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose database has three accounts and a few finished games, rated and not."""
    db = tmp_path_factory.mktemp("ratings") / "rebirth.db"
    srv = LiveServer(db)
    srv.start()
    store = Store(f"sqlite:///{db}")
    try:
        ids = {n: ratingskit.account(store, n) for n in ("Aoife", "Brian", "Ciara")}
        plan = [("Aoife", "Brian", (131, 117), True), ("Aoife", "Ciara", (142, 120), True),
                ("Brian", "Aoife", (125, 128), True), ("Aoife", "Brian", (150, 101), True),
                ("Ciara", "Brian", (110, 118), True), ("Brian", "Ciara", (133, 99), True),
                ("Aoife", "Ciara", (97, 140), True), ("Ciara", "Aoife", (121, 121), False),
                ("Aoife", "Brian", (139, 126), True)]
        for a, b, scores, rated in plan:
            gid = new_game(srv, {"board": "scotland", "players": 2, "seats": HUMANS})["game"]
            ratingskit.seat(store, gid, 0, ids[a])
            ratingskit.seat(store, gid, 1, ids[b])
            ratingskit.rated(store, gid, ids[a], rated)
            winners = (0,) if scores[0] > scores[1] else (1,) if scores[1] > scores[0] else (0, 1)
            rs.record_result(store, rs.FinalResult(gid, "scotland", 2, scores, winners))
            rs.rate_game(store, gid)
            time.sleep(0.01)
        # One Ireland three-player game against two bots.
        gid = new_game(srv, {"board": "ireland", "players": 3,
                             "seats": [{"kind": "human"}, {"kind": "normal"}, {"kind": "easy"}]})["game"]
        ratingskit.seat(store, gid, 0, ids["Aoife"])
        ratingskit.rated(store, gid, ids["Aoife"])
        rs.record_result(store, rs.FinalResult(gid, "ireland", 3, (160, 150, 120), (0,)))
        rs.rate_game(store, gid)
    finally:
        store.close()
    yield srv
    srv.stop()


def _small_targets(page: Any) -> list[str]:
    """Every visible select, button and link in the main part smaller than 44×44 CSS px."""
    found: list[str] = page.evaluate("""() => [...document.querySelectorAll('select, button, main a')]
      .filter((e) => e.offsetParent !== null)
      .map((e) => [e.id || e.textContent.trim(), e.getBoundingClientRect()])
      .filter(([, r]) => r.width < 44 || r.height < 44)
      .map(([n, r]) => `${n} ${Math.round(r.width)}x${Math.round(r.height)}`)""")
    return found


@pytest.mark.parametrize("viewport,tag", [(PHONE, "phone"), (DESKTOP, "desktop")])
def test_the_leaderboard_best_first_with_its_selectors(rated_server: LiveServer, new_context: Any,
                                                       viewport: dict[str, int], tag: str) -> None:
    ctx = new_context(viewport=viewport, bypass_csp=False)
    ctx.add_init_script(RECORD)
    page = open_page(ctx, f"{rated_server.url}/leaderboard?lang=en")
    api = httpx.get(f"{rated_server.url}/api/ratings", params={"board": "scotland", "players": 2}).json()
    names = [r["name"] for r in api["ratings"]]
    assert names[0] == "Aoife" and len(names) == 3
    rows = page.locator("#rows tr")
    assert rows.count() == 3
    assert [rows.nth(i).locator("td").nth(1).inner_text() for i in range(3)] == names
    save_png(page, f"leaderboard-{tag}.png")
    assert _small_targets(page) == []
    # Ireland, three players: Aoife has one rated game there, fewer than the minimum.
    page.select_option("#board", "ireland")
    page.select_option("#players", "3")
    page.wait_for_selector("#board-table[hidden]", state="attached")
    assert "ireland" in page.url and "players=3" in page.url
    assert page.locator("#status").inner_text().strip() != ""
    # A player's link opens the profile.
    page.select_option("#board", "scotland")
    page.select_option("#players", "2")
    page.wait_for_selector("#rows tr")
    page.locator("#rows tr a").first.click()
    page.wait_for_selector("body[data-ready='1']")
    assert page.url.endswith("/players/Aoife")
    assert page.evaluate("() => window.__csp") == []
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("viewport,tag", [(PHONE, "phone"), (DESKTOP, "desktop")])
def test_a_profile_shows_statistics_and_a_rating_chart(rated_server: LiveServer, new_context: Any,
                                                       viewport: dict[str, int], tag: str) -> None:
    ctx = new_context(viewport=viewport, bypass_csp=False)
    ctx.add_init_script(RECORD)
    page = open_page(ctx, f"{rated_server.url}/players/aoife?lang=en")
    p = state(page, "S.profile")
    assert p["name"] == "Aoife"
    assert page.locator("#who").inner_text() == "Aoife"
    assert page.locator("#stats tr").count() == 2  # Ireland 3p and Scotland 2p
    scot = next(s for s in p["stats"] if s["board"] == "scotland")
    assert scot["games"] == 7 and scot["rated_games"] == 6
    # The chart: one dot per rated game plus the rating before the first.
    svg = page.locator("#chart svg")
    assert svg.get_attribute("role") == "img" and "Scotland" in (svg.get_attribute("aria-label") or "")
    assert page.locator("#chart svg circle").count() == len(scot["history"]) + 1
    assert page.locator("#recent li").count() == 8
    page.locator("#chart-sec").scroll_into_view_if_needed()
    save_png(page, f"profile-{tag}.png")
    assert _small_targets(page) == []
    # Another series: Ireland with three players (one rated game: two dots).
    page.select_option("#series", "ireland/3")
    assert page.locator("#chart svg circle").count() == 2
    assert page.evaluate("() => window.__csp") == []
    assert page.errors == []  # type: ignore[attr-defined]


def test_the_pages_speak_german_and_french_and_refuse_an_unknown_player(rated_server: LiveServer,
                                                                       new_context: Any) -> None:
    ctx = new_context(viewport=PHONE)
    page = open_page(ctx, f"{rated_server.url}/players/Aoife?lang=de")
    assert page.locator("#stats-h").inner_text() == "Statistik"
    save_png(page, "profile-phone-de.png")
    page = open_page(ctx, f"{rated_server.url}/leaderboard?lang=fr")
    assert page.locator("h1 span").inner_text() == "Classement"
    page = open_page(ctx, f"{rated_server.url}/players/Nobody?lang=en")
    assert page.locator("#status").inner_text() == "There is no player of that name."
    assert page.locator("#stats-sec").is_hidden()
    assert page.errors == []  # type: ignore[attr-defined]



@pytest.mark.parametrize("viewport,tag", [(PHONE, "phone"), (DESKTOP, "desktop")])
def test_the_account_page_shows_the_players_history_and_rating_chart(
        rated_server: LiveServer, new_context: Any, viewport: dict[str, int], tag: str) -> None:
    """Issue 25 item 3: the account page itself — ongoing/finished games, per board × players
    the games, win share, average score and rating, and the rating history as a chart."""
    from rebirth.server.accounts.store import new_session
    from rebirth.server.persistence.ratings import account_by_name

    store = rated_server.server.config.app.state.registry.store  # type: ignore[union-attr]
    found = account_by_name(store, "Aoife")
    assert found is not None
    sid = new_session(store, found[0], "browser test")
    ctx = new_context(viewport=viewport, bypass_csp=False)
    ctx.add_init_script(RECORD)
    ctx.add_cookies([{"name": "rebirth_session", "value": sid, "url": rated_server.url}])
    page = open_page(ctx, f"{rated_server.url}/account?lang=en")
    assert page.locator("#games li").count() == 8  # every game of hers
    stats = page.locator("#stats li")
    assert stats.count() == 2 and any("Scotland · 2: 7 games" in x for x in stats.all_inner_texts())
    assert page.locator("#ratings li").count() == 2
    assert page.locator("#chart svg circle").count() >= 2
    assert page.locator("#profile").get_attribute("href") == "/players/Aoife"
    page.locator("#chart-box").scroll_into_view_if_needed()
    save_png(page, f"account-history-{tag}.png")
    assert page.evaluate("() => window.__csp") == []
    assert page.errors == []  # type: ignore[attr-defined]
