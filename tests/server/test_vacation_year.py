"""Vacation per player per year (issue 26 item 3, as lichess and BGA bound it): a seat held by a
signed-in account draws its vacation from the account's allowance for the calendar year
(``REBIRTH_VACATION_DAYS`` a year) across all its games; the allowance renews on 1 January; an
exhausted allowance is refused clearly. An account is away for one period however many games it
pauses (one by one or all at once, ``POST /api/account/vacation``): its days are charged once.
A guest seat keeps its allowance per game."""

from __future__ import annotations

import contextlib
import datetime
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fakeclock import WallClock
from rebirth.server.clocks import changes
from server import kit
from server.accountkit import mail_client, signin

DAY = 86400.0


@pytest.fixture
def wall(monkeypatch: pytest.MonkeyPatch) -> WallClock:
    w = WallClock()
    w.now = datetime.datetime(2030, 12, 10, tzinfo=datetime.UTC).timestamp()
    monkeypatch.setattr(changes, "wall_time", w)
    return w


def _my_game(c: TestClient) -> tuple[str, str]:
    """A turn-clock game of the signed-in account against a bot, once it is the account's turn."""
    g = kit.new_game(c, players=2, seats=[{"kind": "human", "account": "me"}, {"kind": "easy"}],
                     clock={"kind": "turn", "per_move_s": int(14 * DAY)})
    tok = kit.claim(c, g["links"]["seats"][0]["url"])
    deadline = time.monotonic() + 30
    while c.get(f"/api/games/{g['game']}").json()["clock"]["running"] != 0:
        assert time.monotonic() < deadline, "the bot did not move"
        time.sleep(0.05)
    return g["game"], tok


def _away(c: TestClient, gid: str, tok: str, on: bool) -> Any:
    return c.post(f"/api/games/{gid}/vacation", headers={"Authorization": f"Bearer {tok}"}, json={"on": on})


def _left(c: TestClient) -> dict[str, Any]:
    out: dict[str, Any] = c.get("/api/account").json()["vacation"]
    out.pop("away")
    return out


def _is_away(c: TestClient) -> bool:
    return bool(c.get("/api/account").json()["vacation"]["away"])


def test_two_games_of_one_account_share_one_vacation_period_charged_once(tmp_path: Path,
                                                                          wall: WallClock) -> None:
    with mail_client(tmp_path, vacation_days=10.0) as (c, smtp):
        signin(c, smtp, "ailsa@example.org")
        assert _left(c) == {"year": 2030, "left_s": 10 * DAY}
        a, ta = _my_game(c)
        b, tb = _my_game(c)
        r = _away(c, a, ta, True)
        assert r.status_code == 200, r.text
        assert r.json()["clock"]["vacation"][0] == pytest.approx(10 * DAY)
        assert _is_away(c) and _left(c)["left_s"] == pytest.approx(10 * DAY, abs=5)
        wall.advance(2 * DAY)
        # Game B joins the period under way: what is left of it, not a second reservation
        # (before: 409 no_vacation_left, as A held every day).
        r = _away(c, b, tb, True)
        assert r.status_code == 200, r.text
        assert r.json()["clock"]["vacation"][0] == pytest.approx(8 * DAY, abs=5)
        assert r.json()["clock"]["away"][0] is True
        wall.advance(1 * DAY)
        r = _away(c, a, ta, False)  # back in A; still away in B: nothing is given back yet
        assert r.status_code == 200, r.text
        assert _is_away(c)
        wall.advance(1 * DAY)
        r = _away(c, b, tb, False)  # the last one back: 4 calendar days charged, once
        assert r.status_code == 200, r.text
        assert not _is_away(c)
        assert _left(c)["left_s"] == pytest.approx(6 * DAY, abs=5)
        assert r.json()["clock"]["vacation"][0] == pytest.approx(6 * DAY, abs=5)
        # A new period draws on what is left: 6 days, not a fresh 10.
        r = _away(c, a, ta, True)
        assert r.status_code == 200, r.text
        assert r.json()["clock"]["vacation"][0] == pytest.approx(6 * DAY, abs=5)


def test_a_game_that_ends_while_away_leaves_the_period(tmp_path: Path, wall: WallClock) -> None:
    """A game that ends while its seat is away (here: the seat resigns, a bot plays it out)
    leaves the account's period; the last one closes it and gives back what was not used —
    the account is not left "away" with its days held by a finished game."""
    with mail_client(tmp_path, vacation_days=10.0) as (c, smtp):
        signin(c, smtp, "eli@example.org")
        a, ta = _my_game(c)
        b, tb = _my_game(c)
        assert _away(c, a, ta, True).status_code == 200
        assert _away(c, b, tb, True).status_code == 200
        wall.advance(2 * DAY)
        with c.websocket_connect(f"/ws/games/{a}") as ws:
            kit.hello(ws, ta)
            ws.send_json({"type": "resign"})
            deadline = time.monotonic() + 60
            while c.get(f"/api/games/{a}").json()["status"] != "over":
                assert time.monotonic() < deadline, "the bot did not finish the game"
                time.sleep(0.05)
        assert _is_away(c)  # B is still away: the period stays open
        r = _away(c, b, tb, False)
        assert r.status_code == 200, r.text
        assert not _is_away(c)
        assert _left(c)["left_s"] == pytest.approx(8 * DAY, abs=5)  # two days, charged once
        # The last game away ending closes the period by itself.
        assert _away(c, b, tb, True).status_code == 200
        with c.websocket_connect(f"/ws/games/{b}") as ws:
            kit.hello(ws, tb)
            ws.send_json({"type": "resign"})
            deadline = time.monotonic() + 60
            while _is_away(c):
                assert time.monotonic() < deadline, "the period stayed open after its last game ended"
                time.sleep(0.05)
        assert _left(c)["left_s"] >= 8 * DAY - 5


