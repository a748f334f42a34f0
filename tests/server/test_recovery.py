"""Recovery: ``rebirth serve`` is killed with SIGKILL mid-game and started again on the same
database; every step a player saw is still there and the game carries on at that version."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient
from websockets.sync.client import ClientConnection, connect

import replaykit as rk
from server import kit
from server.workerkit import free_port, start_serve


def _free_port() -> int:
    return free_port()


def _start(db: Path, port: int) -> subprocess.Popen[str]:
    proc = start_serve(db, port)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert f"http://127.0.0.1:{port}/" in first, first
    return proc


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
        toks = [httpx.post(f"http://127.0.0.1:{port}/api/games/{gid}/claim",
                           json={"invite": s["url"].split("#i=")[1]}).json()["token"]
                for s in g["links"]["seats"][:2]]
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


def _fixed(seed: int) -> Callable[[], int | None]:
    return lambda: seed


def _longer_than(n: int) -> Callable[[dict[str, Any]], bool]:
    return lambda view: len(view["history"]) > n


def _play_over_sockets(c: TestClient, gid: str, toks: list[str],
                       stop: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Both humans play by ``replaykit.choose`` until ``stop(view)`` or the end; the last view."""
    with c.websocket_connect(f"/ws/games/{gid}") as w0, c.websocket_connect(f"/ws/games/{gid}") as w1:
        socks = {0: w0, 1: w1}
        views = {0: kit.hello(w0, toks[0])["view"], 1: kit.hello(w1, toks[1])["view"]}
        while views[0]["phase"] != "end" and not stop(views[0]):
            p = views[0]["current_player"]
            socks[p].send_json({"type": "act", "action": rk.choose(views[p]),
                                "version": len(views[p]["history"])})
            for q in (0, 1):
                msg = socks[q].receive_json()
                while msg["type"] != "update":
                    assert msg["type"] == "presence", msg
                    msg = socks[q].receive_json()
                views[q] = msg["view"]
        last: dict[str, Any] = views[0]
        return last


def test_a_restart_mid_game_keeps_the_seeds_future_reveals(tmp_path: Path) -> None:
    """I-7: a server restarted mid-game (a new app on the same database, the game rebuilt from
    its stored setup, seed and log) draws the extra-tile reveals still to come exactly as the
    uninterrupted game with the same seed draws them."""
    for n, (seed, cut) in enumerate(rk.seeds_with_chance_after_cut(1, 2, 2)):
        whole = rk.history(rk.uninterrupted(seed))
        db = tmp_path / f"g{n}"
        db.mkdir()
        with kit.client(db, seed_factory=_fixed(seed)) as c:
            g = kit.new_game(c, board="ireland", players=2, seats=[{"kind": "human"}] * 2)
            gid, toks = g["game"], [kit.claim(c, s["url"]) for s in g["links"]["seats"]]
            before = _play_over_sockets(c, gid, toks, _longer_than(cut - 1))
        assert before["history"] == whole[:cut] and rk.chances(before["history"]) == 1
        with kit.client(db) as c:  # restarted: the game is rebuilt from the store
            after = _play_over_sockets(c, gid, toks, _longer_than(10**6))
        assert rk.chances(after["history"][cut:]) >= 2
        assert after["history"] == whole
