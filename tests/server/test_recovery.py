"""Recovery: ``rebirth serve`` is killed with SIGKILL mid-game and started again on the same
database; every step a player saw is still there and the game carries on at that version."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _start(db: Path, port: int) -> subprocess.Popen[str]:
    env = {**os.environ, "REBIRTH_BOT_DELAY": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "rebirth.cli.main", "serve", "--port", str(port),
                             "--db", str(db)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert f"http://127.0.0.1:{port}/" in first, first
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/variants", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("the server did not start")


def _recv(ws: ClientConnection, *types: str) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=30))
        if msg["type"] in types:
            return msg


def _hello(port: int, gid: str, tok: str, since: int = -1) -> tuple[ClientConnection, dict[str, Any]]:
    ws = connect(f"ws://127.0.0.1:{port}/ws/games/{gid}")
    ws.send(json.dumps({"type": "hello", "token": tok, "since": since}))
    return ws, _recv(ws, "sync")


def test_sigkill_mid_game_loses_no_accepted_step(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    port = _free_port()
    proc = _start(db, port)
    try:
        r = httpx.post(f"http://127.0.0.1:{port}/api/games", json={
            "board": "ireland", "players": 3,
            "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "easy"}]})
        assert r.status_code == 201 and r.headers["referrer-policy"] == "no-referrer"
        g = r.json()
        gid = g["game"]
        toks = [s["url"].split("#t=")[1] for s in g["links"]["seats"][:2]]
        w0, s0 = _hello(port, gid, toks[0])
        w1, s1 = _hello(port, gid, toks[1])
        views = {0: s0["view"], 1: s1["view"]}
        socks = {0: w0, 1: w1}
        seen: list[dict[str, Any]] = s0["view"]["history"]
        acts = 0
        while acts < 8:
            p = views[0]["current_player"]
            if p not in (0, 1):
                views[0] = _recv(w0, "update")["view"]
                views[1] = _recv(w1, "update")["view"]
                continue
            v = len(views[p]["history"])
            socks[p].send(json.dumps({"type": "act", "action": views[p]["legal_actions"][0], "version": v}))
            views[0] = _recv(w0, "update")["view"]
            views[1] = _recv(w1, "update")["view"]
            acts += 1
        seen = views[0]["history"]
        # The last action: sent, answered, and the server is killed at once.
        p = views[0]["current_player"]
        if p in (0, 1):
            socks[p].send(json.dumps({"type": "act", "action": views[p]["legal_actions"][0],
                                      "version": len(views[p]["history"])}))
            seen = _recv(socks[p], "update")["view"]["history"]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        for w in (w0, w1):
            w.close()

        proc = _start(db, port)
        summary = httpx.get(f"http://127.0.0.1:{port}/api/games/{gid}").json()
        assert summary["version"] >= len(seen)
        w0, s0 = _hello(port, gid, toks[0], since=len(seen))
        assert s0["view"]["history"][: len(seen)] == seen
        assert [st["version"] for st in s0["events"]] == list(range(len(seen) + 1, s0["version"] + 1))
        # Through uvicorn too, an oversized message is answered, not cut off.
        w0.send(json.dumps({"type": "ping", "pad": "x" * 20_000}))
        err = _recv(w0, "error")
        assert err["code"] == "too_large" and err["version"] >= len(seen)
        w0.send(json.dumps({"type": "ping"}))
        _recv(w0, "pong")
        # The game carries on: play until both humans acted once more.
        w1, s1 = _hello(port, gid, toks[1])
        views = {0: s0["view"], 1: s1["view"]}
        socks = {0: w0, 1: w1}
        before = len(views[0]["history"])
        acts = 0
        while acts < 2:
            p = views[0]["current_player"]
            if p not in (0, 1):
                views[0] = _recv(w0, "update")["view"]
                views[1] = _recv(w1, "update")["view"]
                continue
            socks[p].send(json.dumps({"type": "act", "action": views[p]["legal_actions"][0],
                                      "version": len(views[p]["history"])}))
            views[0] = _recv(w0, "update")["view"]
            views[1] = _recv(w1, "update")["view"]
            acts += 1
        assert len(views[0]["history"]) >= before + 2
        assert views[0]["history"][: len(seen)] == seen
        for w in (w0, w1):
            w.close()
    finally:
        proc.kill()
        proc.wait(10)
