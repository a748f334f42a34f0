"""Seats belong to whoever takes them (issue 15 item 7 and its security must-show "the create
answer contains no token of another seat, and a seat's token exists only in the browser that
claimed it"): invitations, claims, racing claims on one and on two workers, hot-seat, revoke."""

from __future__ import annotations

import re
import threading
from functools import partial
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient
from sqlalchemy import select

from rebirth.engine.i18n import codes
from rebirth.server.persistence import migrate
from rebirth.server.persistence.store import hash_token, invites, tokens
from server import kit

HUMANS3 = [{"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"},
           {"kind": "easy", "name": "Cat"}]
SECRETISH = re.compile(rb"[A-Za-z0-9_-]{16,}")
"""Every run of URL-safe characters long enough to be a secret (tokens are 32)."""


def _answer(ws: Any) -> dict[str, Any]:
    """The next frame that is not a presence notice."""
    msg: dict[str, Any] = ws.receive_json()
    while msg["type"] == "presence":
        msg = ws.receive_json()
    return msg


def _roles_granted(c: TestClient, gid: str, raw: bytes) -> set[str]:
    """Every role that any secret-looking run of ``raw`` grants, by the store and over HTTP and
    the WebSocket: the canary looks at every byte of an answer."""
    store = c.app.state.registry.store  # type: ignore[attr-defined]
    runs = {m.group().decode() for m in SECRETISH.finditer(raw)}
    # Any substring could be the token: also every 32-character window of a longer run.
    runs |= {r[i:i + 32] for r in runs if len(r) > 32 for i in range(len(r) - 31)}
    assert runs
    roles: set[str] = set()
    for run in runs:
        row = store.token(run)
        if row is not None and not row.revoked:
            roles.add(row.role)
    with c.websocket_connect(f"/ws/games/{gid}") as ws:
        for run in sorted(runs):
            ws.send_json({"type": "hello", "token": run, "since": -1})
            msg = _answer(ws)
            if msg["type"] == "sync":
                roles.add(msg["role"])
    for run in runs:
        r = c.get(f"/api/games/{gid}/record", headers={"Authorization": f"Bearer {run}"})
        if r.status_code == 200:
            roles.add("record")
    return roles


def test_the_create_answer_holds_no_seat_token(tmp_path: Path) -> None:
    """Item 7: every byte of the create answer is tried as a token: only the spectator's and the
    admin's links grant anything; no seat (or device) token exists before a claim."""
    with kit.client(tmp_path) as c:
        r = c.post("/api/games", json={"players": 3, "seats": HUMANS3})
        assert r.status_code == 201
        g = r.json()
        gid = g["game"]
        store = c.app.state.registry.store  # type: ignore[attr-defined]
        with store.engine.connect() as conn:
            stored = {row.role for row in conn.execute(select(tokens.c.role).where(tokens.c.game == gid))}
        assert stored == {"spectator", "admin"}
        # The spectator's and the admin's links read no hand: the record is the redacted one.
        assert _roles_granted(c, gid, r.content) == {"spectator", "admin", "record"}
        seat_links = [s["url"] for s in g["links"]["seats"]]
        assert seat_links[2] is None and all("#i=" in u for u in seat_links[:2])
        # The claimed tokens are new secrets: none of them is in the create answer.
        toks = kit.seat_tokens(c, g, 2)
        for tok in toks:
            assert tok.encode() not in r.content
        assert _roles_granted(c, gid, r.content) == {"spectator", "admin", "record"}


