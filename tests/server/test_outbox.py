"""Issue 16 item 2, "exactly once across workers": the outbox's unique key makes a second
enqueue of the same notification a no-op, and dispatchers of several workers claiming at the
same time never take the same row (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: the write
lock); a claim whose worker died is taken again after its lease."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rebirth.server.persistence.outbox import Outbox
from rebirth.server.persistence.store import GameRow, Store
from rebirth.server.settings import sqlite_url
from server import pgkit


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        s = Store(sqlite_url(tmp_path / "outbox.db"))
        yield s
        s.close()
        return
    with pgkit.database() as url:
        s = Store(url)
        yield s
        s.close()


def a_game(store: Store, gid: str) -> None:
    store.create_game(GameRow(gid, "scotland", 2, [], "en", False, 1, {}, "test", "playing", 0,
                              ["A", "B"], ["human", "human"]), [(f"hash-{gid}", "admin", None)])


def test_enqueue_is_idempotent_per_key(store: Store) -> None:
    a_game(store, "g1")
    box = Outbox(store)
    assert box.enqueue("g1", 0, 0) == 0  # the seat chose no channel
    box.subscribe("g1", 0, "https://hooks.example.org/a", "a@example.org", "https://x/game/g1#t=tok")
    assert box.enqueue("g1", 0, 0) == 2
    assert box.enqueue("g1", 0, 0) == 0  # the restarted writer, another worker: nothing new
    assert box.enqueue("g1", 0, 0, kind="reminder", channels=("email",)) == 1
    assert box.enqueue("g1", 4, 0) == 2
    keys = [(r["version"], r["channel"], r["kind"]) for r in box.rows("g1")]
    assert keys == [(0, "webhook", "turn"), (0, "email", "turn"), (0, "email", "reminder"),
                    (4, "webhook", "turn"), (4, "email", "turn")]


def test_concurrent_dispatchers_claim_disjoint_rows(store: Store) -> None:
    a_game(store, "g2")
    seed = Outbox(store)
    seed.subscribe("g2", 1, "https://hooks.example.org/b", None, "https://x/game/g2#t=tok")
    for v in range(60):
        seed.enqueue("g2", v, 1)
    workers = [Outbox(store) for _ in range(4)]
    got: list[list[int]] = [[] for _ in workers]
    go = threading.Barrier(len(workers))

    def run(i: int) -> None:
        go.wait()
        while True:
            jobs = workers[i].claim(7, lease=60)
            if not jobs:
                return
            got[i].extend(j.id for j in jobs)
            for j in jobs:
                workers[i].finish(j, "sent")

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(workers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    ids = [i for g in got for i in g]
    assert len(ids) == 60 and len(set(ids)) == 60  # each row claimed by exactly one worker
    assert {r["done"] for r in seed.rows("g2")} == {"sent"}


def test_a_dead_workers_claim_is_taken_again_after_its_lease(store: Store) -> None:
    a_game(store, "g3")
    dead, alive = Outbox(store), Outbox(store)
    dead.subscribe("g3", 0, "https://hooks.example.org/c", None, "https://x/game/g3#t=tok")
    dead.enqueue("g3", 0, 0)
    assert len(dead.claim(5, lease=60)) == 1
    assert alive.claim(5, lease=60) == []  # held
    time.sleep(0.3)
    again = alive.claim(5, lease=0.2)
    assert len(again) == 1
    dead.finish(again[0], "sent")  # the dead worker's late mark does not count
    assert [r["done"] for r in alive.rows("g3")] == [None]
    alive.finish(again[0], "sent")
    assert [r["done"] for r in alive.rows("g3")] == ["sent"]
