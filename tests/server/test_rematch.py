"""Rematch (issue 16 item 4): one click at the end offers the same seats, bots and settings with
the start player moved on; each human gets a new link in the old game's page — only its own,
never another seat's token (a canary scan over every frame and body); spectators get the
spectator link; exactly one rematch per game even when two players click at once."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from rebirth.server.persistence.store import games, rematches
from rebirth.server.social.social import derive_token
from server import kit
from server.chatkit import Seat, auth, play_out, tokens


def _finished(c: TestClient, **body: Any) -> tuple[dict[str, Any], dict[int, Seat], list[Any]]:
    """A game played to its end over its seats' sockets (left open: they see the rematch)."""
    g = kit.new_game(c, **body)
    gid, toks = g["game"], tokens(c, g)
    ctxs = [c.websocket_connect(f"/ws/games/{gid}") for _ in toks]
    seats = {}
    for (i, t), ctx in zip(toks.items(), ctxs, strict=True):
        s = Seat(ctx.__enter__())
        s.hello(t)
        seats[i] = s
    play_out(seats)
    return g, seats, ctxs


def _close(ctxs: list[Any]) -> None:
    for ctx in ctxs:
        ctx.__exit__(None, None, None)


def _count(c: TestClient, table: Any) -> int:
    store = c.app.state.registry.store  # type: ignore[attr-defined]
    with store.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


def test_a_rematch_has_the_same_settings_and_the_next_start_player(tmp_path: Path) -> None:
    """Item 4: same board, variants, seats, kinds, names, language; start player moved on; the
    clicker's answer is its own new link, which opens its own seat of the new game."""
    with kit.client(tmp_path) as c:
        g, seats, ctxs = _finished(c, board="ireland", players=3, lang="de",
                                   variants=["castle_tie_to_active"],
                                   seats=[{"kind": "human", "name": "Ailsa"}, {"kind": "easy", "name": "Bot"},
                                          {"kind": "human", "name": "Cat"}])
        try:
            gid, toks = g["game"], tokens(c, g)
            old = c.get(f"/api/games/{gid}/record", headers=auth(toks[0])).json()
            r = c.post(f"/api/games/{gid}/rematch", headers=auth(toks[2]))
            assert r.status_code == 200, r.text
            res = r.json()
            new = res["game"]
            assert res["created"] is True and res["role"] == "seat" and new != gid
            assert res["url"] == f"http://testserver/game/{new}#t={derive_token(toks[2], new)}"
            a, b = c.get(f"/api/games/{gid}").json(), c.get(f"/api/games/{new}").json()
            for k in ("board", "players", "names", "kinds", "variants", "lang", "hotseat"):
                assert a[k] == b[k], k
            assert b["status"] == "playing"
            with c.websocket_connect(f"/ws/games/{new}") as w:
                s = Seat(w)
                sync = s.hello(kit.token(res["url"]))
                assert (sync["role"], sync["seat"]) == ("seat", 2)
            rec = c.get(f"/api/games/{new}/record", headers=auth(kit.token(res["url"]))).json()
            assert rec["setup"]["start_player"] == (old["setup"]["start_player"] + 1) % 3
            # Every socket of the old game is told (the game id only), and the other human
            # asks for its own link.
            for s in seats.values():
                assert s.until(lambda m: m["type"] == "rematch") == {"type": "rematch", "game": new}
            mine = c.get(f"/api/games/{gid}/rematch", headers=auth(toks[0])).json()
            assert mine["url"].endswith(f"#t={derive_token(toks[0], new)}")
            # A second click (anyone's) returns the same rematch, creates nothing.
            again = c.post(f"/api/games/{gid}/rematch", headers=auth(toks[0])).json()
            assert (again["game"], again["created"], again["url"]) == (new, False, mine["url"])
            assert _count(c, rematches) == 1 and _count(c, games) == 2
        finally:
            _close(ctxs)


def test_a_rematch_is_refused_before_the_end_and_to_spectators(tmp_path: Path) -> None:
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, board="scotland", players=2, seats=[{"kind": "human"}, {"kind": "easy"}])
        gid = g["game"]
        r = c.post(f"/api/games/{gid}/rematch", headers=auth(tokens(c, g)[0]))
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_over"
        assert c.get(f"/api/games/{gid}/rematch", headers=auth(tokens(c, g)[0])).json()["game"] is None
        r = c.post(f"/api/games/{gid}/rematch", headers=auth(kit.token(g["links"]["spectator"])))
        assert r.status_code == 403
        assert c.post(f"/api/games/{gid}/rematch", headers=auth("forged")).status_code == 403
        assert _count(c, rematches) == 0