def test_a_claimed_invitation_is_refused_to_the_second_browser(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, players=3, seats=HUMANS3)
        gid = g["game"]
        code = g["links"]["seats"][1]["url"].split("#i=")[1]
        first = c.post(f"/api/games/{gid}/claim", json={"invite": code})
        assert first.status_code == 200 and first.headers["cache-control"] == "no-store"
        body = first.json()
        assert (body["game"], body["role"], body["seat"]) == (gid, "seat", 1)
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            assert kit.hello(ws, body["token"])["seat"] == 1
            # The invitation itself is no token.
            ws.send_json({"type": "hello", "token": code, "since": -1})
            assert _answer(ws)["code"] == "bad_token"
        for _ in range(2):
            again = c.post(f"/api/games/{gid}/claim", json={"invite": code})
            assert again.status_code == 409
            err = again.json()["error"]
            assert err["code"] == "claimed" and set(err["message"]) == set(codes())
            assert "another browser" in err["message"]["en"] and "anderen Browser" in err["message"]["de"]
            assert body["token"] not in again.text
        # Unknown codes, another game's code, bad bodies: clear refusals, nothing claimed.
        other = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "easy"}])
        other_code = other["links"]["seats"][0]["url"].split("#i=")[1]
        for gid_, inv, status, want in [
                (gid, "x" * 32, 403, "bad_token"), (gid, other_code, 403, "bad_token"),
                ("nope", code, 403, "bad_token"), (gid, "", 400, "bad_message"),
                (gid, "y" * 65, 400, "bad_message")]:
            r = c.post(f"/api/games/{gid_}/claim", json={"invite": inv})
            assert (r.status_code, r.json()["error"]["code"]) == (status, want), r.text
        assert kit.claim(c, other["links"]["seats"][0]["url"])  # still free after the wrong-game try


