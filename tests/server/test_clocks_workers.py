"""Clocks on several workers (issue 16 item 1: clocks): both workers hold the game and arm the
same deadline; the time-out is stored exactly once (a conditional write on the clock's rev and
the game's version), both workers' players see it, and the log stays one line."""

from __future__ import annotations

import json
import time
from pathlib import Path

from rebirth.server.persistence import clocks as clockstore
from rebirth.server.persistence.store import Store
from server import kit
from server.test_workers import check_log, hub
from server.workerkit import Sock, database, prefix, redis_server, worker


def test_a_time_out_is_stored_once_when_both_workers_hold_the_game(tmp_path: Path) -> None:
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, heal_interval=0.3, min_clock_s=1) as a, \
                worker(tmp_path, db, r, pfx, heal_interval=0.3, min_clock_s=1) as b:
            g = kit.new_game(a, board="scotland", players=2,
                             seats=[{"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}],
                             clock={"kind": "realtime", "initial_s": 2, "increment_s": 0})
            gid = g["game"]
            toks = [kit.claim(a, s["url"]) for s in g["links"]["seats"]]
            with a.websocket_connect(f"/ws/games/{gid}") as w0, b.websocket_connect(f"/ws/games/{gid}") as w1:
                s0, s1 = Sock(w0, "a"), Sock(w1, "b")
                first = s0.hello(toks[0])["view"]["current_player"]
                s1.hello(toks[1])
                # Both workers hold the game, its clock and a timer for the same deadline.
                assert hub(a, gid).value.clock is not None and hub(b, gid).value.clock is not None
                seen: list[bool] = []
                for s in (s0, s1):
                    deadline = time.monotonic() + 30
                    while True:
                        msg = s.read(timeout=15)
                        if msg.get("type") == "clock" and msg["clock"]["timed_out"][first]:
                            seen.append(msg["kinds"][first] != "human")
                            break
                        assert time.monotonic() < deadline
                assert seen == [True, True]
                # Nobody moves: the other human runs out too; then the bots finish the game.
                deadline = time.monotonic() + 120
                while not s0.over:
                    assert time.monotonic() < deadline, "the bots did not finish"
                    s0.read(timeout=30)
                # Counted with the sockets open: a game no device follows on a worker leaves
                # its memory on the next notice.
                won = hub(a, gid).clock.timeouts + hub(b, gid).clock.timeouts
                won_by = (hub(a, gid).clock.timeouts, hub(b, gid).clock.timeouts)
            store = Store(db)
            try:
                got = clockstore.load(store, gid)
            finally:
                store.close()
            assert got is not None
            state, _rev = got
            outs = [n["seat"] for n in state.notices if n["key"] == "clock.timeout"]
            assert sorted(outs) == [0, 1], outs  # each seat timed out once, none twice
            assert won == 2, won_by
            assert state.timed_out == [True, True] and json.dumps(state.to_json())
            check_log(db, gid)
