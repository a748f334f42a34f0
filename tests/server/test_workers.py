"""Several workers of one server (issue 15 item 3): two apps on one PostgreSQL database and one
private Redis; any worker serves any connection, exactly one writer per game, Redis only says
"game G is at version v" and a lost message or a Redis restart heals by version catch-up.

Rules checked along the way: every game is played to its end (E-1 scoring through
``rebirth.engine.records.replay``) and hidden information stays hidden (S-5)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from fastapi.testclient import TestClient

from canaries import SEED_CANARY, canary_game, hidden_card_ids
from rebirth.engine.game import Game
from rebirth.engine.records import replay
from rebirth.server.persistence.store import StaleWrite, Step, Store
from rebirth.server.play.registry import Registry
from rebirth.server.play.session import Session as Hub
from rebirth.server.realtime.broker import Broker
from server import kit
from server.workerkit import RedisServer, Sock, database, free_port, prefix, redis_server, worker

HUMANS = [{"kind": "human", "name": "Aoife"}, {"kind": "human", "name": "Brian"}]


def registry(c: TestClient) -> Registry:
    r: Registry = c.app.state.registry  # type: ignore[attr-defined]
    return r


def hub(c: TestClient, gid: str) -> Hub:
    return registry(c).hubs[gid]


def check_log(db: str, gid: str) -> list[Any]:
    """The stored log has no gap and no duplicate, and the game's version is its length."""
    store = Store(db)
    try:
        steps = store.steps(gid)
        row = store.game(gid)
    finally:
        store.close()
    assert row is not None
    assert [s.seq for s in steps] == list(range(1, len(steps) + 1))
    assert row.version == len(steps)
    return steps


def play_two(socks: list[Sock], stop: int | None = None) -> None:
    """Both humans play their first legal action until the end (or until version ``stop``);
    each socket sees every step before the next one is played."""
    while True:
        target = max(s.version for s in socks)
        for s in socks:
            s.settle(target)
        if socks[0].over or (stop is not None and target >= stop):
            return
        p = socks[0].view["current_player"]
        answer = socks[p].act_first()
        assert answer["type"] != "error", answer


@contextlib.contextmanager
def two_workers_and_a_game(tmp_path: Path) -> Iterator[tuple[str, TestClient, TestClient, str, list[str]]]:
    """Two workers on one database and Redis (no version check within a test's time: every
    move reaches the other worker through Redis) and a new two-player Ireland game of humans,
    both seats claimed: (database, worker A, worker B, game id, seat tokens)."""
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, heal_interval=600) as a, \
                worker(tmp_path, db, r, pfx, heal_interval=600) as b:
            g = kit.new_game(a, board="ireland", players=2, seats=HUMANS)
            yield db, a, b, g["game"], [kit.claim(a, s["url"]) for s in g["links"]["seats"]]


def record_and_replay(c: TestClient, gid: str, tok: str, scores: list[int]) -> None:
    rec = c.get(f"/api/games/{gid}/record", headers={"Authorization": f"Bearer {tok}"}).json()
    assert replay(rec).score == scores


def test_two_humans_on_two_workers_play_ireland_to_the_end(tmp_path: Path) -> None:
    # No version check within the test's time: every move reaches the other worker through Redis.
    with two_workers_and_a_game(tmp_path) as (db, a, b, gid, toks):
        with a.websocket_connect(f"/ws/games/{gid}") as w0, b.websocket_connect(f"/ws/games/{gid}") as w1:
            socks = [Sock(w0, "a"), Sock(w1, "b")]
            socks[0].hello(toks[0])
            socks[1].hello(toks[1])
            play_two(socks)
            final = socks[0].version
            assert socks[1].version == final and socks[0].view["scores"] == socks[1].view["scores"]
            for s in socks:
                assert s.seen >= set(range(1, final + 1)), s.name
            assert not socks[0].errors and not socks[1].errors
            # Both workers acted: each one committed the moves of its own player. (Checked
            # with the sockets open: a game nobody here follows leaves memory on a notice.)
            assert hub(a, gid).committed == hub(b, gid).committed == final
        assert len(check_log(db, gid)) == final > 20
        record_and_replay(b, gid, toks[1], socks[1].view["scores"])


