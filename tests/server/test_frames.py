"""Frames are written by orjson straight from the views' dataclasses (server/realtime/frames.py): the
text must mean exactly what ``json.dumps`` of ``View.to_json()`` meant, for every seat and a
spectator, on both boards and every player count (S-5: a seat's frame holds its own view only,
which this checks by comparing with the view built for that seat)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from rebirth.app.match import Match
from rebirth.engine.game import Game
from rebirth.server.realtime.frames import FrameCache, dumps


@pytest.mark.parametrize("board", ["scotland", "ireland"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_frames_mean_what_json_of_the_plain_view_meant(board: str, players: int) -> None:
    game = Game.create(board, players)
    m = Match.start(game, ["human"] * players, seed=players * 7 + len(board),
                    names=["Åsa", "Jürgen 🐑", "Ölaf\u2028", "\"q\""][:players])
    rng = random.Random(players)
    checked = 0
    while not m.state.is_terminal():
        last = m.version
        p = m.state.current_player
        m.submit(p, rng.choice(m.view(p).legal_actions))
        for seat in [*range(players), None]:
            fast = dumps({"type": "update", "version": m.version, "view": m.view(seat),
                          "events": m.events_for(seat, last), "names": m.names})
            plain = json.dumps({"type": "update", "version": m.version, "view": m.view(seat).to_json(),
                                "events": m.events_for(seat, last), "names": m.names},
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


def test_dumps_matches_json_on_keys_and_text() -> None:
    msg: dict[Any, Any] = {"a": [1, 2.5, None, True], 3: "drei", "ü": "\u2028 \x00 \ud7ff", "t": (1, (2, 3))}
    assert json.loads(dumps(msg)) == json.loads(json.dumps(msg, ensure_ascii=False))


def test_a_broadcast_serialises_each_distinct_payload_once() -> None:
    built = []
    cache = FrameCache()

    def build(n: int) -> dict[str, object]:
        built.append(n)
        return {"n": n}

    texts = [cache.text(("spectator", 5), lambda: build(1)) for _ in range(100)]
    assert built == [1] and set(texts) == {'{"n":1}'}
