"""Chat per game (issue 16 item 3): players and spectators (marked as such), stored with the game
as typed, delivered to every connection, length- and rate-limited with a clear error that
changes nothing, refused during a hot-seat hand-over, exported with the record only when the
creator chose so."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import func, select

from rebirth.engine.records import replay
from rebirth.server.persistence import chat as chat_store
from rebirth.server.persistence.store import chat_messages
from rebirth.server.social.social import social
from server import kit
from server.chatkit import Seat, auth, play_out, tokens

HTML = "<img src=x onerror=alert(1)>"
NAME = "<b>Ailsa</b>"


def _stored(c: object, gid: str) -> int:
    store = c.app.state.registry.store  # type: ignore[attr-defined]
    with store.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(chat_messages)
                                .where(chat_messages.c.game == gid)).scalar_one())


def test_chat_reaches_players_and_spectators_and_is_stored_as_typed(tmp_path: Path) -> None:
    """Item 3: a player's and a spectator's messages reach every socket, the spectator marked;
    the HTML in a name or a message is data (stored and sent exactly as typed, as JSON)."""
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, board="scotland", players=2, chat_in_record=True,
                         seats=[{"kind": "human", "name": NAME}, {"kind": "human", "name": "Brodie"}])
        gid, toks = g["game"], tokens(c, g)
        spect = kit.token(g["links"]["spectator"])
        with c.websocket_connect(f"/ws/games/{gid}") as w0, c.websocket_connect(f"/ws/games/{gid}") as w1, \
                c.websocket_connect(f"/ws/games/{gid}") as ws:
            s0, s1, sp = Seat(w0), Seat(w1), Seat(ws)
            for s, t in ((s0, toks[0]), (s1, toks[1]), (sp, spect)):
                s.hello(t)
                assert s.history() == {"type": "chat", "messages": [], "history": True, "rematch": None}
            s0.chat(f"  {HTML}  ")
            for s in (s0, s1, sp):
                m = s.next_chat()["messages"]
                assert [(x["seq"], x["seat"], x["role"], x["name"], x["text"]) for x in m] == \
                    [(1, 0, "player", NAME, HTML)]
            sp.chat("hello from the rail", name="<script>x</script>")
            for s in (s0, s1, sp):
                m = s.next_chat()["messages"][0]
                assert (m["seq"], m["seat"], m["role"], m["name"]) == \
                    (2, None, "spectator", "<script>x</script>")
            # A spectator cannot pass as a player: the role is the server's, not the frame's.
            sp.chat("me too", role="player", seat=0)
            m = s1.next_chat()["messages"][0]
            assert (m["role"], m["seat"]) == ("spectator", None)
        # A reconnect gets the history in order.
        with c.websocket_connect(f"/ws/games/{gid}") as w1b:
            s = Seat(w1b)
            s.hello(toks[1])
            assert [x["seq"] for x in s.history()["messages"]] == [1, 2, 3]
            # A page that reconnects asks only for what it has not seen.
            assert [x["seq"] for x in s.history(after=2)["messages"]] == [3]
            w1b.send_json({"type": "chat_history", "after": "x"})
            assert s.until(lambda m: m["type"] == "error")["code"] == "bad_message"
        store = c.app.state.registry.store  # type: ignore[attr-defined]
        assert chat_store.messages(store, gid)[0].text == HTML
        # The export is JSON: the message is a string in it, the same characters.
        r = c.get(f"/api/games/{gid}/record", headers=auth(toks[0]))
        assert r.headers["content-type"].startswith("application/json")
        assert [x["text"] for x in r.json()["chat"]] == [HTML, "hello from the rail", "me too"]
        assert json.dumps(HTML) in r.text


def test_chat_limits_give_a_clear_error_and_store_nothing(tmp_path: Path) -> None:
    """Item 3 + "a chat flood": too long, empty, not text, a too long name, and more than 5
    messages in 10 s from one connection are refused with an error frame; the connection stays
    open, nothing is stored, and another connection is not slowed by the flooder."""
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, board="scotland", players=2,
                         seats=[{"kind": "human", "name": "A"}, {"kind": "human", "name": "B"}])
        gid, toks = g["game"], tokens(c, g)
        spect = kit.token(g["links"]["spectator"])
        with c.websocket_connect(f"/ws/games/{gid}") as w0, c.websocket_connect(f"/ws/games/{gid}") as w1, \
                c.websocket_connect(f"/ws/games/{gid}") as ws:
            s0, s1, sp = Seat(w0), Seat(w1), Seat(ws)
            for s, t in ((s0, toks[0]), (s1, toks[1]), (sp, spect)):
                s.hello(t)
            s0.chat("x" * (social.MAX_CHARS + 1))
            e = s0.next_chat()
            assert e["type"] == "error" and e["code"] == "chat_too_long"
            assert "500" in e["message"]["en"] and "500" in e["message"]["de"]
            for bad, code in (("   ", "chat_empty"), (7, "bad_message")):
                w0.send_json({"type": "chat", "text": bad})
                assert s0.next_chat()["code"] == code
            sp.chat("hi", name="n" * 41)
            assert sp.next_chat()["code"] == "chat_bad_name"
            kit.ping(w0)
            assert _stored(c, gid) == 0
            # Exactly the 6th message within 10 s is refused, with when to try again.
            for i in range(social.RATE_COUNT):
                s0.chat(f"m{i}")
                assert s0.next_chat()["type"] == "chat"
            s0.chat("one too many")
            e = s0.next_chat()
            assert e["code"] == "chat_rate" and 1 <= e["details"]["retry_after"] <= 10
            assert e["message"]["de"] != e["message"]["en"]
            assert _stored(c, gid) == social.RATE_COUNT
            # The other seat still writes at once (the limit is per connection).
            s1.chat("still here")
            msgs = s1.until(lambda m: m["type"] == "chat" and m["messages"][-1]["text"] == "still here")
            assert msgs["messages"][-1]["seq"] == social.RATE_COUNT + 1
        assert "chat" not in c.get(f"/api/games/{gid}/record", headers=auth(toks[0])).json()


def test_a_hot_seat_table_cannot_chat_during_the_hand_over(tmp_path: Path) -> None:
    """Item 3: hidden during a hot-seat hand-over — the table's device writes only under the
    name of the player who took it."""
    with kit.client(tmp_path) as c:
        g = kit.new_game(c, board="scotland", players=2, hotseat=True,
                         seats=[{"kind": "human", "name": "A"}, {"kind": "human", "name": "B"}])
        gid = g["game"]
        with c.websocket_connect(f"/ws/games/{gid}") as wt:
            t = Seat(wt)
            sync = t.hello(kit.claim(c, g["links"]["table"]))
            assert sync["seat"] is None
            t.chat("psst")
            assert t.next_chat()["code"] == "chat_hidden"
            p = sync["view"]["current_player"]
            wt.send_json({"type": "claim", "seat": p})
            t.until(lambda m: m["type"] == "sync" and m["seat"] == p)
            t.chat("my turn")
            m = t.next_chat()["messages"][0]
            assert (m["seat"], m["role"], m["name"]) == (p, "player", "AB"[p])


def test_the_record_carries_the_chat_only_when_chosen_and_still_replays(tmp_path: Path) -> None:
    """Item 3 "exported with the record (or not, as the creator chooses)": the finished game's
    record with chat is a valid record (`rebirth replay` reads it); without the choice it has
    no chat."""
    with kit.client(tmp_path) as c:
        for chosen in (True, False):
            g = kit.new_game(c, board="scotland", players=2, chat_in_record=chosen,
                             seats=[{"kind": "human", "name": "A"}, {"kind": "easy"}])
            gid, toks = g["game"], tokens(c, g)
            with c.websocket_connect(f"/ws/games/{gid}") as w0:
                s0 = Seat(w0)
                s0.hello(toks[0])
                s0.chat(HTML)
                play_out({0: s0})
            rec = c.get(f"/api/games/{gid}/record", headers=auth(toks[0])).json()
            if chosen:
                assert [m["text"] for m in rec["chat"]] == [HTML]
            else:
                assert "chat" not in rec
            state = replay(rec)
            assert state.is_terminal()
