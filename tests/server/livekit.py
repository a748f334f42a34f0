"""A real server for the tests that read an HTTP stream (the bot API's NDJSON): the app served
by uvicorn in a thread on a free loopback port (the TestClient buffers a response whole)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

from rebirth.server.app import create_app
from rebirth.server.play.registry import GameFactory, SeedFactory
from server import kit


@contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """``app`` on a free loopback port; yields its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


@contextmanager
def live(tmp: Path, *, game_factory: GameFactory | None = None, seed_factory: SeedFactory | None = None,
         **kw: Any) -> Iterator[tuple[str, FastAPI]]:
    """A started app on a temporary database (kit.settings) and its base URL."""
    kw.setdefault("bot_keepalive_s", 0.5)
    app = create_app(kit.settings(tmp, **kw), game_factory=game_factory, seed_factory=seed_factory)
    with serving(app) as url:
        yield url, app
