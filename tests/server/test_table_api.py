"""The table companion's REST API (docs/table.md): create, entries scored by the engine's table
mode, undo, persistence across a restart, export that replays, bad input refused with a clear
4xx and nothing changed, and a fuzz of mutated requests that never gets a 500."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from rebirth.app.match import Match
from rebirth.engine import records
from rebirth.engine.game import Game
from rebirth.engine.records import table_entries
from server.kit import client


def create(c: TestClient, **body: Any) -> tuple[str, dict[str, str]]:
    r = c.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    d = r.json()
    assert d["url"] == f"/table/{d['table']}#t={d['token']}"
    return d["table"], {"Authorization": f"Bearer {d['token']}"}


def get(c: TestClient, gid: str, auth: dict[str, str]) -> dict[str, Any]:
    r = c.get(f"/api/tables/{gid}", headers=auth)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def entry(c: TestClient, gid: str, auth: dict[str, str], text: str, **kw: Any) -> Any:
    """Enter ``text`` as the page does: with the version seen and, for a player's entry, the
    seat to move (unless ``kw`` says otherwise)."""
    s = get(c, gid, auth)
    kw.setdefault("version", s["version"])
    if s["asked"] is None:
        kw.setdefault("seat", s["seat"])
    return c.post(f"/api/tables/{gid}/entries", headers=auth, json={"entry": text, **kw})


def undo(c: TestClient, gid: str, auth: dict[str, str], **kw: Any) -> Any:
    kw.setdefault("version", get(c, gid, auth)["version"])
    return c.post(f"/api/tables/{gid}/undo", headers=auth, json=kw)


def refused(r: Any, status: int = 400) -> dict[str, str]:
    assert r.status_code == status, r.text
    msg: dict[str, str] = r.json()["error"]["message"]
    assert msg["en"] and msg["de"] and msg["en"] != msg["de"]
    return msg


def bot_record(board: str, seed: int) -> dict[str, Any]:
    m = Match.start(Game.create(board, 2), ["greedy"] * 2, seed)
    m.run_bots()
    rec: dict[str, Any] = m.record()
    return rec


def test_create_enter_score_and_token_is_hashed(tmp_path: Path) -> None:
    """A placement is scored at once and the answer says why (F-1: a lone farm scores 1)."""
    with client(tmp_path) as c:
        gid, auth = create(c, board="scotland", players=2, names=["Ailsa", "Brodie"], start_player=1)
        s = get(c, gid, auth)
        assert s["current_player"] == 1 and s["version"] == 0 and s["names"] == ["Ailsa", "Brodie"]
        assert "L3" in s["legal"]["hexes"]
        r = entry(c, gid, auth, "E@L3")
        assert r.status_code == 200, r.text
        s = r.json()
        assert s["version"] == 1 and s["view"]["scores"] == [0, 1]
        keys = [e["key"] for e in s["last"]["events"]]
        assert keys[:2] == ["place", "farm.lone"]
        assert s["remaining"][1]["E"] == 11
        # Only the hash of the token is stored.
        token = auth["Authorization"].split()[1]
        raw = (tmp_path / "test.db").read_bytes()
        assert token.encode() not in raw
        # Another token or none: refused.
        assert c.get(f"/api/tables/{gid}").status_code == 401
        assert c.get(f"/api/tables/{gid}", headers={"Authorization": "Bearer nope"}).status_code == 403
        assert c.get("/api/tables/nosuchgame", headers=auth).status_code == 404


def test_bad_entries_change_nothing(tmp_path: Path) -> None:
    """Illegal hex (P-1), wrong tile kind for the space, exhausted tile kind (S-1, S-2), wrong
    version, malformed JSON: clear 4xx in en+de, the state is unchanged."""
    with client(tmp_path) as c:
        gid, auth = create(c, board="scotland", players=2)
        assert entry(c, gid, auth, "E@L3").status_code == 200
        before = get(c, gid, auth)
        msg = refused(entry(c, gid, auth, "F@L3"))
        assert "L3" in msg["en"] and "L3" in msg["de"]
        msg = refused(entry(c, gid, auth, "Q9@L3"))
        msg = refused(entry(c, gid, auth, "S1@ZZ99"))
        assert "ZZ99" in msg["en"]
        refused(entry(c, gid, auth, "token points3a"))
        # Wrong turn: seat 1 (0-based) has just placed; seat 2 is to move.
        msg = refused(entry(c, gid, auth, "E@G7", seat=0))
        assert "seat 2's turn, not seat 1's" in msg["en"] and "Sitz 2 ist dran" in msg["de"]
        refused(entry(c, gid, auth, "E@G7", version=0), 409)
        r = c.post(f"/api/tables/{gid}/entries", headers={**auth, "Content-Type": "application/json"},
                   content=b"{not json")
        refused(r)
        r = c.post(f"/api/tables/{gid}/entries", headers=auth, json={"entry": "E@G7", "extra": 1})
        assert r.status_code == 400
        assert get(c, gid, auth) == before
        # Exhaust seat 1's settlement-1 tiles, then one more is refused naming the tile.
        hexes = [h for h, tiles in before["legal"]["hexes"].items() if "S1" in tiles]
        placed = 0
        for hx in hexes:
            s = get(c, gid, auth)
            if s["remaining"][s["current_player"]]["S1"] == 0:
                break
            if "S1" not in s["legal"]["hexes"].get(hx, []):
                continue
            assert entry(c, gid, auth, f"S1@{hx}").status_code == 200
            placed += 1
        s = get(c, gid, auth)
        seat = s["current_player"]
        assert s["remaining"][seat]["S1"] == 0, "seat 1 did not run out of S1 tiles"
        assert all("S1" not in tiles for tiles in s["legal"]["hexes"].values())
        free = next(hx for hx in hexes if "S2" in s["legal"]["hexes"].get(hx, []))
        msg = refused(entry(c, gid, auth, f"S1@{free}"))
        assert "S1" in msg["en"] and "(S-1, S-2)" in msg["en"]
        assert get(c, gid, auth) == s
        assert placed >= 5


def test_entry_without_version_or_seat_is_refused(tmp_path: Path) -> None:
    """Two devices at one table: an entry must say which version it saw and which seat placed
    (P-5: one tile per turn), else a second device's entry would become the next player's move.
    Refused with a clear 400 and nothing recorded; an entered outcome needs no seat."""
    with client(tmp_path) as c:
        gid, auth = create(c, board="scotland", players=2)
        assert entry(c, gid, auth, "E@L3").status_code == 200
        before = get(c, gid, auth)

        def post(body: dict[str, Any]) -> Any:
            return c.post(f"/api/tables/{gid}/entries", headers=auth, json=body)

        refused(post({"entry": "E@G7"}))
        refused(post({"entry": "E@G7", "seat": 1}))
        msg = refused(post({"entry": "E@G7", "version": 1}))
        assert "'seat'" in msg["en"] and "'seat'" in msg["de"]
        # The second device saw version 0: it may not record its (same) move again.
        refused(post({"entry": "E@G7", "version": 0, "seat": 0}), 409)
        refused(c.post(f"/api/tables/{gid}/undo", headers=auth, json={"count": 1}))
        assert get(c, gid, auth) == before
        assert post({"entry": "E@G7", "version": 1, "seat": 1}).status_code == 200


def test_a_storage_failure_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full or read-only database is a 503 ``server_error`` ("could not save"), not a
    misleading 409 "someone entered something meanwhile"; nothing changed, and the entry
    goes in once storage works again."""
    from sqlalchemy.exc import OperationalError

    from rebirth.server.persistence.store import Store

    def full(*_a: Any) -> None:
        raise OperationalError("INSERT", {}, Exception("database or disk is full"))

    with client(tmp_path) as c:
        gid, auth = create(c, board="scotland", players=2)
        assert entry(c, gid, auth, "E@L3").status_code == 200
        before = get(c, gid, auth)
        with monkeypatch.context() as mp:
            mp.setattr(Store, "append_table_entry", full)
            mp.setattr(Store, "drop_table_entries", full)
            for r in (entry(c, gid, auth, "E@G7"), undo(c, gid, auth, count=1)):
                assert r.status_code == 503 and r.json()["error"]["code"] == "server_error", r.text
        assert get(c, gid, auth) == before
        assert entry(c, gid, auth, "E@G7").status_code == 200


