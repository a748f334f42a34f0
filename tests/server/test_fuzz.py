"""Fuzzing the endpoints: random and malformed JSON bodies and WebSocket messages never give a
500 or stop the server; every WebSocket message is answered and the socket stays usable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

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
                        "seats", "variants", "lang", "hotseat", "kind", "name", "visible", "code"])
TYPES = st.sampled_from(["hello", "act", "preview", "claim", "ping", "sync", "", "HELLO", "visibility",
                         "resign"])
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
        seat0 = kit.seat_tokens(c, g, 1)[0]

        @FUZZ
        @given(body=MESSAGES, path=st.sampled_from(["/api/games", f"/api/games/{gid}/seats/0/revoke",
                                                    f"/api/games/{gid}/seats/1/bot",
                                                    f"/api/games/{gid}/transfer",
                                                    f"/api/games/{gid}/transfer/claim",
                                                    "/api/unsubscribe?u=junk", "/api/unsubscribe"]),
               auth=st.sampled_from([None, admin, "junk", seat0]))
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


ACCOUNT_PATHS = ["/api/account/email", "/api/account/signin", "/api/account/name", "/api/account/seats",
                 "/api/account/sessions/revoke", "/api/account/passkeys/options", "/api/account/passkeys",
                 "/api/account/passkey/options", "/api/account/passkey/signin", "/api/account/signout"]
"""The account routes that take a body (issue 25), fuzzed signed in and not."""


def test_fuzz_account_bodies(tmp_path: Path) -> None:
    from rebirth.server.accounts import store as accts

    with kit.client(tmp_path, smtp_host="127.0.0.1", smtp_port=9) as c:
        store = c.app.state.registry.store  # type: ignore[attr-defined]
        acct = accts.account_for_email(store, "fuzz@example.org", "en")
        sid = accts.new_session(store, acct.id, "fuzz")
        g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "normal"}])
        paths = [*ACCOUNT_PATHS, f"/api/account/games/{g['game']}/seats/0/token"]

        @FUZZ
        @given(body=MESSAGES, path=st.sampled_from(paths), signed=st.booleans())
        def check(body: str, path: str, signed: bool) -> None:
            c.cookies.clear()
            if signed:
                c.cookies.set("rebirth_session", sid)
            headers = {"content-type": "application/json"}
            r = c.post(path, content=body.encode("utf-8", "surrogatepass"), headers=headers)
            assert r.status_code < 500 or r.json()["error"]["code"] == "mail_off", (path, body, r.text)
            if r.status_code >= 400:
                assert r.json()["error"]["code"]

        check()
        c.cookies.set("rebirth_session", sid)
        assert c.get("/api/account").status_code in (200, 401)  # signout may have ended it


PUSH_BODIES = st.one_of(
    MESSAGES,
    st.builds(lambda e, k, extra: json.dumps({"push": {"endpoint": e, "keys": k, **extra}}),
              st.one_of(st.text(max_size=30), st.sampled_from(["https://127.0.0.1/x", "http://10.0.0.1/",
                                                                "https://[::1]/p", "https://169.254.169.254/"])),
              st.one_of(JSON, st.fixed_dictionaries({"p256dh": st.text(max_size=90),
                                                     "auth": st.text(max_size=30)})),
              st.dictionaries(st.sampled_from(["expirationTime", "x"]), JSON, max_size=1)),
    st.builds(lambda on: json.dumps({"on": on}), JSON),
)


def test_fuzz_push_and_vacation_bodies(tmp_path: Path) -> None:
    """Issue 26: random and malformed push subscriptions and vacation bodies, with a seat's,
    a spectator's or no token: never a 500, always the error shape, and the game goes on."""
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}],
                         clock={"kind": "turn", "per_move_s": 86400})
        gid = g["game"]
        seat = kit.seat_tokens(c, g, 1)[0]
        spectator = kit.token(g["links"]["spectator"])

        @FUZZ
        @given(body=PUSH_BODIES, route=st.sampled_from([("PUT", f"/api/games/{gid}/notify"),
                                                        ("POST", f"/api/games/{gid}/vacation")]),
               auth=st.sampled_from([None, seat, spectator, "junk"]))
        def check(body: str, route: tuple[str, str], auth: str | None) -> None:
            headers = {"content-type": "application/json"}
            if auth:
                headers["Authorization"] = f"Bearer {auth}"
            r = c.request(route[0], route[1], content=body.encode("utf-8", "surrogatepass"), headers=headers)
            assert r.status_code < 500, (body, r.text)
            if r.status_code >= 400:
                assert r.json()["error"]["code"]

        check()
        assert c.get(f"/api/games/{gid}").status_code == 200
        assert c.get("/api/push/key").status_code == 200
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
            path = quote(name, safe="")
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
                    assert answer["type"] in ("error", "sync", "preview", "pong", "presence", "update",
                                              "clock")
                    if answer["type"] == "error":
                        assert answer["message"]["en"] and answer["message"]["de"]
                # Every message got an answer: an error, a sync, a preview, a pong or an update
                # (a well-formed `visibility` frame alone is not answered: it only informs).
                quiet = isinstance(parsed, dict) and parsed.get("type") == "visibility" \
                    and isinstance(parsed.get("visible"), bool)
                assert len(answers) >= (1 if quiet else 2)

            check()
        assert c.get(f"/api/games/{gid}").status_code == 200


