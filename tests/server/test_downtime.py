"""A clock pauses only for the downtime of the worker that holds the game (issue 24 item 7).

Before: every worker's start restarted every running clock of the site (an 8 s turn's deadline
moved by 5.25 s when another worker restarted). Now the deadline lives in the database with the
game's holder; a worker that starts or restarts elsewhere moves nothing, and a worker that loads
a game whose holder stopped beating credits exactly that holder's downtime."""

from __future__ import annotations

import time
from pathlib import Path

from sqlalchemy import select

from rebirth.server.persistence import clocks as clockstore
from rebirth.server.persistence.store import Store
from rebirth.server.play.registry import Registry
from server import kit
from server.workerkit import database, prefix, redis_server, worker

HUMANS = [{"kind": "human", "name": "Aoife"}, {"kind": "human", "name": "Brian"}]


def stored_clock(db: str, gid: str) -> tuple[float | None, str | None]:
    store = Store(db)
    try:
        with store.engine.connect() as c:
            r = c.execute(select(clockstore.clocks.c.deadline, clockstore.clocks.c.holder)
                          .where(clockstore.clocks.c.game == gid)).one()
        return r.deadline, r.holder
    finally:
        store.close()


def test_a_worker_starting_elsewhere_moves_no_deadline(tmp_path: Path) -> None:
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, heal_interval=600) as a:
            g = kit.new_game(a, board="ireland", players=2, seats=HUMANS,
                             clock={"kind": "turn", "per_move_s": 60})
            gid = g["game"]
            reg: Registry = a.app.state.registry  # type: ignore[attr-defined]
            before = reg.hubs[gid].value.clock
            assert before is not None
            deadline, _ = stored_clock(db, gid)
            time.sleep(1.5)  # the running turn has used some of its time
            # Another worker starts (and restarts) while A holds the game.
            for _ in range(2):
                with worker(tmp_path, db, r, pfx, heal_interval=600):
                    pass
            assert stored_clock(db, gid)[0] == deadline
            assert reg.hubs[gid].value.clock is before


def test_a_holder_s_downtime_is_credited_by_the_worker_that_loads_the_game(tmp_path: Path) -> None:
    with database() as db:
        store = Store(db)
        try:
            with kit.client(tmp_path, database_url=db) as a:
                g = kit.new_game(a, board="ireland", players=2, seats=HUMANS,
                                 clock={"kind": "turn", "per_move_s": 600})
                gid = g["game"]
                deadline, _ = stored_clock(db, gid)
                reg: Registry = a.app.state.registry  # type: ignore[attr-defined]
                reg.drop(gid)
                with a.websocket_connect(f"/ws/games/{gid}") as ws:  # loaded again: A holds it
                    kit.hello(ws, kit.token(g["links"]["spectator"]))
                assert stored_clock(db, gid)[1] == reg.worker
            # A stopped cleanly (a last heartbeat): 2 s later another worker loads the game.
            stopped = time.time()
            time.sleep(2.0)
            with kit.client(tmp_path, database_url=db) as b:
                with b.websocket_connect(f"/ws/games/{gid}") as ws:
                    kit.hello(ws, kit.token(g["links"]["spectator"]))
                new_deadline, new_holder = stored_clock(db, gid)
                assert new_holder == b.app.state.registry.worker  # type: ignore[attr-defined]
            assert deadline is not None and new_deadline is not None
            moved = new_deadline - deadline
            # Credited A's downtime: from its last beat (at its stop) to the load.
            assert 2.0 <= moved <= time.time() - stopped + 0.05, moved
            # The log says so, in every language (the page renders the notice from its catalog).
            with kit.client(tmp_path, database_url=db) as c:
                notices = c.get(f"/api/games/{gid}").json()["clock"]["notices"]
            paused = [n for n in notices if n["key"] == "clock.paused"]
            assert len(paused) == 1 and paused[0]["version"] == 0 and 2.0 <= paused[0]["s"] <= moved + 0.1
        finally:
            store.close()