def test_a_game_no_device_follows_leaves_memory_on_a_notice_and_comes_back_current(tmp_path: Path) -> None:
    """Per-game routing at the proxy puts a game's devices on one worker: the worker that only
    created it does not read each of its steps back — the first notice drops it from memory —
    and a device that comes to it later gets the game as stored, and can play on."""
    with two_workers_and_a_game(tmp_path) as (db, a, b, gid, toks):
        assert gid in registry(a).hubs  # the creator holds it, with no device
        with b.websocket_connect(f"/ws/games/{gid}") as w0, b.websocket_connect(f"/ws/games/{gid}") as w1:
            socks = [Sock(w0, "b0"), Sock(w1, "b1")]
            socks[0].hello(toks[0])
            socks[1].hello(toks[1])
            play_two(socks, stop=4)
            deadline = time.monotonic() + 10
            while gid in registry(a).hubs:
                assert time.monotonic() < deadline, "worker A kept following a game nobody watches there"
                time.sleep(0.02)
            at = max(s.version for s in socks)
            # Seat 0's second device comes to worker A: the game is loaded as stored.
            with a.websocket_connect(f"/ws/games/{gid}") as wa:
                sa = Sock(wa, "a0")
                assert sa.hello(toks[0])["version"] == at
                for s in socks:
                    s.settle(at)
                p = socks[0].view["current_player"]
                mover = sa if p == 0 else socks[1]
                assert mover.act_first()["type"] != "error"
                for s in (*socks, sa):
                    s.settle(at + 1)
                assert hub(a, gid).committed == hub(b, gid).committed >= at + 1
        assert len(check_log(db, gid)) >= at + 1


def test_bot_steps_are_committed_exactly_once_when_both_workers_hold_the_game(tmp_path: Path) -> None:
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, heal_interval=0.2) as a, worker(tmp_path, db, r, pfx,
                                                                             heal_interval=0.2) as b:
            seats = [{"kind": "human"}, {"kind": "easy"}, {"kind": "easy"}]
            g = kit.new_game(a, board="ireland", players=3, seats=seats)
            gid = g["game"]
            tok = kit.claim(a, g["links"]["seats"][0]["url"])
            spect = kit.token(g["links"]["spectator"])
            # The human plays on worker B, a spectator holds the game on worker A too.
            path = f"/ws/games/{gid}"
            with b.websocket_connect(path) as wh, a.websocket_connect(path) as wsp:
                human, watcher = Sock(wh, "human"), Sock(wsp, "spectator")
                human.hello(tok)
                watcher.hello(spect)
                while True:
                    human.until(lambda: human.over or human.to_move(0), timeout=30)
                    if human.over:
                        break
                    assert human.act_first()["type"] != "error"
                watcher.until(lambda: watcher.over, timeout=30)
            steps = check_log(db, gid)
            bot_steps = sum(1 for s in steps if s.seat in (1, 2))
            ra, rb = registry(a), registry(b)
            assert bot_steps > 20
            # Every bot decision that was made was committed, once: no worker thought in vain.
            assert ra.bot_thinks + rb.bot_thinks == ra.bot_steps + rb.bot_steps == bot_steps
            assert human.seen >= set(range(1, len(steps) + 1))
            record_and_replay(a, gid, tok, human.view["scores"])


def test_redis_killed_mid_game_and_restarted_play_goes_on(tmp_path: Path) -> None:
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx) as a, worker(tmp_path, db, r, pfx) as b:
            g = kit.new_game(b, board="ireland", players=2, seats=HUMANS)
            gid = g["game"]
            toks = [kit.claim(b, s["url"]) for s in g["links"]["seats"]]
            with a.websocket_connect(f"/ws/games/{gid}") as w0, b.websocket_connect(f"/ws/games/{gid}") as w1:
                socks = [Sock(w0, "a"), Sock(w1, "b")]
                socks[0].hello(toks[0])
                socks[1].hello(toks[1])
                play_two(socks, stop=8)
                r.stop()
                # Redis is gone: the moves still reach the other worker (the version check).
                play_two(socks, stop=socks[0].version + 8)
                assert not registry(a).broker.connected  # type: ignore[union-attr]
                r.start()
                deadline = time.monotonic() + 15
                while not (registry(a).broker.connected and registry(b).broker.connected):  # type: ignore[union-attr]
                    assert time.monotonic() < deadline, "the workers did not resubscribe"
                    time.sleep(0.05)
                # From now on only Redis carries the moves (no version check within the test):
                # the publishers reconnected too.
                for c in (a, b):
                    registry(c).settings.heal_interval = 600
                time.sleep(0.5)
                play_two(socks)
                final = socks[0].version
                for s in socks:
                    assert s.seen >= set(range(1, final + 1)), s.name
            assert registry(a).broker.reconnects >= 1  # type: ignore[union-attr]
            assert registry(b).broker.reconnects >= 1  # type: ignore[union-attr]
            # Exported for Prometheus (issue 15 item 5/6).
            n = registry(a).broker.reconnects  # type: ignore[union-attr]
            assert f"rebirth_redis_reconnects_total {float(n)}" in a.get("/metrics").text
            assert len(check_log(db, gid)) == final
            record_and_replay(a, gid, toks[0], socks[0].view["scores"])


