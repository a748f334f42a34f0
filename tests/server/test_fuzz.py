"""Fuzzing the endpoints: random and malformed JSON bodies and WebSocket messages never give a
500 or stop the server; every WebSocket message is answered and the socket stays usable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebirth.server.operations.guard import bounded_loads
from server import kit

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from(["type", "token", "since", "action", "version", "seat", "board", "players",
                        "seats", "variants", "lang", "hotseat", "kind", "name"])
TYPES = st.sampled_from(["hello", "act", "preview", "claim", "ping", "sync", "", "HELLO"])
MESSAGES = st.one_of(
    JSON.map(json.dumps),
    st.dictionaries(KEYS, JSON, max_size=5).map(json.dumps),
    st.builds(lambda t, d: json.dumps({"type": t, **d}), TYPES, st.dictionaries(KEYS, JSON, max_size=4)),
    st.text(max_size=60),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
)
FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))


def test_fuzz_rest_bodies(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        gid = g["game"]
        admin = kit.token(g["links"]["admin"])

        @FUZZ
        @given(body=MESSAGES, path=st.sampled_from(["/api/games", f"/api/games/{gid}/seats/0/revoke",
                                                    f"/api/games/{gid}/seats/1/bot"]),
               auth=st.sampled_from([None, admin, "junk"]))
        def check(body: str, path: str, auth: str | None) -> None:
            headers = {"content-type": "application/json"}
            if auth:
                headers["Authorization"] = f"Bearer {auth}"
            r = c.post(path, content=body.encode("utf-8", "surrogatepass"), headers=headers)
            assert r.status_code < 500, (body, r.text)
            if r.status_code >= 400:
                assert r.json()["error"]["code"]

        check()
        assert c.get(f"/api/games/{gid}").status_code == 200


QUERY = st.one_of(st.text(max_size=50), st.integers(-(2**70), 2**70).map(str),
                  st.sampled_from(["scotland", "ireland", "2", "3", "4", "", "../maps", "%00"]))


def test_fuzz_ratings_and_profiles(tmp_path: Path) -> None:
    """The leaderboard's query and a profile's name, random and malformed: never a 5xx, every
    refusal in the one error shape; with the account tables there (ratingskit's stand-ins)
    and a rated account, answers stay well-formed."""
    from rebirth.server.persistence import ratings as rs
    from server import ratingskit

    with kit.client(tmp_path) as c:
        store = c.app.state.registry.store  # type: ignore[attr-defined]
        ratingskit.create_standins(store)
        ada, bo = ratingskit.account(store, "Ada"), ratingskit.account(store, "Bo")
        gid = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])["game"]
        ratingskit.seat(store, gid, 0, ada)
        ratingskit.seat(store, gid, 1, bo)
        ratingskit.rated(store, gid)
        rs.record_result(store, rs.FinalResult(gid, "scotland", 2, (120, 100), (0,)))
        assert rs.rate_game(store, gid) is not None

        @FUZZ
        @given(board=st.none() | QUERY, players=st.none() | QUERY, name=QUERY,
               extra=st.dictionaries(st.sampled_from(["limit", "board", "x"]), QUERY, max_size=2))
        def check(board: str | None, players: str | None, name: str, extra: dict[str, str]) -> None:
            params = {k: v for k, v in (("board", board), ("players", players)) if v is not None}
            path = name.replace("/", "%2F").replace("?", "%3F").replace("#", "%23")
            for r in (c.get("/api/ratings", params={**extra, **params}), c.get("/api/players/" + path)):
                assert r.status_code < 500, (board, players, name, r.text)
                if r.status_code >= 400:
                    assert r.json()["error"]["code"]
                else:
                    assert "ratings" in r.json() or "stats" in r.json()

        check()
        assert c.get("/api/players/Ada").json()["stats"][0]["rating"] is not None


def test_fuzz_websocket_messages(tmp_path: Path) -> None:
    with kit.client(tmp_path, max_message_bytes=4096) as c:
        g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}], hotseat=True)
        gid = g["game"]
        toks = [kit.grant(c, gid, 0), kit.grant(c, gid, 1), kit.claim(c, g["links"]["table"])]
        with c.websocket_connect(f"/ws/games/{gid}") as ws:

            @FUZZ
            @given(msg=MESSAGES, who=st.sampled_from([*toks, None]))
            def check(msg: str, who: str | None) -> None:
                if who is not None:
                    kit.hello(ws, who)
                ws.send_text(msg)
                ws.send_json({"type": "ping"})  # the socket still answers after the message
                # A ping is answered only if it decodes within the server's bounds (a lone
                # surrogate or a 5,000-digit integer is refused with an error instead).
                try:
                    parsed = bounded_loads(msg)
                except ValueError:
                    parsed = None
                pongs = 2 if isinstance(parsed, dict) and parsed.get("type") == "ping" else 1
                answers: list[dict[str, Any]] = []
                while pongs:
                    answer: dict[str, Any] = ws.receive_json()
                    pongs -= answer["type"] == "pong"
                    answers.append(answer)
                    assert answer["type"] in ("error", "sync", "preview", "pong", "presence", "update")
                    if answer["type"] == "error":
                        assert answer["message"]["en"] and answer["message"]["de"]
                # Every message got an answer: an error, a sync, a preview, a pong or an update.
                assert len(answers) >= 2

            check()
        assert c.get(f"/api/games/{gid}").status_code == 200
