"""Accounts (issue 25 items 1 and 2): sign-in by an e-mailed single-use link, the session
cookie, sessions and their revocation, the Origin check of cookie changes, the display name,
deletion, and every seat of an account on every device (REST and WebSocket)."""

from __future__ import annotations

import email
import logging
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rebirth.server.accounts import signin as signin_mod
from server import kit
from server.accountkit import code_of, mail_client, signin, wait_mail


def test_signin_by_the_mailed_link_sets_an_httponly_lax_cookie(tmp_path: Path) -> None:
    with mail_client(tmp_path) as (c, smtp):
        r = c.post("/api/account/email", json={"email": "Ada@Example.org", "lang": "en"})
        assert r.status_code == 202 and r.json() == {"status": "sent"}
        mail = wait_mail(smtp, 1)
        msg = email.message_from_bytes(mail.data)
        assert mail.rcpt == ["ada@example.org"]
        assert msg["Date"] and msg["Message-ID"]
        code = code_of(mail)
        r = c.post("/api/account/signin", json={"code": code})
        assert r.status_code == 200, r.text
        acct = r.json()["account"]
        assert acct["email"] == "ada@example.org" and acct["name"].startswith("Traveller-")
        cookie = r.headers["set-cookie"]
        assert cookie.startswith("rebirth_session=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
        assert "Secure" not in cookie  # plain http here
        me = c.get("/api/account").json()
        assert me["id"] == acct["id"] and me["games"] == [] and me["ratings"] == []


def test_the_cookie_is_secure_behind_https(tmp_path: Path) -> None:
    with mail_client(tmp_path, public_url="https://rebirth.example.org") as (c, smtp):
        c.headers["origin"] = "https://rebirth.example.org"
        c.post("/api/account/email", json={"email": "s@example.org"})
        r = c.post("/api/account/signin", json={"code": code_of(wait_mail(smtp, 1))})
        assert "Secure" in r.headers["set-cookie"]
        body = email.message_from_bytes(smtp.box[0].data).get_payload()
        assert "https://rebirth.example.org/signin#c=" in body


def test_a_code_works_once(tmp_path: Path) -> None:
    with mail_client(tmp_path) as (c, smtp):
        c.post("/api/account/email", json={"email": "once@example.org"})
        code = code_of(wait_mail(smtp, 1))
        assert c.post("/api/account/signin", json={"code": code}).status_code == 200
        c.cookies.clear()
        r = c.post("/api/account/signin", json={"code": code})
        assert r.status_code == 403 and r.json()["error"]["code"] == "bad_code"
        assert c.get("/api/account").status_code == 401


def test_a_code_expires(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with mail_client(tmp_path) as (c, smtp):
        c.post("/api/account/email", json={"email": "late@example.org"})
        code = code_of(wait_mail(smtp, 1))
        real = time.time
        monkeypatch.setattr(time, "time", lambda: real() + signin_mod.CODE_SECONDS + 1)
        r = c.post("/api/account/signin", json={"code": code})
        assert r.status_code == 403 and r.json()["error"]["code"] == "bad_code"


def test_links_are_rate_limited_per_address_and_per_client(tmp_path: Path) -> None:
    with mail_client(tmp_path, rate_signin_email="3/hour", rate_signin="5/hour") as (c, smtp):
        for _ in range(3):
            assert c.post("/api/account/email", json={"email": "r@example.org"}).status_code == 202
        r = c.post("/api/account/email", json={"email": "R@example.org"})
        assert r.status_code == 429 and r.json()["error"]["details"]["limit"] == "signin_email"
        assert c.post("/api/account/email", json={"email": "other@example.org"}).status_code == 202
        r = c.post("/api/account/email", json={"email": "third@example.org"})
        assert r.status_code == 429 and r.json()["error"]["details"]["limit"] == "signin"
        wait_mail(smtp, 4)
        time.sleep(0.2)
        assert len(smtp.box) == 4


def test_known_and_unknown_addresses_get_the_same_answer(tmp_path: Path) -> None:
    with mail_client(tmp_path) as (c, smtp):
        signin(c, smtp, "known@example.org")
        c.cookies.clear()
        a = c.post("/api/account/email", json={"email": "known@example.org"})
        b = c.post("/api/account/email", json={"email": "unknown@example.org"})
        assert (a.status_code, a.content) == (b.status_code, b.content) == (202, b'{"status":"sent"}')
        skip = {"date", "content-length"}
        assert {k: v for k, v in a.headers.items() if k not in skip} == \
            {k: v for k, v in b.headers.items() if k not in skip}
        # Timing: both return before any look-up (the work is in the background); measured.
        for addr in ("known@example.org", "unknown@example.org"):
            t = time.perf_counter()
            c.post("/api/account/email", json={"email": addr.replace("@", "+t@")})
            assert time.perf_counter() - t < 0.5


def test_bad_addresses_are_refused(tmp_path: Path) -> None:
    with mail_client(tmp_path) as (c, _smtp):
        for bad in ("nope", "a@b", "a b@example.org", "<a@example.org>", "a@@example.org"):
            r = c.post("/api/account/email", json={"email": bad})
            assert r.status_code == 400 and r.json()["error"]["code"] == "bad_email", bad


def test_no_smtp_no_link(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        r = c.post("/api/account/email", json={"email": "x@example.org"})
        assert r.status_code == 503 and r.json()["error"]["code"] == "mail_off"


def test_the_code_never_appears_in_a_log(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with mail_client(tmp_path) as (c, smtp):
        c.post("/api/account/email", json={"email": "log@example.org"})
        code = code_of(wait_mail(smtp, 1))
        c.post("/api/account/signin", json={"code": code})
        c.post("/api/account/signin", json={"code": code})  # a refused try is logged too
        (tmp_path / "b").mkdir()
        with kit.client(tmp_path / "b") as other:
            other.post("/api/account/signin", json={"code": code})
    # Every log of the server (the test's own SMTP receiver, aiosmtpd's ``mail.log``, is no part of it).
    text = "\n".join(r.getMessage() for r in caplog.records if not r.name.startswith("mail.log"))
    assert '"path": "/api/account/signin"' in text  # the access log was captured
    assert code not in text
    assert "log@example.org" not in text


def test_sessions_are_listed_and_revoked_one_by_one_and_all(tmp_path: Path) -> None:
    with mail_client(tmp_path) as (c, smtp):
        signin(c, smtp, "s@example.org")
        with TestClient(c.app) as d:
            signin(d, smtp, "s@example.org")
            listed = c.get("/api/account/sessions").json()["sessions"]
            assert len(listed) == 2 and sum(s["current"] for s in listed) == 1
            other = next(s["id"] for s in listed if not s["current"])
            r = c.post("/api/account/sessions/revoke", json={"ids": [other]})
            assert r.json() == {"revoked": 1}
            assert d.get("/api/account").status_code == 401
            assert c.get("/api/account").status_code == 200
            signin(d, smtp, "s@example.org")
            r = c.post("/api/account/sessions/revoke")
            assert r.json() == {"revoked": 2}
            assert c.get("/api/account").status_code == 401 and d.get("/api/account").status_code == 401


def test_a_revoked_cookie_is_refused_on_rest_and_websocket(tmp_path: Path) -> None:
    with mail_client(tmp_path) as (c, smtp):
        signin(c, smtp, "ws@example.org")
        g = kit.new_game(c, players=2, seats=[{"kind": "human", "account": "me"}, {"kind": "normal"}])
        cookie = c.cookies.get("rebirth_session")
        assert cookie
        with c.websocket_connect(f"/ws/games/{g['game']}") as ws:
            ws.send_json({"type": "hello"})
            sync = ws.receive_json()
            while sync["type"] == "presence":
                sync = ws.receive_json()
            assert sync["type"] == "sync" and (sync["role"], sync["seat"]) == ("seat", 0)
        c.post("/api/account/sessions/revoke")
        c.cookies.set("rebirth_session", cookie)  # the browser kept it
        assert c.get("/api/account").status_code == 401
        with c.websocket_connect(f"/ws/games/{g['game']}") as ws:
            ws.send_json({"type": "hello"})
            err = ws.receive_json()
            assert err["type"] == "error" and err["code"] == "signin_required"


def test_a_cookie_post_from_a_foreign_origin_is_refused(tmp_path: Path) -> None:
    with mail_client(tmp_path) as (c, smtp):
        signin(c, smtp, "o@example.org")
        for method, path, body in (("POST", "/api/account/name", {"name": "Evil Name"}),
                                   ("POST", "/api/account/sessions/revoke", None),
                                   ("DELETE", "/api/account", None),
                                   ("POST", "/api/games", {"players": 2})):
            r = c.request(method, path, json=body, headers={"origin": "https://evil.example"})
            assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden", path
        assert c.get("/api/account").json()["name"].startswith("Traveller-")
        # The page's own origin is fine.
        r = c.post("/api/account/name", json={"name": "Ada Lovelace"}, headers={"origin": "http://testserver"})
        assert r.status_code == 200 and r.json()["name"] == "Ada Lovelace"
        # A sign-in from a foreign page is refused too (login CSRF).
        assert c.post("/api/account/signin", json={"code": "x"},
                      headers={"origin": "https://evil.example"}).status_code == 403


def test_display_names_are_validated_and_unique(tmp_path: Path) -> None:
    with mail_client(tmp_path) as (c, smtp):
        signin(c, smtp, "n1@example.org")
        for bad, why in (("ab", "length"), ("x" * 25, "length"), ("<script>", "characters"),
                         ("lead!", "characters"), ("Normal 2", "reserved"), ("Expert", "reserved"),
                         ("bot_7", "reserved"), ("Player 1", "reserved"), ("two  spaces", "characters")):
            r = c.post("/api/account/name", json={"name": bad})
            assert r.status_code == 400, bad
            assert r.json()["error"]["details"]["reason"] == why, bad
        assert c.post("/api/account/name", json={"name": "Zoë"}).status_code == 200
        with TestClient(c.app) as d:
            signin(d, smtp, "n2@example.org")
            r = d.post("/api/account/name", json={"name": "ZOË"})
            assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken"


def test_signin_attaches_this_browsers_seats_and_another_device_opens_them(tmp_path: Path) -> None:
    with mail_client(tmp_path) as (c, smtp):
        g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "normal"}])
        tok = kit.claim(c, g["links"]["seats"][0]["url"])
        done = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        tok2 = kit.claim(c, done["links"]["seats"][1]["url"])
        out = signin(c, smtp, "dev@example.org", seats=[tok, tok2, "not-a-token"])
        assert sorted((s["game"], s["seat"]) for s in out["seats"]) == sorted(
            [(g["game"], 0), (done["game"], 1)])
        games = {(x["game"], x["seat"]): x for x in c.get("/api/account").json()["games"]}
        assert set(games) == {(g["game"], 0), (done["game"], 1)}
        assert games[(g["game"], 0)]["your_turn"] in (True, False)
        with TestClient(c.app) as phone:
            signin(phone, smtp, "dev@example.org")
            r = phone.post(f"/api/account/games/{g['game']}/seats/0/token")
            assert r.status_code == 200
            t2 = r.json()["token"]
            assert t2 != tok
            with phone.websocket_connect(f"/ws/games/{g['game']}") as ws:
                assert kit.hello(ws, t2)["seat"] == 0
            # The first device still holds the seat.
            with c.websocket_connect(f"/ws/games/{g['game']}") as ws:
                assert kit.hello(ws, tok)["seat"] == 0
            # Somebody else's seat: refused.
            r = phone.post(f"/api/account/games/{done['game']}/seats/0/token")
            assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_seat"


def test_a_seat_is_attached_to_one_account_only(tmp_path: Path) -> None:
    with mail_client(tmp_path) as (c, smtp):
        g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "normal"}])
        tok = kit.claim(c, g["links"]["seats"][0]["url"])
        assert signin(c, smtp, "first@example.org", seats=[tok])["seats"]
        with TestClient(c.app) as d:
            assert signin(d, smtp, "second@example.org", seats=[tok])["seats"] == []
            with d.websocket_connect(f"/ws/games/{g['game']}") as ws:
                ws.send_json({"type": "hello"})
                msg = ws.receive_json()
                while msg["type"] == "presence":
                    msg = ws.receive_json()
                assert msg["type"] == "sync" and (msg["role"], msg["seat"]) == ("spectator", None)


