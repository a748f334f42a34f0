"""Browser tests: the server in-process (uvicorn in a thread, temp SQLite, no bot delay) and
Debian's Chromium driven by Playwright. A missing Chromium fails these tests: CI installs it
with scripts/install-browser.sh."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from rebirth.server.app import create_app
from rebirth.server.settings import Settings, sqlite_url

CHROMIUM = os.environ.get("REBIRTH_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LiveServer:
    """A running server: its base URL and the thread serving it."""

    def __init__(self, db: Path, seed: int | None = None) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        settings = Settings(database_url=sqlite_url(db), bot_delay=0.0)
        # A fixed seed makes a scripted game reproducible; None deals from secret seeds.
        app = create_app(settings, seed_factory=None if seed is None else (lambda: seed))
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port,
                                log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


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
        ctx = browser.new_context(viewport=kw.pop("viewport", {"width": 1280, "height": 860}),
                                  reduced_motion="reduce", **kw)
        ctx.set_default_timeout(15000)
        made.append(ctx)
        return ctx

    yield make
    for c in made:
        c.close()


def open_page(ctx: BrowserContext, url: str) -> Page:
    """Open `url` and wait until the page has loaded its data."""
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page


def new_game(server: LiveServer, body: dict[str, Any]) -> dict[str, Any]:
    """Create a game through the REST lobby."""
    r = httpx.post(server.url + "/api/games", json=body, timeout=10)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def save_png(page: Page, name: str) -> Path:
    """A screenshot into docs/img/, written atomically."""
    out = ROOT / "docs" / "img" / name
    tmp = out.with_suffix(".tmp.png")
    page.screenshot(path=str(tmp), full_page=False)
    os.replace(tmp, out)
    return out


def state(page: Page, expr: str) -> Any:
    """Evaluate `expr` with `S` bound to the page's state object."""
    return page.evaluate(f"(() => {{ const S = window.rebirthState; return {expr}; }})()")
