"""The bot API's stream latency at 100 concurrent remote seats (issue 27's closing note: "the
stream's latency from commit to line (p50/p99) at 100 concurrent remote seats").

A server — ``sqlite1``: one ``rebirth serve`` on SQLite; ``pg2redis``: two workers on one
PostgreSQL database and a private Redis, each game's seat 0 streaming from the first worker and
seat 1 from the second, so that every opponent line crosses workers — and ``--games`` two-player
games whose two seats are both ``remote`` (100 remote seats for 50 games), each seat a client
that reads its NDJSON stream and posts a random legal move when it is to move, all on one
asyncio loop.

Latency: a line's arrival (the client's wall clock) minus the commit time of the step that made
that version — the ``created`` time the server writes with each step in the step's transaction
(table ``actions``; same machine, same clock), read from the database after the run. Every
``state`` line of every stream counts (both seats of a game are told of every version).
Runs until every game is over or ``--time-limit`` seconds.

    nice python benchmarks/bot_latency.py --games 50
    nice python benchmarks/bot_latency.py --games 50 --setup pg2redis
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

HOST = "127.0.0.1"
ADMIN_URL = os.environ.get("REBIRTH_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
UNLIMITED_ENV = {"REBIRTH_RATE_SOCKET": "", "REBIRTH_RATE_SOCKET_CLIENT": "", "REBIRTH_RATE_CREATE": "",
                 "REBIRTH_MAX_GAMES_PER_CLIENT": "0", "REBIRTH_MAX_BOT_GAMES": "0",
                 "REBIRTH_MAX_SOCKETS_PER_GAME": "0"}
"""One client address plays every seat: the run measures the server, not its rate limits."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """The server processes of one set-up, and where its steps are stored."""

    def __init__(self, setup: str, tmp: Path) -> None:
        self.setup, self.tmp = setup, tmp
        self.procs: list[subprocess.Popen[bytes]] = []
        self.ports: list[int] = []
        self.db_url = ""
        self.db_name = ""
        self.redis: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {**os.environ, "REBIRTH_BOT_DELAY": "0", **UNLIMITED_ENV}
        if self.setup == "sqlite1":
            self.db_url = f"sqlite:///{self.tmp / 'bench.db'}"
            workers = 1
        else:
            from sqlalchemy import create_engine, text
            from sqlalchemy.engine import make_url

            self.db_name = f"rebirth_botlat_{secrets.token_hex(4)}"
            admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
            with admin.connect() as c:
                c.execute(text(f'CREATE DATABASE "{self.db_name}"'))
            admin.dispose()
            self.db_url = make_url(ADMIN_URL).set(database=self.db_name).render_as_string(hide_password=False)
            rport = free_port()
            self.redis = subprocess.Popen(["redis-server", "--port", str(rport), "--bind", HOST, "--save", "",
                                           "--appendonly", "no"], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL)
            env.update(REBIRTH_REDIS_URL=f"redis://{HOST}:{rport}/0",
                       REBIRTH_REDIS_PREFIX=f"botlat-{secrets.token_hex(3)}:")
            workers = 2
        env["REBIRTH_DATABASE_URL"] = self.db_url
        log = (self.tmp / "server.log").open("ab")
        for _ in range(workers):
            port = free_port()
            self.ports.append(port)
            self.procs.append(subprocess.Popen(
                [sys.executable, "-m", "rebirth.cli.main", "serve", "--host", HOST, "--port", str(port)],
                env=env, stdout=log, stderr=log))
        deadline = time.monotonic() + 180
        for port in self.ports:
            while True:
                try:
                    if httpx.get(f"http://{HOST}:{port}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise SystemExit(f"the server did not start: {self.tmp / 'server.log'}")
                time.sleep(0.2)

    def url(self, seat: int) -> str:
        return f"http://{HOST}:{self.ports[seat % len(self.ports)]}"

    def commit_times(self, games: list[str]) -> dict[tuple[str, int], float]:
        """``(game, version) -> created`` of every stored step of these games."""
        from sqlalchemy import create_engine, select

        from rebirth.server.persistence.store import actions as steps

        engine = create_engine(self.db_url)
        try:
            with engine.connect() as c:
                rows = c.execute(select(steps.c.game, steps.c.seq, steps.c.created)
                                 .where(steps.c.game.in_(games))).all()
        finally:
            engine.dispose()
        return {(r.game, int(r.seq)): float(r.created) for r in rows}

    def stop(self) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
        if self.redis is not None:
            self.redis.kill()
            self.redis.wait(10)
        if self.db_name:
            from sqlalchemy import create_engine, text

            admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
            with admin.connect() as c:
                c.execute(text(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)'))
            admin.dispose()


async def make_games(server: Server, n: int, board: str) -> list[tuple[str, list[str]]]:
    """``n`` games of two remote seats, each seat claimed: ``(game, [token0, token1])``."""
    out = []
    async with httpx.AsyncClient(timeout=60) as c:
        for _ in range(n):
            r = await c.post(f"{server.url(0)}/api/games", json={"board": board, "players": 2, "seats": [
                {"kind": "remote"}, {"kind": "remote"}]})
            r.raise_for_status()
            g = r.json()
            toks = []
            for s in g["links"]["seats"]:
                code = s["url"].split("#i=", 1)[1]
                cl = await c.post(f"{server.url(0)}/api/games/{g['game']}/claim", json={"invite": code})
                cl.raise_for_status()
                toks.append(cl.json()["token"])
            out.append((g["game"], toks))
    return out


class Seat:
    """One remote seat's client: its stream's lines (version, arrival) and its moves."""

    def __init__(self, base: str, game: str, seat: int, token: str, rng: random.Random) -> None:
        self.base, self.game, self.seat, self.token, self.rng = base, game, seat, token, rng
        self.arrivals: list[tuple[int, float]] = []
        self.moves = 0
        self.refused = 0
        self.retries = 0
        self.over = False

    async def run(self, client: httpx.AsyncClient, stop_at: float) -> None:
        auth = {"Authorization": f"Bearer {self.token}"}
        async with client.stream("GET", f"{self.base}/api/bot/games/{self.game}/stream", headers=auth) as r:
            r.raise_for_status()
            async for raw in r.aiter_lines():
                now = time.time()
                if not raw.strip():
                    continue
                line = json.loads(raw)
                if line["type"] == "over":
                    self.over = True
                    return
                if line["type"] == "state":
                    self.arrivals.append((int(line["version"]), now))
                if time.monotonic() > stop_at:
                    return
                if line["legal"]:
                    action = self.rng.choice(line["legal"])["id"]
                    ans = await self.move(client, auth, action, int(line["version"]))
                    if ans.status_code == 200:
                        self.moves += 1
                    else:
                        self.refused += 1


    async def move(self, client: httpx.AsyncClient, auth: dict[str, str], action: int,
                   version: int) -> httpx.Response:
        """Post a move; a pooled connection the server closed meanwhile is tried again (a retry
        that finds the move committed is answered ``stale``, as the reference client's)."""
        for attempt in range(3):
            try:
                return await client.post(f"{self.base}/api/bot/games/{self.game}/move", headers=auth,
                                         json={"action": action, "version": version})
            except httpx.TransportError:
                if attempt == 2:
                    raise
                self.retries += 1
        raise AssertionError("unreachable")  # pragma: no cover


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


async def play(server: Server, made: list[tuple[str, list[str]]], time_limit: float, seed: int) -> list[Seat]:
    rng = random.Random(seed)
    seats = [Seat(server.url(s), g, s, tok, random.Random(rng.random())) for g, toks in made
             for s, tok in enumerate(toks)]
    limits = httpx.Limits(max_connections=4 * len(seats), max_keepalive_connections=4 * len(seats))
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0, read=60.0), limits=limits) as client:
        stop_at = time.monotonic() + time_limit
        await asyncio.gather(*(s.run(client, stop_at) for s in seats))
    return seats


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=50, help="two-player games, both seats remote (default 50)")
    ap.add_argument("--setup", choices=("sqlite1", "pg2redis"), default="sqlite1")
    ap.add_argument("--board", default="ireland")
    ap.add_argument("--time-limit", type=float, default=300.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.setup == "pg2redis" and shutil.which("redis-server") is None:
        raise SystemExit("pg2redis needs redis-server (scripts/services.sh)")
    with tempfile.TemporaryDirectory(prefix="rebirth-botlat-") as tmp:
        server = Server(args.setup, Path(tmp))
        server.start()
        try:
            made = asyncio.run(make_games(server, args.games, args.board))
            t0 = time.monotonic()
            seats = asyncio.run(play(server, made, args.time_limit, args.seed))
            took = time.monotonic() - t0
            commits = server.commit_times([g for g, _ in made])
        finally:
            server.stop()
    every = [1000 * (t - commits[s.game, v]) for s in seats for v, t in s.arrivals
             if (s.game, v) in commits]
    by_game: dict[str, list[Seat]] = {}
    for s in seats:
        by_game.setdefault(s.game, []).append(s)
    out = {"setup": args.setup, "games": len(made), "remote_seats": len(seats),
           "finished": sum(1 for g in by_game.values() if all(s.over for s in g)),
           "moves": sum(s.moves for s in seats), "refused": sum(s.refused for s in seats),
           "retries": sum(s.retries for s in seats),
           "lines": len(every), "seconds": round(took, 1),
           "p50_ms": round(pct(every, 0.50), 1), "p99_ms": round(pct(every, 0.99), 1),
           "max_ms": round(max(every), 1) if every else None,
           "mean_ms": round(statistics.fmean(every), 1) if every else None,
           "loadavg_1m": round(os.getloadavg()[0], 2)}
    print(f"bot API stream latency, commit (actions.created) -> line at the client: {args.setup}, "
          f"{out['games']} games, {out['remote_seats']} concurrent remote seats")
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
