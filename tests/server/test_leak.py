"""S-5 over the wire: every frame and HTTP body a seat, a hot-seat table and a spectator
receive — initial sync, updates, reconnect, errors, presence, the log, the mid-game record,
hot-seat hand-overs — is recorded, and none holds another seat's hidden mission card
(canary ids), another seat's hand, set-aside tiles or legal actions, or the seed (a canary)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from canaries import SEED_CANARY, canary_game, hidden_card_ids
from rebirth.app.match import Match
from rebirth.engine.game import Game
from rebirth.engine.messages import text as catalog_text
from rebirth.server.pages import picture
from rebirth.server.play.session import Hub
from server import kit

SEED_TEXTS = (str(SEED_CANARY), hex(SEED_CANARY)[2:], hex(SEED_CANARY))


def canary_factory(board: str, players: int, variants: list[str]) -> Game:
    """The shipped game with every mission card renamed to a canary id."""
    return canary_game(board, players, variants)


class Observer:
    """One socket whose frames are filed under the seat that may see them."""

    def __init__(self, ws: WebSocketTestSession, frames: dict[int | None, list[str]],
                 cat: int | None) -> None:
        self.ws, self.frames, self.cat = ws, frames, cat
        self.version = -1
        self.view: dict[str, Any] | None = None

    def read(self) -> dict[str, Any]:
        text = self.ws.receive_text()
        msg: dict[str, Any] = json.loads(text)
        if msg["type"] == "sync":
            self.cat = msg["seat"] if msg["role"] in ("seat", "table") else None
        self.frames.setdefault(self.cat, []).append(text)
        if "view" in msg:
            assert msg["view"]["seat"] == self.cat, msg["type"]
            self.view, self.version = msg["view"], msg["version"]
        return msg

    def send(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Send and return the first answer that is not presence/update (errors, sync, preview)."""
        self.ws.send_json(obj)
        while True:
            msg = self.read()
            if msg["type"] not in ("presence", "update"):
                return msg

    def drain(self, version: int) -> None:
        while self.version < version:
            self.read()


