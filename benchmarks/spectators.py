"""Spectators cost one serialisation per step, and a game's sockets are capped (issue 15 item 6).

It starts ``rebirth serve`` on a free 127.0.0.1 port (fresh SQLite database), measures an
unrelated two-player game's move latency (``act`` to its ``update``) while nothing else runs
(quiet), then opens ``--spectators`` sockets on another game (the server accepts
``--cap`` of them, answering the others ``too_many_sockets``) and plays that game as fast as
it goes while measuring the unrelated game again (loaded). It prints both p50/p99, how many
spectator sockets were accepted and refused, and stops the server. Bounded; loopback only.

    python benchmarks/spectators.py                      # 1,000 spectators, cap 50
    python benchmarks/spectators.py --cap 0              # no cap: every socket accepted
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from load import HOST, _next, create_game, free_port, start_server, stop_server
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed


def pct(values: list[float], p: float) -> float:
    """The ``p`` quantile in milliseconds."""
    v = sorted(values)
    return round(1000 * v[min(len(v) - 1, int(p * len(v)))], 2) if v else float("nan")


async def play(port: int, moves: int, stop: asyncio.Event | None = None) -> list[float]:
    """Play new two-player games (a fresh one when one ends) for ``moves`` timed actions, or until
    ``stop`` is set; the latencies of the actions."""
    lat: list[float] = []
    rng = random.Random(7)
    while len(lat) < moves and not (stop and stop.is_set()):
        gid, toks = await asyncio.to_thread(create_game, port, "ireland")
        url = f"ws://{HOST}:{port}/ws/games/{gid}"
        async with connect(url, max_size=None) as w0, connect(url, max_size=None) as w1:
            socks = [w0, w1]
            views = []
            for ws, tok in zip(socks, toks, strict=True):
                await ws.send(json.dumps({"type": "hello", "token": tok, "since": -1}))
                views.append((await _next(ws, "sync"))["view"])
            while views[0]["phase"] != "end" and len(lat) < moves and not (stop and stop.is_set()):
                p = views[0]["current_player"]
                if p not in (0, 1) or not views[p]["legal_actions"]:
                    views = [(await _next(ws, "update"))["view"] for ws in socks]
                    continue
                t0 = time.perf_counter()
                await socks[p].send(json.dumps({"type": "act", "version": len(views[p]["history"]),
                                                "action": rng.choice(views[p]["legal_actions"])}))
                views[p] = (await _next(socks[p], "update"))["view"]
                lat.append(time.perf_counter() - t0)
                views[1 - p] = (await _next(socks[1 - p], "update"))["view"]
    return lat


async def spectator(url: str, token: str, held: list[ClientConnection], counts: dict[str, int]) -> None:
    ws = await connect(url, max_size=None)
    try:
        # A refused socket gets its error frame at once (and the close 1013), before any hello.
        await ws.send(json.dumps({"type": "hello", "token": token, "since": -1}))
        msg = await _next(ws, "sync", "error")
    except ConnectionClosed as exc:  # refused before the hello was read: the close code says why
        msg = {"type": "error", "code": f"closed_{exc.rcvd.code if exc.rcvd else 'none'}"}
    if msg["type"] == "sync":
        counts["accepted"] += 1
        held.append(ws)
    else:
        counts[msg["code"]] = counts.get(msg["code"], 0) + 1
        await ws.close()


async def drain(ws: ClientConnection) -> None:
    """Read a spectator's frames (a real page reads them too)."""
    try:
        async for _ in ws:
            pass
    except Exception:  # closed at the end of the run
        return


