"""Issue 26 item 1: web push. A local push service on loopback (tests/server/pushkit.py) gets
one encrypted push per turn of each subscribed seat — decrypted here with the subscription's
own keys, signed with the server's VAPID key (kept in the database), with ``TTL`` and
``Content-Encoding: aes128gcm`` — holding the game, what happened and the seat's page, and no
token, invitation, hidden card or seed (S-5); a chat message from another player and the game's
end arrive too; a 404/410 drops the subscription; bad subscriptions and internal endpoints are
refused as webhooks are (SSRF), changing nothing."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from fastapi.testclient import TestClient
from http_ece import ECEException

from canaries import SEED_CANARY, canary_game
from rebirth.engine.game import Game
from rebirth.server.persistence import push as pushstore
from rebirth.server.persistence.outbox import Outbox
from rebirth.server.persistence.store import Store
from server import kit
from server.notifykit import wait_for
from server.pushkit import Browser, Push, push_service, unb64, vapid_parts
from server.test_notify import fast, players, step

SEED_TEXTS = (str(SEED_CANARY), hex(SEED_CANARY)[2:])


def canary_factory(board: str, players: int, variants: list[str]) -> Game:
    return canary_game(board, players, variants)


def store_of(c: TestClient) -> Store:
    st: Store = c.app.state.registry.store  # type: ignore[attr-defined]
    return st


def subscribe(c: TestClient, gid: str, tok: str, browser: Browser) -> dict[str, Any]:
    r = c.put(f"/api/games/{gid}/notify", headers={"Authorization": f"Bearer {tok}"},
              json={"push": browser.subscription()})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def verify_vapid(push: Push, key: str, endpoint: str) -> None:
    """The Authorization is a JWT (ES256) for the endpoint's origin, signed by ``key``."""
    claims, k = vapid_parts(push)
    assert k == key
    assert claims["aud"] == endpoint.split("/", 3)[0] + "//" + endpoint.split("/", 3)[2]
    assert claims["exp"] > time.time() and claims["sub"].startswith("mailto:")
    token = push.headers["authorization"].split("t=", 1)[1].split(",", 1)[0]
    head, body, sig = token.split(".")
    raw = unb64(sig)
    pub = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(key))
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        pub.verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:  # pragma: no cover - the failure is the assertion
        raise AssertionError("the VAPID signature does not verify") from None


def test_the_vapid_key_is_made_once_and_kept(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        key = c.get("/api/push/key").json()["key"]
        assert c.get("/api/push/key").json() == {"key": key}
    point = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))
    assert len(point) == 65 and point[0] == 4  # an uncompressed P-256 point
    with kit.client(tmp_path) as c:  # a restart: the same key from the database
        assert c.get("/api/push/key").json() == {"key": key}


def test_each_turn_arrives_as_one_encrypted_push(tmp_path: Path) -> None:
    """Must-show: the seat's turn arrives as one encrypted push per turn, nothing secret in it."""
    with push_service() as svc, kit.client(tmp_path, game_factory=canary_factory,
                                           seed_factory=lambda: SEED_CANARY, **fast()) as c:
        g = kit.new_game(c, players=2, seats=[{"kind": "human", "name": "Ailsa"},
                                              {"kind": "human", "name": "Brodie"}])
        gid = g["game"]
        toks = kit.seat_tokens(c, g)
        key = c.get("/api/push/key").json()["key"]
        browsers = [Browser(svc.endpoint(f"/push/{i}")) for i in (0, 1)]
        for i in (0, 1):
            got = subscribe(c, gid, toks[i], browsers[i])
            assert got["push"] is True and "endpoint" not in json.dumps(got)
        secrets = {kit.token(g["links"]["spectator"]), kit.token(g["links"]["admin"]), *toks,
                   *(s["url"].split("#i=")[1] for s in g["links"]["seats"]), *SEED_TEXTS}
        turns = [0, 0]
        with players(c, gid, toks) as ps:
            last = ps[0].view["current_player"]
            turns[last] += 1
            assert wait_for(lambda: len(svc.on(f"/push/{last}")) == 1), svc.hits
            while sum(turns) < 10:
                step(ps)
                now = ps[0].view["current_player"]
                if now != last:
                    turns[now] += 1
                    last = now
                    assert wait_for(lambda: [len(svc.on(f"/push/{i}")) for i in (0, 1)] == turns), \
                        (turns, [h.path for h in svc.hits])
            hidden = {card.id for card in c.app.state.registry.hubs[gid].match.game.cards}  # type: ignore[attr-defined]
        time.sleep(0.5)  # a second push of any turn would have arrived by now
        assert [len(svc.on(f"/push/{i}")) for i in (0, 1)] == turns
        for i in (0, 1):
            for push in svc.on(f"/push/{i}"):
                assert push.headers["content-encoding"] == "aes128gcm"
                assert int(push.headers["ttl"]) > 0
                verify_vapid(push, key, browsers[i].endpoint)
                data = browsers[i].decrypt(push)
                assert data["kind"] == "turn" and data["game"] == gid and data["seat"] == i
                assert data["url"] == f"/game/{gid}?seat={i}"
                assert ["Ailsa", "Brodie"][i] in data["body"] and data["title"]
                text = json.dumps(data)
                # No token, invitation or seed; no mission card's id (the canaries).
                assert not [s for s in secrets if s in text], text
                assert "CANARY" not in text and not [h for h in hidden if h in text]
                # The other seat's keys cannot read it.
                with pytest.raises(ECEException):
                    browsers[1 - i].decrypt(push)
        rows = [r for r in Outbox(store_of(c)).rows(gid) if r["channel"] == "push"]
        assert len(rows) == sum(turns) and {r["done"] for r in rows} == {"sent"}