def _quiet(hub: Hub, after: int) -> int:
    """Wait until the step after ``after`` was taken and a human (or nobody) is to move."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        m = hub.match
        if m.version > after and (m.state.is_terminal() or m.is_human_turn()) and not hub.lock.locked():
            return m.version
        time.sleep(0.005)
    raise AssertionError("the bots did not finish their turns")


@pytest.mark.parametrize("board", ["ireland", "scotland"])
def test_no_frame_or_body_holds_another_seats_secrets(tmp_path: Path, board: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    frames: dict[int | None, list[str]] = {}
    hidden: dict[int | None, set[str]] = {}

    def snapshot(m: Match) -> None:
        for cat in (None, 0, 1):
            now = hidden_card_ids(m, cat)
            hidden[cat] = now if cat not in hidden else hidden[cat] & now

    def http(c: TestClient, cat: int | None, method: str, url: str, tok: str | None = None) -> Any:
        headers = {"Authorization": f"Bearer {tok}"} if tok else {}
        r = c.request(method, url, headers=headers)
        assert r.status_code < 500
        assert r.headers["referrer-policy"] == "no-referrer"
        frames.setdefault(cat, []).append(r.text)
        return r.json()

    with kit.client(tmp_path, game_factory=canary_factory, seed_factory=lambda: SEED_CANARY) as c:
        # With a clock (issue 16 item 1): its frames go to everyone, so they are checked too.
        g = kit.new_game(c, board=board, players=3, hotseat=True,
                         seats=[{"kind": "human", "name": "Ailsa"}, {"kind": "human", "name": "Brodie"},
                                {"kind": "easy"}], clock={"kind": "turn", "per_move_s": 86400})
        gid = g["game"]
        # A hot-seat game has no seat invitations (the device holds its seats, issue 15 item 7);
        # a seat's own socket is watched through tokens as a claim would make them.
        assert [s["url"] for s in g["links"]["seats"]] == [None] * 3
        toks = [kit.grant(c, gid, 0), kit.grant(c, gid, 1)]
        table = kit.claim(c, g["links"]["table"])
        spect, admin = (kit.token(g["links"][k]) for k in ("spectator", "admin"))
        hub: Hub = c.app.state.registry.hubs[gid]  # type: ignore[attr-defined]
        assert hub.match.seed == SEED_CANARY
        with c.websocket_connect(f"/ws/games/{gid}") as w0, c.websocket_connect(f"/ws/games/{gid}") as w1, \
                c.websocket_connect(f"/ws/games/{gid}") as wt, c.websocket_connect(f"/ws/games/{gid}") as ws:
            o0, o1, ot, os_ = (Observer(w0, frames, 0), Observer(w1, frames, 1), Observer(wt, frames, None),
                               Observer(ws, frames, None))
            assert o0.send({"type": "hello", "token": toks[0], "since": -1})["type"] == "sync"
            assert o1.send({"type": "hello", "token": toks[1], "since": -1})["type"] == "sync"
            assert ot.send({"type": "hello", "token": table, "since": -1})["type"] == "sync"
            assert os_.send({"type": "hello", "token": spect, "since": -1})["type"] == "sync"
            version = _quiet(hub, -1)
            snapshot(hub.match)
            turns = 0
            while turns < 10 and not hub.match.state.is_terminal():
                for o in (o0, o1, ot, os_):
                    o.drain(version)
                p = hub.match.state.current_player
                # Errors and previews are part of what each one receives.
                assert os_.send({"type": "act", "action": "C7", "version": version})["type"] == "error"
                assert o1.send({"type": "preview", "action": "C7"})["type"] == "error" or p == 1
                if p == 0:
                    assert o0.view is not None
                    legal = o0.view["legal_actions"]
                    assert o0.send({"type": "act", "action": "Z99", "version": version})["code"] == "illegal"
                    o0.send({"type": "preview", "action": legal[0]})
                    o0.ws.send_json({"type": "act", "action": legal[0], "version": version})
                else:
                    assert ot.send({"type": "claim", "seat": 1 - p})["type"] == "error"
                    sync = ot.send({"type": "claim", "seat": p})
                    assert sync["type"] == "sync" and sync["seat"] == p
                    ot.send({"type": "preview", "action": sync["view"]["legal_actions"][0]})
                    ot.ws.send_json({"type": "act", "action": sync["view"]["legal_actions"][0],
                                     "version": version})
                version = _quiet(hub, version)
                snapshot(hub.match)
                turns += 1
                if turns == 5:
                    # Reconnects: seat 0 from an old version, the spectator from the start.
                    for o in (o0, o1, ot, os_):
                        o.drain(version)
                    for since in (3, -1):
                        with c.websocket_connect(f"/ws/games/{gid}") as w0b:
                            ob = Observer(w0b, frames, 0)
                            sync = ob.send({"type": "hello", "token": toks[0], "since": since})
                            assert sync["type"] == "sync"
                    os_.send({"type": "hello", "token": spect, "since": -1})
            for o in (o0, o1, ot, os_):
                o.drain(version)
            assert turns >= 6 and not hub.match.state.is_terminal()
            # HTTP: summary, mid-game records for every kind of link, refusals.
            http(c, None, "GET", f"/api/games/{gid}")
            http(c, 0, "GET", f"/api/games/{gid}/record", toks[0])
            http(c, 1, "GET", f"/api/games/{gid}/record", toks[1])
            for tok in (table, spect, admin, "wrong"):
                http(c, None, "GET", f"/api/games/{gid}/record", tok)
            http(c, None, "POST", f"/api/games/{gid}/seats/0/bot", toks[1])
            http(c, None, "GET", f"/api/games/{gid}/record")
            # Issue 25: a page's visibility, a transfer code (its answer is seat 0's own, so it
            # is not filed: the code must reach no frame), and a resign heard by everyone.
            o0.ws.send_json({"type": "visibility", "visible": True})
            assert o0.send({"type": "ping"})["type"] == "pong"
            made = c.post(f"/api/games/{gid}/transfer", headers={"Authorization": f"Bearer {toks[0]}"})
            assert made.status_code == 201
            code = made.json()["url"].split("#x=")[1]
            assert o1.send({"type": "resign"})["type"] == "clock"
            for o in (o0, ot, os_):
                while not ((msg := o.read())["type"] == "clock" and msg["forfeits"]):
                    pass
            # Sharing (issue 26 item 5): the public position (some moves behind too), and the
            # SVG the board's PNG is drawn from: the spectators' view, nothing else.
            http(c, None, "GET", f"/api/games/{gid}/public")
            http(c, None, "GET", f"/api/games/{gid}/public?behind=3")
            drawn: list[str] = []
            real = picture.png

            def drawing(svg: str) -> bytes:
                drawn.append(svg)
                return real(svg)

            monkeypatch.setattr(picture, "png", drawing)
            assert c.get(f"/api/games/{gid}/board.png").status_code == 200
            moves = sum(1 for e in hub.match.state.history_json() if "seat" in e)
            assert drawn == [picture.board_svg(board, hub.match.view(None).to_json(), hub.match.names,
                                               caption=catalog_text("share.move", "en", n=moves))]
            frames.setdefault(None, []).append(json.dumps({"svg": drawn[0]}))

    checked = 0
    clocks = 0
    for cat, texts in frames.items():
        blob = "\n".join(texts)
        for tok in (*toks, table, spect, admin, code):
            assert tok not in blob, f"a token reached {cat}"
        for s in SEED_TEXTS:
            assert s not in blob, f"the seed reached {cat}"
        for cid in hidden[cat]:
            assert cid not in blob, f"{cat} received hidden card {cid}"
        for text in texts:
            msg = json.loads(text)
            views = [msg["view"]] if isinstance(msg, dict) and "view" in msg else []
            clocks += isinstance(msg, dict) and isinstance(msg.get("clock"), dict)
            for v in views:
                if cat is None:
                    private = (v["hand"], v["missions"], v["set_aside"], v["legal_actions"])
                    assert private == (None, [], [], [])
            checked += 1
    assert checked > 100 and hidden[0] and hidden[None] and clocks > 50
    # The canaries are really there: each seat's own cards reach it (so the test can fail).
    m = hub.match
    held = m.state.cards.tower_cards if m.game.board.is_ireland else m.state.cards.cathedral_cards
    own0 = {m.game.cards[ci].id for ci in held[0]}
    assert own0 <= hidden_card_ids(m, 1) and all(cid in "\n".join(frames[0]) for cid in own0)
    assert own0 or m.game.board.is_ireland  # Scotland deals secret missions at the start
    assert any("CANARY" in t for ts in frames.values() for t in ts)


def test_an_account_sees_only_its_own_seats_private_views(tmp_path: Path) -> None:
    """Issue 25: the leak canaries over account sessions — two accounts, each on its seat by the
    session cookie alone (a tokenless ``hello``) and through the device-token route; neither
    frame nor body of one holds the other's hidden cards, a token or the seed."""
    from rebirth.server.accounts import store as accts

    frames: dict[int | None, list[str]] = {}
    hidden: dict[int | None, set[str]] = {}

    def snapshot(m: Match) -> None:
        for cat in (0, 1):
            now = hidden_card_ids(m, cat)
            hidden[cat] = now if cat not in hidden else hidden[cat] & now

    with kit.client(tmp_path, game_factory=canary_factory, seed_factory=lambda: SEED_CANARY) as c:
        store = c.app.state.registry.store  # type: ignore[attr-defined]
        ids = [accts.account_for_email(store, f"p{i}@example.org", "en").id for i in (0, 1)]
        sids = [accts.new_session(store, a, "test") for a in ids]
        cookie = [{"cookie": f"rebirth_session={s}"} for s in sids]
        g = kit.new_game(c, board="scotland", players=3,
                         seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "easy"}])
        gid = g["game"]
        claimed = kit.seat_tokens(c, g, 2)
        for i in (0, 1):
            r = c.post("/api/account/seats", json={"tokens": [claimed[i]]}, headers=cookie[i])
            assert r.json()["seats"] == [{"game": gid, "seat": i}]
        # Each account's device token for its own seat; the other's seat is refused.
        dev = []
        for i in (0, 1):
            r = c.post(f"/api/account/games/{gid}/seats/{i}/token", headers=cookie[i])
            frames.setdefault(i, []).append(r.text)
            dev.append(r.json()["token"])
            r = c.post(f"/api/account/games/{gid}/seats/{1 - i}/token", headers=cookie[i])
            assert r.status_code == 403
            frames.setdefault(i, []).append(r.text)
        hub: Hub = c.app.state.registry.hubs[gid]  # type: ignore[attr-defined]
        with c.websocket_connect(f"/ws/games/{gid}", headers=cookie[0]) as w0, \
                c.websocket_connect(f"/ws/games/{gid}", headers=cookie[1]) as w1:
            o0, o1 = Observer(w0, frames, 0), Observer(w1, frames, 1)
            s0 = o0.send({"type": "hello", "since": -1})
            s1 = o1.send({"type": "hello", "since": -1})
            assert (s0["role"], s0["seat"], s1["role"], s1["seat"]) == ("seat", 0, "seat", 1)
            version = _quiet(hub, -1)
            snapshot(hub.match)
            turns = 0
            while turns < 8 and not hub.match.state.is_terminal():
                for o in (o0, o1):
                    o.drain(version)
                p = hub.match.state.current_player
                o = (o0, o1)[p]
                assert o.view is not None
                o.send({"type": "preview", "action": o.view["legal_actions"][0]})
                o.ws.send_json({"type": "act", "action": o.view["legal_actions"][0], "version": version})
                version = _quiet(hub, version)
                snapshot(hub.match)
                turns += 1
            for o in (o0, o1):
                o.drain(version)
            for i in (0, 1):
                r = c.get("/api/account", headers=cookie[i])
                assert [(x["game"], x["seat"]) for x in r.json()["games"]] == [(gid, i)]
                frames[i].append(r.text)
    assert turns >= 6
    for cat in (0, 1):
        blob = "\n".join(frames[cat])
        other = 1 - cat
        for tok in (claimed[other], dev[other], *sids):
            assert tok not in blob, f"a secret reached {cat}"
        for s in SEED_TEXTS:
            assert s not in blob, f"the seed reached {cat}"
        for cid in hidden[cat]:
            assert cid not in blob, f"{cat} received hidden card {cid}"
    assert hidden[0] and hidden[1]
