"""Frames are the declared types of server/realtime/protocol.py, written by msgspec straight from
the views' dataclasses: the text must mean exactly what ``json.dumps`` of ``View.to_json()``
meant, for every seat and a spectator, on both boards and every player count (S-5: a seat's
frame holds its own view only, which this checks by comparing with the view built for that
seat); client frames are validated on decoding (a wrong type or range is ``bad_message``)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rebirth.app.match import Match
from rebirth.engine.game import Game
from rebirth.server.realtime import protocol as p
from rebirth.server.realtime.room import FrameCache


@pytest.mark.parametrize("board", ["scotland", "ireland"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_frames_mean_what_json_of_the_plain_view_meant(board: str, players: int) -> None:
    game = Game.create(board, players)
    m = Match.start(game, ["human"] * players, seed=players * 7 + len(board),
                    names=["Åsa", "Jürgen 🐑", "Ölaf\u2028", "\"q\""][:players])
    rng = random.Random(players)
    checked = 0
    online = [True] * players
    while not m.state.is_terminal():
        last = m.version
        q = m.state.current_player
        m.submit(q, rng.choice(m.view(q).legal_actions))
        for seat in [*range(players), None]:
            fast = p.encode(p.update(m, seat, last, online, None))
            plain = json.dumps({"type": "update", "version": m.version, "view": m.view(seat).to_json(),
                                "events": m.events_for(seat, last), "online": online, "clock": None},
                               separators=(",", ":"), ensure_ascii=False)
            assert json.loads(fast) == json.loads(plain)
            checked += 1
    assert checked > 50 * players


def test_events_since_a_version_are_the_steps_after_it() -> None:
    """``events_for`` finds the steps after a version from the end; it must give what a scan of
    every step gives, for every version of a game."""
    game = Game.create("ireland", 2)
    m = Match.start(game, ["random", "random"], seed=3)
    m.run_bots()
    for since in range(-1, m.version + 2):
        scan = [{"version": st.version, "seat": st.seat, "events": [e.to_json(0) for e in st.events]}
                for st in m.steps if st.version > since]
        assert m.events_for(0, since) == scan


def test_a_broadcast_serialises_each_distinct_payload_once() -> None:
    built = []
    cache = FrameCache()

    def build(n: int) -> p.Outbound:
        built.append(n)
        return p.RematchFrame(str(n))

    texts = [cache.text(("spectator", 5), lambda: build(1)) for _ in range(100)]
    assert built == [1] and set(texts) == {'{"type":"rematch","game":"1"}'}


@pytest.mark.parametrize("raw, kind", [
    ('{"type":"hello","token":"abc"}', p.HelloFrame),
    ('{"type":"act","action":"C7","version":3,"extra":1}', p.ActFrame),
    ('{"type":"ping"}', p.PingFrame),
    ('{"type":"claim","seat":1}', p.ClaimFrame),
])
def test_client_frames_decode_to_their_types(raw: str, kind: type) -> None:
    assert isinstance(p.decode(raw), kind)


@pytest.mark.parametrize("raw", [
    '{"type":"act","action":5,"version":1}', '{"type":"act","action":"C7","version":true}',
    '{"type":"act","action":"C7","version":99999999999999}', '{"type":"claim","seat":-1}',
    '{"type":"hello","token":"' + "t" * 201 + '"}', '{"type":"nope"}', '[1]', '"x"', '{"x":1}',
])
def test_a_frame_of_the_wrong_shape_is_bad_message(raw: str) -> None:
    with pytest.raises(p.BadFrame):
        p.decode(raw)


@given(st.text(max_size=200))
def test_any_text_decodes_or_is_refused_clearly(raw: str) -> None:
    try:
        frame = p.decode(raw)
    except p.BadFrame:
        return
    assert isinstance(frame, p.INBOUND)