def canary_factory(board: str, players: int, variants: list[str]) -> Game:
    return canary_game(board, players, variants)


SEED_TEXTS = (str(SEED_CANARY), hex(SEED_CANARY)[2:], hex(SEED_CANARY))


def test_nothing_secret_crosses_redis(tmp_path: Path) -> None:
    with database() as db, redis_server() as r:
        pfx = prefix()
        messages: list[tuple[str, str]] = []
        sub = redis.Redis.from_url(r.url).pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call, unused-ignore]
        sub.psubscribe("*")  # every channel, ours or not
        stop = threading.Event()

        def listen() -> None:
            while not stop.is_set():
                m = sub.get_message(timeout=0.1)
                if m is not None and m["type"] == "pmessage":
                    messages.append((m["channel"].decode(), m["data"].decode()))

        t = threading.Thread(target=listen)
        t.start()
        kw: dict[str, Any] = {"game_factory": canary_factory, "seed_factory": lambda: SEED_CANARY}
        try:
            with worker(tmp_path, db, r, pfx, **kw) as a, worker(tmp_path, db, r, pfx, **kw) as b:
                g = kit.new_game(a, board="ireland", players=3,
                                 seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "easy"}])
                gid = g["game"]
                toks = [kit.claim(a, s["url"]) for s in g["links"]["seats"][:2]]
                path = f"/ws/games/{gid}"
                with a.websocket_connect(path) as w0, b.websocket_connect(path) as w1:
                    socks = [Sock(w0), Sock(w1)]
                    socks[0].hello(toks[0])
                    socks[1].hello(toks[1])
                    for _ in range(12):
                        target = max(s.version for s in socks)
                        for s in socks:
                            s.settle(target, (0, 1), timeout=30)
                        p = socks[0].view["current_player"]
                        socks[p].act_first()
                    a.post(f"/api/games/{gid}/seats/1/bot", headers={"Authorization": f"Bearer {toks[0]}"})
                    time.sleep(0.5)
                    secret = hub(a, gid).match.snapshot()
                    # What is stored in Redis besides the channel: only presence marks.
                    peek = redis.Redis.from_url(r.url, decode_responses=True)
                    keys = {str(k) for k in peek.keys("*")}
                    assert keys <= {f"{pfx}online:{gid}"}, keys
                    marks = [str(m) for k in keys for m in peek.zrange(k, 0, -1)]
                    peek.close()
                    assert all(re.fullmatch(r"[0-9a-f]{12}:[0-3]", m) for m in marks), marks
        finally:
            stop.set()
            t.join()
            sub.close()
    assert len(messages) > 10
    blob = "\n".join(d for _, d in messages)
    for seed_text in SEED_TEXTS:
        assert seed_text not in blob
    assert "CANARY" not in blob and "setup" not in blob and json.dumps(secret["setup"])[:40] not in blob
    for tok in toks:
        assert tok not in blob
    for channel, data in messages:
        assert channel == f"{pfx}versions:{gid}"  # the game's own channel
        obj = json.loads(data)
        assert set(obj) == {"game", "version"} and obj["game"] == gid and isinstance(obj["version"], int)


def test_no_frame_across_two_workers_holds_another_seats_secrets(tmp_path: Path) -> None:
    """S-5: seat 0's socket on worker A, seat 1 (acting) and a spectator on worker B."""
    kw: dict[str, Any] = {"game_factory": canary_factory, "seed_factory": lambda: SEED_CANARY}
    hidden: dict[int | None, set[str]] = {}
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, **kw) as a, worker(tmp_path, db, r, pfx, **kw) as b:
            g = kit.new_game(a, board="ireland", players=3,
                             seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "easy"}])
            gid = g["game"]
            toks = [kit.claim(a, s["url"]) for s in g["links"]["seats"][:2]]
            path = f"/ws/games/{gid}"
            with a.websocket_connect(path) as w0, b.websocket_connect(path) as w1, \
                    b.websocket_connect(path) as ws:
                socks = {0: Sock(w0), 1: Sock(w1), None: Sock(ws)}
                socks[0].hello(toks[0])
                socks[1].hello(toks[1])
                socks[None].hello(kit.token(g["links"]["spectator"]))
                for turn in range(16):
                    target = max(s.version for s in socks.values())
                    for sock in socks.values():
                        sock.settle(target, (0, 1), timeout=30)
                    m = hub(b, gid).match
                    for cat in socks:
                        now = hidden_card_ids(m, cat)
                        hidden[cat] = now if cat not in hidden else hidden[cat] & now
                    if socks[0].over:
                        break
                    p = socks[0].view["current_player"]
                    socks[p].act_first()
                    if turn == 8:
                        # A reconnect on the other worker, from an old version.
                        with a.websocket_connect(f"/ws/games/{gid}") as w1b:
                            Sock(w1b).hello(toks[1], since=3)
    for cat, sock in socks.items():
        blob = "\n".join(sock.frames)
        for t in SEED_TEXTS:
            assert t not in blob
        for cid in hidden[cat]:
            assert cid not in blob, f"{cat} received hidden card {cid}"
    assert hidden[0] and hidden[None]
    assert any("CANARY" in f for f in socks[0].frames)  # the canaries are there: the test can fail


