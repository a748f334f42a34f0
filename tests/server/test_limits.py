"""Safe under load and faults (issue 15 item 6): rate limits answered with 429 / an error frame,
caps on games per client, all-bot games and sockets per game, idle games leaving memory, one
serialisation per distinct broadcast payload, bot games resuming once storage works again."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from rebirth.server.operations.throttle import client_address, http_rule
from rebirth.server.persistence.store import Store
from server import kit

BOTS = [{"kind": "easy"}, {"kind": "easy"}]
HUMANS = [{"kind": "human"}, {"kind": "human"}]


def _game(c: TestClient, seats: list[dict[str, str]] = HUMANS, headers: dict[str, str] | None = None) -> Any:
    return c.post("/api/games", json={"board": "ireland", "players": 2, "seats": seats},
                  headers=headers)


def _assert_refusal(r: Any, code: str) -> dict[str, Any]:
    """The one error shape, with a message in both languages."""
    err: dict[str, Any] = r.json()["error"]
    assert err["code"] == code, err
    assert err["message"]["en"] and err["message"]["de"] and err["message"]["en"] != err["message"]["de"]
    return err


def _state(c: TestClient) -> Any:
    """The app's state (registry, lifecycle, caps)."""
    return c.app.state  # type: ignore[attr-defined]


def _skip_presence(ws: WebSocketTestSession) -> dict[str, Any]:
    msg: dict[str, Any] = ws.receive_json()
    while msg["type"] == "presence":
        msg = ws.receive_json()
    return msg


def _metric(c: TestClient, name: str) -> float:
    for line in c.get("/metrics").text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no metric {name}")


# ---------------------------------------------------------------------- rate limits


def test_lobby_creation_flood_gets_429_with_retry_after_and_memory_stays_bounded(tmp_path: Path) -> None:
    """Issue 15 item 6: a flood of game creations from one address gets 429 (one error shape, a
    catalog message, Retry-After); another address is not affected; no game is made by a 429."""
    with kit.client(tmp_path, rate_create="5/minute") as c:
        codes = [_game(c).status_code for _ in range(40)]
        assert codes[:5] == [201] * 5 and set(codes[5:]) == {429}
        r = _game(c)
        err = _assert_refusal(r, "rate_limited")
        assert err["details"]["limit"] == "create"
        wait = int(r.headers["retry-after"])
        assert 1 <= wait <= 60 and err["details"]["retry_after"] == wait
        assert str(wait) in err["message"]["en"]
        assert r.headers["x-frame-options"] == "DENY"  # the guard's headers on a 429 too
        assert len(_state(c).registry.hubs) <= 5
        assert _metric(c, 'rebirth_rate_limited_total{rule="create"}') == 36
        assert len(Store(kit.settings(tmp_path).resolved_database_url()).game_ids()) == 5