def test_the_account_goes_away_in_all_its_turn_games_at_once(tmp_path: Path, wall: WallClock) -> None:
    with mail_client(tmp_path, vacation_days=10.0) as (c, smtp):
        signin(c, smtp, "cat@example.org")
        a, _ = _my_game(c)
        b, _ = _my_game(c)
        untimed = kit.new_game(c, players=2, seats=[{"kind": "human", "account": "me"}, {"kind": "easy"}])
        r = c.post("/api/account/vacation", json={"on": True})
        assert r.status_code == 200, r.text
        assert r.json() == {"away": True, "games": sorted([a, b])}  # not the game without a clock
        for g in (a, b):
            clock = c.get(f"/api/games/{g}").json()["clock"]
            assert clock["away"][0] is True and clock["vacation"][0] == pytest.approx(10 * DAY, abs=5)
        assert c.get(f"/api/games/{untimed['game']}").json()["clock"] is None
        # Again: nothing more to change, nothing charged twice.
        assert c.post("/api/account/vacation", json={"on": True}).json() == {"away": True, "games": []}
        wall.advance(3 * DAY)
        r = c.post("/api/account/vacation", json={"on": False})
        assert r.json() == {"away": False, "games": sorted([a, b])}
        assert _left(c)["left_s"] == pytest.approx(7 * DAY, abs=5)
        for g in (a, b):
            assert c.get(f"/api/games/{g}").json()["clock"]["away"][0] is False
        # Signed out: no account, no vacation.
        c.cookies.clear()
        assert c.post("/api/account/vacation", json={"on": True}).status_code == 401


def test_an_exhausted_allowance_is_refused_until_the_new_year(tmp_path: Path, wall: WallClock) -> None:
    with mail_client(tmp_path, vacation_days=2.0) as (c, smtp):
        signin(c, smtp, "brodie@example.org")
        a, ta = _my_game(c)
        b, tb = _my_game(c)
        assert _away(c, a, ta, True).status_code == 200
        wall.advance(2.5 * DAY)  # the whole allowance is used up (then the turn clock runs)
        assert _away(c, a, ta, False).status_code == 200
        assert _left(c)["left_s"] == pytest.approx(0, abs=5)
        r = _away(c, b, tb, True)
        assert r.status_code == 409 and r.json()["error"]["code"] == "no_vacation_left"
        assert r.json()["error"]["message"]["de"].startswith("dein Konto hat dieses Jahr keinen Urlaub")
        assert c.get(f"/api/games/{b}").json()["clock"]["away"][0] is False  # nothing changed
        wall.now = datetime.datetime(2031, 1, 1, 0, 0, 5, tzinfo=datetime.UTC).timestamp()
        assert _left(c) == {"year": 2031, "left_s": 2 * DAY}
        r = _away(c, b, tb, True)
        assert r.status_code == 200, r.text
        assert r.json()["clock"]["away"][0] is True


def test_a_guest_seat_keeps_its_allowance_per_game(tmp_path: Path, wall: WallClock) -> None:
    with kit.client(tmp_path, vacation_days=3.0) as c:
        for _ in range(2):
            g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}],
                             clock={"kind": "turn", "per_move_s": int(DAY)})
            tok = kit.claim(c, g["links"]["seats"][0]["url"])
            r = _away(c, g["game"], tok, True)
            assert r.status_code == 200 and r.json()["clock"]["vacation"][0] == pytest.approx(3 * DAY)


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_two_games_going_away_at_once_open_one_period(tmp_path: Path, db: str) -> None:
    """Two games of one account sent on vacation at the same moment (a barrier, a real server):
    both succeed, one opening the period and the other joining it (read again after the
    conflict), so the days are reserved once; both back, the period closes."""
    import threading

    import httpx

    from rebirth.server.persistence import vacation as vacstore
    from server import livekit, pgkit
    from server.test_bot_accounts import Person, _store

    with contextlib.ExitStack() as stack:
        kw: dict[str, Any] = {"vacation_days": 10.0}
        if db == "postgresql":
            kw["database_url"] = stack.enter_context(pgkit.database())
        url, app = stack.enter_context(livekit.live(tmp_path, **kw))
        store = _store(app)
        me = Person(url, store, "dora@example.org")
        games = []
        for _ in range(2):
            g = me.post("/api/games", {"players": 2, "seats": [{"kind": "human", "account": "me"},
                                                               {"kind": "easy"}],
                                       "clock": {"kind": "turn", "per_move_s": int(14 * DAY)}}).json()
            tok = httpx.post(f"{url}/api/games/{g['game']}/claim",
                             json={"invite": g["links"]["seats"][0]["url"].split("#i=")[1]},
                             timeout=10).json()["token"]
            games.append((g["game"], tok))
        gate = threading.Barrier(2)
        got: list[int] = []

        def away(gid: str, tok: str, on: bool) -> None:
            gate.wait(10)
            got.append(httpx.post(f"{url}/api/games/{gid}/vacation", json={"on": on}, timeout=30,
                                  headers={"Authorization": f"Bearer {tok}"}).status_code)

        for on in (True, False):
            got.clear()
            threads = [threading.Thread(target=away, args=(g, t, on)) for g, t in games]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            assert got == [200, 200], got
            period = vacstore.away_of(store, me.account.id)
            if on:
                assert period is not None and period.games == 2
                assert period.reserved_s == pytest.approx(10 * DAY)
            else:
                assert period is None
        # Reserved once, charged the few seconds the period lasted.
        left = me.get("/api/account").json()["vacation"]["left_s"]
        assert 10 * DAY - 60 < left <= 10 * DAY
