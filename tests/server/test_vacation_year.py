"""Vacation per player per year (issue 26 item 3, as lichess and BGA bound it): a seat held by a
signed-in account draws its vacation from the account's allowance for the calendar year
(``REBIRTH_VACATION_DAYS`` a year) across all its games; the allowance renews on 1 January; an
exhausted allowance is refused clearly. A guest seat keeps its allowance per game."""

from __future__ import annotations

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
    return out


def test_two_games_of_one_account_share_the_yearly_allowance(tmp_path: Path, wall: WallClock) -> None:
    with mail_client(tmp_path, vacation_days=10.0) as (c, smtp):
        signin(c, smtp, "ailsa@example.org")
        assert _left(c) == {"year": 2030, "left_s": 10 * DAY}
        a, ta = _my_game(c)
        b, tb = _my_game(c)
        r = _away(c, a, ta, True)
        assert r.status_code == 200, r.text
        assert r.json()["clock"]["vacation"][0] == pytest.approx(10 * DAY)
        # Away in game A, the account's days are held there: game B gets none meanwhile.
        r = _away(c, b, tb, True)
        assert r.status_code == 409 and r.json()["error"]["code"] == "no_vacation_left"
        assert "this year" in r.json()["error"]["message"]["en"]
        wall.advance(3 * DAY)  # three days of A's own turn pass on vacation
        r = _away(c, a, ta, False)
        assert r.status_code == 200, r.text
        assert r.json()["clock"]["vacation"][0] == pytest.approx(7 * DAY, abs=5)
        assert _left(c)["left_s"] == pytest.approx(7 * DAY, abs=5)
        # Game B now draws on what is left: 7 days, not a fresh 10.
        r = _away(c, b, tb, True)
        assert r.status_code == 200, r.text
        assert r.json()["clock"]["vacation"][0] == pytest.approx(7 * DAY, abs=5)


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
