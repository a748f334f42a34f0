"""A bounded load test of the browser game's server (loopback only; it stops by itself).

It starts ``rebirth serve`` on a free 127.0.0.1 port with a fresh SQLite database, creates N
two-player games and plays them all at once over WebSockets: each seat is a client-side bot
that picks a random legal action from its view. It prints actions/s and the p50/p99 action
latency (from sending ``act`` to receiving the ``update`` of that action, which the server
sends only after the action is committed), then stops the server.

    python benchmarks/load.py --games 10
    python benchmarks/load.py --games 100 --max-actions 40 --time-limit 120
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import uvloop
from websockets.asyncio.client import ClientConnection, connect

HOST = "127.0.0.1"  # loopback only: this never loads anything but this machine


@dataclass
class Result:
    """What the run measured."""

    games: int
    actions: int = 0
    finished: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: int = 0

    def summary(self) -> dict[str, Any]:
        lat = sorted(self.latencies)

        def pct(p: float) -> float:
            return 1000 * lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")

        return {"games": self.games, "finished": self.finished, "actions": self.actions,
                "seconds": round(self.seconds, 2),
                "actions_per_s": round(self.actions / self.seconds, 1) if self.seconds else 0.0,
                "p50_ms": round(pct(0.50), 1), "p99_ms": round(pct(0.99), 1),
                "mean_ms": round(1000 * statistics.fmean(lat), 1) if lat else float("nan"),
                "errors": self.errors}


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


UNLIMITED_ENV = {"REBIRTH_RATE_SOCKET": "", "REBIRTH_RATE_SOCKET_CLIENT": "", "REBIRTH_RATE_CREATE": "",
                 "REBIRTH_RATE_SCORE": "", "REBIRTH_RATE_TABLE": "", "REBIRTH_MAX_GAMES_PER_CLIENT": "0",
                 "REBIRTH_MAX_BOT_GAMES": "0", "REBIRTH_MAX_SOCKETS_PER_GAME": "0"}
"""All games come from one address here: the run measures the server, not its rate limits."""


def stop_server(proc: subprocess.Popen[bytes], wait: float = 10.0) -> None:
    """SIGTERM (the server's graceful shutdown), then SIGKILL if it outlasts ``wait`` seconds."""
    proc.terminate()
    try:
        proc.wait(wait)
    except subprocess.TimeoutExpired:
        proc.kill()


def start_server(db: Path, port: int, **extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "REBIRTH_BOT_DELAY": "0", **UNLIMITED_ENV, **extra}
    proc = subprocess.Popen([sys.executable, "-m", "rebirth.cli.main", "serve", "--host", HOST,
                             "--port", str(port), "--db", str(db)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/api/variants", timeout=1):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def create_game(port: int, board: str) -> tuple[str, list[str]]:
    body = json.dumps({"board": board, "players": 2,
                       "seats": [{"kind": "human"}, {"kind": "human"}]}).encode()
    req = urllib.request.Request(f"http://{HOST}:{port}/api/games", data=body,
                                 headers={"content-type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        g = json.loads(r.read())
    # Each seat is an invitation: claim it as that seat's browser would (issue 15 item 7).
    # (Before invitations, the create answer held every seat's token: an earlier revision's
    # server, measured as a baseline, still answers so.)
    toks = []
    for s in g["links"]["seats"]:
        if "#t=" in s["url"]:
            toks.append(s["url"].split("#t=")[1])
            continue
        claim = urllib.request.Request(
            f"http://{HOST}:{port}/api/games/{g['game']}/claim", method="POST",
            data=json.dumps({"invite": s["url"].split("#i=")[1]}).encode(),
            headers={"content-type": "application/json"})
        with urllib.request.urlopen(claim, timeout=30) as r:
            toks.append(json.loads(r.read())["token"])
    return g["game"], toks


async def seat_loop(port: int, gid: str, token: str, seat: int, res: Result, max_actions: int,
                    stop_at: float, rng: random.Random) -> None:
    """One client-side bot: acts whenever its view says so, until the game ends or the limits."""
    async with connect(f"ws://{HOST}:{port}/ws/games/{gid}", max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token, "since": -1}))
        view = (await _next(ws, "sync"))["view"]
        while view["phase"] != "end" and time.monotonic() < stop_at and len(view["history"]) < max_actions:
            if view["current_player"] == seat and view["legal_actions"]:
                version = len(view["history"])
                t0 = time.perf_counter()
                await ws.send(json.dumps({"type": "act", "action": rng.choice(view["legal_actions"]),
                                          "version": version}))
                msg = await _next(ws, "update", "error")
                if msg["type"] == "error":
                    res.errors += 1
                    continue
                res.latencies.append(time.perf_counter() - t0)
                res.actions += 1
                view = msg["view"]
            else:
                view = (await _next(ws, "update", "sync"))["view"]
        if view["phase"] == "end" and seat == 0:
            res.finished += 1


async def _next(ws: ClientConnection, *types: str) -> dict[str, Any]:
    while True:
        # The load generator shares the machine's cores with the server: its frames are read
        # as bytes and parsed by orjson (json.loads of each ~4.5 KB update cost it more).
        msg: dict[str, Any] = orjson.loads(await ws.recv(decode=False))
        if msg["type"] in types:
            return msg


@contextmanager
def without_gc_pauses() -> Iterator[None]:
    """The load generator's own cyclic garbage collector off while it measures. Its heap is the
    seats' parsed views, thousands of young objects that live until the next frame: measured in
    one run (N = 100), a full collection of ~90 ms every 1.5 s and young ones of 10-60 ms paused
    every client at once, and each action in flight then counted that pause as the server's
    latency. Parsed JSON holds no cycles: reference counting frees it."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


async def run_games(port: int, games: int, board: str, max_actions: int, time_limit: float,
                    seed: int) -> Result:
    res = Result(games)
    made = [await asyncio.to_thread(create_game, port, board) for _ in range(games)]
    rng = random.Random(seed)
    t0 = time.perf_counter()
    stop_at = time.monotonic() + time_limit
    await asyncio.gather(*(seat_loop(port, gid, toks[s], s, res, max_actions, stop_at,
                                     random.Random(rng.random()))
                           for gid, toks in made for s in (0, 1)))
    res.seconds = time.perf_counter() - t0
    return res


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--games", type=int, default=10, help="concurrent games (N)")
    ap.add_argument("--board", default="ireland", choices=("ireland", "scotland"))
    ap.add_argument("--max-actions", type=int, default=10_000, help="stop each game after this many steps")
    ap.add_argument("--time-limit", type=float, default=300.0, help="stop everything after this many seconds")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = start_server(Path(tmp) / "load.db", port)
        try:
            with without_gc_pauses():
                res = uvloop.run(run_games(port, args.games, args.board, args.max_actions,
                                           args.time_limit, args.seed))
        finally:
            stop_server(proc)
    out = res.summary()
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
