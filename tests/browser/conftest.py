"""Browser tests: the server in-process (uvicorn in a thread, temp SQLite, no bot delay) and
Debian's Chromium driven by Playwright. A missing Chromium fails these tests: CI installs it
with scripts/install-browser.sh."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Playwright, sync_playwright

from browser.kit import ARGS, CHROMIUM, LiveServer


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    srv = LiveServer(tmp_path_factory.mktemp("server") / "rebirth.db")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def seeded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server dealing every game from seed 7 (scripted games)."""
    srv = LiveServer(tmp_path_factory.mktemp("seeded") / "rebirth.db", seed=7)
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def playwright_instance() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        # Never a skip: these tests must run in CI (scripts/install-browser.sh installs it).
        pytest.fail(f"Chromium is missing at {CHROMIUM}: run scripts/install-browser.sh")
    b = playwright_instance.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
    yield b
    b.close()


@pytest.fixture
def new_context(browser: Browser) -> Iterator[Any]:
    """Make browser contexts (one per seat); all are closed after the test."""
    made: list[BrowserContext] = []

    def make(**kw: Any) -> BrowserContext:
        # Playwright's wait_for_function polls its predicate with eval inside the page, which the
        # server's strict CSP forbids; test_csp.py opens every page without this bypass.
        ctx = browser.new_context(viewport=kw.pop("viewport", {"width": 1280, "height": 860}),
                                  reduced_motion="reduce", bypass_csp=kw.pop("bypass_csp", True), **kw)
        ctx.set_default_timeout(30000)
        made.append(ctx)
        return ctx

    yield make
    for c in made:
        c.close()