def test_each_seat_sees_only_its_own_rematch_link(tmp_path: Path) -> None:
    """Item 4 + hidden information: three humans and a spectator; after the rematch, no frame or
    body any of them received holds another one's token, old or new; each new link opens its
    holder's own seat (the spectator's: the spectator view)."""
    with kit.client(tmp_path) as c:
        g, seats, ctxs = _finished(c, board="scotland", players=3,
                                   seats=[{"kind": "human", "name": n} for n in ("A", "B", "C")])
        gid, toks = g["game"], tokens(c, g)
        spect = kit.token(g["links"]["spectator"])
        bodies: dict[int | None, list[str]] = {0: [], 1: [], 2: [], None: []}
        try:
            with c.websocket_connect(f"/ws/games/{gid}") as ws:
                sp = Seat(ws)
                sp.hello(spect)
                # Two seats click; every one asks for its link (twice: the same link).
                for clicker in (1, 0):
                    r = c.post(f"/api/games/{gid}/rematch", headers=auth(toks[clicker]))
                    bodies[clicker].append(r.text)
                holders: list[tuple[int | None, str]] = [*toks.items(), (None, spect)]
                for holder, t in holders:
                    for _ in range(2):
                        bodies[holder].append(c.get(f"/api/games/{gid}/rematch", headers=auth(t)).text)
                        bodies[holder].append(c.get(f"/api/games/{gid}", headers=auth(t)).text)
                new = c.get(f"/api/games/{gid}/rematch", headers=auth(toks[0])).json()["game"]
                for s in [*seats.values(), sp]:
                    s.until(lambda m: m["type"] == "rematch")
                sp.ws.send_json({"type": "ping"})
                sp.until(lambda m: m["type"] == "pong")
            got: dict[int | None, str] = {}
            for holder in bodies:
                links = {json.loads(b)["url"] for b in bodies[holder] if '"url"' in b}
                assert len(links) == 1, holder
                got[holder] = kit.token(links.pop())
            new_toks = {who: derive_token(toks[who] if who is not None else spect, new) for who in bodies}
            assert got == new_toks
            blobs = {w: "\n".join(bodies[w]) + (seats[w].blob if w is not None else sp.blob) for w in bodies}
            secret = {w: {new_toks[w], toks[w] if w is not None else spect} for w in bodies}
            secret[None].add(kit.token(g["links"]["admin"]))
            for w, blob in blobs.items():
                for other, held in secret.items():
                    if other != w:
                        for tok in held:
                            assert tok not in blob, f"{w} received a token of {other}"
            assert all(new_toks[w] in blobs[w] for w in bodies)  # so the scan can fail
            for w, tk in got.items():
                with c.websocket_connect(f"/ws/games/{new}") as w2:
                    sync = Seat(w2).hello(tk)
                    want = ("seat", w) if w is not None else ("spectator", None)
                    assert (sync["role"], sync["seat"]) == want
        finally:
            _close(ctxs)


def test_exactly_one_rematch_when_two_players_click_at_once(tmp_path: Path) -> None:
    """Item 4 "exactly one rematch per game": two players on two servers sharing one database
    click together (many rounds); one rematch row, one new game, both answers name it."""
    with kit.client(tmp_path) as c:
        g, _seats, ctxs = _finished(c, board="scotland", players=2,
                                    seats=[{"kind": "human"}, {"kind": "human"}])
        _close(ctxs)
        gid, toks = g["game"], tokens(c, g)
        with kit.client(tmp_path) as c2:  # a second server on the same database
            answers: list[dict[str, Any]] = []
            start = threading.Barrier(2)

            def click(cl: TestClient, tok: str) -> None:
                start.wait()
                r = cl.post(f"/api/games/{gid}/rematch", headers=auth(tok))
                assert r.status_code == 200, r.text
                answers.append(r.json())

            threads = [threading.Thread(target=click, args=(cl, t))
                       for cl, t in ((c, toks[0]), (c2, toks[1]))]
            for th in threads:
                th.start()
            for th in threads:
                th.join(30)
            assert len(answers) == 2
            assert len({a["game"] for a in answers}) == 1
            assert sorted(a["created"] for a in answers) == [False, True]
            assert _count(c, rematches) == 1 and _count(c, games) == 2


def test_a_rematch_keeps_the_clock_chosen_for_the_game(tmp_path: Path) -> None:
    """Item 4 "the same seats, bots and settings": the clock chosen at creation (issue 16 item
    1) comes back with a full bank in the rematch; a game without a clock gets none."""
    clock = {"kind": "realtime", "initial_s": 600, "increment_s": 10}
    with kit.client(tmp_path) as c:
        g, _seats, ctxs = _finished(c, board="scotland", players=2, clock=clock,
                                   seats=[{"kind": "human"}, {"kind": "easy"}])
        try:
            gid, toks = g["game"], tokens(c, g)
            res = c.post(f"/api/games/{gid}/rematch", headers=auth(toks[0])).json()
            got = c.get(f"/api/games/{res['game']}").json()["clock"]
            assert {k: got[k] for k in clock} == clock and got["enabled"] is True
            assert got["left"][0] == pytest.approx(600, abs=5.0)
        finally:
            _close(ctxs)
        g2, _seats, ctxs2 = _finished(c, board="scotland", players=2,
                                      seats=[{"kind": "human"}, {"kind": "easy"}])
        try:
            gid2 = g2["game"]
            res2 = c.post(f"/api/games/{gid2}/rematch", headers=auth(tokens(c, g2)[0])).json()
            assert c.get(f"/api/games/{res2['game']}").json()["clock"] is None
        finally:
            _close(ctxs2)
