"""A step's write (``Store.append``) on SQLite and PostgreSQL: the conditional move, the acting
seat's kind, several steps at once, the turn notification written with the step (a
transactional outbox), and — on PostgreSQL, where the write is one statement without a
transaction around it — the game's advisory lock (issue 15 items 2, 3 and the load path)."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from rebirth.server.persistence.outbox import Outbox
from rebirth.server.persistence.store import (
    GROUP_MAX,
    GameRow,
    ServerClosing,
    StaleWrite,
    Step,
    Store,
    TurnNotice,
    game_lock_key,
)
from rebirth.server.settings import sqlite_url
from server import pgkit

ROW = GameRow("g1", "ireland", 2, [], "en", False, 1, {}, "test", "playing", 0, ["Aoife", "Brian"],
              ["human", "human"])


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A store with one two-player game of humans, at version 0."""
    if request.param == "sqlite":
        s = Store(sqlite_url(tmp_path / "append.db"))
        s.create_game(ROW, [])
        yield s
        s.close()
        return
    with pgkit.database() as url:
        s = Store(url)
        s.create_game(ROW, [])
        yield s
        s.close()


def steps_of(store: Store) -> list[tuple[int, int | None, str]]:
    return [(s.seq, s.seat, s.text) for s in store.steps("g1")]


def test_a_step_moves_the_version_and_a_stale_or_wrong_seat_step_writes_nothing(store: Store) -> None:
    assert store.append("g1", [Step(1, 0, "place A1")], 1, False, actor=(0, "human")) == 0
    # Two steps at once (an action and the chance outcome it caused).
    store.append("g1", [Step(2, 1, "place B2"), Step(3, None, "reveal S2")], 3, False, actor=(1, "human"))
    row = store.game("g1")
    assert row is not None and row.version == 3
    with pytest.raises(StaleWrite):  # behind: the game is at 3, not 1
        store.append("g1", [Step(2, 0, "place C3")], 2, False, actor=(0, "human"))
    with pytest.raises(StaleWrite):  # the seat is a human's, not a bot's
        store.append("g1", [Step(4, 0, "place C3")], 4, False, actor=(0, "bot"))
    assert steps_of(store) == [(1, 0, "place A1"), (2, 1, "place B2"), (3, None, "reveal S2")]
    row = store.game("g1")
    assert row is not None and row.version == 3 and row.status == "playing"
    store.append("g1", [Step(4, 0, "place C3")], 4, True)
    row = store.game("g1")
    assert row is not None and row.status == "over" and row.version == 4


def test_the_turn_notification_is_written_with_its_step_once(store: Store) -> None:
    outbox = Outbox(store)
    outbox.subscribe("g1", 1, "https://hooks.example.test/b", None, "https://play.example.test/game/g1")
    notice = TurnNotice(1, 1, ("webhook", "email"))  # seat 1's turn began at version 1
    assert store.append("g1", [Step(1, 0, "place A1")], 1, False, notice=notice) == 1
    # The same turn again (its key is taken): no second row; a seat without channels: none.
    assert store.append("g1", [Step(2, None, "reveal S2")], 2, False, notice=notice) == 0
    assert store.append("g1", [Step(3, 1, "place B2")], 3, False, notice=TurnNotice(3, 0, ("webhook",))) == 0
    # A stale step writes no notification either.
    with pytest.raises(StaleWrite):
        store.append("g1", [Step(3, 0, "place C3")], 3, False, notice=TurnNotice(3, 1, ("webhook",)))
    rows = outbox.rows("g1")
    assert [(r["version"], r["seat"], r["channel"], r["kind"]) for r in rows] == [(1, 1, "webhook", "turn")]
    # Outside a step (a game loaded, a reminder), the same rule: the channels the seat chose.
    assert outbox.enqueue("g1", 5, 1, "reminder", ("webhook", "email"), due=time.time() + 60) == 1
    assert outbox.enqueue("g1", 5, 0, "turn", ("webhook",)) == 0
    assert len(outbox.rows("g1")) == 2


def test_a_step_from_the_event_loop_writes_the_same(store: Store) -> None:
    """``append_soon`` (PostgreSQL: on the loop's own pool) has append's answers and refusals."""

    async def scenario() -> None:
        outbox = Outbox(store)
        await asyncio.to_thread(outbox.subscribe, "g1", 1, "https://hooks.example.test/b", None,
                                "https://play.example.test/game/g1")
        made = await store.append_soon("g1", [Step(1, 0, "place A1"), Step(2, None, "reveal S2")], 2, False,
                                       actor=(0, "human"), notice=TurnNotice(2, 1, ("webhook",)))
        assert made == 1
        with pytest.raises(StaleWrite):  # behind
            await store.append_soon("g1", [Step(2, 1, "place B2")], 2, False, actor=(1, "human"))
        with pytest.raises(StaleWrite):  # the seat's kind changed
            await store.append_soon("g1", [Step(3, 1, "place B2")], 3, False, actor=(1, "bot"))
        await store.append_soon("g1", [Step(3, 1, "place B2")], 3, True, actor=(1, "human"))
        await store.aclose()

    # In a thread of its own: a browser test may keep an event loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, scenario()).result()
    assert steps_of(store) == [(1, 0, "place A1"), (2, None, "reveal S2"), (3, 1, "place B2")]
    row = store.game("g1")
    assert row is not None and row.version == 3 and row.status == "over"


