"""A clock survives ``kill -9`` of the server (issue 16 item 1: clocks): after the restart every
seat's time left equals what the last frame before the kill said (give or take the move in
flight), and no one lost time for the downtime (the running seat's turn counts from the restart)."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import httpx

from server import kit
from server.test_recovery import _free_port, _hello, _recv, _start

DOWNTIME = 4.0


def test_clock_after_sigkill_restart_charges_no_one_for_the_downtime(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    port = _free_port()
    proc = _start(db, port)
    try:
        r = httpx.post(f"http://127.0.0.1:{port}/api/games", json={
            "board": "scotland", "players": 3,
            "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "easy"}],
            "clock": {"kind": "realtime", "initial_s": 600, "increment_s": 5}})
        assert r.status_code == 201, r.text
        g = r.json()
        gid = g["game"]
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as h:
            toks = [kit.claim(h, s["url"]) for s in g["links"]["seats"][:2]]
        w0, s0 = _hello(port, gid, toks[0])
        w1, s1 = _hello(port, gid, toks[1])
        socks = {0: w0, 1: w1}
        views = {0: s0["view"], 1: s1["view"]}
        last: dict[str, Any] = s0["clock"]
        acts = 0
        # Six human moves, then stop on a human's turn: its clock runs through the kill.
        while acts < 6 or last["running"] not in (0, 1):
            p = views[0]["current_player"]
            if p in (0, 1):
                time.sleep(0.3)  # some thinking time, so the banks differ
                socks[p].send(json.dumps({"type": "act", "action": views[p]["legal_actions"][0],
                                          "version": len(views[p]["history"])}))
                acts += 1
            u0 = _recv(w0, "update")
            views[0], last = u0["view"], u0["clock"]
            views[1] = _recv(w1, "update")["view"]
        # The last frame was sent after its step (and clock) were committed: kill at once.
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        for w in (w0, w1):
            w.close()
        # Time was charged before the kill: 600 s plus at most one 5 s increment per move, minus
        # each move's thinking time (0.3 s at least). (A check that the banks are not whole
        # seconds failed when the charged times happened to add up to nearly whole ones.)
        assert any(x <= 600 + 5 * acts - 0.25 for x in last["left"][:2]), (acts, last)
        running = last["running"]
        time.sleep(DOWNTIME)

        restarted = time.time()
        proc = _start(db, port)
        w0, s0 = _hello(port, gid, toks[0])
        helloed = time.time()
        after = s0["clock"]
        # A bot's move after the restart may be in flight; only a human's turn runs a clock, and
        # the running seat's runs from the restart, not from before the kill.
        for seat in range(3):
            lost = last["left"][seat] - after["left"][seat]
            if seat == after["running"]:
                assert -0.01 <= lost <= helloed - restarted + 0.1, (seat, lost, last, after)
            else:
                assert abs(lost) <= 0.01, (seat, lost, last, after)
            assert lost < DOWNTIME
        assert after["server_time"] - last["server_time"] >= DOWNTIME
        assert after["running"] == running  # nothing moved: the same seat's turn
        w0.close()
    finally:
        proc.kill()
        proc.wait(10)