def test_a_worker_shut_down_mid_game_its_player_carries_on_at_the_other(tmp_path: Path) -> None:
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx) as b:
            with worker(tmp_path, db, r, pfx) as a:
                seats = [{"kind": "human"}, {"kind": "easy"}]
                g = kit.new_game(a, board="ireland", players=2, seats=seats)
                gid = g["game"]
                tok = kit.claim(a, g["links"]["seats"][0]["url"])
                with b.websocket_connect(f"/ws/games/{gid}") as wsp:
                    Sock(wsp).hello(kit.token(g["links"]["spectator"]))  # worker B holds it too
                with a.websocket_connect(f"/ws/games/{gid}") as w:
                    human = Sock(w)
                    human.hello(tok)
                    for _ in range(6):
                        human.until(lambda: human.to_move(0), timeout=30)
                        assert human.act_first()["type"] == "update"
                    acked = human.version
            # Worker A is gone (its bot lock with it); the player reconnects to worker B.
            with b.websocket_connect(f"/ws/games/{gid}") as w:
                human = Sock(w)
                sync = human.hello(tok, since=acked)
                assert sync["version"] >= acked
                while True:
                    # Generous: on a loaded CI machine worker A's exit (its lock goes with its
                    # connection) and B's next heal can take longer than a bot's move.
                    human.until(lambda: human.over or human.to_move(0), timeout=90)
                    if human.over:
                        break
                    assert human.act_first()["type"] != "error"
            steps = check_log(db, gid)
            assert len(steps) == human.version
            record_and_replay(b, gid, tok, human.view["scores"])


