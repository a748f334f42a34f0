"""Determinization: a full state sampled from one seat's view (the bots' only source)."""

from __future__ import annotations

import random

import pytest

from engine.ireland_kit import act, start, token
from mapkit import make_board
from rebirth.engine.determinize import ViewError, determinize
from rebirth.engine.game import Game
from rebirth.engine.tiles import parse_tile


def test_I7_revealed_tile_without_space_is_known_to_stay_aside() -> None:
    board = make_board("""
E T:x F F T:p
S:a E X E E
""", rules="ireland")
    toks = [token(0, "x1", "extra_tile"), token(1, "m", "mission")]
    state = start(board, 2, ["E E", "S1 E E"], aside=["S2", ""], tokens=toks, first=1)
    state.apply("A2")
    act(state, "A1")  # seat 0 reveals its S2: no settlement space is free, so it stays aside
    for seat in (0, 1):
        assert state.view(seat).known_set_aside == (("S2",), ())
    assert state.known_aside == [[parse_tile("S2")], []]
    # Resampling hidden information for seat 1 keeps the public S2 in seat 0's set-aside tiles.
    twin = state.resample_from_infostate(1, random.Random(3))
    assert twin.aside[0] == [parse_tile("S2")]


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_determinized_state_matches_public_facts(board: str) -> None:
    game = Game.create(board, 3)
    state = game.new_state(12)
    rng = random.Random(12)
    for _ in range(45):
        state.apply_id(state.random_action_id(rng))
    seat = state.current_player
    twin = determinize(game, state.view(seat), random.Random(1))
    assert twin.score == state.score and twin.cat == state.cat
    assert twin.occ == state.occ and twin.tile == state.tile
    assert twin.holder == state.holder and twin.dlast == state.dlast
    assert twin.maxgroup == state.maxgroup and twin.dfirst == state.dfirst
    assert sorted(twin.legal_action_ids()) == sorted(state.legal_action_ids())
    # Both play on identically for the public part when given the same actions.
    while not state.is_terminal() and state.current_player == seat:
        aid = min(state.legal_action_ids())
        state.apply_id(aid)
        twin.apply_id(aid)
        assert twin.score == state.score


def test_terminal_and_foreign_views_are_refused() -> None:
    game = Game.create("scotland", 2)
    state = game.new_state(1)
    other = Game.create("scotland", 3)
    with pytest.raises(ViewError, match="another game"):
        determinize(other, state.view(0), random.Random(0))
    rng = random.Random(1)
    while not state.is_terminal():
        state.apply_id(state.random_action_id(rng))
    with pytest.raises(ViewError, match="over"):
        determinize(game, state.view(0), random.Random(0))
