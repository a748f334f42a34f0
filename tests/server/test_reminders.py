"""Issue 26 item 3: deadline reminders and vacation on turn clocks, with a test clock
(tests/fakeclock.py ``WallClock``: the server's wall clock and the outbox's, moved by hand).

Reminders: the seat to move is reminded 24 h, 4 h and 1 h before its deadline — each threshold
exactly once, in order, as an encrypted push to a local push service — and a turn shorter than
a threshold skips it. Vacation: the seat's turn clock stands still while it is away (its vacation
allowance is used instead), runs again when it is back, both shown in the game's log; a reminder
whose deadline moved is postponed, not sent early."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fakeclock import WallClock
from rebirth.app.clock import ClockSpec, ClockState
from rebirth.server.clocks import changes
from rebirth.server.notifications.reminders import reminder_times
from rebirth.server.persistence import outbox as outbox_mod
from rebirth.server.persistence.outbox import Outbox
from rebirth.server.settings import Settings
from server import kit
from server.notifykit import wait_for
from server.pushkit import Browser, push_service
from server.test_notify import fast

DAY = 86400


@pytest.fixture
def wall(monkeypatch: pytest.MonkeyPatch) -> WallClock:
    """The server's clocks and the outbox's due times on one hand-moved clock."""
    w = WallClock()
    monkeypatch.setattr(changes, "wall_time", w)
    monkeypatch.setattr(outbox_mod, "time", w)
    return w


def running(per_move: int, since: float, vacation: float = 0.0) -> ClockState:
    st = ClockState.start(ClockSpec("turn", per_move_s=per_move), 2, vacation)
    st.turn(0, True, since)
    return st


def test_reminder_times_default_thresholds() -> None:
    s = Settings()
    st = running(2 * DAY, 1000.0)
    assert reminder_times(st, s) == [("reminder-86400", 1000.0 + DAY),
                                     ("reminder-14400", 1000.0 + 2 * DAY - 14400),
                                     ("reminder-3600", 1000.0 + 2 * DAY - 3600)]
    # A 12-hour turn: no 24-hour reminder. A real-time clock, or none running: none.
    assert [k for k, _ in reminder_times(running(12 * 3600, 0.0), s)] == ["reminder-14400", "reminder-3600"]
    assert reminder_times(ClockState.start(ClockSpec("realtime", 300, 5), 2), s) == []
    assert reminder_times(ClockState.start(ClockSpec("turn", per_move_s=DAY), 2), s) == []
    assert reminder_times(running(2 * DAY, 0.0), Settings(reminders="")) == []


def test_vacation_pauses_and_resumes_the_clock_state() -> None:
    """The pure bookkeeping: away, the running seat's time stands still while its vacation
    runs; back, its time runs again; an allowance used up lets the clock run even while away."""
    st = running(3600, 0.0, vacation=7200.0)
    st.go_away(0, 600.0, 3)
    assert st.left(0, 600.0) == 3000.0 and st.left(0, 5000.0) == 3000.0
    assert st.vacation_left(0, 5000.0) == 7200.0 - 4400.0
    assert st.deadline() == 600.0 + 7200.0 + 3000.0
    st.come_back(0, 5000.0, 3)
    assert st.vacation[0] == 2800.0 and st.left(0, 5100.0) == 2900.0
    st.go_away(0, 5100.0, 4)  # away again: 2800 s of vacation, then the clock runs
    assert st.left(0, 5100.0 + 2800.0 + 100.0) == 2800.0
    assert st.expired(5100.0 + 2800.0 + 2900.0)
    assert [n["key"] for n in st.notices] == ["clock.vacation", "clock.vacation_end", "clock.vacation"]
    # Stored and read back as it is; clocks stored before vacations have none.
    again = ClockState.from_json(st.to_json())
    assert again.away == [True, False] and again.vacation == st.vacation
    old = {k: v for k, v in st.to_json().items() if k not in ("away", "vacation")}
    assert ClockState.from_json(old).vacation == [0.0, 0.0]


def _new(c: TestClient, per_move: int) -> tuple[str, list[str], int]:
    g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}],
                     clock={"kind": "turn", "per_move_s": per_move})
    gid, toks = g["game"], kit.seat_tokens(c, g)
    mover = c.get(f"/api/games/{gid}").json()["clock"]["running"]
    return gid, toks, mover


def test_each_reminder_threshold_once(tmp_path: Path, wall: WallClock) -> None:
    """Must-show: 24 h, 4 h and 1 h before a 2-day deadline, one push each, in order; nothing
    before its time, nothing twice."""
    with push_service() as svc, kit.client(tmp_path, **fast()) as c:
        gid, toks, mover = _new(c, 2 * DAY)
        b = Browser(svc.endpoint("/r"))
        r = c.put(f"/api/games/{gid}/notify", headers={"Authorization": f"Bearer {toks[mover]}"},
                  json={"push": b.subscription()})
        assert r.status_code == 200
        assert wait_for(lambda: len(svc.on("/r")) == 1)  # the turn itself
        start = wall.now
        deadline = c.get(f"/api/games/{gid}").json()["clock"]["deadline"]
        got: list[dict[str, Any]] = []
        for before, n in ((DAY, 2), (4 * 3600, 3), (3600, 4)):
            wall.now = deadline - before - 5
            time.sleep(0.4)
            assert len(svc.on("/r")) == n - 1, (before, [b.decrypt(p) for p in svc.on("/r")])  # not yet
            wall.now = deadline - before + 1
            assert wait_for(lambda: len(svc.on("/r")) == n), (before, svc.hits)  # noqa: B023
            got.append(b.decrypt(svc.on("/r")[-1]))
        wall.now = deadline - 60
        time.sleep(0.5)
        assert len(svc.on("/r")) == 4  # each once
        assert [d["kind"] for d in got] == ["reminder"] * 3
        assert ["24 h" in got[0]["body"], "4 h" in got[1]["body"], "1 h" in got[2]["body"]] == [True] * 3
        rows = [x for x in Outbox(c.app.state.notifier.store).rows(gid)  # type: ignore[attr-defined]
                if str(x["kind"]).startswith("reminder")]
        assert sorted(str(x["kind"]) for x in rows) == ["reminder-14400", "reminder-3600", "reminder-86400"]
        assert {x["done"] for x in rows} == {"sent"}
        assert wall.now > start


def test_vacation_pauses_and_resumes_the_turn_clock(tmp_path: Path, wall: WallClock) -> None:
    """Must-show: the seat to move goes on vacation — its time stands still, the pause is in the
    game's log, its 1-hour reminder is postponed with the deadline — and comes back: its time
    runs again, with the vacation it used gone from its allowance."""
    with push_service() as svc, kit.client(tmp_path, **fast(vacation_days=1.0)) as c:
        gid, toks, mover = _new(c, 2 * 3600)
        auth = {"Authorization": f"Bearer {toks[mover]}"}
        b = Browser(svc.endpoint("/v"))
        r = c.put(f"/api/games/{gid}/notify", headers=auth, json={"push": b.subscription()})
        assert r.status_code == 200
        assert wait_for(lambda: len(svc.on("/v")) == 1)
        clock = c.get(f"/api/games/{gid}").json()["clock"]
        deadline = clock["deadline"]
        assert clock["vacation"] == [DAY, DAY] and clock["away"] == [False, False]
        wall.advance(600)
        r = c.post(f"/api/games/{gid}/vacation", headers=auth, json={"on": True})
        assert r.status_code == 200, r.text
        clock = r.json()["clock"]
        assert clock["away"][mover] is True and clock["left"][mover] == pytest.approx(7200 - 600, abs=1)
        assert clock["deadline"] == pytest.approx(deadline + DAY, abs=1)
        assert [n["key"] for n in clock["notices"]] == ["clock.vacation"]
        assert clock["notices"][0]["seat"] == mover
        # The old 1-hour mark passes: the time stands still and no reminder goes out.
        wall.now = deadline - 3600 + 10
        time.sleep(0.6)
        clock = c.get(f"/api/games/{gid}").json()["clock"]
        assert clock["left"][mover] == pytest.approx(6600, abs=1)
        assert clock["vacation"][mover] == pytest.approx(DAY - (7200 - 600 - 3600 + 10), abs=1)
        assert len(svc.on("/v")) == 1
        r = c.post(f"/api/games/{gid}/vacation", headers=auth, json={"on": False})
        clock = r.json()["clock"]
        assert clock["away"][mover] is False
        assert [n["key"] for n in clock["notices"]][-1] == "clock.vacation_end"
        back_deadline = clock["deadline"]
        assert back_deadline == pytest.approx(wall.now + 6600, abs=1)
        wall.advance(100)
        assert c.get(f"/api/games/{gid}").json()["clock"]["left"][mover] == pytest.approx(6500, abs=1)
        # The postponed 1-hour reminder comes an hour before the new deadline, once.
        wall.now = back_deadline - 3600 + 1
        assert wait_for(lambda: len(svc.on("/v")) == 2), svc.hits
        assert b.decrypt(svc.on("/v")[1])["kind"] == "reminder"
        # Refusals: another seat's link and a spectator may not; a game without a turn clock has none.
        spec = {"Authorization": "Bearer junk"}
        assert c.post(f"/api/games/{gid}/vacation", headers=spec, json={"on": True}).status_code in (401, 403)
        g2 = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}],
                          clock={"kind": "realtime", "initial_s": 300, "increment_s": 5})
        t2 = kit.seat_tokens(c, g2)
        r = c.post(f"/api/games/{g2['game']}/vacation", headers={"Authorization": f"Bearer {t2[0]}"},
                   json={"on": True})
        assert r.status_code == 409 and r.json()["error"]["code"] == "no_vacation"