def test_a_step_waits_for_the_games_lock_on_postgresql(tmp_path: Path) -> None:
    """The one-statement write takes the game's advisory lock (the clock's writes take it too)."""
    with pgkit.database() as url:
        store = Store(url)
        try:
            store.create_game(ROW, [])
            done = threading.Event()
            with store.engine.connect() as holder:
                holder.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": game_lock_key("g1")})
                def write() -> None:
                    store.append("g1", [Step(1, 0, "place A1")], 1, False)
                    done.set()

                t = threading.Thread(target=write)
                t.start()
                assert not done.wait(0.5), "the step was written while another held the game's lock"
                holder.rollback()  # the lock goes with the transaction
            assert done.wait(10)
            t.join()
            assert steps_of(store) == [(1, 0, "place A1")]
        finally:
            store.close()


def test_steps_of_several_games_are_committed_together_each_with_its_own_answer(tmp_path: Path) -> None:
    """PostgreSQL, from the event loop: the steps that wait together are one group commit (one
    transaction), yet each gets its own answer — a stale step is refused alone, and a step that
    lost a race on ``UNIQUE(game, seq)`` (which aborts the whole transaction) is refused alone
    while the others are written one by one."""
    with pgkit.database() as url:
        store = Store(url)
        try:
            for g in ("g1", "g2", "g3", "g4"):
                store.create_game(dataclasses.replace(ROW, id=g), [])
            store.append("g3", [Step(1, 0, "place A1")], 1, False)  # g3 is at 1: a step for 0 is stale
            with store.tx() as c:  # g4: step 1 stored by "another writer" whose move is not seen
                c.execute(text("INSERT INTO actions (game, seq, seat, text, created)"
                               " VALUES ('g4', 1, 0, 'place Z9', 0)"))

            def write(g: str, seq: int) -> Any:
                return store.append_soon(g, [Step(seq, 0, f"place {g}")], seq, False, actor=(0, "human"))

            async def scenario() -> tuple[list[Any], list[Any], int]:
                first = await asyncio.gather(write("g1", 1), write("g2", 1), write("g3", 1),
                                             return_exceptions=True)
                writes = store.group_writes
                second = await asyncio.gather(write("g1", 2), write("g4", 1), write("g2", 2),
                                              return_exceptions=True)
                await store.aclose()
                return list(first), list(second), writes

            with ThreadPoolExecutor(1) as pool:
                first, second, writes = pool.submit(asyncio.run, scenario()).result()
            assert writes == 1 and store.group_steps == 6 and store.group_writes == 2
            assert first[:2] == [0, 0]
            assert isinstance(first[2], StaleWrite) and "no longer at" in str(first[2])
            assert second[0] == 0 and second[2] == 0
            assert isinstance(second[1], StaleWrite) and "another writer" in str(second[1])
            assert [(s.seq, s.text) for s in store.steps("g1")] == [(1, "place g1"), (2, "place g1")]
            assert [(s.seq, s.text) for s in store.steps("g2")] == [(1, "place g2"), (2, "place g2")]
            assert [s.text for s in store.steps("g3")] == ["place A1"]
            versions = {g: store.game(g).version for g in ("g1", "g2", "g3", "g4")}  # type: ignore[union-attr]
            assert versions == {"g1": 2, "g2": 2, "g3": 1, "g4": 0}
        finally:
            store.close()


def test_a_step_waiting_for_its_group_commit_at_shutdown_is_refused_not_left_waiting(tmp_path: Path) -> None:
    """``Store.aclose`` (shutdown) answers a step whose group commit had not been made with a
    clear error (its hub then rebuilds from the log) instead of leaving it waiting for ever."""
    with pgkit.database() as url:
        store = Store(url)
        try:
            store.create_game(ROW, [])

            async def scenario() -> BaseException | None:
                t = asyncio.ensure_future(store.append_soon("g1", [Step(1, 0, "place A1")], 1, False))
                await asyncio.sleep(0)  # the step waits; its committer has not run yet
                await store.aclose()
                try:
                    await asyncio.wait_for(t, 5)
                except BaseException as exc:
                    return exc
                return None

            with ThreadPoolExecutor(1) as pool:
                got = pool.submit(asyncio.run, scenario()).result()
            assert isinstance(got, ServerClosing), got
            assert steps_of(store) == []
        finally:
            store.close()


def test_a_group_commit_carries_at_most_group_max_steps(tmp_path: Path) -> None:
    """However many steps wait, a batch carries at most ``GROUP_MAX`` (the steps of a batch
    resume together; hundreds at once held the event loop and starved new connections), and
    every waiting step is written and answered."""
    n = 3 * GROUP_MAX + 1
    with pgkit.database() as url:
        store = Store(url)
        try:
            for i in range(n):
                store.create_game(dataclasses.replace(ROW, id=f"g{i}"), [])

            async def scenario() -> list[Any]:
                got = await asyncio.gather(*(store.append_soon(f"g{i}", [Step(1, 0, "place A1")], 1, False)
                                             for i in range(n)))
                await store.aclose()
                return list(got)

            with ThreadPoolExecutor(1) as pool:
                got = pool.submit(asyncio.run, scenario()).result()
            assert got == [0] * n
            assert store.group_steps == n and store.group_writes >= 4
            assert all(store.game(f"g{i}").version == 1 for i in range(n))  # type: ignore[union-attr]
        finally:
            store.close()
