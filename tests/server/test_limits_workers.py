"""Limits across several workers (issue 15 item 6): the rate limits of a client address hold
across workers (counted in Redis), the caps are counted in the shared database, and a bot game
resumes by itself after a storage outage in multi-worker mode too."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from rebirth.server.persistence.store import Store
from server import kit
from server.workerkit import database, prefix, redis_server, worker

HUMANS = [{"kind": "human"}, {"kind": "human"}]
BOTS = [{"kind": "easy"}, {"kind": "easy"}]


def _create(c: Any, seats: list[dict[str, str]] = HUMANS) -> Any:
    return c.post("/api/games", json={"board": "ireland", "players": 2, "seats": seats})


def test_a_client_rate_limit_holds_across_workers(tmp_path: Path) -> None:
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, rate_create="3/minute") as a, \
                worker(tmp_path, db, r, pfx, rate_create="3/minute") as b:
            assert [_create(a).status_code, _create(b).status_code, _create(a).status_code] == [201] * 3
            for c in (a, b):
                r429 = _create(c)
                assert r429.status_code == 429 and r429.json()["error"]["code"] == "rate_limited"
                assert int(r429.headers["retry-after"]) >= 1


def test_the_games_per_client_cap_holds_across_workers(tmp_path: Path) -> None:
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, max_games_per_client=2) as a, \
                worker(tmp_path, db, r, pfx, max_games_per_client=2) as b:
            assert [_create(a).status_code, _create(b).status_code] == [201, 201]
            assert _create(a).json()["error"]["code"] == "too_many_games"
            assert _create(b).json()["error"]["code"] == "too_many_games"


def test_a_bot_game_resumes_after_a_storage_outage_on_several_workers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15 item 6: the bot loop retries with backoff while the database refuses writes, and
    the game goes on by itself once it takes them again."""
    broken = {"on": False}
    append = Store.append

    def failing(self: Store, *args: Any, **kw: Any) -> None:
        if broken["on"]:
            raise OperationalError("INSERT", {}, Exception("could not extend file: No space left on device"))
        append(self, *args, **kw)

    append_soon = Store.append_soon

    async def failing_soon(self: Store, *args: Any, **kw: Any) -> int:
        # The step writes from the event loop (PostgreSQL's one-statement path) fail the same.
        if broken["on"]:
            raise OperationalError("INSERT", {}, Exception("could not extend file: No space left on device"))
        return await append_soon(self, *args, **kw)

    monkeypatch.setattr(Store, "append", failing)
    monkeypatch.setattr(Store, "append_soon", failing_soon)
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, bot_delay=0.01, bot_retry_max=0.2) as a, \
                worker(tmp_path, db, r, pfx, bot_delay=0.01, bot_retry_max=0.2) as b:
            broken["on"] = True
            gid = _create(a, BOTS).json()["game"]
            time.sleep(1.0)
            assert b.get(f"/api/games/{gid}").json()["version"] == 0
            broken["on"] = False
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                s = b.get(f"/api/games/{gid}").json()
                if s["version"] >= 5:
                    break
                time.sleep(0.1)
            assert s["version"] >= 5, s
            store = Store(db)
            try:
                seqs = [st.seq for st in store.steps(gid)]
                assert seqs == list(range(1, len(seqs) + 1))  # one log, no gap, no fork
            finally:
                store.close()
    assert kit.UNLIMITED  # the other limits stay off in these workers (kit.settings)
