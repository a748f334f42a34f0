"""Clock changes need agreement (issue 26 item 6): adding time or turning the clock off is a
public proposal until every other human seat accepted (or, in a game created with
``"clock_changes": "creator"``, the creator alone decides); a decline or a player's move drops
it; bots are never asked; it is stored with the clock, so a restarted server keeps it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from server import kit
from server.workerkit import Sock

TWO = [{"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"}]
CLOCK = {"kind": "realtime", "initial_s": 300, "increment_s": 5}


def _post(c: TestClient, path: str, tok: str, body: dict[str, Any]) -> Any:
    return c.post(path, json=body, headers={"Authorization": f"Bearer {tok}"})


def _game(c: TestClient, seats: list[dict[str, Any]] = TWO,
          **kw: Any) -> tuple[str, list[str], dict[str, Any]]:
    g = kit.new_game(c, board="scotland", players=len(seats), seats=seats, clock=CLOCK, **kw)
    toks = [kit.claim(c, s["url"]) for s in g["links"]["seats"] if s["url"]]
    return g["game"], toks, g


def test_nothing_changes_until_the_other_seat_accepts(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        gid, (a, b), _ = _game(c)
        r = _post(c, f"/api/games/{gid}/clock", a, {"add_s": 60})
        assert r.status_code == 200, r.text
        clock = r.json()["clock"]
        assert max(clock["left"]) <= 300 and clock["notices"] == []
        assert clock["proposal"] == {"by": 0, "add_s": 60, "off": None, "waiting": [1]}
        # Public: the other seat (and a spectator) see it in the summary and the sync.
        assert c.get(f"/api/games/{gid}").json()["clock"]["proposal"]["waiting"] == [1]
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            assert Sock(ws).hello(b)["clock"]["proposal"]["add_s"] == 60
        # The proposer cannot accept for the other; a second proposal waits its turn.
        assert _post(c, f"/api/games/{gid}/clock/answer", a, {"accept": True}).status_code == 403
        r = _post(c, f"/api/games/{gid}/clock", b, {"off": True})
        assert r.status_code == 409 and r.json()["error"]["code"] == "clock_proposed"
        assert c.get(f"/api/games/{gid}").json()["clock"]["enabled"]
        r = _post(c, f"/api/games/{gid}/clock/answer", b, {"accept": True})
        assert r.status_code == 200, r.text
        clock = r.json()["clock"]
        assert clock["proposal"] is None and min(clock["left"]) > 300
        assert clock["notices"][-1]["key"] == "clock.added"


def test_a_decline_cancels_and_turning_off_needs_agreement_too(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        gid, (a, b), g = _game(c)
        assert _post(c, f"/api/games/{gid}/clock", b, {"off": True}).json()["clock"]["enabled"]
        spectator = kit.token(g["links"]["spectator"])
        assert _post(c, f"/api/games/{gid}/clock/answer", spectator, {"accept": False}).status_code == 403
        r = _post(c, f"/api/games/{gid}/clock/answer", a, {"accept": False})
        assert r.status_code == 200, r.text
        clock = r.json()["clock"]
        assert clock["enabled"] and clock["proposal"] is None
        last = clock["notices"][-1]
        assert (last["key"], last["seat"]) == ("clock.declined", 0)
        r = _post(c, f"/api/games/{gid}/clock/answer", b, {"accept": True})
        assert r.status_code == 409 and r.json()["error"]["code"] == "no_proposal"


def test_a_move_cancels_the_proposal(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        gid, toks, _ = _game(c)
        first = c.get(f"/api/games/{gid}").json()["clock"]["running"]
        other = 1 - first
        _post(c, f"/api/games/{gid}/clock", toks[other], {"add_s": 60})
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            s = Sock(ws)
            s.hello(toks[first])
            s.act_first()
        clock = c.get(f"/api/games/{gid}").json()["clock"]
        assert clock["proposal"] is None and all(n["key"] != "clock.added" for n in clock["notices"])


def test_bots_never_block_and_the_creator_decides_alone(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        # One human and a bot: nobody else to ask, the change applies at once.
        gid, (a,), _ = _game(c, [{"kind": "human"}, {"kind": "easy"}])
        r = _post(c, f"/api/games/{gid}/clock", a, {"add_s": 60}).json()["clock"]
        assert r["proposal"] is None and r["notices"][-1]["key"] == "clock.added"
        # Created so: the creator's own seat (the first human one) decides alone ...
        gid, (a, b), g = _game(c, clock_changes="creator")
        assert c.get(f"/api/games/{gid}").json()["clock"]["changes"] == "creator"
        r = _post(c, f"/api/games/{gid}/clock", a, {"add_s": 60}).json()["clock"]
        assert r["proposal"] is None and min(r["left"]) > 300
        # ... another seat's request waits for the creator alone, and the admin link is the creator too.
        r = _post(c, f"/api/games/{gid}/clock", b, {"off": True}).json()["clock"]
        assert r["enabled"] and r["proposal"]["waiting"] == [0]
        admin = kit.token(g["links"]["admin"])
        r = _post(c, f"/api/games/{gid}/clock/answer", admin, {"accept": True}).json()["clock"]
        assert not r["enabled"] and r["proposal"] is None


def test_a_proposal_survives_a_restart(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        gid, (a, b), _ = _game(c)
        _post(c, f"/api/games/{gid}/clock", a, {"add_s": 120})
    with kit.client(tmp_path) as c:  # a new server on the same database
        assert c.get(f"/api/games/{gid}").json()["clock"]["proposal"]["waiting"] == [1]
        r = _post(c, f"/api/games/{gid}/clock/answer", b, {"accept": True}).json()["clock"]
        assert r["proposal"] is None and min(r["left"]) > 400
    with kit.client(tmp_path) as c:
        clock = c.get(f"/api/games/{gid}").json()["clock"]
        keys = [n["key"] for n in clock["notices"]]
        # A restart slower than three heartbeats also credits the downtime (clock.paused).
        assert clock["proposal"] is None and "clock.added" in keys, keys
        assert set(keys[keys.index("clock.added"):]) <= {"clock.added", "clock.paused"}, keys