def _serve(port: int, db: str, r: RedisServer, pfx: str, **extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(["src", "tests", os.environ.get("PYTHONPATH", "")]),
           "REBIRTH_DATABASE_URL": db, "REBIRTH_REDIS_URL": r.url, "REBIRTH_REDIS_PREFIX": pfx,
           "REBIRTH_BOT_DELAY": "0.02", "REBIRTH_HEAL_INTERVAL": "0.3", **kit.UNLIMITED_ENV, **extra}
    return subprocess.Popen([sys.executable, "-m", "rebirth.cli.main", "serve", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _up(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/variants", timeout=1).status_code < 500:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError("rebirth serve did not come up")


def test_a_killed_serve_process_bot_game_is_taken_over(tmp_path: Path) -> None:
    """A real ``rebirth serve`` worker killed with SIGKILL mid-game: the other worker adopts its
    bot game within seconds, and nothing stored is lost or doubled."""
    with database() as db, redis_server() as r:
        pfx = prefix()
        port = free_port()
        proc = _serve(port, db, r, pfx)
        try:
            _up(port)
            body = {"board": "ireland", "players": 2, "seats": [{"kind": "easy"}, {"kind": "easy"}]}
            res = httpx.post(f"http://127.0.0.1:{port}/api/games", json=body, timeout=10)
            assert res.status_code == 201, res.text
            gid = res.json()["game"]
            store = Store(db)
            try:
                deadline = time.monotonic() + 30
                while (row := store.game(gid)) is not None and row.version < 10:
                    assert time.monotonic() < deadline
                    time.sleep(0.02)
                proc.send_signal(signal.SIGKILL)
                proc.wait(10)
                killed_at = store.game(gid).version  # type: ignore[union-attr]
                assert store.game(gid).status == "playing"  # type: ignore[union-attr]
                with worker(tmp_path, db, r, pfx, bot_delay=0.0) as b:
                    deadline = time.monotonic() + 60
                    while store.game(gid).status != "over":  # type: ignore[union-attr]
                        assert time.monotonic() < deadline, "the other worker did not take the game over"
                        time.sleep(0.05)
                    assert registry(b).bot_steps > 0
            finally:
                store.close()
            steps = check_log(db, gid)
            assert len(steps) > killed_at
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)


def test_serve_refuses_several_workers_without_redis(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REBIRTH_REDIS_URL"}
    env["PYTHONPATH"] = "src"
    out = subprocess.run([sys.executable, "-m", "rebirth.cli.main", "serve", "--workers", "2",
                          "--port", str(free_port()), "--db", str(tmp_path / "x.db")],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "--workers 2 needs REBIRTH_REDIS_URL" in out.stderr


@pytest.mark.parametrize("n", [2])
def test_serve_with_workers_serves_games_from_every_worker(tmp_path: Path, n: int) -> None:
    """``rebirth serve --workers 2``: both worker processes answer on one port and share games."""
    with database() as db, redis_server() as r:
        port = free_port()
        env = {**os.environ, "PYTHONPATH": "src", "REBIRTH_DATABASE_URL": db, "REBIRTH_REDIS_URL": r.url,
               "REBIRTH_REDIS_PREFIX": prefix(), "REBIRTH_BOT_DELAY": "0.0", **kit.UNLIMITED_ENV}
        proc = subprocess.Popen([sys.executable, "-m", "rebirth.cli.main", "serve", "--workers", str(n),
                                 "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            _up(port)
            body = {"board": "ireland", "players": 2, "seats": [{"kind": "easy"}, {"kind": "easy"}]}
            gids = []
            for _ in range(6):
                res = httpx.post(f"http://127.0.0.1:{port}/api/games", json=body, timeout=10)
                assert res.status_code == 201, res.text
                gids.append(res.json()["game"])
            deadline = time.monotonic() + 90
            for gid in gids:
                url = f"http://127.0.0.1:{port}/api/games/{gid}"
                while httpx.get(url, timeout=10).json()["status"] != "over":
                    assert time.monotonic() < deadline
                    time.sleep(0.1)
                check_log(db, gid)
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)


def test_the_log_takes_one_writer_per_version(tmp_path: Path) -> None:
    """Two stores (two workers) append the same version: one wins, the other gets StaleWrite
    and writes nothing; a writer that is behind is refused too."""
    with database() as db, worker_store(db) as (s1, s2):
        with kit.client(tmp_path, database_url=db) as c:
            gid = kit.new_game(c, board="ireland", players=2, seats=HUMANS)["game"]
        s1.append(gid, [Step(1, 0, "A1")], 1, False)
        with pytest.raises(StaleWrite):
            s2.append(gid, [Step(1, 1, "B2")], 1, False)
        with pytest.raises(StaleWrite):  # behind: the game is at 1, not at 4
            s2.append(gid, [Step(5, 1, "B2")], 5, False)
        assert s2.steps(gid) == [Step(1, 0, "A1")] and s2.versions([gid]) == {gid: 1}
        # Only after version 1 may version 2 be written (and it is, from either worker).
        s2.append(gid, [Step(2, 1, "B2")], 2, False)
        assert s1.catch_up(gid, 1)[:3] == (2, ["human", "human"], [Step(2, 1, "B2")])


@contextlib.contextmanager
def worker_store(db: str) -> Iterator[tuple[Store, Store]]:
    s1, s2 = Store(db), Store(db)
    try:
        yield s1, s2
    finally:
        s1.close()
        s2.close()


def test_a_worker_that_lost_the_race_catches_up_and_answers_stale(tmp_path: Path) -> None:
    """The first seat on two devices, one per worker; worker B misses the notification and (as in a
    race) does not catch up before acting: its commit loses, its device gets ``stale_version``
    and the winning step, and the log holds exactly the winner's step."""
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, heal_interval=600) as a, \
                worker(tmp_path, db, r, pfx, heal_interval=600) as b:
            g = kit.new_game(a, board="ireland", players=2, seats=HUMANS)
            gid = g["game"]
            # The two devices belong to the seat that is to move first.
            first = hub(a, gid).match.state.current_player
            tok = kit.claim(a, g["links"]["seats"][first]["url"])
            path = f"/ws/games/{gid}"
            with a.websocket_connect(path) as wa, b.websocket_connect(path) as wb:
                da, db_ = Sock(wa, "a"), Sock(wb, "b")
                da.hello(tok)
                db_.hello(tok)
                hb = hub(b, gid)
                registry(b).broker.on_notice = lambda game, version: None  # type: ignore[union-attr]

                async def no_catch_up(strict: bool = True) -> bool:
                    return False

                hb.catch_up = no_catch_up  # type: ignore[method-assign]  # the read before a step only
                won = da.act_first()
                assert won["type"] == "update" and hb.committed == 0
                db_.ws.send_json({"type": "act", "action": db_.view["legal_actions"][0], "version": 0})
                # The winning step (broadcast by the catch-up) and the clear stale answer.
                db_.until(lambda: bool(db_.errors) and db_.version >= da.version)
                assert [e["code"] for e in db_.errors] == ["stale_version"], db_.errors
                assert db_.version == da.version and hb.committed == da.version
                assert db_.view["history"] == da.view["history"]
            steps = check_log(db, gid)
            assert len(steps) == da.version


def test_a_seat_handed_to_a_bot_elsewhere_refuses_its_human_step_without_a_read(tmp_path: Path) -> None:
    """A worker does not read the seats before each action while Redis is up: the step's
    conditional write checks the acting seat's kind instead. Here the notice of a hand-over is
    lost; the seat's human action at worker A is refused, stores nothing, and A then knows the
    seat is a bot's."""
    with database() as db, redis_server() as r:
        pfx = prefix()
        # bot_delay: the bot that now plays the seat (heard of by the read-back) waits, so the
        # log shows that the refused human step stored nothing.
        with worker(tmp_path, db, r, pfx, heal_interval=600, bot_delay=30) as a, \
                worker(tmp_path, db, r, pfx, heal_interval=600, bot_delay=30) as b:
            g = kit.new_game(a, board="ireland", players=2, seats=HUMANS)
            gid = g["game"]
            ha = hub(a, gid)
            first = ha.match.state.current_player
            tok = kit.claim(a, g["links"]["seats"][first]["url"])
            with a.websocket_connect(f"/ws/games/{gid}") as wa:
                da = Sock(wa, "a")
                da.hello(tok)
                # The join's own announcement comes back once; then nothing is pending.
                deadline = time.monotonic() + 10
                while ha.follower.may_be_behind():
                    assert time.monotonic() < deadline, "still reading before every action"
                    time.sleep(0.02)
                registry(a).broker.on_notice = lambda game, version: None  # type: ignore[union-attr]
                registry(b).store.set_kind(gid, first, "normal")  # the other worker's hand-over
                da.ws.send_json({"type": "act", "action": da.view["legal_actions"][0], "version": 0})
                da.until(lambda: bool(da.errors))
                assert [e["code"] for e in da.errors] == ["stale_version"], da.errors
                assert ha.match.seats[first].kind == "normal"
            assert check_log(db, gid) == []


def test_the_acting_seats_kind_guards_the_log(tmp_path: Path) -> None:
    """``Store.append(actor=...)``: a step of a seat that no longer has the kind it acted as is
    refused and writes nothing."""
    with database() as db, worker_store(db) as (s1, s2):
        with kit.client(tmp_path, database_url=db) as c:
            gid = kit.new_game(c, board="ireland", players=2, seats=HUMANS)["game"]
        s2.set_kind(gid, 0, "normal")
        with pytest.raises(StaleWrite):
            s1.append(gid, [Step(1, 0, "A1")], 1, False, actor=(0, "human"))
        assert s1.steps(gid) == [] and s1.versions([gid]) == {gid: 0}
        s1.append(gid, [Step(1, 0, "A1")], 1, False, actor=(0, "normal"))
        s1.append(gid, [Step(2, 1, "B2")], 2, False, actor=(1, "human"))
        assert s2.versions([gid]) == {gid: 2}


def test_a_link_revoked_on_one_worker_is_closed_on_the_other(tmp_path: Path) -> None:
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, heal_interval=600) as a, \
                worker(tmp_path, db, r, pfx, heal_interval=600) as b:
            g = kit.new_game(a, board="ireland", players=2, seats=HUMANS)
            gid = g["game"]
            tok, admin = kit.claim(a, g["links"]["seats"][1]["url"]), kit.token(g["links"]["admin"])
            with b.websocket_connect(f"/ws/games/{gid}") as w:
                s = Sock(w)
                s.hello(tok)
                res = a.post(f"/api/games/{gid}/seats/1/revoke", headers={"Authorization": f"Bearer {admin}"})
                assert res.status_code == 200
                s.until(lambda: bool(s.errors))
                assert s.errors[-1]["code"] == "revoked"
                deadline = time.monotonic() + 5
                while hub(b, gid).conns:  # the socket is closed right after its last frame
                    assert time.monotonic() < deadline
                    time.sleep(0.01)


def test_a_seat_online_on_another_worker_is_not_handed_to_a_bot(tmp_path: Path) -> None:
    """The hand-over (a leaver's seat to a bot) asks every worker: refused while the seat has a
    device on the other worker; once it left, the bot plays it — and the other worker knows."""
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx) as a, worker(tmp_path, db, r, pfx) as b:
            g = kit.new_game(a, board="ireland", players=2, seats=HUMANS)
            gid = g["game"]
            toks = [kit.claim(a, s["url"]) for s in g["links"]["seats"]]
            auth = {"Authorization": f"Bearer {toks[0]}"}
            with a.websocket_connect(f"/ws/games/{gid}") as w0:
                s0 = Sock(w0)
                s0.hello(toks[0])
                with b.websocket_connect(f"/ws/games/{gid}") as w1:
                    Sock(w1).hello(toks[1])
                    res = a.post(f"/api/games/{gid}/seats/1/bot", headers=auth)
                    assert res.status_code == 409 and res.json()["error"]["code"] == "still_online"
                deadline = time.monotonic() + 10
                while (res := a.post(f"/api/games/{gid}/seats/1/bot", headers=auth)).status_code != 200:
                    assert time.monotonic() < deadline, res.text
                    time.sleep(0.05)
                # Worker B, with no device on the game any more, either re-reads it or lets it
                # leave memory (it would load it anew): it never keeps the old seat kinds.
                deadline = time.monotonic() + 10
                while gid in registry(b).hubs and hub(b, gid).match.seats[1].kind == "human":
                    assert time.monotonic() < deadline, "worker B did not learn of the hand-over"
                    time.sleep(0.02)
                # The game goes on with the bot for seat 1 (driven by exactly one worker).
                while True:
                    s0.until(lambda: s0.over or s0.to_move(0), timeout=30)
                    if s0.over:
                        break
                    assert s0.act_first()["type"] != "error"
            steps = check_log(db, gid)
            assert len(steps) == s0.version


def test_the_broker_resubscribes_and_publishes_again_after_a_redis_restart() -> None:
    got: list[tuple[str, int]] = []

    async def scenario(r: RedisServer) -> Broker:
        b = Broker(r.url, prefix(), lambda g, v: got.append((g, v)), lambda: got.append(("caught up", 0)))
        b.watch("g")  # before the subscription: subscribed with it
        await b.start()
        await b.publish("g", 1)
        await until(lambda: ("g", 1) in got)
        r.stop()
        await asyncio.sleep(0.3)
        await b.publish("g", 2)  # Redis is away: lost (the version check heals it)
        r.start()
        deadline = time.monotonic() + 10
        while not b.connected:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        await b.publish("g", 3)
        await until(lambda: ("g", 3) in got)
        await b.close()
        return b

    async def until(ok: Callable[[], bool]) -> None:
        # Waits on the condition, not a fixed time: a loaded machine delivers late, not never.
        deadline = time.monotonic() + 10
        while not ok():
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)

    with redis_server() as r, ThreadPoolExecutor(1) as pool:
        # A thread of its own: a browser test's session-wide Playwright keeps an event loop
        # running in this worker's main thread, where asyncio.run refuses to start another.
        b = pool.submit(asyncio.run, scenario(r)).result(timeout=120)
    assert got == [("g", 1), ("caught up", 0), ("g", 3)] and b.reconnects == 1


def test_a_worker_hears_the_games_it_holds_only() -> None:
    """Each game's notices go to its own channel; a broker listens to the games it watches
    (the registry's games in memory), from the moment it watches them until it lets go."""
    heard: dict[str, list[tuple[str, int]]] = {"a": [], "b": []}

    async def scenario(r: RedisServer) -> None:
        pfx = prefix()
        a = Broker(r.url, pfx, lambda g, v: heard["a"].append((g, v)), lambda: None)
        b = Broker(r.url, pfx, lambda g, v: heard["b"].append((g, v)), lambda: None)
        await a.start()
        await b.start()
        a.watch("g1")
        b.watch("g2")
        await settle()
        await a.publish("g1", 1)
        await b.publish("g2", 1)
        await until(lambda: heard["a"] == [("g1", 1)] and heard["b"] == [("g2", 1)])
        a.unwatch("g1")
        b.watch("g1")
        await settle()
        await a.publish("g1", 2)
        await until(lambda: heard["b"] == [("g2", 1), ("g1", 2)])
        await asyncio.sleep(0.2)
        assert heard["a"] == [("g1", 1)]  # it let go of g1: nothing more of it
        await a.close()
        await b.close()

    async def settle() -> None:
        # A (un)subscription is sent by a task of its own; Redis answers it within a round trip.
        await asyncio.sleep(0.2)

    async def until(ok: Callable[[], bool]) -> None:
        deadline = time.monotonic() + 10
        while not ok():
            assert time.monotonic() < deadline, heard
            await asyncio.sleep(0.02)

    with redis_server() as r, ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, scenario(r)).result(timeout=60)