CHALLENGE_BODIES = st.one_of(
    MESSAGES,
    st.builds(lambda bot, extra: json.dumps({"bot": bot, **extra}),
              st.one_of(st.text(max_size=30), st.sampled_from(["FuzzBot", "fuzzbot", "Nobody", ""])),
              st.dictionaries(st.sampled_from(["board", "players", "others", "variants", "clock", "lang",
                                               "reason", "x"]), JSON, max_size=3)),
    st.builds(lambda r: json.dumps({"reason": r}), st.one_of(JSON, st.sampled_from(["later", "tooFast"]))),
)


def test_fuzz_bot_account_and_challenge_bodies(tmp_path: Path) -> None:
    """The new bodies of issue 27 item 2 (upgrade, token, challenges and their answers), signed
    in or not, with the bot's API token, another's or none: never a 5xx, always the error shape."""
    from rebirth.server.accounts import store as accts

    with kit.client(tmp_path) as c:
        store = c.app.state.registry.store  # type: ignore[attr-defined]
        bot = accts.account_for_email(store, "fuzzbot@example.org", "en")
        assert accts.rename(store, bot.id, "FuzzBot")
        human = accts.account_for_email(store, "fuzzer@example.org", "en")
        bot_sid, sid = accts.new_session(store, bot.id, "fuzz"), accts.new_session(store, human.id, "fuzz")
        c.cookies.set("rebirth_session", bot_sid)
        token = c.post("/api/account/bot", headers={"Origin": "http://testserver"}).json()["token"]
        c.cookies.set("rebirth_session", sid)
        open_id = c.post("/api/challenges", json={"bot": "FuzzBot"}, headers={"Origin": "http://testserver"}
                         ).json()["id"]
        paths = ["/api/challenges", "/api/account/bot", "/api/account/bot/token",
                 *(f"/api/challenges/{cid}/{what}" for cid in (open_id, "nope", "x" * 40)
                   for what in ("accept", "decline", "cancel"))]

        @FUZZ
        @given(body=CHALLENGE_BODIES, path=st.sampled_from(paths), signed=st.booleans(),
               auth=st.sampled_from([None, token, "bot_junk", "junk"]))
        def check(body: str, path: str, signed: bool, auth: str | None) -> None:
            c.cookies.clear()
            if signed:
                c.cookies.set("rebirth_session", sid)
            headers = {"content-type": "application/json", "Origin": "http://testserver"}
            if auth:
                headers["Authorization"] = f"Bearer {auth}"
            r = c.post(path, content=body.encode("utf-8", "surrogatepass"), headers=headers)
            assert r.status_code < 500, (path, body, r.text)
            if r.status_code >= 400:
                assert r.json()["error"]["code"]
                if r.status_code == 429:
                    assert r.headers["Retry-After"]

        check()
        # The bot's token still reads its challenge (nothing the fuzz sent revoked it).
        r = c.get(f"/api/challenges/{open_id}", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200 and r.json()["bot"] == "FuzzBot", r.text