def test_a_gone_subscription_is_dropped(tmp_path: Path) -> None:
    """Must-show: a push service answering 410 (or 404) drops the subscription; nothing is
    retried."""
    with push_service() as svc, kit.client(tmp_path, **fast()) as c:
        g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        gid, toks = g["game"], kit.seat_tokens(c, g)
        with c.websocket_connect(f"/ws/games/{gid}") as ws:
            mover = kit.hello(ws, toks[0])["view"]["current_player"]
        svc.status[f"/gone/{mover}"] = 410
        subscribe(c, gid, toks[mover], Browser(svc.endpoint(f"/gone/{mover}")))
        store = store_of(c)
        def rows() -> list[dict[str, object]]:
            return [r for r in Outbox(store).rows(gid) if r["channel"] == "push"]

        assert wait_for(lambda: pushstore.get(store, gid, mover) is None), svc.hits
        assert wait_for(lambda: [r["done"] for r in rows()] == ["dropped"]), rows()
        assert len(svc.on(f"/gone/{mover}")) == 1
        assert "410" in str(rows()[0]["last_error"])
        auth = {"Authorization": f"Bearer {toks[mover]}"}
        assert c.get(f"/api/games/{gid}/notify", headers=auth).json()["push"] is False
        time.sleep(0.3)
        assert len(svc.on(f"/gone/{mover}")) == 1  # not retried


def test_chat_and_the_end_arrive_too(tmp_path: Path) -> None:
    """A player's chat message reaches the other player's device (who wrote, never the text);
    the game's end reaches every subscribed seat once."""
    with push_service() as svc, kit.client(tmp_path, **fast()) as c:
        g = kit.new_game(c, players=2, seats=[{"kind": "human", "name": "Ailsa"},
                                              {"kind": "human", "name": "Brodie"}])
        gid, toks = g["game"], kit.seat_tokens(c, g)
        browsers = [Browser(svc.endpoint(f"/p/{i}")) for i in (0, 1)]
        for i in (0, 1):
            subscribe(c, gid, toks[i], browsers[i])
        with players(c, gid, toks) as ps:
            ps[0].ws.send_json({"type": "chat", "text": "psst: my secret plan"})
            assert wait_for(lambda: any(browsers[1].decrypt(p)["kind"] == "chat" for p in svc.on("/p/1")))
            chat = [d for d in map(browsers[1].decrypt, svc.on("/p/1")) if d["kind"] == "chat"]
            assert len(chat) == 1 and "Ailsa" in chat[0]["body"] and "secret plan" not in json.dumps(chat[0])
            assert not any(browsers[0].decrypt(p)["kind"] == "chat" for p in svc.on("/p/0"))
            while ps[0].view["phase"] != "end":
                step(ps)
        for i in (0, 1):
            assert wait_for(lambda: any(browsers[i].decrypt(p)["kind"] == "end" for p in svc.on(f"/p/{i}")))  # noqa: B023
        time.sleep(0.3)
        for i in (0, 1):
            kinds = [browsers[i].decrypt(p)["kind"] for p in svc.on(f"/p/{i}")]
            assert kinds.count("end") == 1 and kinds[-1] == "end", kinds


@pytest.mark.parametrize(("push", "field"), [
    ({"endpoint": "https://127.0.0.1/x"}, "push.endpoint"),  # loopback without the setting
    ({"endpoint": "http://8.8.8.8/x"}, "push.endpoint"),  # plain http without the setting
    ({"endpoint": "https://169.254.169.254/latest"}, "push.endpoint"),  # the metadata address
    ({"endpoint": "ftp://push.example.org/x"}, "push.endpoint"),
    ({"p256dh": "AAAA"}, "push.keys.p256dh"),
    ({"auth": "c2hvcnQ"}, "push.keys.auth"),
])
def test_bad_subscriptions_are_refused_and_change_nothing(tmp_path: Path, push: dict[str, str],
                                                          field: str) -> None:
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        gid, toks = g["game"], kit.seat_tokens(c, g)
        sub = Browser("https://93.184.215.14/x").subscription()
        sub["endpoint"] = push.get("endpoint", sub["endpoint"])
        sub["keys"].update({k: v for k, v in push.items() if k != "endpoint"})
        auth = {"Authorization": f"Bearer {toks[0]}"}
        r = c.put(f"/api/games/{gid}/notify", headers=auth, json={"push": sub})
        assert r.status_code == 400, r.text
        assert r.json()["error"]["code"] == "bad_notify" and r.json()["error"]["details"]["field"] == field
        assert pushstore.get(store_of(c), gid, 0) is None
        # Only the seat's own link: a spectator may not subscribe.
        spectator = {"Authorization": f"Bearer {kit.token(g['links']['spectator'])}"}
        r = c.put(f"/api/games/{gid}/notify", headers=spectator, json={"push": Browser("https://93.184.215.14/y").subscription()})
        assert r.status_code == 403


def test_push_absent_keeps_null_removes(tmp_path: Path) -> None:
    """``push`` absent from a PUT keeps the subscription (the webhook form saves without it);
    null removes it."""
    with kit.client(tmp_path, **fast()) as c:
        g = kit.new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        gid, toks = g["game"], kit.seat_tokens(c, g)
        auth = {"Authorization": f"Bearer {toks[1]}"}
        subscribe(c, gid, toks[1], Browser("http://127.0.0.1:9/p"))
        assert c.put(f"/api/games/{gid}/notify", headers=auth, json={"webhook": None}).json()["push"] is True
        assert pushstore.get(store_of(c), gid, 1) is not None
        assert c.put(f"/api/games/{gid}/notify", headers=auth, json={"push": None}).json()["push"] is False
        assert pushstore.get(store_of(c), gid, 1) is None