def test_bad_setups(tmp_path: Path) -> None:
    with client(tmp_path) as c:
        for body in ({"board": "atlantis"}, {"players": 5}, {"players": 2, "start_player": 2},
                     {"players": 2, "names": ["A"]}, {"players": 2, "colours": ["#000000", "#000000"]},
                     {"board": "ireland", "players": 2, "display": ["I01"]},
                     {"board": "scotland", "players": 2, "display": ["I01"]},
                     {"board": "ireland", "players": 2, "tower_tokens": ["x"]},
                     {"variants": ["nope"]}, {"lang": "xx"}):
            refused(c.post("/api/tables", json=body))


def test_undo_restart_and_export_replays(tmp_path: Path) -> None:
    """A whole recorded Ireland game entered through the API (tokens, extra tile, ×2 marker,
    cards); undo of three entries and re-entry gives the same state; a new app on the same
    database file continues the game; the export replays to the original result (E-4)."""
    rec = bot_record("ireland", 3)
    groups = table_entries(rec)
    flat = [e for g in groups for e in g]
    with client(tmp_path) as c:
        gid, auth = create(c, board="ireland", players=2, start_player=rec["setup"]["start_player"],
                           display=rec["setup"]["display"])
        half = len(flat) // 2
        for e in flat[:half]:
            r = entry(c, gid, auth, e.get("action") or e["chance"])
            assert r.status_code == 200, (e, r.text)
        before = get(c, gid, auth)
        r = undo(c, gid, auth, count=3)
        assert r.status_code == 200 and r.json()["version"] == half - 3
        refused(undo(c, gid, auth, count=1000))
        refused(c.post(f"/api/tables/{gid}/undo", headers=auth, json={"count": 1, "version": 1}), 409)
        for e in flat[half - 3:half]:
            assert entry(c, gid, auth, e.get("action") or e["chance"]).status_code == 200
        again = get(c, gid, auth)
        assert again["view"] == before["view"] and again["entries"] == before["entries"]
    # A restart: a new app on the same database file.
    with client(tmp_path) as c:
        s = get(c, gid, auth)
        assert s["view"] == before["view"] and s["version"] == half
        assert s["last"]["entry"] == before["last"]["entry"]
        for e in flat[half:]:
            r = entry(c, gid, auth, e.get("action") or e["chance"])
            assert r.status_code == 200, (e, r.text)
        end = get(c, gid, auth)
        assert end["over"]
        exported = c.get(f"/api/tables/{gid}/record", headers=auth).json()
    assert exported["table"] is True
    replayed = records.replay(json.loads(json.dumps(exported))).view(None)
    original = records.replay(rec).view(None)
    assert (replayed.scores, replayed.breakdown, replayed.winners) == (
        original.scores, original.breakdown, original.winners)
    assert end["view"]["scores"] == list(original.scores)
    assert end["view"]["winners"] == list(original.winners)


