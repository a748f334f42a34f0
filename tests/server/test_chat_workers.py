"""Chat and rematch across several workers (issue 16 items 3 and 4 on issue 15's workers): a
message written on one worker reaches the sockets of the other; Redis carries only "the chat
of game G is at n" (no text, name or token); a lost notice is healed by the version check; and
two players on two workers clicking "rematch" at once make exactly one rematch on PostgreSQL."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import redis
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from rebirth.server.persistence import chat as chat_store
from rebirth.server.persistence.store import GameRow, Store, games, insert_game, rematches
from rebirth.server.play.registry import Registry
from server import kit
from server.chatkit import Seat, auth, play_out, tokens
from server.workerkit import Sock, database, prefix, redis_server, worker

HTML = "<img src=x onerror=alert(1)>"
HUMANS = [{"kind": "human", "name": "Aoife"}, {"kind": "human", "name": "<b>Brian</b>"}]


def registry(c: TestClient) -> Registry:
    r: Registry = c.app.state.registry  # type: ignore[attr-defined]
    return r


def chat_frame(s: Sock, seq: int, timeout: float = 15.0) -> dict[str, Any]:
    """Read until the chat message ``seq`` arrives (fails after ``timeout`` s without a frame)."""
    while True:
        msg = s.read(timeout)
        if msg["type"] == "chat" and any(m["seq"] == seq for m in msg["messages"]):
            return next(m for m in msg["messages"] if m["seq"] == seq)
        assert msg["type"] != "error", msg


def test_chat_crosses_workers_and_redis_carries_no_text(tmp_path: Path) -> None:
    """A message on worker A reaches seat 1 and a spectator on worker B (and back) through a
    notice; every Redis message about the chat is ``{"game", "chat"}`` with nothing typed in it."""
    with database() as db, redis_server() as r:
        pfx = prefix()
        seen: list[tuple[str, str]] = []
        sub = redis.Redis.from_url(r.url).pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call, unused-ignore]
        sub.psubscribe("*")
        stop = threading.Event()

        def listen() -> None:
            while not stop.is_set():
                m = sub.get_message(timeout=0.1)
                if m is not None and m["type"] == "pmessage":
                    seen.append((m["channel"].decode(), m["data"].decode()))

        t = threading.Thread(target=listen)
        t.start()
        try:
            # No version check within the test: delivery is the notice's alone.
            with worker(tmp_path, db, r, pfx, heal_interval=600) as a, \
                    worker(tmp_path, db, r, pfx, heal_interval=600) as b:
                g = kit.new_game(a, board="scotland", players=2, seats=HUMANS)
                gid, toks = g["game"], tokens(a, g)
                path = f"/ws/games/{gid}"
                with a.websocket_connect(path) as w0, b.websocket_connect(path) as w1, \
                        b.websocket_connect(path) as ws:
                    s0, s1, sp = Sock(w0, "a0"), Sock(w1, "b1"), Sock(ws, "bs")
                    s0.hello(toks[0])
                    s1.hello(toks[1])
                    sp.hello(kit.token(g["links"]["spectator"]))
                    w0.send_json({"type": "chat", "text": HTML})
                    for s in (s0, s1, sp):
                        m = chat_frame(s, 1)
                        assert (m["seat"], m["name"], m["text"]) == (0, "Aoife", HTML)
                    w1.send_json({"type": "chat", "text": "from B"})
                    m = chat_frame(s0, 2)
                    assert (m["seat"], m["name"], m["text"]) == (1, "<b>Brian</b>", "from B")
                    ws.send_json({"type": "chat", "text": "watching", "name": "Rail"})
                    m = chat_frame(s0, 3)
                    assert (m["role"], m["name"]) == ("spectator", "Rail")
                    # NUL (which PostgreSQL's text refuses) and a right-to-left override are
                    # dropped; the message is stored, not a server error.
                    w0.send_json({"type": "chat", "text": "a\u0000b\u202ec\nd"})
                    assert chat_frame(s1, 4)["text"] == "abc\nd"
        finally:
            stop.set()
            t.join()
            sub.close()
    chats = [json.loads(d) for ch, d in seen if ch == f"{pfx}chat"]
    assert len(chats) == 4
    assert all(set(c) == {"game", "chat"} and c["game"] == gid for c in chats)
    blob = "\n".join(d for _, d in seen)
    for typed in (HTML, "from B", "watching", "Rail", "Brian", *toks.values()):
        assert typed not in blob


def test_a_lost_chat_notice_is_healed_by_the_version_check(tmp_path: Path) -> None:
    """A message stored without a notice (as when Redis drops it) still reaches worker B's
    socket: the version check compares the chat heads."""
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, heal_interval=0.3) as b:
            g = kit.new_game(b, board="scotland", players=2, seats=HUMANS)
            gid, toks = g["game"], tokens(b, g)
            with b.websocket_connect(f"/ws/games/{gid}") as w1:
                s1 = Sock(w1)
                s1.hello(toks[1])
                # The history first, so the message below can come only by the version check.
                w1.send_json({"type": "chat_history", "after": 0})
                s1.until(lambda: json.loads(s1.frames[-1]).get("history") is True)
                store = Store(db)
                try:
                    chat_store.add_message(store, gid, 0, "player", "Aoife", "silent")
                finally:
                    store.close()
                m = chat_frame(s1, 1, timeout=10)
                assert m["text"] == "silent"


def test_exactly_one_rematch_when_players_on_two_workers_click_at_once(tmp_path: Path) -> None:
    """Item 4 on PostgreSQL: both workers hold the finished game; the two clicks race; one
    rematch row, one new game; the socket on the other worker is told of the winner's game."""
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx) as a, worker(tmp_path, db, r, pfx) as b:
            g = kit.new_game(a, board="scotland", players=2, seats=HUMANS)
            gid, toks = g["game"], tokens(a, g)
            with a.websocket_connect(f"/ws/games/{gid}") as w0, b.websocket_connect(f"/ws/games/{gid}") as w1:
                s0, s1 = Seat(w0), Seat(w1)
                s0.hello(toks[0])
                s1.hello(toks[1])
                play_out({0: s0, 1: s1})
                answers: list[dict[str, Any]] = []
                gate = threading.Barrier(2)

                def click(cl: TestClient, tok: str) -> None:
                    gate.wait()
                    answers.append(cl.post(f"/api/games/{gid}/rematch", headers=auth(tok)).json())

                th = [threading.Thread(target=click, args=x) for x in ((a, toks[0]), (b, toks[1]))]
                for x in th:
                    x.start()
                for x in th:
                    x.join(30)
                new = {x["game"] for x in answers}
                assert len(answers) == 2 and len(new) == 1
                for s in (s0, s1):
                    assert s.until(lambda m: m["type"] == "rematch")["game"] in new
            store = Store(db)
            try:
                with store.engine.connect() as c:
                    assert c.execute(select(func.count()).select_from(rematches)).scalar_one() == 1
                    assert c.execute(select(func.count()).select_from(games)).scalar_one() == 2
            finally:
                store.close()