def test_the_notices_of_one_turn_go_out_in_one_write_with_each_games_latest_version() -> None:
    """Notices queued in one turn of the event loop share one write (one future), carry each
    game's latest version only (a notice says "read the database from here"), and are written
    on a connection whose replies Redis has switched off; the next turn's go out again."""
    heard: list[tuple[str, int]] = []

    async def scenario(r: RedisServer) -> tuple[bool, bool, list[str]]:
        pfx = prefix()
        a = Broker(r.url, pfx, lambda g, v: None, lambda: None)
        b = Broker(r.url, pfx, lambda g, v: heard.append((g, v)), lambda: None)
        await a.start()
        await b.start()
        for g in ("g1", "g2"):
            b.watch(g)
        await asyncio.sleep(0.2)
        first = [a.publish_soon("g1", 1), a.publish_soon("g2", 1), a.publish_soon("g1", 2)]
        shared = first[0] is first[1] is first[2]
        await first[0]
        later = a.publish_soon("g2", 2)
        apart = later is not first[0]
        await later
        deadline = time.monotonic() + 10
        while len(heard) < 3:
            assert time.monotonic() < deadline, heard
            await asyncio.sleep(0.02)
        # Replies off: nothing comes back on the notices' connection (it is never read).
        silent = False
        try:
            await asyncio.wait_for(a._wconn._reader.read(1), 0.3)
        except TimeoutError:
            silent = True
        client = redis.Redis.from_url(r.url)
        try:
            named = [c for c in client.client_list() if c.get("name") == f"{pfx}notices"]
        finally:
            client.close()
        flags = [c["cmd"] for c in named] if silent else []
        await a.close()
        await b.close()
        return shared, apart, flags

    with redis_server() as r, ThreadPoolExecutor(1) as pool:
        shared, apart, flags = pool.submit(asyncio.run, scenario(r)).result(timeout=60)
    assert shared and apart
    assert heard == [("g1", 2), ("g2", 1), ("g2", 2)]
    assert flags == ["publish"], "the notices are not on a connection of their own with replies off"


