"""Several workers in one test: a private redis-server (killable, restartable), two apps on one
PostgreSQL database, and sockets read with a timeout so that a lost message fails a test
instead of hanging it."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import redis
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from server import kit, pgkit


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """A redis-server of this test alone, without persistence, on a free loopback port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if redis.Redis.from_url(self.url, socket_connect_timeout=0.2).ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        """Kill it (SIGKILL: whatever was in flight is lost, as in a crash)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None


@contextmanager
def redis_server() -> Iterator[RedisServer]:
    r = RedisServer()
    r.start()
    try:
        yield r
    finally:
        r.stop()


@contextmanager
def database() -> Iterator[str]:
    """A fresh PostgreSQL database (pgkit)."""
    with pgkit.database() as url:
        yield url


def prefix() -> str:
    """A key/channel prefix of this test alone."""
    return f"rebirth-test-{secrets.token_hex(4)}:"


def worker(tmp: Path, db: str, r: RedisServer, pfx: str, **kw: Any) -> TestClient:
    """One worker: an app on the shared database and Redis (use as a context manager)."""
    kw.setdefault("heal_interval", 0.3)
    return kit.client(tmp, database_url=db, redis_url=r.url, redis_prefix=pfx, **kw)


def recv(ws: WebSocketTestSession, timeout: float = 15.0) -> dict[str, Any]:
    """The next frame, failing after ``timeout`` seconds."""

    async def get() -> Any:
        with anyio.fail_after(timeout):
            return await ws._send_rx.receive()

    msg = ws.portal.call(get)
    ws._raise_on_close(msg)
    out: dict[str, Any] = json.loads(msg["text"])
    return out


class Sock:
    """One socket with what it has received: the latest view and every step version it was told."""

    def __init__(self, ws: WebSocketTestSession, name: str = "") -> None:
        self.ws, self.name = ws, name
        self.view: dict[str, Any] = {}
        self.version = -1
        self.seen: set[int] = set()
        self.frames: list[str] = []
        self.errors: list[dict[str, Any]] = []

    def read(self, timeout: float = 15.0) -> dict[str, Any]:
        msg = recv(self.ws, timeout)
        self.frames.append(json.dumps(msg))
        if "view" in msg:
            self.view, self.version = msg["view"], int(msg["version"])
        for e in msg.get("events", []):
            self.seen.add(int(e["version"]))
        if msg["type"] == "error":
            self.errors.append(msg)
        return msg

    def hello(self, tok: str, since: int = -1) -> dict[str, Any]:
        self.ws.send_json({"type": "hello", "token": tok, "since": since})
        while True:
            msg = self.read()
            if msg["type"] == "sync":
                return msg

    def until(self, done: Callable[[], bool], timeout: float = 15.0) -> None:
        while not done():
            self.read(timeout)

    def settle(self, version: int, movers: tuple[int, ...] | None = None, timeout: float = 15.0) -> None:
        """Read until at ``version`` (or later) and, given ``movers``, one of them (or nobody) is to
        move."""
        while not (self.version >= version and (movers is None or self.over
                                                or self.view["current_player"] in movers)):
            self.read(timeout)

    def act_first(self) -> dict[str, Any]:
        """Play the first legal action; returns the answer (an update, or an error)."""
        old = self.version
        self.ws.send_json({"type": "act", "action": self.view["legal_actions"][0], "version": old})
        while True:
            msg = self.read()
            if msg["type"] == "error" or (msg["type"] in ("update", "sync") and self.version > old):
                return msg

    def to_move(self, seat: int) -> bool:
        return self.view.get("phase") != "end" and self.view.get("current_player") == seat \
            and bool(self.view.get("legal_actions"))

    @property
    def over(self) -> bool:
        return self.view.get("phase") == "end"


def start_serve(db: Path, port: int, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """A real ``rebirth serve`` process on ``port`` and the SQLite file ``db`` (no rate limits),
    returned once it answers ``/healthz``; ``env`` adds to its environment. Its output is
    piped (its first line is the address it prints)."""
    full = {**os.environ, **kit.UNLIMITED_ENV, "REBIRTH_BOT_DELAY": "0", **(env or {})}
    proc = subprocess.Popen([sys.executable, "-m", "rebirth.cli.main", "serve", "--port", str(port),
                             "--db", str(db)], env=full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("the server did not start")