def test_forwarded_for_counts_only_from_a_trusted_proxy(tmp_path: Path) -> None:
    """The client address is the peer, or what a trusted proxy forwarded for (forwarded_allow_ips)."""
    with kit.client(tmp_path, rate_create="2/minute", forwarded_allow_ips="testclient") as c:
        for addr in ("203.0.113.1", "203.0.113.2"):
            codes = [_game(c, headers={"X-Forwarded-For": addr}).status_code for _ in range(3)]
            assert codes == [201, 201, 429]
    (tmp_path / "b").mkdir()
    with kit.client(tmp_path / "b", rate_create="2/minute", forwarded_allow_ips="10.0.0.9") as c:
        # The peer is not a trusted proxy: a forged header names no one else.
        codes = [_game(c, headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code for i in range(3)]
        assert codes == [201, 201, 429]


def test_client_address_rules() -> None:
    s = kit.settings(Path("/nonexistent"), forwarded_allow_ips="10.0.0.1,10.0.0.2")

    def scope(peer: str, xff: str | None) -> dict[str, Any]:
        headers = [(b"x-forwarded-for", xff.encode())] if xff is not None else []
        return {"client": (peer, 1234), "headers": headers}

    assert client_address(scope("198.51.100.7", "1.2.3.4"), s) == "198.51.100.7"
    assert client_address(scope("10.0.0.1", "1.2.3.4"), s) == "1.2.3.4"
    # A client's own forged hop on the left is ignored: the nearest untrusted hop counts.
    assert client_address(scope("10.0.0.1", "6.6.6.6, 1.2.3.4, 10.0.0.2"), s) == "1.2.3.4"
    assert client_address(scope("10.0.0.1", None), s) == "10.0.0.1"
    assert http_rule("POST", "/api/games") == "create"
    assert http_rule("GET", "/api/games/x") is None
    assert http_rule("POST", "/api/score") == "score"
    assert http_rule("GET", "/api/tables/abc") == "table"


def test_score_and_table_requests_are_rate_limited(tmp_path: Path) -> None:
    """Issue 15 item 6: /api/score and the table endpoints answer 429 over their limits."""
    with kit.client(tmp_path, rate_score="3/minute", rate_table="2/minute") as c:
        score = [c.post("/api/score", json={"position": {}}).status_code for _ in range(4)]
        assert 429 not in score[:3] and score[3] == 429
        _assert_refusal(c.post("/api/score", json={"position": {}}), "rate_limited")
        tables = [c.post("/api/tables", json={"board": "ireland", "players": 2}).status_code,
                  c.get("/api/tables/nope").status_code,
                  c.get("/api/tables/nope").status_code]
        assert tables[2] == 429 and 429 not in tables[:2]
        # Other routes are not counted.
        assert c.get("/api/variants").status_code == 200


def test_socket_messages_are_rate_limited_and_the_connection_is_kept(tmp_path: Path) -> None:
    """Issue 15 item 6: over the per-connection limit a socket gets a ``rate_limited`` error frame,
    stays open and is served again once the window has room."""
    with kit.client(tmp_path, rate_socket="5/second") as c:
        g = _game(c).json()
        with c.websocket_connect(f"/ws/games/{g['game']}") as ws:
            for _ in range(5):
                kit.ping(ws)
            ws.send_json({"type": "ping"})
            err = ws.receive_json()
            assert err["type"] == "error" and err["code"] == "rate_limited", err
            assert err["message"]["en"] and err["message"]["de"] and err["details"]["retry_after"] >= 1
            time.sleep(1.1)
            kit.ping(ws)
            kit.hello(ws, kit.claim(c, g["links"]["seats"][0]["url"]))


def test_socket_limit_per_client_address_spans_connections(tmp_path: Path) -> None:
    with kit.client(tmp_path, rate_socket_client="6/minute") as c:
        g = _game(c).json()
        with c.websocket_connect(f"/ws/games/{g['game']}") as a, \
                c.websocket_connect(f"/ws/games/{g['game']}") as b:
            for _ in range(3):
                kit.ping(a)
                kit.ping(b)
            a.send_json({"type": "ping"})
            assert a.receive_json()["code"] == "rate_limited"
            b.send_json({"type": "ping"})
            assert b.receive_json()["code"] == "rate_limited"


# ---------------------------------------------------------------------- caps


def test_games_per_client_are_capped_and_the_cap_survives_a_restart(tmp_path: Path) -> None:
    """Issue 15 item 6: at most ``max_games_per_client`` unfinished games per client address."""
    kw: dict[str, Any] = {"max_games_per_client": 2, "forwarded_allow_ips": "testclient"}
    with kit.client(tmp_path, **kw) as c:
        assert [_game(c).status_code for _ in range(2)] == [201, 201]
        err = _assert_refusal(_game(c), "too_many_games")
        assert err["details"]["cap"] == 2 and "2" in err["message"]["en"]
        assert _game(c, headers={"X-Forwarded-For": "203.0.113.5"}).status_code == 201
    with kit.client(tmp_path, **kw) as c:
        r = _game(c)
        assert r.status_code == 429 and r.json()["error"]["code"] == "too_many_games"


def test_finished_games_do_not_count_against_the_cap(tmp_path: Path) -> None:
    with kit.client(tmp_path, max_games_per_client=1) as c:
        gid = _game(c).json()["game"]
        assert _game(c).status_code == 429
        store: Store = _state(c).registry.store
        from sqlalchemy import update

        from rebirth.server.persistence.store import games
        with store.tx() as conn:
            conn.execute(update(games).where(games.c.id == gid).values(status="over"))
        assert _game(c).status_code == 201


def test_running_all_bot_games_are_capped_on_the_whole_server(tmp_path: Path) -> None:
    """Issue 15 item 6: a cap on running games with bots only (they cost CPU with nobody playing)."""
    with kit.client(tmp_path, max_bot_games=1, bot_delay=30.0, forwarded_allow_ips="testclient") as c:
        assert _game(c, BOTS).status_code == 201
        r = _game(c, BOTS, headers={"X-Forwarded-For": "203.0.113.9"})  # another client: the cap is global
        err = _assert_refusal(r, "too_many_bot_games")
        assert r.status_code == 429 and err["details"]["cap"] == 1
        assert _game(c, [{"kind": "human"}, {"kind": "easy"}]).status_code == 201


def test_sockets_per_game_are_capped_and_spectators_cannot_take_the_seats_room(tmp_path: Path) -> None:
    """Issue 15 item 6, issue 24 item 7: a game takes at most ``max_sockets_per_game`` sockets,
    two per seat kept for the seats' own devices; a spectator over its share gets a clear
    error frame and the close code 1013 (try again later) — and the players still get in; a
    freed place can be taken."""
    with kit.client(tmp_path, max_sockets_per_game=6) as c:  # 2 seats x 2 kept: 2 for spectators
        g = _game(c, [{"kind": "human"}, {"kind": "human"}]).json()
        spec = kit.token(g["links"]["spectator"])
        toks = kit.seat_tokens(c, g)
        url = f"/ws/games/{g['game']}"
        with c.websocket_connect(url) as a, c.websocket_connect(url) as b:
            kit.hello(a, spec)
            kit.hello(b, spec)
            with c.websocket_connect(url) as third:
                third.send_json({"type": "hello", "token": spec, "since": -1})
                err = third.receive_json()
                assert err["type"] == "error" and err["code"] == "too_many_sockets", err
                assert "6" in err["message"]["en"] and err["message"]["de"]
                with pytest.raises(WebSocketDisconnect) as closed:
                    third.receive_json()
                assert closed.value.code == 1013
            # The spectators' share is full; each seat still gets its two devices in.
            with c.websocket_connect(url) as s0, c.websocket_connect(url) as s0b, \
                    c.websocket_connect(url) as s1, c.websocket_connect(url) as s1b:
                for ws, tok in ((s0, toks[0]), (s0b, toks[0]), (s1, toks[1]), (s1b, toks[1])):
                    assert kit.hello(ws, tok)["role"] == "seat"
        # The spectators closed: their places are free again; another game is not affected.
        with c.websocket_connect(url) as again:
            kit.hello(again, spec)
        other = _game(c).json()
        with c.websocket_connect(f"/ws/games/{other['game']}") as o:
            kit.hello(o, kit.token(other["links"]["spectator"]))


def test_a_socket_that_never_says_hello_is_closed(tmp_path: Path) -> None:
    """Issue 24 item 7: a socket without a ``hello`` holds a place only for ``hello_timeout``
    seconds: then it is told (``hello_first``) and closed (1008)."""
    with kit.client(tmp_path, hello_timeout=0.3) as c:
        g = _game(c).json()
        with c.websocket_connect(f"/ws/games/{g['game']}") as ws:
            err = ws.receive_json()
            assert err["type"] == "error" and err["code"] == "hello_first", err
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1008
        assert c.app.state.caps.attached(g["game"]) == 0  # type: ignore[attr-defined]


# ---------------------------------------------------------------------- memory


def test_idle_games_leave_memory_and_come_back_on_demand(tmp_path: Path) -> None:
    """Issue 15 item 6: after many games the number of games in memory stays bounded; a dropped
    game is loaded again from the store when asked for, with its moves."""
    with kit.client(tmp_path, hub_idle=3600.0) as c:
        registry, life = _state(c).registry, _state(c).lifecycle
        first = _game(c).json()
        tok = kit.claim(c, first["links"]["seats"][0]["url"])
        with c.websocket_connect(f"/ws/games/{first['game']}") as ws:
            view = kit.hello(ws, tok)["view"]
            seat = view["current_player"]
            if seat == 0:
                ws.send_json({"type": "act", "action": view["legal_actions"][0], "version": 0})
                assert _skip_presence(ws)["type"] == "update"
            for _ in range(60):
                _game(c)
            now = time.monotonic()
            life.sweep(now)
            assert life.sweep(now + 3601) and len(registry.hubs) == 1  # the one with a socket stays
            assert _metric(c, "rebirth_games_in_memory") == 1
        version = 1 if seat == 0 else 0
        life.sweep(time.monotonic())
        life.sweep(time.monotonic() + 3601)
        assert registry.hubs == {}
        assert _metric(c, "rebirth_games_dropped_total") == 61
        summary = c.get(f"/api/games/{first['game']}").json()
        assert summary["version"] == version and list(registry.hubs) == [first["game"]]
        with c.websocket_connect(f"/ws/games/{first['game']}") as ws:
            assert kit.hello(ws, tok)["version"] == version


def test_the_sweep_runs_by_itself(tmp_path: Path) -> None:
    """With a short ``hub_idle`` the background sweep empties memory of games nobody uses."""
    with kit.client(tmp_path, hub_idle=0.2) as c:
        registry = _state(c).registry
        ids = [_game(c).json()["game"] for _ in range(30)]
        deadline = time.monotonic() + 10
        while registry.hubs and time.monotonic() < deadline:
            time.sleep(0.05)
        assert registry.hubs == {}
        assert all(c.get(f"/api/games/{g}").status_code == 200 for g in ids[:3])


def test_a_dropped_game_waiting_for_a_human_is_not_adopted_again_until_it_moves(tmp_path: Path) -> None:
    """The version check of several workers adopts bot games nobody drives; one that waits for a
    human who left is dropped when idle and stays out of memory until its stored version moves."""
    with kit.client(tmp_path) as c:
        registry, life = _state(c).registry, _state(c).lifecycle
        g = _game(c, [{"kind": "human"}, {"kind": "easy"}]).json()
        gid = g["game"]
        deadline = time.monotonic() + 20
        while not registry.hubs[gid].match.is_human_turn():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.1)
        life.sweep(time.monotonic())
        assert life.sweep(time.monotonic() + 3600) == [gid]
        assert registry.parked == {gid: registry.store.versions([gid])[gid]}
        assert c.portal is not None
        c.portal.call(registry.adopt)
        assert gid not in registry.hubs
        # Asked for, it is loaded again (and no longer parked).
        assert c.get(f"/api/games/{gid}").status_code == 200
        assert gid in registry.hubs and registry.parked == {}