def _claim(port: int, gid: str, url: str) -> str:
    """Claim a seat's invitation as that seat's browser does (issue 15 item 7): its token."""
    import urllib.request

    req = urllib.request.Request(f"http://{HOST}:{port}/api/games/{gid}/claim", method="POST",
                                 data=json.dumps({"invite": url.split("#i=")[1]}).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        tok: str = json.loads(r.read())["token"]
    return tok


async def run(port: int, spectators: int, moves: int) -> dict[str, Any]:
    quiet = await play(port, moves)
    # The watched game: its spectator link, opened many times.
    body = json.dumps({"board": "scotland", "players": 2, "seats": [{"kind": "human"}, {"kind": "human"}]})
    import urllib.request

    req = urllib.request.Request(f"http://{HOST}:{port}/api/games", data=body.encode(),
                                 headers={"content-type": "application/json"}, method="POST")
    g = json.loads(await asyncio.to_thread(lambda: urllib.request.urlopen(req, timeout=30).read()))
    url = f"ws://{HOST}:{port}/ws/games/{g['game']}"
    spec = g["links"]["spectator"].split("#t=")[1]
    # The watched game's two players are there first (the cap counts them too).
    stop = asyncio.Event()
    toks = [await asyncio.to_thread(_claim, port, g["game"], s["url"]) for s in g["links"]["seats"]]
    ready: list[asyncio.Event] = [asyncio.Event(), asyncio.Event()]
    watched = asyncio.create_task(_play_watched(url, toks, stop, ready))
    for e in ready:
        await e.wait()
    held: list[ClientConnection] = []
    counts: dict[str, int] = {"accepted": 0}
    for i in range(0, spectators, 100):  # in waves: the kernel's accept queue is finite
        await asyncio.gather(*(spectator(url, spec, held, counts) for _ in range(min(100, spectators - i))))
    readers = [asyncio.create_task(drain(ws)) for ws in held]
    # The watched game is played as fast as it goes while the unrelated game is timed.
    loaded = await play(port, moves)
    stop.set()
    watched_lat = await watched
    for ws in held:
        await ws.close()
    for t in readers:
        t.cancel()
    return {"spectators": spectators, **counts, "watched_moves": len(watched_lat),
            "watched_p50_ms": pct(watched_lat, 0.5), "watched_p99_ms": pct(watched_lat, 0.99),
            "quiet_p50_ms": pct(quiet, 0.5), "quiet_p99_ms": pct(quiet, 0.99),
            "loaded_p50_ms": pct(loaded, 0.5), "loaded_p99_ms": pct(loaded, 0.99),
            "moves_timed": len(loaded)}


async def _play_watched(url: str, toks: list[str], stop: asyncio.Event,
                        ready: list[asyncio.Event]) -> list[float]:
    lat: list[float] = []
    await asyncio.gather(*(_watched_seat(url, tok, seat, stop, lat, ready[seat])
                           for seat, tok in enumerate(toks)))
    return lat


async def _watched_seat(url: str, tok: str, seat: int, stop: asyncio.Event, lat: list[float],
                        ready: asyncio.Event) -> None:
    """One player of the watched game: acts whenever its latest view says so, until ``stop``."""
    rng = random.Random(seat)
    async with connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": tok, "since": -1}))
        view = (await _next(ws, "sync"))["view"]
        ready.set()
        # Hold the game until the spectators are in, then play it as fast as it goes.
        sent: float | None = None
        while view["phase"] != "end" and not stop.is_set():
            if view["current_player"] == seat and view["legal_actions"] and sent is None:
                await ws.send(json.dumps({"type": "act", "version": len(view["history"]),
                                          "action": rng.choice(view["legal_actions"])}))
                sent = time.perf_counter()
            try:
                msg = await asyncio.wait_for(_next(ws, "update", "sync", "error"), 1.0)
            except TimeoutError:
                continue
            if sent is not None:  # the answer to this seat's own action (update or error)
                lat.append(time.perf_counter() - sent)
                sent = None
            if msg["type"] != "error":
                view = msg["view"]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--spectators", type=int, default=1000)
    ap.add_argument("--cap", type=int, default=50, help="max_sockets_per_game (0: none)")
    ap.add_argument("--moves", type=int, default=200, help="timed moves of the unrelated game, per phase")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = start_server(Path(tmp) / "spectators.db", port, REBIRTH_MAX_SOCKETS_PER_GAME=str(args.cap))
        try:
            out = asyncio.run(run(port, args.spectators, args.moves))
        finally:
            stop_server(proc, 15)
    out["cap"] = args.cap
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
