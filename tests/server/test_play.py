"""The game WebSocket: a whole game against bots, every refusal, hot-seat, reconnect, presence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from rebirth.engine.records import replay
from server import kit


def _next(ws: WebSocketTestSession, *types: str) -> dict[str, Any]:
    """The next message of one of ``types`` (presence messages in between are skipped)."""
    while True:
        msg: dict[str, Any] = ws.receive_json()
        if msg["type"] in types:
            return msg
        assert msg["type"] == "presence", msg


def test_whole_game_one_human_two_bots_replays_to_the_same_scores(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, board="scotland", players=3,
                         seats=[{"kind": "human", "name": "Ailsa"}, {"kind": "easy"}, {"kind": "normal"}])
        tok = kit.claim(c, g["links"]["seats"][0]["url"])
        with c.websocket_connect(f"/ws/games/{g['game']}") as ws:
            s = kit.hello(ws, tok)
            assert s["seat"] == 0 and s["names"][0] == "Ailsa"
            view, acts = s["view"], 0
            while True:
                view = kit.until_turn(ws, 0, view)
                if view["phase"] == "end":
                    break
                ws.send_json({"type": "act", "action": view["legal_actions"][0],
                              "version": len(view["history"])})
                view = _next(ws, "update")["view"]
                acts += 1
        assert acts > 10
        rec = c.get(f"/api/games/{g['game']}/record", headers={"Authorization": f"Bearer {tok}"}).json()
        assert "redacted_for" not in rec and rec["result"]["scores"] == view["scores"]
        assert replay(rec).score == view["scores"]
        summary = c.get(f"/api/games/{g['game']}").json()
        assert summary["status"] == "over" and summary["version"] == len(rec["actions"])


def _two_humans(c: TestClient) -> tuple[str, list[str], str]:
    g = kit.new_game(c, board="ireland", players=2, seats=[{"kind": "human"}, {"kind": "human"}])
    return g["game"], [kit.claim(c, s["url"]) for s in g["links"]["seats"]], kit.token(g["links"]["admin"])


def _refused(ws: WebSocketTestSession, msg: dict[str, Any] | str, code: str, version: int | None) -> None:
    """``msg`` is answered by ``error`` ``code``, the version did not move, the socket still works."""
    if isinstance(msg, str):
        ws.send_text(msg)
    else:
        ws.send_json(msg)
    err = _next(ws, "error", "update", "sync")
    assert err["type"] == "error" and err["code"] == code, err
    assert err["version"] == version
    assert err["message"]["en"] and err["message"]["de"]
    kit.ping(ws)


def test_every_refusal_is_clear_changes_nothing_and_keeps_the_socket(tmp_path: Path) -> None:
    with kit.client(tmp_path, max_message_bytes=2048) as c:
        gid, toks, _admin = _two_humans(c)
        with c.websocket_connect(f"/ws/games/{gid}") as w0, c.websocket_connect(f"/ws/games/{gid}") as w1:
            _refused(w0, {"type": "act", "action": "C7", "version": 0}, "hello_first", 0)
            s0, s1 = kit.hello(w0, toks[0]), kit.hello(w1, toks[1])
            v = s0["version"]
            me = s0["view"]["current_player"]
            mine, other = (w0, w1) if me == 0 else (w1, w0)
            view = (s0 if me == 0 else s1)["view"]
            legal = view["legal_actions"][0]
            _refused(mine, {"type": "act", "action": legal, "version": v - 1}, "stale_version", v)
            _refused(mine, {"type": "act", "action": legal, "version": v + 5}, "stale_version", v)
            _refused(other, {"type": "act", "action": legal, "version": v}, "not_your_turn", v)
            _refused(other, {"type": "act", "action": legal, "version": v, "seat": me}, "not_your_turn", v)
            _refused(mine, {"type": "act", "action": legal, "version": v, "seat": 1 - me}, "not_your_turn", v)
            _refused(mine, {"type": "act", "action": "Z99", "version": v}, "illegal", v)
            _refused(mine, {"type": "act", "action": "!!! ???", "version": v}, "illegal", v)
            _refused(mine, {"type": "act", "action": "mark NOPE", "version": v}, "illegal", v)
            _refused(mine, {"type": "act", "action": legal}, "bad_message", v)
            _refused(mine, {"type": "act", "action": 7, "version": v}, "bad_message", v)
            _refused(mine, {"type": "act", "action": legal, "version": True}, "bad_message", v)
            _refused(mine, "{not json", "bad_message", v)
            _refused(mine, "[1, 2]", "bad_message", v)
            _refused(mine, '{"type": 3}', "bad_message", v)
            _refused(mine, {"type": "dance"}, "bad_message", v)
            _refused(mine, {"type": "act", "action": legal, "version": v, "pad": "x" * 3000}, "too_large", v)
            _refused(mine, {"type": "claim", "seat": 0}, "forbidden", v)
            _refused(mine, {"type": "preview", "action": "Z99"}, "illegal", v)
            _refused(other, {"type": "preview", "action": legal}, "not_your_turn", v)
            _refused(mine, {"type": "hello", "token": "wrong", "since": -1}, "bad_token", v)
            # A failed hello leaves the socket as it was: the seat still acts.
            assert c.get(f"/api/games/{gid}").json()["version"] == v
            mine.send_json({"type": "preview", "action": legal})
            pv = _next(mine, "preview")
            assert pv["action"] == legal and isinstance(pv["points"], int) and pv["version"] == v
            mine.send_json({"type": "act", "action": legal, "version": v})
            up = _next(mine, "update")
            assert up["version"] > v and up["view"]["history"][-1]["action"].upper() == legal.upper()
            assert _next(other, "update")["version"] == up["version"]


def test_unknown_game_and_wrong_token(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        gid, toks, _ = _two_humans(c)
        other, other_toks, _ = _two_humans(c)
        with c.websocket_connect("/ws/games/no-such-game") as ws:
            _refused(ws, {"type": "hello", "token": toks[0], "since": -1}, "unknown_game", None)
            _refused(ws, {"type": "act", "action": "C7", "version": 0}, "unknown_game", None)
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            v = c.get(f"/api/games/{gid}").json()["version"]
            _refused(ws, {"type": "hello", "token": other_toks[0], "since": -1}, "bad_token", v)
            _refused(ws, {"type": "hello", "token": "", "since": -1}, "bad_token", v)
            _refused(ws, {"type": "hello", "token": toks[0], "since": "x"}, "bad_message", v)
            assert kit.hello(ws, toks[0])["seat"] == 0
        assert other


def test_revoked_token_is_refused_and_its_socket_closed(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        gid, toks, admin = _two_humans(c)
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            kit.hello(ws, toks[1])
            r = c.post(f"/api/games/{gid}/seats/1/revoke", headers={"Authorization": f"Bearer {admin}"})
            assert r.status_code == 200, r.text
            # A new invitation, never a token: the admin cannot act for the seat with it.
            assert "#i=" in r.json()["url"] and "#t=" not in r.json()["url"]
            invite = r.json()["url"].split("#i=")[1]
            new = kit.claim(c, r.json()["url"])
            err = _next(ws, "error")
            assert err["code"] == "revoked"
            with pytest.raises(WebSocketDisconnect):
                ws.receive_json()
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            v = c.get(f"/api/games/{gid}").json()["version"]
            _refused(ws, {"type": "hello", "token": toks[1], "since": -1}, "revoked", v)
            _refused(ws, {"type": "hello", "token": invite, "since": -1}, "bad_token", v)
            assert kit.hello(ws, new)["seat"] == 1
        r = c.get(f"/api/games/{gid}/record", headers={"Authorization": f"Bearer {toks[1]}"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "revoked"
        # Only the admin may revoke.
        r = c.post(f"/api/games/{gid}/seats/0/revoke", headers={"Authorization": f"Bearer {toks[0]}"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"


def test_reconnect_with_since_gets_the_missing_steps(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        gid, toks, _ = _two_humans(c)
        with c.websocket_connect(f"/ws/games/{gid}") as w0:
            s = kit.hello(w0, toks[0])
            first = s["version"]
        # Seat 0 is gone; play two steps from the other sockets (whoever is to move).
        with c.websocket_connect(f"/ws/games/{gid}") as a, c.websocket_connect(f"/ws/games/{gid}") as b:
            sa, sb = kit.hello(a, toks[0]), kit.hello(b, toks[1])
            socks = {0: (a, sa["view"]), 1: (b, sb["view"])}
            for _ in range(2):
                p = socks[0][1]["current_player"]
                ws, view = socks[p]
                ws.send_json({"type": "act", "action": view["legal_actions"][0],
                              "version": len(view["history"])})
                socks = {q: (w, _next(w, "update")["view"]) for q, (w, _v) in socks.items()}
        with c.websocket_connect(f"/ws/games/{gid}") as w0:
            s2 = kit.hello(w0, toks[0], since=first)
            assert s2["version"] >= first + 2
            assert [st["version"] for st in s2["events"]] == list(range(first + 1, s2["version"] + 1))
            assert kit.hello(w0, toks[0], since=10_000)["events"] == []


def test_presence_dots_follow_connections(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        gid, toks, _ = _two_humans(c)
        with c.websocket_connect(f"/ws/games/{gid}") as w0:
            assert kit.hello(w0, toks[0])["online"] == [True, False]
            with c.websocket_connect(f"/ws/games/{gid}") as w1:
                kit.hello(w1, toks[1])
                assert _next(w0, "presence")["online"] == [True, False]  # w0's own arrival
                assert _next(w0, "presence")["online"] == [True, True]
            assert _next(w0, "presence")["online"] == [True, False]
            assert c.get(f"/api/games/{gid}").json()["online"] == [True, False]


def test_hand_a_leavers_seat_to_a_bot_and_the_game_finishes(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        gid, toks, _admin = _two_humans(c)
        auth = {"Authorization": f"Bearer {toks[0]}"}
        with c.websocket_connect(f"/ws/games/{gid}") as w1:
            kit.hello(w1, toks[1])
            r = c.post(f"/api/games/{gid}/seats/1/bot", headers=auth)
            assert r.status_code == 409 and r.json()["error"]["code"] == "still_online"
        # Own seat: refused.
        r = c.post(f"/api/games/{gid}/seats/0/bot", headers=auth)
        assert r.status_code == 403
        r = c.post(f"/api/games/{gid}/seats/1/bot", headers=auth)
        assert r.status_code == 200 and r.json()["kinds"][1] == "greedy"
        assert c.post(f"/api/games/{gid}/seats/1/bot", headers=auth).status_code == 409
        with c.websocket_connect(f"/ws/games/{gid}") as w0, c.websocket_connect(f"/ws/games/{gid}") as w1:
            view = kit.hello(w0, toks[0])["view"]
            kit.hello(w1, toks[1])
            while True:
                view = kit.until_turn(w0, 0, view)
                if view["phase"] == "end":
                    break
                w0.send_json({"type": "act", "action": view["legal_actions"][0],
                              "version": len(view["history"])})
                view = _next(w0, "update")["view"]
            # The old seat link can no longer act for the bot's seat.
            while _next(w1, "update")["version"] != len(view["history"]):
                pass
            _refused(w1, {"type": "act", "action": "C7", "version": len(view["history"])}, "not_your_turn",
                     len(view["history"]))
        assert c.get(f"/api/games/{gid}").json()["status"] == "over"


def _hotseat(c: TestClient) -> tuple[str, str, list[str]]:
    g = kit.new_game(c, board="ireland", players=3, hotseat=True,
                     seats=[{"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"},
                            {"kind": "easy"}])
    # The creating device claims the one device invitation; the seats have none (issue 15 item 7).
    assert [s["url"] for s in g["links"]["seats"]] == [None] * 3
    gid = g["game"]
    return gid, kit.claim(c, g["links"]["table"]), [kit.grant(c, gid, 0), kit.grant(c, gid, 1)]


def _private(view: dict[str, Any]) -> tuple[Any, ...]:
    return (view["hand"], view["missions"], view["set_aside"], view["legal_actions"])


def test_hotseat_claim_shows_only_the_claimed_seat(tmp_path: Path) -> None:
    """S-5: at a hot-seat hand-over the device holds no seat's private fields; after a claim
    only that seat's."""
    with kit.client(tmp_path) as c:
        gid, table, seat_toks = _hotseat(c)
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            s = kit.hello(ws, table)
            assert s["seat"] is None and s["seats"] == [0, 1] and s["role"] == "table"
            assert _private(s["view"]) == (None, [], [], [])
            view = s["view"]
            claims = 0
            while claims < 6 and view["phase"] != "end":
                while view["current_player"] not in (0, 1):
                    msg = _next(ws, "update", "sync")
                    view = msg["view"]
                    assert msg["type"] == "update" and _private(view)[0] is None
                p = view["current_player"]
                _refused(ws, {"type": "claim", "seat": 1 - p}, "not_your_turn", len(view["history"]))
                ws.send_json({"type": "claim", "seat": p})
                msg = _next(ws, "sync")
                assert msg["seat"] == p and msg["view"]["hand"] is not None
                own = json.dumps(msg)
                other_missions = [m for m in _seat_missions(c, gid, seat_toks[1 - p])]
                assert all(m not in own for m in other_missions)
                claims += 1
                while True:
                    ws.send_json({"type": "act", "action": msg["view"]["legal_actions"][0],
                                  "version": len(msg["view"]["history"])})
                    msg = _next(ws, "update", "sync")
                    if msg["type"] == "sync":
                        break
                    assert msg["view"]["seat"] == p
                # Hand-over: the public view only.
                assert msg["seat"] is None and _private(msg["view"]) == (None, [], [], [])
                assert all(e.get("private") is None for st in msg["events"] for e in st["events"]), msg
                view = msg["view"]
            assert claims == 6


