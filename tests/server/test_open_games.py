"""Open games and "Play now" (issue 25 item 5): a signed-in creator leaves seats open and lists
the game; any signed-in player takes one (exactly one of two racing, across workers too); "Play
now" pairs players who ask for the same board, player count and clock within a rating range that
widens with waiting. Rules along the way: S-1 (2-4 players), a seat's view only its own (S-5)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from rebirth.server.accounts.store import account_for_email, new_session
from rebirth.server.persistence import open_games as og
from rebirth.server.persistence.store import Store
from server import kit
from server.workerkit import database, prefix, redis_server, worker

ORIGIN = {"Origin": "http://testserver"}


def store(c: TestClient) -> Store:
    s: Store = c.app.state.registry.store  # type: ignore[attr-defined]
    return s


def person(c: TestClient, email: str) -> dict[str, str]:
    """A signed-in player: the headers of their browser (its session cookie)."""
    acct = account_for_email(store(c), email, "en")
    sid = new_session(store(c), acct.id, "test")
    return {"Cookie": f"rebirth_session={sid}", **ORIGIN, "X-Account": acct.id, "X-Name": acct.name}


def h(p: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in p.items() if not k.startswith("X-")}


def open_game(c: TestClient, creator: dict[str, str], players: int = 2, **kw: Any) -> dict[str, Any]:
    seats = [{"kind": "human", "name": "Creator"}] + [{"kind": "open"}] * (players - 1)
    r = c.post("/api/games", json={"board": "scotland", "players": players, "seats": seats, **kw},
               headers=h(creator))
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def test_an_open_seat_needs_a_signed_in_creator_and_gets_no_invitation(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        r = c.post("/api/games", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "open"}]})
        assert r.status_code == 401 and r.json()["error"]["code"] == "signin_required"
        g = open_game(c, person(c, "ann@example.org"))
        seats = g["links"]["seats"]
        assert seats[0]["url"] is not None and seats[1]["url"] is None  # open: no link to send
        r = c.post("/api/games", json={"players": 2, "hotseat": True,
                                       "seats": [{"kind": "human"}, {"kind": "open"}]},
                   headers=h(person(c, "bob@example.org")))
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_seats"


def test_a_listed_open_game_is_joined_once_per_seat(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        ann, bob, cai = (person(c, f"{n}@example.org") for n in ("ann", "bob", "cai"))
        g = open_game(c, ann, players=3, rated=True)
        listed = c.get("/api/open-games").json()["games"]
        assert [(x["game"], x["board"], x["players"], x["open_seats"], x["rated"], x["clock"])
                for x in listed] == [(g["game"], "scotland", 3, 2, True, None)]
        r = c.post(f"/api/games/{g['game']}/join", headers=h(bob))
        assert r.status_code == 200, r.text
        assert r.json()["seat"] == 1 and r.headers["cache-control"] == "no-store"
        again = c.post(f"/api/games/{g['game']}/join", headers=h(bob))
        assert again.status_code == 409 and again.json()["error"]["code"] == "already_seated"
        assert c.get("/api/open-games").json()["games"][0]["open_seats"] == 1
        assert c.post(f"/api/games/{g['game']}/join", headers=h(cai)).json()["seat"] == 2
        assert c.get("/api/open-games").json()["games"] == []
        full = c.post(f"/api/games/{g['game']}/join", headers=h(person(c, "dan@example.org")))
        assert full.status_code == 409 and full.json()["error"]["code"] == "no_open_seat"
        names = c.get(f"/api/games/{g['game']}").json()["names"]
        assert names == ["Creator", bob["X-Name"], cai["X-Name"]]
        # Without a session, or from another site's page: refused, nothing taken.
        assert c.post(f"/api/games/{g['game']}/join").status_code == 401
        foreign = {**h(cai), "Origin": "https://evil.example"}
        assert c.post(f"/api/games/{g['game']}/join", headers=foreign).status_code == 403


def test_the_joined_seat_plays_and_every_device_learns_its_name(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        ann, bob = person(c, "ann@example.org"), person(c, "bob@example.org")
        g = open_game(c, ann)
        mine = kit.claim(c, g["links"]["seats"][0]["url"])
        with c.websocket_connect(f"/ws/games/{g['game']}") as ws0:
            sync = kit.hello(ws0, mine)
            assert sync["names"][1] == "Open seat 2"
            token = c.post(f"/api/games/{g['game']}/join", headers=h(bob)).json()["token"]
            msg = ws0.receive_json()
            while msg["type"] != "sync":
                msg = ws0.receive_json()
            assert msg["names"] == ["Creator", bob["X-Name"]] and msg["seat"] == 0
            with c.websocket_connect(f"/ws/games/{g['game']}") as ws1:
                s1 = kit.hello(ws1, token)
                assert s1["seat"] == 1 and s1["names"][1] == bob["X-Name"]


def test_play_now_pairs_two_players_of_the_same_pool_into_a_rated_game(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        ann, bob, cai = (person(c, f"{n}@example.org") for n in ("ann", "bob", "cai"))
        t1 = c.post("/api/play-now", json={"board": "scotland", "players": 2}, headers=h(ann))
        assert t1.status_code == 201 and t1.json()["status"] == "waiting", t1.text
        # Another pool (Ireland) does not meet the first.
        t3 = c.post("/api/play-now", json={"board": "ireland", "players": 2}, headers=h(cai)).json()
        assert t3["status"] == "waiting"
        t2 = c.post("/api/play-now", json={"board": "scotland", "players": 2}, headers=h(bob)).json()
        assert t2["status"] == "paired"
        a1 = c.get(f"/api/play-now/{t1.json()['ticket']}", headers=h(ann)).json()
        assert a1["status"] == "paired" and a1["game"] == t2["game"] and {a1["seat"], t2["seat"]} == {0, 1}
        summary = c.get(f"/api/games/{a1['game']}").json()
        assert sorted(summary["names"]) == sorted([ann["X-Name"], bob["X-Name"]])
        assert summary["names"][a1["seat"]] == ann["X-Name"]
        from rebirth.server.accounts.store import game_meta_of, holds
        assert game_meta_of(store(c), a1["game"])[1] is True
        assert holds(store(c), ann["X-Account"], a1["game"], a1["seat"])
        # Someone else's ticket is not theirs to read or cancel.
        assert c.get(f"/api/play-now/{t3['ticket']}", headers=h(ann)).status_code == 404
        assert c.delete(f"/api/play-now/{t3['ticket']}", headers=h(cai)).json()["status"] == "cancelled"


def test_the_rating_range_widens_with_waiting_and_a_left_page_is_not_paired(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        s = store(c)
        ann, bob = person(c, "ann@example.org"), person(c, "bob@example.org")
        a = og.ask(s, ann["X-Account"], "scotland", 2, None, 0.0)
        b = og.ask(s, bob["X-Account"], "scotland", 2, None, 390.0)
        # 390 apart: too far at first; both pages keep asking every 5 s, and after 30 s each
        # accepts 100 + 10 * 30 = 400 (after 25 s: 350).
        group = None
        waited = 0.0
        while group is None and waited < 60:
            waited += 5
            group = og.match(s, a.id, now=a.created + waited) or og.match(s, b.id, now=a.created + waited)
        assert group is not None and {t.account for t in group} == {ann["X-Account"], bob["X-Account"]}
        assert waited == 30, waited
        cai, dan = person(c, "cai@example.org"), person(c, "dan@example.org")
        x = og.ask(s, cai["X-Account"], "ireland", 2, None, 0.0)
        y = og.ask(s, dan["X-Account"], "ireland", 2, None, 0.0)
        # Cai's page closed (no ask for 16 s): Dan is not paired with a player who left.
        assert og.match(s, y.id, now=x.created + og.POLL_STALE + 1) is None
        assert og.ticket(s, x.id).status == "cancelled"  # type: ignore[union-attr]


def test_choose_takes_the_closest_players_who_accept_each_other() -> None:
    t = [og.Ticket(str(i), f"a{i}", "p", "scotland", 3, None, r, 0.0, "waiting", None, None)
         for i, r in enumerate([0.0, 20.0, 500.0, 10.0])]
    group = og.choose(t[0], t[1:], now=1.0)
    assert group is not None and [g.id for g in group] == ["0", "3", "1"]
    assert og.choose(t[2], [t[0], t[1]], now=1.0) is None
    assert og.accepted_range(0) == og.RANGE_START and og.accepted_range(10**6) == og.RANGE_MAX


def test_two_players_race_for_one_open_seat_on_two_workers_exactly_one_wins(tmp_path: Path) -> None:
    trials = 100
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx) as a, worker(tmp_path, db, r, pfx) as b:
            creator = person(a, "creator@example.org")
            racers = [(person(a, f"p{i}@example.org"), person(a, f"q{i}@example.org")) for i in range(trials)]
            wins = 0
            for i in range(trials):
                g = open_game(a, creator)
                out: dict[str, int] = {}
                gate = threading.Barrier(2)

                def go(c: TestClient, who: dict[str, str], key: str, gid: str = g["game"],
                       res: dict[str, int] = out, bar: threading.Barrier = gate) -> None:
                    bar.wait()
                    res[key] = c.post(f"/api/games/{gid}/join", headers=h(who)).status_code

                ts = [threading.Thread(target=go, args=(a, racers[i][0], "a")),
                      threading.Thread(target=go, args=(b, racers[i][1], "b"))]
                for t in ts:
                    t.start()
                for t in ts:
                    t.join()
                assert sorted(out.values()) == [200, 409], (i, out)
                wins += 1
                winner = racers[i][0] if out["a"] == 200 else racers[i][1]
                # Both workers name the seat after the winner (B learns it through Redis or its read-back).
                for c in (a, b):
                    deadline = time.monotonic() + 5
                    while c.get(f"/api/games/{g['game']}").json()["names"][1] != winner["X-Name"]:
                        assert time.monotonic() < deadline, (
                            i, out, c is a, "the seat's name never reached a worker",
                            [x.get(f"/api/games/{g['game']}").json()["names"] for x in (a, b)])
                        time.sleep(0.02)
            assert wins == trials
