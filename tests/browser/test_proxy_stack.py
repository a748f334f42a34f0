"""Issue 15, item 4: the browser game behind a real reverse proxy. ``scripts/proxy-stack.sh``
starts Caddy (Debian's package) in front of two ``rebirth serve`` workers on one PostgreSQL
database and one Redis; two players' browsers land on different workers and play a game with a
bot to the end while Redis is restarted and one worker is killed with SIGKILL; no acknowledged
action is lost and the final record replays with ``rebirth replay`` (E-3)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page

from browser.kit import ROOT, _free_port, diagnose, open_page, place_by_click, state, token_of
from browser.test_play import whose_turn
from server import pgkit

SCRIPT = ROOT / "scripts" / "proxy-stack.sh"


class Stack:
    """The script's stack in a directory of this test."""

    def __init__(self, tmp: Path, db: str) -> None:
        self.dir = tmp / "stack"
        self.proxy, w1, w2, redis = (_free_port() for _ in range(4))
        self.workers = (w1, w2)
        self.url = f"http://127.0.0.1:{self.proxy}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("REBIRTH_")}
        # Round robin, not the default per-game routing: the two players of one game must be
        # able to land on different workers.
        env.update(PROXY_PORT=str(self.proxy), WORKER_PORTS=f"{w1} {w2}", REDIS_PORT=str(redis),
                   LB_POLICY="round_robin",
                   REBIRTH_DATABASE_URL=db, REBIRTH_CMD=f"{sys.executable} -m rebirth.cli.main",
                   PYTHONPATH=str(ROOT / "src"), REBIRTH_BOT_DELAY="0",
                   REBIRTH_HEAL_INTERVAL="0.5", REBIRTH_REDIS_PREFIX="rebirth-proxy-test:")
        self.env = env

    def run(self, cmd: str) -> str:
        out = subprocess.run(["sh", str(SCRIPT), cmd, str(self.dir)], env=self.env,
                             capture_output=True, text=True, timeout=90)
        assert out.returncode == 0, f"proxy-stack.sh {cmd}: {out.stdout}{out.stderr}"
        return out.stdout

    def pid(self, name: str) -> int:
        return int((self.dir / f"{name}.pid").read_text().strip())

    def joins(self, game: str) -> list[tuple[float, int, int]]:
        """Every socket that joined ``game``: (time, worker 1/2, seat), in time order."""
        out = []
        for n in (1, 2):
            for line in (self.dir / f"worker{n}.log").read_text("utf-8").splitlines():
                if line.startswith("{") and '"join"' in line:
                    e = json.loads(line)
                    if e.get("event") == "join" and e["game"] == game and e["role"] == "seat":
                        out.append((float(e["ts"]), n, int(e["seat"])))
        return sorted(out)

    def worker_of(self, game: str, seat: int, after: float = 0.0, timeout: float = 30.0) -> int:
        """The worker the latest socket of ``seat`` joined (one that joined after ``after``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            seen = [w for ts, w, s in self.joins(game) if s == seat and ts > after]
            if seen:
                return seen[-1]
            time.sleep(0.1)
        raise AssertionError(f"seat {seat} never joined {game} through the proxy after {after}")


def online(page: Page) -> None:
    page.wait_for_function("document.getElementById('conn').textContent === 'Online' && "
                           "window.rebirthState.view !== null")


def in_step(pages: list[Page], timeout: float = 30.0) -> int:
    """Wait until every page shows the same version; returns it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        vs = {state(p, "S.version") for p in pages}
        if len(vs) == 1:
            return int(vs.pop())
        time.sleep(0.1)
    raise AssertionError("the pages disagree: " + "; ".join(diagnose(p) for p in pages))


def test_two_workers_behind_caddy_killed_worker_and_restarted_redis(tmp_path: Path,
                                                                    new_context: Any) -> None:
    with pgkit.database() as db:
        stack = Stack(tmp_path, db)
        printed = stack.run("start")
        assert f"Rebirth is running at {stack.url}/" in printed
        try:
            play_through_the_proxy(stack, tmp_path, new_context)
        finally:
            stack.run("stop")
    # Nothing of the stack is left running.
    for name in ("caddy", "redis", "worker1", "worker2"):
        assert not (stack.dir / f"{name}.pid").exists()


def client_seen(stack: Stack, path: str) -> str:
    """The client address a worker logged for the request of ``path``."""
    for n in (1, 2):
        for line in (stack.dir / f"worker{n}.log").read_text("utf-8").splitlines():
            if line.startswith("{") and f'"path": "{path}"' in line:
                return str(json.loads(line)["client"])
    raise AssertionError(f"no worker logged {path}")