def test_a_signed_in_creator_owns_a_seat_and_a_rated_game(tmp_path: Path) -> None:
    from rebirth.server.accounts.store import game_meta_of
    with mail_client(tmp_path) as (c, smtp):
        acct = signin(c, smtp, "cr@example.org")["account"]
        g = kit.new_game(c, players=2, rated=True,
                         seats=[{"kind": "human", "account": "me"}, {"kind": "human"}])
        assert g["links"]["seats"][0]["name"] == acct["name"]
        assert kit.claim(c, g["links"]["seats"][0]["url"])  # the creator's browser claims as today
        store = c.app.state.registry.store  # type: ignore[attr-defined]
        assert game_meta_of(store, g["game"]) == (acct["id"], True)
        assert [(x["game"], x["seat"]) for x in c.get("/api/account").json()["games"]] == [(g["game"], 0)]
        c.cookies.clear()
        r = c.post("/api/games", json={"players": 2, "seats": [{"kind": "human", "account": "me"},
                                                              {"kind": "normal"}]})
        assert r.status_code == 401 and r.json()["error"]["code"] == "signin_required"
        assert c.post("/api/games", json={"players": 2, "rated": True}).status_code == 401


def test_deleting_an_account(tmp_path: Path) -> None:
    with mail_client(tmp_path) as (c, smtp):
        acct = signin(c, smtp, "del@example.org")["account"]
        c.post("/api/account/name", json={"name": "Gone Soon"})
        g = kit.new_game(c, players=2, seats=[{"kind": "human", "account": "me"}, {"kind": "normal"}])
        cookie = c.cookies.get("rebirth_session")
        assert c.delete("/api/account").json() == {"deleted": True}
        c.cookies.set("rebirth_session", cookie or "")
        assert c.get("/api/account").status_code == 401
        store = c.app.state.registry.store  # type: ignore[attr-defined]
        assert store.game(g["game"]).names[0] == "Player 1"
        from rebirth.server.accounts.store import account_by_email, account_by_id
        assert account_by_email(store, "del@example.org") is None and account_by_id(store, acct["id"]) is None
        # The address can make a new account; the name is free again.
        c.cookies.clear()
        again = signin(c, smtp, "del@example.org")["account"]
        assert again["id"] != acct["id"]
        assert c.post("/api/account/name", json={"name": "Gone Soon"}).status_code == 200