def test_a_player_of_a_killed_serve_process_carries_on_at_the_other_worker(tmp_path: Path) -> None:
    """SIGKILL of a real ``rebirth serve`` worker mid-game: its player reconnects to the other
    worker and every action the killed worker acknowledged is there."""
    from websockets.sync.client import connect

    with database() as db, redis_server() as r:
        pfx = prefix()
        port = free_port()
        proc = _serve(port, db, r, pfx)
        try:
            _up(port)
            body = {"board": "ireland", "players": 2, "seats": [{"kind": "human"}, {"kind": "easy"}]}
            res = httpx.post(f"http://127.0.0.1:{port}/api/games", json=body, timeout=10)
            assert res.status_code == 201, res.text
            g = res.json()
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as live:
                gid, tok = g["game"], kit.claim(live, g["links"]["seats"][0]["url"])
            acked: list[str] = []
            with connect(f"ws://127.0.0.1:{port}/ws/games/{gid}") as ws:
                ws.send(json.dumps({"type": "hello", "token": tok, "since": -1}))
                view: dict[str, Any] = {}
                while len(acked) < 5:
                    if not (view and view["phase"] != "end" and view["current_player"] == 0
                            and view["legal_actions"]):
                        msg = json.loads(ws.recv(timeout=30))
                        view = msg.get("view", view)
                    else:
                        version = len(view["history"])
                        action = view["legal_actions"][0]
                        ws.send(json.dumps({"type": "act", "action": action, "version": version}))
                        while True:
                            ans = json.loads(ws.recv(timeout=30))
                            if ans["type"] == "update" and ans["version"] > version:
                                break
                            assert ans["type"] != "error", ans
                        view = ans["view"]
                        acked.append(view["history"][version]["action"])
                        acked_version = ans["version"]
                proc.send_signal(signal.SIGKILL)
                proc.wait(10)
            with worker(tmp_path, db, r, pfx) as b, b.websocket_connect(f"/ws/games/{gid}") as w:
                human = Sock(w)
                sync = human.hello(tok, since=acked_version)
                assert sync["version"] >= acked_version
                mine = [e["action"] for e in human.view["history"] if e.get("seat") == 0]
                assert mine[:len(acked)] == acked
                while True:
                    human.until(lambda: human.over or human.to_move(0), timeout=30)
                    if human.over:
                        break
                    assert human.act_first()["type"] != "error"
            assert len(check_log(db, gid)) == human.version
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)


def test_presence_is_shared_between_workers(tmp_path: Path) -> None:
    """Each page sees the other seat online although its device is on the other worker, and
    offline once it left."""
    with two_workers_and_a_game(tmp_path) as (_db, a, b, gid, toks), \
            a.websocket_connect(f"/ws/games/{gid}") as w0:
        s0 = Sock(w0)
        assert s0.hello(toks[0])["online"] == [True, False]
        online: list[bool] = []

        def saw(want: list[bool]) -> bool:
            return online == want

        with b.websocket_connect(f"/ws/games/{gid}") as w1:
            assert Sock(w1).hello(toks[1])["online"] == [True, True]
            while not saw([True, True]):
                msg = s0.read()
                online = msg.get("online", online)
        while not saw([True, False]):
            msg = s0.read()
            online = msg.get("online", online)