def test_the_rematch_claim_admits_one_writer_on_postgresql() -> None:
    """The claim itself under a real race (rows of two would-be rematches written at once, many
    rounds): one wins, the other's game is not stored and it is told the winner's id."""
    with database() as db:
        store = Store(db)
        try:
            base = GameRow("old", "scotland", 2, [], "en", False, 1, {}, "t", "over", 0, ["A", "B"],
                           ["human", "human"])
            for rnd in range(15):
                old = f"old{rnd}"
                with store.tx() as c:
                    insert_game(c, GameRow(**{**base.__dict__, "id": old}), [])
                rows = [GameRow(**{**base.__dict__, "id": f"new{rnd}{k}", "status": "playing"}) for k in "xy"]
                out: list[str] = []
                gate = threading.Barrier(2)

                def claim(row: GameRow, old: str, gate: threading.Barrier, out: list[str]) -> None:
                    gate.wait()
                    out.append(chat_store.create_rematch(store, old, row, False))

                th = [threading.Thread(target=claim, args=(row, old, gate, out)) for row in rows]
                for x in th:
                    x.start()
                for x in th:
                    x.join(30)
                assert len(out) == 2 and len(set(out)) == 1
                assert chat_store.rematch_of(store, old) == out[0]
                loser = next(row.id for row in rows if row.id != out[0])
                assert store.game(loser) is None and store.game(out[0]) is not None
        finally:
            store.close()


def test_a_rematch_asked_of_a_worker_that_missed_the_end_catches_up_first(tmp_path: Path) -> None:
    """Worker B holds the game but heard nothing of its last steps (its notices are dropped, no
    version check runs): a rematch asked of B still sees the game over and is made."""
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, heal_interval=600) as a, \
                worker(tmp_path, db, r, pfx, heal_interval=600) as b:
            # Two humans, both on A: no bot lock involved, only B's view of the game is stale.
            g = kit.new_game(a, board="scotland", players=2, seats=HUMANS)
            gid, toks = g["game"], tokens(a, g)
            assert b.get(f"/api/games/{gid}").json()["status"] == "playing"  # B loads it now
            registry(b).hubs[gid].notice = lambda version: None  # type: ignore[method-assign]
            with a.websocket_connect(f"/ws/games/{gid}") as w0, a.websocket_connect(f"/ws/games/{gid}") as w1:
                s0, s1 = Seat(w0), Seat(w1)
                s0.hello(toks[0])
                s1.hello(toks[1])
                play_out({0: s0, 1: s1})
            assert not registry(b).hubs[gid].match.state.is_terminal()
            r2 = b.post(f"/api/games/{gid}/rematch", headers=auth(toks[0]))
            assert r2.status_code == 200, r2.text
            assert r2.json()["created"] is True


def test_a_worker_that_learns_of_the_rematch_by_its_own_click_tells_its_sockets(tmp_path: Path) -> None:
    """Worker B hears no notice (dropped); A made the rematch; B's player clicks too and gets
    the same one — and B's other socket is told of it as well."""
    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, heal_interval=600) as a, \
                worker(tmp_path, db, r, pfx, heal_interval=600) as b:
            g = kit.new_game(a, board="scotland", players=2, seats=HUMANS)
            gid, toks = g["game"], tokens(a, g)
            with a.websocket_connect(f"/ws/games/{gid}") as w0, b.websocket_connect(f"/ws/games/{gid}") as w1:
                s0, s1 = Seat(w0), Seat(w1)
                s0.hello(toks[0])
                s1.hello(toks[1])
                play_out({0: s0, 1: s1})
                registry(b).hubs[gid].social.notice = lambda seq: None  # type: ignore[method-assign]
                first = a.post(f"/api/games/{gid}/rematch", headers=auth(toks[0])).json()
                assert first["created"] is True
                again = b.post(f"/api/games/{gid}/rematch", headers=auth(toks[1])).json()
                assert (again["game"], again["created"]) == (first["game"], False)
                assert s1.until(lambda m: m["type"] == "rematch")["game"] == first["game"]
