"""Graceful shutdown of a real server process (issue 15 item 6): ``SIGTERM`` stops accepting,
finishes the step in flight, closes the sockets with 1012 (service restart: pages reconnect)
and exits within a bounded time; the stored games carry on after a restart."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from rebirth.server.authority.live import rebuild
from rebirth.server.persistence.store import Store
from rebirth.server.settings import sqlite_url
from server import kit
from server.workerkit import free_port, start_serve

GRACE = 3.0


def _start(db: Path, port: int) -> subprocess.Popen[str]:
    return start_serve(db, port, {"REBIRTH_BOT_DELAY": "0.02", "REBIRTH_SHUTDOWN_GRACE": str(GRACE)})


def _spectate(port: int, g: dict[str, Any]) -> ClientConnection:
    ws = connect(f"ws://127.0.0.1:{port}/ws/games/{g['game']}")
    ws.send(json.dumps({"type": "hello", "token": kit.token(g["links"]["spectator"]), "since": -1}))
    return ws


def _versions(db: Path, gid: str) -> tuple[int, int]:
    """(the game's stored version, the length of its stored log)."""
    store = Store(sqlite_url(db))
    try:
        row = store.game(gid)
        assert row is not None
        steps = store.steps(gid)
        # The stored game replays: no half-written step.
        from rebirth.engine.game import Game
        rebuild(Game.create(row.board, row.players, row.variants), row, steps)
        return row.version, len(steps)
    finally:
        store.close()


def test_sigterm_closes_sockets_with_1012_and_exits_in_bounded_time(tmp_path: Path) -> None:
    db, port = tmp_path / "games.db", free_port()
    proc = _start(db, port)
    try:
        bots = [{"kind": "easy"}, {"kind": "easy"}, {"kind": "easy"}]
        g = httpx.post(f"http://127.0.0.1:{port}/api/games",
                       json={"board": "scotland", "players": 3, "seats": bots}).json()
        socks = [_spectate(port, g) for _ in range(3)]
        # Bots are moving: wait for a few updates so that a step is likely in flight.
        got = 0
        while got < 5:
            if json.loads(socks[0].recv(timeout=30))["type"] == "update":
                got += 1
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        codes = []
        for ws in socks:
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=15)
            assert closed.value.rcvd is not None
            codes.append(closed.value.rcvd.code)
        assert codes == [1012, 1012, 1012]
        rc = proc.wait(timeout=2 * GRACE + 10)
        elapsed = time.monotonic() - start
        out = proc.stdout.read() if proc.stdout else ""
        # uvicorn re-raises the captured SIGTERM once shut down: the conventional exit by signal.
        assert rc in (0, -signal.SIGTERM), out
        assert "Application shutdown complete" in out, out
        assert elapsed < 2 * GRACE + 5, elapsed
        assert "Traceback" not in out, out
        # Nothing listens any more.
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
        version, logged = _versions(db, g["game"])
        assert version == logged >= 5
        # After a restart the bot game carries on by itself from where it stopped.
        proc = _start(db, port)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            now = httpx.get(f"http://127.0.0.1:{port}/api/games/{g['game']}").json()
            if now["version"] > version or now["status"] == "over":
                break
            time.sleep(0.1)
        assert now["version"] > version or now["status"] == "over", now
    finally:
        proc.kill()
        proc.wait(10)