def test_restart_loads_only_games_with_bots(tmp_path: Path) -> None:
    """Issue 15 item 6: a restart does not rebuild every unfinished game before listening: the
    games of humans are loaded when a device asks for them."""
    with kit.client(tmp_path, bot_delay=3600.0) as c:
        humans = [_game(c).json()["game"] for _ in range(20)]
        bots = _game(c, [{"kind": "human"}, {"kind": "easy"}]).json()["game"]
    with kit.client(tmp_path, bot_delay=3600.0) as c:
        registry = _state(c).registry
        deadline = time.monotonic() + 20
        while bots not in registry.hubs and time.monotonic() < deadline:
            time.sleep(0.05)
        assert set(registry.hubs) == {bots}
        assert c.get(f"/api/games/{humans[3]}").status_code == 200
        assert set(registry.hubs) == {bots, humans[3]}


# ---------------------------------------------------------------------- broadcast


def test_a_broadcast_serialises_each_distinct_payload_once(tmp_path: Path) -> None:
    """Issue 15 item 6: spectators share one serialised frame, and so do two devices of one seat:
    a step seen by 2 seats and 12 spectators costs 3 serialisations, not 15."""
    with kit.client(tmp_path) as c:
        g = _game(c).json()
        url = f"/ws/games/{g['game']}"
        toks = kit.seat_tokens(c, g)
        spec = kit.token(g["links"]["spectator"])
        from contextlib import ExitStack

        with ExitStack() as stack:
            seats = [stack.enter_context(c.websocket_connect(url)) for _ in range(3)]
            views = [kit.hello(seats[0], toks[0])["view"], kit.hello(seats[1], toks[1])["view"],
                     kit.hello(seats[2], toks[0])["view"]]
            specs = [stack.enter_context(c.websocket_connect(url)) for _ in range(12)]
            for s in specs:
                kit.hello(s, spec)
            before = _metric(c, "rebirth_frames_serialised_total")
            p = views[0]["current_player"]
            seats[p].send_json({"type": "act", "action": views[p]["legal_actions"][0], "version": 0})
            got = []
            for ws in seats + specs:
                msg = _skip_presence(ws)
                assert msg["type"] == "update" and msg["version"] == 1
                got.append(msg)
            assert _metric(c, "rebirth_frames_serialised_total") - before == 3
            # Shared only where identical: every spectator the same, each seat its own view.
            assert all(m == got[3] for m in got[3:])
            assert got[0] == got[2] and got[0]["view"] != got[1]["view"] != got[3]["view"]