def _seat_missions(c: TestClient, gid: str, tok: str) -> list[str]:
    with c.websocket_connect(f"/ws/games/{gid}") as ws:
        missions: list[str] = kit.hello(ws, tok)["view"]["missions"]
        return missions


def test_every_broadcast_follows_its_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each time the room delivers a version, the database already holds it."""
    from rebirth.server.authority.live import LiveGame
    from rebirth.server.persistence.store import Store
    from rebirth.server.realtime.room import Room, Seen

    checked: list[int] = []
    stores: list[Store] = []
    original = Room.deliver

    async def deliver(self: Room, game: LiveGame, seen: Seen) -> None:
        row = stores[0].game(game.id)
        assert row is not None and row.version == game.version
        assert [s.seq for s in stores[0].steps(game.id)] == list(range(1, game.version + 1))
        checked.append(row.version)
        await original(self, game, seen)

    monkeypatch.setattr(Room, "deliver", deliver)
    with kit.client(tmp_path) as c:
        stores.append(c.app.state.registry.store)  # type: ignore[attr-defined]
        g = kit.new_game(c, board="ireland", players=3,
                         seats=[{"kind": "human"}, {"kind": "easy"}, {"kind": "easy"}])
        with c.websocket_connect(f"/ws/games/{g['game']}") as ws:
            view = kit.hello(ws, kit.claim(c, g["links"]["seats"][0]["url"]))["view"]
            for _ in range(3):
                view = kit.until_turn(ws, 0, view)
                ws.send_json({"type": "act", "action": view["legal_actions"][0],
                              "version": len(view["history"])})
                view = _next(ws, "update")["view"]
    assert len(checked) >= 3


def test_a_failed_commit_is_undone_and_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rebirth.server.persistence.store import Store

    with kit.client(tmp_path) as c:
        gid, toks, _ = _two_humans(c)
        with c.websocket_connect(f"/ws/games/{gid}") as w0, c.websocket_connect(f"/ws/games/{gid}") as w1:
            s0, s1 = kit.hello(w0, toks[0]), kit.hello(w1, toks[1])
            p = s0["view"]["current_player"]
            mine, view = (w0, s0["view"]) if p == 0 else (w1, s1["view"])
            v = s0["version"]
            original = Store.append

            def fail(self: Store, *args: object, **kw: object) -> None:
                raise OSError("disk full")

            monkeypatch.setattr(Store, "append", fail)
            act = {"type": "act", "action": view["legal_actions"][0], "version": v}
            _refused(mine, act, "server_error", v)
            monkeypatch.setattr(Store, "append", original)
            assert c.get(f"/api/games/{gid}").json()["version"] == v
            # Nothing was broadcast; the same action is accepted now.
            mine.send_json({"type": "act", "action": view["legal_actions"][0], "version": v})
            assert _next(mine, "update")["version"] > v


def test_bots_move_after_a_visible_pause_without_blocking_the_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bot moves are spaced by ``bot_delay`` (timed on the server); meanwhile it keeps answering."""
    import itertools
    import time

    from rebirth.server.authority.live import LiveGame
    from rebirth.server.realtime.room import Room, Seen

    stamps: list[float] = []
    original = Room.deliver

    async def deliver(self: Room, game: LiveGame, seen: Seen) -> None:
        stamps.append(time.monotonic())
        await original(self, game, seen)

    monkeypatch.setattr(Room, "deliver", deliver)
    delay = 0.15
    with kit.client(tmp_path, bot_delay=delay) as c:
        g = kit.new_game(c, board="scotland", players=2, seats=[{"kind": "easy"}, {"kind": "easy"}])
        with c.websocket_connect(f"/ws/games/{g['game']}") as ws:
            kit.hello(ws, kit.token(g["links"]["spectator"]))
            for _ in range(4):
                kit.ping(ws)
                _next(ws, "update")
    gaps = [b - a for a, b in itertools.pairwise(stamps[:4])]
    assert len(gaps) == 3 and all(gap >= delay for gap in gaps), gaps
