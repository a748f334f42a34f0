"""Accounts on PostgreSQL with two workers and Redis (issue 25): a sign-in link mailed by one
worker is spent on the other, once; the per-address limit counts across workers; a session
made on one works on the other and, revoked there, is refused on both (REST and WebSocket);
an account's seat opens on the other worker by the cookie alone."""

from __future__ import annotations

from pathlib import Path

from server import notifykit, workerkit
from server.accountkit import code_of, wait_mail


def test_accounts_across_two_workers_on_postgresql(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with notifykit.smtp_server() as smtp, workerkit.redis_server() as r, workerkit.database() as db:
        pfx = workerkit.prefix()
        mail = {"smtp_host": "127.0.0.1", "smtp_port": smtp.port, "rate_signin_email": "3/hour"}
        with workerkit.worker(tmp_path / "a", db, r, pfx, **mail) as w1, \
                workerkit.worker(tmp_path / "b", db, r, pfx, **mail) as w2:
            assert w1.post("/api/account/email", json={"email": "pg@example.org"}).status_code == 202
            code = code_of(wait_mail(smtp, 1))
            # Spent on the other worker, once.
            r2 = w2.post("/api/account/signin", json={"code": code})
            assert r2.status_code == 200, r2.text
            assert w1.post("/api/account/signin", json={"code": code}).status_code == 403
            sid = w2.cookies.get("rebirth_session")
            assert sid
            # The per-address limit counts on both workers (Redis): two more, then refused.
            assert w1.post("/api/account/email", json={"email": "pg@example.org"}).status_code == 202
            assert w2.post("/api/account/email", json={"email": "PG@example.org"}).status_code == 202
            assert w1.post("/api/account/email", json={"email": "pg@example.org"}).status_code == 429
            # The session made on worker 2 works on worker 1.
            w1.cookies.set("rebirth_session", sid)
            assert w1.get("/api/account").json()["email"] == "pg@example.org"
            seats = [{"kind": "human", "account": "me"}, {"kind": "normal"}]
            g = w1.post("/api/games", json={"players": 2, "rated": True, "seats": seats})
            assert g.status_code == 201, g.text
            gid = g.json()["game"]
            # The seat opens on worker 2 by the cookie alone.
            with w2.websocket_connect(f"/ws/games/{gid}") as ws:
                ws.send_json({"type": "hello"})
                msg = workerkit.recv(ws)
                while msg["type"] == "presence":
                    msg = workerkit.recv(ws)
                assert (msg["type"], msg["role"], msg["seat"]) == ("sync", "seat", 0)
            assert w2.post(f"/api/account/games/{gid}/seats/0/token").status_code == 200
            # Revoked on worker 1: refused on both, REST and WebSocket.
            assert w1.post("/api/account/sessions/revoke").json() == {"revoked": 1}
            for w in (w1, w2):
                w.cookies.set("rebirth_session", sid)
                assert w.get("/api/account").status_code == 401
                with w.websocket_connect(f"/ws/games/{gid}") as ws:
                    ws.send_json({"type": "hello"})
                    assert workerkit.recv(ws)["code"] == "signin_required"
