"""Issue 26 item 1 (must-show), "exactly once across workers": two workers on one PostgreSQL
database and Redis, each seat's device on another worker, both running a dispatcher — every turn
of a seat reaches its push endpoint (a local push service on loopback) as exactly one encrypted
push, decrypted here with that subscription's keys, signed with the one VAPID key both workers
share (made once, kept in the database), naming no secret."""

from __future__ import annotations

import json
import time
from pathlib import Path

from rebirth.server.notifications.notifier import Notifier
from rebirth.server.persistence.outbox import Outbox
from server import kit
from server.notifykit import wait_for
from server.pushkit import Browser, PushService, push_service, vapid_parts
from server.workerkit import Sock, database, prefix, redis_server, worker

FAST = {"webhook_allow_private": True, "notify_interval": 0.02, "notify_retry_s": 0.05}


def counts(svc: PushService) -> list[int]:
    return [len(svc.on("/w/0")), len(svc.on("/w/1"))]


def test_each_turn_is_one_push_with_two_workers(tmp_path: Path) -> None:
    with push_service() as svc, database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, **FAST) as a, worker(tmp_path, db, r, pfx, **FAST) as b:
            keys = {a.get("/api/push/key").json()["key"], b.get("/api/push/key").json()["key"]}
            assert len(keys) == 1  # one key pair for every worker, kept in the database
            g = kit.new_game(a, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
            gid = g["game"]
            toks = kit.seat_tokens(a, g)
            browsers = [Browser(svc.endpoint(f"/w/{i}")) for i in (0, 1)]
            # Each seat subscribes through "its" worker.
            for i, c in ((0, a), (1, b)):
                r0 = c.put(f"/api/games/{gid}/notify", headers={"Authorization": f"Bearer {toks[i]}"},
                           json={"push": browsers[i].subscription()})
                assert r0.status_code == 200 and r0.json()["push"] is True, r0.text
            secrets = {kit.token(g["links"]["spectator"]), kit.token(g["links"]["admin"]), *toks}
            turns = [0, 0]
            with a.websocket_connect(f"/ws/games/{gid}") as w0, b.websocket_connect(f"/ws/games/{gid}") as w1:
                socks = [Sock(w0, "a"), Sock(w1, "b")]
                socks[0].hello(toks[0])
                socks[1].hello(toks[1])
                last = socks[0].view["current_player"]
                turns[last] += 1
                assert wait_for(lambda: counts(svc) == turns, timeout=15), (turns, counts(svc))
                while sum(turns) < 12:
                    mover = socks[socks[0].view["current_player"]]
                    mover.act_first()
                    for s in socks:
                        s.settle(mover.version)
                    now = socks[0].view["current_player"]
                    if now != last:
                        turns[now] += 1
                        last = now
                        assert wait_for(lambda: counts(svc) == turns, timeout=15), (turns, counts(svc))
                time.sleep(0.5)  # a second delivery by the other worker would have arrived by now
            assert counts(svc) == turns
            for i in (0, 1):
                for push in svc.on(f"/w/{i}"):
                    assert push.headers["content-encoding"] == "aes128gcm" and int(push.headers["ttl"]) > 0
                    assert vapid_parts(push)[1] in keys
                    data = browsers[i].decrypt(push)
                    assert data["kind"] == "turn" and data["url"] == f"/game/{gid}?seat={i}"
                    assert not [s for s in secrets if s in json.dumps(data)]
            notifiers: list[Notifier] = [c.app.state.notifier for c in (a, b)]  # type: ignore[attr-defined]
            assert sum(n.push.sent for n in notifiers) == sum(turns)
            rows = [x for x in Outbox(notifiers[0].store).rows(gid) if x["channel"] == "push"]
            assert len(rows) == sum(turns) and {x["done"] for x in rows} == {"sent"}
