"""Links that work where the players are (issue 15 item 1): with REBIRTH_PUBLIC_URL the
lobby's links start with it and open the game; opened on a loopback address the lobby warns
that its links work on this computer only; a bot's seat has no link row (issue 16 item 5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Playwright

from browser.kit import ARGS, CHROMIUM, LiveServer, _free_port, save_png


def _create(page: Page, base: str) -> list[str]:
    page.goto(base + "/")
    page.wait_for_selector("#kind2")
    page.select_option("#kind1", "human")  # seats: human, human, a normal bot
    page.click("#create")
    page.wait_for_selector("#links-sec:not([hidden])")
    return [v for v in page.locator("#links input.url").evaluate_all("els => els.map(e => e.value)")]


def test_public_url_builds_the_links(playwright_instance: Playwright, tmp_path: Path) -> None:
    port = _free_port()
    public = f"http://play.example.test:{port}"
    srv = LiveServer(tmp_path / "g.db", port=port, public_url=public)
    srv.start()
    # The browser resolves the public name to this machine, as a friend's DNS would.
    browser = playwright_instance.chromium.launch(
        executable_path=CHROMIUM, headless=True,
        args=[*ARGS, "--host-resolver-rules=MAP play.example.test 127.0.0.1"])
    try:
        page = browser.new_context().new_page()
        urls = _create(page, srv.url)
        assert urls and all(u.startswith(public + "/game/") for u in urls), urls
        # Two humans and a bot: two seat links, the spectator and the admin link.
        assert len(urls) == 4
        assert page.locator("#links-local").is_hidden()
        assert "null" not in page.locator("#links").inner_text()
        save_png(page, "links-public.png")
        page.goto(urls[0])
        page.wait_for_selector("body[data-ready='1']")
        assert page.url.startswith(public + "/game/")
        # The seat's own view arrived over the WebSocket of the public address.
        page.wait_for_function("document.querySelectorAll('#board .hex').length > 0")
        save_png(page, "links-public-game.png")
    finally:
        browser.close()
        srv.stop()


def test_loopback_links_say_they_work_here_only(live_server: LiveServer, new_context: Any) -> None:
    page = new_context().new_page()
    urls = _create(page, live_server.url)
    assert all(u.startswith(live_server.url + "/game/") for u in urls)
    assert page.locator("#links-local").is_visible()
    assert "--host 0.0.0.0" in page.locator("#links-local").inner_text()
    assert len(urls) == 4 and "null" not in page.locator("#links").inner_text()
