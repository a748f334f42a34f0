"""Helpers of the browser tests: the in-process server, pages, screenshots, clicking a tile."""

from __future__ import annotations

import os
import random
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from playwright.sync_api import BrowserContext, Page

from rebirth.server.app import create_app
from rebirth.server.persistence.store import Store
from rebirth.server.settings import Settings, sqlite_url
from server.kit import UNLIMITED

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

    def __init__(self, db: Path, seed: int | None = None, port: int | None = None,
                 **extra: Any) -> None:
        self.port = port or _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        # No rate limit or cap unless a test asks for one (server/kit.py UNLIMITED).
        base: dict[str, Any] = {"database_url": sqlite_url(db), "bot_delay": 0.0, "offline_grace": 0.5}
        settings = Settings(**{**base, **UNLIMITED, **extra})
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


# Screenshots go to a git-ignored folder, so running the suite leaves a clone clean;
# scripts/refresh-images.sh copies them into docs/img/ when the README's images should change.
SHOTS = Path(os.environ.get("REBIRTH_SHOTS", ROOT / "test-output" / "screenshots"))


def save_png(page: Page, name: str) -> Path:
    """A screenshot into SHOTS (test-output/screenshots/), written atomically."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    out = SHOTS / name
    tmp = out.with_suffix(".tmp.png")
    page.screenshot(path=str(tmp), full_page=False)
    os.replace(tmp, out)
    return out


def state(page: Page, expr: str) -> Any:
    """Evaluate `expr` with `S` bound to the page's state object."""
    return page.evaluate(f"(() => {{ const S = window.rebirthState; return {expr}; }})()")


TURN_DONE = ("(v) => window.rebirthState.version > v && "
             "(document.body.dataset.turn === 'mine' || document.body.dataset.phase === 'end')")


def token_of(url: str) -> str:
    return url.split("#t=", 1)[1]


def place_by_click(page: Page, rng: random.Random, prefer: set[str] | None = None, *,
                   until_mine: bool = True) -> str:
    """Click a highlighted space (preferring `prefer`), then the confirm button; return the label."""
    legal = page.locator("#board g.space.legal")
    labels = [legal.nth(i).get_attribute("data-label") or "" for i in range(legal.count())]
    assert labels, "no legal space is highlighted on my turn"
    wanted = [x for x in labels if prefer and x in prefer]
    label = rng.choice(wanted or labels)
    before = state(page, "S.version")
    page.locator(f"#board g.space[data-label='{label}'] polygon.hex").click()
    if state(page, "S.prefs.confirm"):
        page.locator("#confirm-yes").click()
    try:
        if until_mine:
            page.wait_for_function(TURN_DONE, arg=before)
        else:
            page.wait_for_function("(v) => window.rebirthState.version > v", arg=before)
    except Exception as exc:
        why = diagnose(page)
        raise AssertionError(f"placing on {label} at version {before} got no answer: {why}") from exc
    return label


def diagnose(page: Page) -> str:
    """What the page holds, for a failure message."""
    return str(state(page, "JSON.stringify({v: S.version, seat: S.seat, sent: S.sent, error: S.error, "
                     "phase: S.view && S.view.phase, cur: S.view && S.view.current_player, "
                     "status: document.getElementById('status').textContent, "
                     "conn: document.getElementById('conn').textContent})"))


def stored_tokens(page: Page) -> dict[str, str]:
    """The seat tokens this browser holds (local storage, web/seat.js): key → token."""
    out: dict[str, str] = page.evaluate(
        "Object.fromEntries(Object.keys(localStorage).filter((k) => k.startsWith('rebirth.seat.'))"
        ".map((k) => [k, JSON.parse(localStorage.getItem(k)).token]))")
    return out


@contextmanager
def server_and_store(db: Path) -> Iterator[tuple[LiveServer, Store]]:
    """A started server on the SQLite file ``db`` and a store of that file (for tests that
    make accounts or sessions directly); both closed at the end."""
    srv = LiveServer(db)
    srv.start()
    store = Store(sqlite_url(db))
    try:
        yield srv, store
    finally:
        store.close()
        srv.stop()
