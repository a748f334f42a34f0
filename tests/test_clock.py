"""The clock's bookkeeping (issue 16 item 1: clocks) with a fake time: banks, increments, turn
deadlines, time-outs, take-backs, adjustments and the restart rule."""

from __future__ import annotations

import pytest

from rebirth.app.clock import MAX_PER_MOVE_S, MAX_REALTIME_S, ClockSpec, ClockState


class Fake:
    """A wall clock the test moves by hand."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def realtime(initial: int = 300, inc: int = 10, players: int = 3) -> tuple[ClockState, Fake]:
    now = Fake()
    st = ClockState.start(ClockSpec("realtime", initial, inc), players)
    st.turn(0, True, now())
    return st, now


def test_realtime_charges_the_seat_to_move_and_adds_the_increment_when_its_turn_ends() -> None:
    st, now = realtime()
    now.t += 42
    assert st.left(0, now()) == pytest.approx(258)
    assert st.left(1, now()) == 300  # only the running seat's time goes
    st.turn(1, True, now())  # seat 0 moved: charged 42, +10
    assert st.remaining[0] == pytest.approx(268) and st.running == 1
    now.t += 5
    st.turn(1, True, now())  # the same seat again (a mark after a placement): no increment yet
    assert st.left(1, now()) == pytest.approx(295)
    now.t += 5
    st.turn(2, True, now())
    assert st.remaining[1] == pytest.approx(300)  # 300 - 10 + 10


def test_turn_based_gives_each_turn_its_full_deadline() -> None:
    now = Fake()
    st = ClockState.start(ClockSpec("turn", per_move_s=86400), 2)
    st.turn(0, True, now())
    assert st.deadline() == pytest.approx(now() + 86400)
    now.t += 80000
    st.turn(1, True, now())
    assert st.remaining == [86400, 86400] and st.deadline() == pytest.approx(now() + 86400)


def test_a_bot_turn_stops_every_clock() -> None:
    st, now = realtime()
    now.t += 10
    st.turn(1, False, now())
    assert st.running is None and st.deadline() is None
    now.t += 1000
    assert st.left(0, now()) == pytest.approx(300) and not st.expired(now())


def test_expiry_time_out_and_take_back() -> None:
    st, now = realtime(initial=30, inc=0)
    now.t += 29.9
    assert not st.expired(now())
    now.t += 0.2
    assert st.expired(now())
    assert st.time_out(version=7) == 0
    assert st.timed_out[0] and st.running is None and st.left(0, now()) == 0
    assert st.notices[-1] == {"version": 7, "key": "clock.timeout", "seat": 0}
    # A timed-out seat's clock does not run while the bot plays it.
    st.turn(0, True, now())
    assert st.running is None
    st.take_back(0, version=9)
    assert not st.timed_out[0] and st.remaining[0] == 30  # min(bank, 60) so it does not run out at once
    assert st.notices[-1]["key"] == "clock.back"


def test_add_time_and_turn_off() -> None:
    st, now = realtime()
    now.t += 100
    st.add(60, now(), version=3)
    assert st.left(0, now()) == pytest.approx(260) and st.left(1, now()) == 360
    st.turn_off(now(), version=3)
    assert not st.enabled and st.deadline() is None
    now.t += 10_000
    assert not st.expired(now())
    st.turn(1, True, now())
    assert st.running is None  # stays off


def test_a_pause_credits_the_running_seat_the_downtime_only() -> None:
    st, now = realtime()
    now.t += 20
    st.turn(1, True, now())  # stored: remaining [290, 300, 300], since = now
    stored = ClockState.from_json(st.to_json())
    now.t += 30  # 30 s into seat 1's turn the holding worker died; 3570 s later it was back
    now.t += 3570
    assert stored.pause(3570, now(), version=7)
    assert [stored.left(i, now()) for i in range(3)] == pytest.approx([290, 270, 300])
    assert stored.notices[-1] == {"version": 7, "key": "clock.paused", "seat": None, "s": 3570.0}
    assert not stored.pause(0, now())
    # A pause never moves the turn's start past now (a holder's beat from the future).
    assert stored.pause(10**6, now()) and stored.left(1, now()) == pytest.approx(300)


def test_limits() -> None:
    assert ClockSpec("realtime", 29, 0).problems(30) == [("initial_s", 30, MAX_REALTIME_S)]
    assert ClockSpec("realtime", 30, -1).problems(30)[0][0] == "increment_s"
    assert ClockSpec("turn", per_move_s=MAX_PER_MOVE_S + 1).problems(30)[0][0] == "per_move_s"
    assert ClockSpec("realtime", 300, 10).problems(30) == []
    assert ClockSpec("realtime", 1, 0).problems(1) == []


def test_json_round_trip_and_public_frame() -> None:
    st, now = realtime()
    back = ClockState.from_json(st.to_json())
    assert back == st
    f = st.frame(now() + 5)
    assert f["left"][0] == pytest.approx(295) and f["running"] == 0 and f["server_time"] == now() + 5
    assert f["deadline"] == pytest.approx(now() + 300) and f["kind"] == "realtime"