def test_fuzz_never_500(tmp_path: Path) -> None:
    """A few hundred mutated requests: always a 2xx or a clear 4xx, never a 500."""
    rng = random.Random(11)
    alphabet = "ESF1234@ABCDHLZ :-_x{}[]\"\\é\x00"
    with client(tmp_path) as c:
        gid, auth = create(c, board="ireland", players=2,
                           display=["I01", "I02", "I03", "I04", "I05", "I06", "I07", "I08"])
        good = ["E@H2", "F@H13", "S4@I13", "token points3a", "reveal S2", "mark I01", "discard S3",
                "card I12"]
        for i in range(300):
            kind = rng.randrange(6)
            if kind == 0:
                text = rng.choice(good)
                body: Any = {"entry": "".join(ch if rng.random() > .2 else rng.choice(alphabet)
                                              for ch in text)}
            elif kind == 1:
                body = {"entry": "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 70)))}
            elif kind == 2:
                body = rng.choice([None, [], 3, "x", {"entry": 5}, {"entry": None},
                                   {"version": -1, "entry": "E@H2"}, {"entry": "E@H2", "version": "a"},
                                   {"count": 2}])
            elif kind == 3:
                s = get(c, gid, auth)
                legal = s["legal"]
                opts = [f"{t}@{h}" for h, ts in legal["hexes"].items() for t in ts] + [
                    e["text"] for e in legal["outcomes"] + legal["discards"] + legal["marks"]]
                if not opts:
                    break
                body = {"entry": rng.choice(opts), "version": s["version"]}
                if s["asked"] is None:
                    body["seat"] = s["seat"]
            elif kind == 4:
                r = c.post(f"/api/tables/{gid}/undo", headers=auth,
                           json=rng.choice([{"count": rng.randrange(-2, 5)}, {}, {"count": "x"}, [],
                                            {"count": rng.randrange(-2, 5), "version": rng.randrange(0, 9)}]))
                assert r.status_code < 500, r.text
                continue
            else:
                r = c.post("/api/tables", json=rng.choice([{}, {"board": "ireland"}, {"players": "x"},
                                                           {"names": [1, 2]}, {"tower_tokens": [None] * 3},
                                                           {"board": "ireland", "players": 2,
                                                            "display": ["I01"] * 8}]))
                assert r.status_code < 500, r.text
                continue
            r = c.post(f"/api/tables/{gid}/entries", headers=auth, json=body)
            assert r.status_code < 500, (i, body, r.text)
            if r.status_code >= 400:
                assert r.json()["error"]["message"]["en"]


def test_two_servers_on_one_database_never_fork_the_log(tmp_path: Path) -> None:
    """A second server reads the stored log before it answers, so a device that has not seen
    an entry made through the other server is refused (409, its version is stale) and then
    sees it; UNIQUE(game, seq) refuses a second writer of the same step in a race."""
    with client(tmp_path) as a, client(tmp_path) as b:
        gid, auth = create(a, board="scotland", players=2)
        assert get(b, gid, auth)["version"] == 0
        assert entry(a, gid, auth, "E@L3").status_code == 200
        refused(b.post(f"/api/tables/{gid}/entries", headers=auth,
                       json={"entry": "E@G7", "version": 0, "seat": 1}), 409)
        s = get(b, gid, auth)
        assert s["version"] == 1 and s["entries"] == [{"seat": 0, "action": "E@L3", "fact": {
            "text": "E@L3", "kind": "place", "tile": "E", "hex": "L3"}}]
        assert entry(b, gid, auth, "E@G7").status_code == 200
        assert [e["action"] for e in get(b, gid, auth)["entries"]] == ["E@L3", "E@G7"]


def test_ireland_tokens_at_setup_and_variants(tmp_path: Path) -> None:
    """Tower tokens laid open at set-up are not asked again (S-8, I-6); a token left out is
    asked for when the first tile goes next to its tower; variants are the engine's."""
    toks = ["points5", "points3a", "points3b", "points4a", "points4b", "extra1", "extra2", "extra3",
            "double1", "double2", "double3", "mission1", "mission2", "mission3"]
    display = ["I01", "I02", "I03", "I04", "I05", "I06", "I07", "I08"]
    with client(tmp_path) as c:
        gid, auth = create(c, board="ireland", players=2, display=display, tower_tokens=toks,
                           variants=["castle_tie_to_active"])
        s = get(c, gid, auth)
        assert s["variants"] == ["castle_tie_to_active"]
        assert s["view"]["tower_tokens"] == toks
        hx = next(h for h in ("L10", "J10", "L11", "K9", "L9", "K11") if h in s["legal"]["hexes"])
        tile = s["legal"]["hexes"][hx][0]
        s = entry(c, gid, auth, f"{tile}@{hx}").json()
        assert s["asked"] is None and s["version"] == 1
        assert any(e["kind"] == "tower" for e in s["last"]["events"])
        # The same placement with the Hill of Tara's token not entered: it is asked for first.
        gid2, auth2 = create(c, board="ireland", players=2, display=display,
                             tower_tokens=[None, *toks[1:]])
        s = entry(c, gid2, auth2, f"{tile}@{hx}").json()
        assert s["asked"]["en"].startswith("token on tower")
        # Entries arrive as facts (kind and parts), so that no page splits their text.
        assert s["legal"]["outcomes"] == [{"kind": "token", "token": "points5", "text": "token points5"}]
        assert s["last_place"] == {"seat": 0, "hex": hx}
        assert s["last"]["events"] == [] and s["current_player"] is None
        s = entry(c, gid2, auth2, "token points5").json()
        assert s["asked"] is None and s["view"]["tower_tokens"][0] == "points5"
        refused(c.post("/api/tables", json={"board": "ireland", "players": 2, "display": display,
                                            "tower_tokens": [*toks[:13], "points5"]}))


def test_two_server_processes_on_one_database_see_each_others_entries(tmp_path: Path) -> None:
    """Issue 15 (the table companion across workers): two servers sharing one database, each
    with its own in-memory games. An entry or an undo made through one is what the other
    shows on its next request, a stale version is refused on both, and the record agrees."""
    with client(tmp_path) as a, client(tmp_path) as b:
        gid, auth = create(a, board="scotland", players=3)
        get(b, gid, auth)  # b now holds its own copy in memory
        first = get(a, gid, auth)
        hx = next(iter(first["legal"]["hexes"]))
        tile = first["legal"]["hexes"][hx][0]
        assert entry(a, gid, auth, f"{tile}@{hx}").status_code == 200
        sb = get(b, gid, auth)
        assert sb["version"] == 1 and sb["entries"] == [{"seat": 0, "action": f"{tile}@{hx}", "fact": {
            "text": f"{tile}@{hx}", "kind": "place", "tile": tile, "hex": hx}}]
        assert sb["last"]["fact"] == sb["entries"][0]["fact"]
        # An entry through b, then a stale entry through a (version 1) is refused.
        hx2 = next(iter(sb["legal"]["hexes"]))
        t2 = sb["legal"]["hexes"][hx2][0]
        assert entry(b, gid, auth, f"{t2}@{hx2}").status_code == 200
        stale = a.post(f"/api/tables/{gid}/entries", headers=auth,
                       json={"entry": f"{t2}@{hx2}", "version": 1, "seat": 1})
        assert stale.status_code == 409
        # Undo through a, a different entry through a: b shows that one, not its old copy.
        assert undo(a, gid, auth, count=1).status_code == 200
        sa = get(a, gid, auth)
        other = next((h, ts[-1]) for h, ts in sa["legal"]["hexes"].items()
                     if f"{ts[-1]}@{h}" != f"{t2}@{hx2}")
        assert entry(a, gid, auth, f"{other[1]}@{other[0]}").status_code == 200
        sb = get(b, gid, auth)
        assert sb["version"] == 2 and sb["entries"][1]["action"] == f"{other[1]}@{other[0]}"
        assert sb["view"] == get(a, gid, auth)["view"]
        ra = a.get(f"/api/tables/{gid}/record", headers=auth).json()
        rb = b.get(f"/api/tables/{gid}/record", headers=auth).json()
        assert ra == rb and len(ra["actions"]) == 2