# ---------------------------------------------------------------------- storage faults


def test_bot_games_resume_by_themselves_when_storage_works_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15 item 6: a storage outage (writes and even reads fail) stops the bot moves; the
    human's move gets a clear storage message; once storage is back the bots carry on without a
    restart or a new move."""
    broken = {"on": False}
    append, steps = Store.append, Store.steps

    def failing_append(self: Store, *a: Any, **kw: Any) -> None:
        if broken["on"]:
            raise OperationalError("INSERT", {}, Exception("database or disk is full"))
        append(self, *a, **kw)

    def failing_steps(self: Store, *a: Any, **kw: Any) -> Any:
        if broken["on"]:
            raise OperationalError("SELECT", {}, Exception("disk I/O error"))
        return steps(self, *a, **kw)

    monkeypatch.setattr(Store, "append", failing_append)
    monkeypatch.setattr(Store, "steps", failing_steps)
    with kit.client(tmp_path, bot_delay=0.01, bot_retry_max=0.2) as c:
        broken["on"] = True
        bot = _game(c, BOTS).json()["game"]
        human = _game(c).json()
        time.sleep(1.0)
        assert c.get(f"/api/games/{bot}").json()["version"] == 0
        assert _metric(c, "rebirth_store_failures_total") >= 2
        with c.websocket_connect(f"/ws/games/{human['game']}") as ws:
            toks = kit.seat_tokens(c, human)
            view = kit.hello(ws, toks[0])["view"]
            p = view["current_player"]
            if p != 0:
                view = kit.hello(ws, toks[p])["view"]
            ws.send_json({"type": "act", "action": view["legal_actions"][0], "version": 0})
            err = _skip_presence(ws)
            assert err["type"] == "error" and err["code"] == "server_error", err
            assert "storage" in err["message"]["en"] and err["message"]["de"]
            assert err["details"] == {"reason": "storage"}
        broken["on"] = False
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            s = c.get(f"/api/games/{bot}").json()
            if s["version"] >= 5:
                break
            time.sleep(0.1)
        assert s["version"] >= 5, s
        registry = _state(c).registry
        stored = Store(kit.settings(tmp_path).resolved_database_url())
        assert len(stored.steps(bot)) == registry.hubs[bot].committed >= 5