def _race(posts: list[Any]) -> list[httpx.Response]:
    """Run the claim calls at the same moment (a barrier), one thread each."""
    barrier = threading.Barrier(len(posts))
    out: list[Any] = [None] * len(posts)

    def run(i: int) -> None:
        barrier.wait()
        out[i] = posts[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(posts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return out


def _check_race(results: list[httpx.Response]) -> str:
    won = [r for r in results if r.status_code == 200]
    assert len(won) == 1, [r.status_code for r in results]
    assert all(r.status_code == 409 and r.json()["error"]["code"] == "claimed"
               for r in results if r is not won[0])
    tok: str = won[0].json()["token"]
    assert all(tok not in r.text for r in results if r is not won[0])
    return tok


def test_racing_claims_on_two_servers_of_one_database_have_one_winner(tmp_path: Path) -> None:
    """Two apps on one SQLite file (two processes' worth of servers): for each invitation, four
    simultaneous claims through both: exactly one gets a token, and exactly one seat token is
    stored."""
    with kit.client(tmp_path) as a, kit.client(tmp_path) as b:
        for _ in range(5):
            g = kit.new_game(a, players=3, seats=HUMANS3)
            gid, code = g["game"], g["links"]["seats"][0]["url"].split("#i=")[1]
            results = _race([partial(c.post, f"/api/games/{gid}/claim", json={"invite": code})
                              for c in (a, b, a, b)])
            tok = _check_race(results)
            store = a.app.state.registry.store  # type: ignore[attr-defined]
            with store.engine.connect() as conn:
                seat_rows = conn.execute(select(tokens.c.hash).where(
                    tokens.c.game == gid, tokens.c.role == "seat")).all()
            assert [r.hash for r in seat_rows] == [hash_token(tok)]


def test_racing_claims_on_two_workers_on_postgresql_have_one_winner(tmp_path: Path) -> None:
    """The same race on the two-worker set-up (PostgreSQL + Redis, tests/server/workerkit.py):
    the conditional update lets exactly one claimer win; the winner plays on the other worker."""
    from server.workerkit import database, prefix, redis_server, worker

    with database() as db, redis_server() as r:
        pfx = prefix()
        with worker(tmp_path, db, r, pfx, heal_interval=600) as a, \
                worker(tmp_path, db, r, pfx, heal_interval=600) as b:
            assert a.app.state.registry.store.revision == migrate.head()  # type: ignore[attr-defined]
            for _ in range(5):
                g = kit.new_game(a, players=3, seats=HUMANS3)
                gid, code = g["game"], g["links"]["seats"][1]["url"].split("#i=")[1]
                results = _race([partial(c.post, f"/api/games/{gid}/claim", json={"invite": code})
                                 for c in (a, b, a, b)])
                tok = _check_race(results)
            with b.websocket_connect(f"/ws/games/{gid}") as ws:
                assert kit.hello(ws, tok)["seat"] == 1


def test_hot_seat_has_one_device_invitation_for_its_human_seats(tmp_path: Path) -> None:
    """Hot-seat keeps one device token for its human seats: the creating device claims the one
    invitation; the seats have none; a second device is refused; the admin's re-open replaces
    the device's invitation and token."""
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, players=3, seats=HUMANS3, hotseat=True)
        gid = g["game"]
        assert [s["url"] for s in g["links"]["seats"]] == [None, None, None]
        assert "#i=" in g["links"]["table"]
        r = c.post(f"/api/games/{gid}/claim", json={"invite": g["links"]["table"].split("#i=")[1]})
        assert r.status_code == 200 and (r.json()["role"], r.json()["seat"]) == ("table", None)
        device = r.json()["token"]
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            sync = kit.hello(ws, device)
            assert sync["role"] == "table" and sync["seats"] == [0, 1]
        again = c.post(f"/api/games/{gid}/claim", json={"invite": g["links"]["table"].split("#i=")[1]})
        assert again.status_code == 409 and device not in again.text
        admin = {"Authorization": f"Bearer {kit.token(g['links']['admin'])}"}
        res = c.post(f"/api/games/{gid}/seats/0/revoke", headers=admin)
        assert res.status_code == 200 and res.json()["role"] == "table" and "#i=" in res.json()["url"]
        assert c.get(f"/api/games/{gid}/record", headers={"Authorization": f"Bearer {device}"}).json()[
            "error"]["code"] == "revoked"
        new_device = kit.claim(c, res.json()["url"])
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            assert kit.hello(ws, new_device)["seats"] == [0, 1]


def test_revoke_gives_the_admin_a_new_invitation_never_a_token(tmp_path: Path) -> None:
    """The admin's revoke: a new invitation (every byte of the answer grants nothing), the old
    token refused over HTTP and the WebSocket, the old invitation refused, the new one claimed
    once."""
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, players=3, seats=HUMANS3)
        gid = g["game"]
        old_url = g["links"]["seats"][0]["url"]
        old = kit.claim(c, old_url)
        admin = {"Authorization": f"Bearer {kit.token(g['links']['admin'])}"}
        res = c.post(f"/api/games/{gid}/seats/0/revoke", headers=admin)
        assert res.status_code == 200
        assert _roles_granted(c, gid, res.content) == set()
        r = c.get(f"/api/games/{gid}/record", headers={"Authorization": f"Bearer {old}"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "revoked"
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            ws.send_json({"type": "hello", "token": old, "since": -1})
            assert _answer(ws)["code"] == "revoked"
        stale = c.post(f"/api/games/{gid}/claim", json={"invite": old_url.split("#i=")[1]})
        assert stale.status_code == 403 and stale.json()["error"]["code"] == "revoked"
        new = kit.claim(c, res.json()["url"])
        assert c.post(f"/api/games/{gid}/claim", json={"invite": res.json()["url"].split("#i=")[1]}
                      ).status_code == 409
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            assert kit.hello(ws, new)["seat"] == 0
        # Another seat's claim is untouched by seat 0's revoke.
        assert kit.claim(c, g["links"]["seats"][1]["url"])
        store = c.app.state.registry.store  # type: ignore[attr-defined]
        with store.engine.connect() as conn:
            rows = conn.execute(select(invites.c.seat, invites.c.claimed, invites.c.revoked)
                                .where(invites.c.game == gid).order_by(invites.c.created)).all()
        assert sorted((r.seat, bool(r.claimed), bool(r.revoked)) for r in rows) == [
            (0, True, False), (0, True, True), (1, True, False)]
