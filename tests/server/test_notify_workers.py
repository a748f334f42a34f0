"""Issue 16 item 2, "exactly once across workers": two workers on one PostgreSQL database and
Redis, each seat's device on another worker, both workers holding the game and each running a
dispatcher — every turn of a seat reaches its webhook exactly once."""

from __future__ import annotations

import time
from pathlib import Path

from rebirth.server.notifications.notifier import Notifier
from rebirth.server.persistence.outbox import Outbox
from server import kit
from server.notifykit import Receiver, receiver, wait_for
from server.workerkit import Sock, database, prefix, redis_server, worker

FAST = {"webhook_allow_private": True, "notify_interval": 0.02, "notify_retry_s": 0.05}


def counts(rec: Receiver) -> list[int]:
    return [len(rec.on("/0")), len(rec.on("/1"))]


def test_each_turn_notified_once_with_two_workers(tmp_path: Path) -> None:
    with receiver() as rec, database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, **FAST) as a, worker(tmp_path, db, r, pfx, **FAST) as b:
            g = kit.new_game(a, players=2, seats=[{"kind": "human", "notify": {"webhook": rec.url("/0")}},
                                                  {"kind": "human", "notify": {"webhook": rec.url("/1")}}])
            gid = g["game"]
            toks = kit.seat_tokens(a, g)
            turns = [0, 0]
            with a.websocket_connect(f"/ws/games/{gid}") as w0, b.websocket_connect(f"/ws/games/{gid}") as w1:
                socks = [Sock(w0, "a"), Sock(w1, "b")]
                socks[0].hello(toks[0])
                socks[1].hello(toks[1])
                last = socks[0].view["current_player"]
                turns[last] += 1
                while sum(turns) < 14:
                    mover = socks[socks[0].view["current_player"]]
                    mover.act_first()
                    for s in socks:
                        s.settle(mover.version)
                    now = socks[0].view["current_player"]
                    if now != last:
                        turns[now] += 1
                        last = now
                        # Delivered before the player moves (a turn that is over is not announced).
                        assert wait_for(lambda: counts(rec) == turns, timeout=15), (turns, counts(rec))
                time.sleep(0.5)  # a second delivery by the other worker would have arrived by now
            assert [len(rec.on("/0")), len(rec.on("/1"))] == turns
            notifiers: list[Notifier] = [c.app.state.notifier for c in (a, b)]  # type: ignore[attr-defined]
            assert sum(n.delivered for n in notifiers) == sum(turns)
            rows = Outbox(notifiers[0].store).rows(gid)
            assert len(rows) == sum(turns) and {x["done"] for x in rows} == {"sent"}