def play_through_the_proxy(stack: Stack, tmp: Path, new_context: Any) -> None:
    # The workers believe X-Forwarded-For from the proxy only, and the proxy sets it itself:
    # a client cannot pass a forged address through it.
    probe = f"/probe-{random.randrange(10**9)}"
    httpx.get(stack.url + probe, headers={"X-Forwarded-For": "203.0.113.9"}, timeout=20)
    assert client_seen(stack, probe) == "127.0.0.1"
    direct = f"/probe-{random.randrange(10**9)}"
    httpx.get(f"http://127.0.0.1:{stack.workers[0]}{direct}", timeout=20,
              headers={"X-Forwarded-For": "203.0.113.7"})  # from 127.0.0.1: the proxy's address
    assert client_seen(stack, direct) == "203.0.113.7"

    # The lobby through the proxy builds its links for the proxy's address (item 1).
    r = httpx.post(stack.url + "/api/games", timeout=20, json={
        "board": "scotland", "players": 3, "lang": "en", "seats": [
            {"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"},
            {"kind": "easy", "name": "Cat"}]})
    assert r.status_code == 201, r.text
    res = r.json()
    gid = res["game"]
    urls = [s["url"] for s in res["links"]["seats"][:2]]
    assert all(u.startswith(stack.url + "/game/") for u in urls)

    # Two browsers, one per seat; the second reconnects until it sits on the other worker
    # (round robin gives each new connection the next worker).
    pages = [open_page(new_context(), urls[0])]
    online(pages[0])
    w0 = stack.worker_of(gid, 0)
    pages.append(open_page(new_context(), urls[1]))
    online(pages[1])
    w1 = stack.worker_of(gid, 1)
    for _ in range(6):
        if w1 != w0:
            break
        t = time.time()
        pages[1].evaluate("window.rebirthSocket.ws.close()")
        w1 = stack.worker_of(gid, 1, after=t)
        online(pages[1])
    assert {w0, w1} == {1, 2}, "both players' sockets are on the same worker"

    rng = random.Random(11)
    acked: list[tuple[int, str, int]] = []  # (version before, hex, seat) of each answered move

    def turn() -> None:
        who = whose_turn(pages)
        before = int(state(who, "S.version"))
        label = place_by_click(who, rng, until_mine=False)
        acked.append((before, label, pages.index(who)))

    def turns(n: int) -> None:
        for _ in range(n):
            if pages[0].evaluate("document.body.dataset.phase") == "end":
                return
            turn()
            in_step(pages)  # the other player's page, on the other worker, follows

    turns(4)

    # Redis is killed mid-game: moves go on (the database is the truth; a worker behind
    # catches up by version), and once Redis is back every page is in step again.
    os.kill(stack.pid("redis"), signal.SIGKILL)
    for _ in range(2):
        turn()
    stack.run("start")  # starts what is down: Redis, on its port
    in_step(pages, timeout=30)
    turns(4)

    # The worker of seat 0 is killed with SIGKILL mid-game: its player's page reconnects
    # through the proxy to the other worker and carries on.
    dead = stack.worker_of(gid, 0)
    t = time.time()
    os.kill(stack.pid(f"worker{dead}"), signal.SIGKILL)
    assert stack.worker_of(gid, 0, after=t, timeout=30) == 3 - dead
    for p in pages:
        online(p)
    in_step(pages, timeout=30)
    n = 0
    while pages[0].evaluate("document.body.dataset.phase") != "end":
        turns(1)
        n += 1
        assert n < 80, "the game did not end"
    for p in pages:
        p.wait_for_function("document.body.dataset.phase === 'end'")
    assert len(acked) >= 30

    # The final record: every answered move is in it at its place, and it replays to the
    # scores the pages show.
    rec = httpx.get(f"{stack.url}/api/games/{gid}/record", timeout=20,
                    headers={"Authorization": f"Bearer {token_of(res['links']['admin'])}"}).json()
    for before, label, seat in acked:
        step = rec["actions"][before]
        assert step.get("seat") == seat and label in step["action"], (before, label, step)
    path = tmp / "record.json"
    path.write_text(json.dumps(rec), "utf-8")
    out = subprocess.run([sys.executable, "-m", "rebirth.cli.main", "replay", "--json", str(path)],
                         capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    shown = [int(x) for x in pages[0].locator(".final-score").all_inner_texts()]
    assert json.loads(out.stdout)["scores"] == shown
    for p in pages:
        assert not p.errors  # type: ignore[attr-defined]
