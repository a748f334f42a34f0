"""Scripted games for the analysis tests: bot games, and one with a planted blunder."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from rebirth.bots.heuristic import score_actions
from rebirth.bots.registry import make_bot
from rebirth.engine.game import Game
from rebirth.engine.records import Seat, make_record
from rebirth.engine.state import State

_CACHE: dict[tuple[Any, ...], Any] = {}


@dataclass(frozen=True)
class Planted:
    """A record in which ``seat`` played ``bad`` at entry ``index`` although ``good``
    completed a district and took a castle (T-5/T-7, C-1..C-4) there."""

    record: dict[str, Any]
    index: int
    seat: int
    good: str
    bad: str
    good_kinds: tuple[str, ...]


def _finish(state: State, seed: int) -> None:
    bots = [make_bot("normal", state.game, q, seed + q) for q in range(state.n)]
    while not state.is_terminal():
        p = state.current_player
        state.apply(bots[p].choose(state.view(p)))


def bot_record(seed: int = 2, players: int = 3) -> dict[str, Any]:
    """A finished Scotland game of ``normal`` bots."""
    key = ("bots", seed, players)
    if key not in _CACHE:
        st = Game.create("scotland", players).new_state(seed)
        _finish(st, seed)
        _CACHE[key] = make_record(st, [Seat(f"P{q + 1}", "normal") for q in range(players)],
                                  seed=seed)
    return copy.deepcopy(_CACHE[key])


def planted_blunder(seed: int = 2) -> Planted:
    """Bots play until a seat can complete a district and take a castle with one move; the
    seat plays the move the heuristic likes least instead; bots finish the game."""
    if ("planted", seed) in _CACHE:
        return copy.deepcopy(_CACHE[("planted", seed)])  # type: ignore[no-any-return]
    game = Game.create("scotland", 3)
    st = game.new_state(seed)
    bots = [make_bot("normal", game, q, seed + q) for q in range(3)]
    while not st.is_terminal():
        p = st.current_player
        for aid in st.legal_action_ids():
            kinds = tuple(e.kind for e in st.clone().apply(st.action_text(aid)) if e.seat == p)
            if {"castle_claim", "castle_take"} & set(kinds) and \
                    {"district", "district_alone"} & set(kinds):
                good = st.action_text(aid)
                worst = min(score_actions(st, p), key=lambda x: (x[0], x[1]))[1]
                bad = st.action_text(worst)
                index = len(st.history_json())
                st.apply(bad)
                _finish(st, seed)
                rec = make_record(st, [Seat(f"P{q + 1}", "normal") for q in range(3)], seed=seed)
                out = Planted(rec, index, p, good, bad, kinds)
                _CACHE[("planted", seed)] = out
                return copy.deepcopy(out)
        st.apply(bots[p].choose(st.view(p)))
    raise AssertionError(f"seed {seed}: no move takes a castle and a district")  # pragma: no cover
