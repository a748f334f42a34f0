"""The cross-worker race of issue 24 (item 1): a socket on worker B follows a game, the mover acts
on worker A, and another socket joins B within milliseconds of the commit — before A's Redis
notice reaches B. The join's read-back brings B up to date; the socket already there must get
that version too (delivery per connection and by version), although the notice then finds B
current. On a807b71 the first socket was stranded until the next move (1-2 of 10 trials).

Rules along the way: every step is seen once by every socket (S-5's views only: spectators)."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rebirth.server.play.registry import Registry
from server import kit
from server.workerkit import Sock, database, prefix, redis_server, worker

HUMANS = [{"kind": "human", "name": "Aoife"}, {"kind": "human", "name": "Brian"}]
TRIALS = 200


def registry(c: TestClient) -> Registry:
    r: Registry = c.app.state.registry  # type: ignore[attr-defined]
    return r


def late_notices(c: TestClient, rng: random.Random) -> None:
    """Worker ``c`` hears every Redis notice 0-30 ms late (a busy loop, a slow network)."""
    reg = registry(c)
    broker = reg.broker
    assert broker is not None
    hear = broker.on_notice

    def late(game: str, version: int) -> None:
        asyncio.get_running_loop().call_later(rng.uniform(0.0, 0.03), hear, game, version)

    broker.on_notice = late


def test_a_socket_gets_every_version_whatever_path_brought_its_worker_up_to_date(tmp_path: Path) -> None:
    rng = random.Random(24)
    trials = 0
    with database() as db, redis_server() as r:
        pfx = prefix()
        # No version check within the test's time: only the notices and the joins move B.
        with worker(tmp_path, db, r, pfx, heal_interval=600) as a, \
                worker(tmp_path, db, r, pfx, heal_interval=600) as b:
            late_notices(b, rng)
            while trials < TRIALS:
                g = kit.new_game(a, board="scotland", players=2, seats=HUMANS)
                gid, spectator = g["game"], kit.token(g["links"]["spectator"])
                toks = [kit.claim(a, s["url"]) for s in g["links"]["seats"]]
                path = f"/ws/games/{gid}"
                with a.websocket_connect(path) as m0, a.websocket_connect(path) as m1, \
                        b.websocket_connect(path) as w:
                    movers = [Sock(m0, "seat 0"), Sock(m1, "seat 1")]
                    for s, tok in zip(movers, toks, strict=True):
                        s.hello(tok)
                    watcher = Sock(w, "watcher on B")
                    watcher.hello(spectator)
                    while trials < TRIALS and not movers[0].over:
                        target = max(s.version for s in movers)
                        for s in movers:
                            s.settle(target)
                        if movers[0].over:
                            break
                        mover = movers[movers[0].view["current_player"]]
                        answer = mover.act_first()
                        assert answer["type"] != "error", answer
                        # Within milliseconds of the commit, before B hears of it: a join on B.
                        with b.websocket_connect(path) as j:
                            joined = Sock(j, "joiner on B").hello(spectator)
                        assert joined["version"] >= mover.version
                        # The watcher gets the version too (no heal within the test: 600 s).
                        deadline = time.monotonic() + 5
                        while watcher.version < mover.version:
                            left = deadline - time.monotonic()
                            try:
                                assert left > 0
                                watcher.read(timeout=left)
                            except (AssertionError, TimeoutError):
                                pytest.fail(f"trial {trials}: the watcher on B stranded at version "
                                            f"{watcher.version}, the game at {mover.version}")
                        trials += 1
                    assert watcher.seen >= set(range(1, watcher.version + 1))
                    assert not watcher.errors
    assert trials == TRIALS
