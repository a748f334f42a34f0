"""What the tiles alone decide, answered once by the engine (issue 24, item 6): the castle
contenders (C-1…C-3, under the base rule and ``castle_tie_to_active``) and whether a district's
tie depends on its last placer (T-4, T-7, ``incomplete_as_small``). The calculator
(``app/scoring``) and validation (``Position.validate``) both read these answers."""

from __future__ import annotations

import random

import pytest

from rebirth.engine.game import Game
from rebirth.engine.position import Position, PositionError, end_scoring, tiles_state


@pytest.mark.parametrize(("board", "n"), [("scotland", 3), ("ireland", 4), ("scotland", 2)])
@pytest.mark.parametrize("variant", [False, True])
def test_c1_c3_holder_is_always_a_contender(board: str, n: int, variant: bool) -> None:
    """C-1…C-4 as played, with and without ``castle_tie_to_active``: after every placement of
    random games each castle's holder is one of :meth:`State.castle_contenders` (nobody when
    there are none), and the state built from the tiles alone (``tiles_state``) names the
    same contenders, pieces, visits and influence as the game that placed them."""
    game = Game.create(board, n, ["castle_tie_to_active"] if variant else [])
    rng = random.Random(24)
    ties = 0
    for seed in range(4):
        st = game.new_state(seed)
        while not st.done:
            st.apply_id(st.random_action_id(rng))
            if st.done or st.is_chance_node():
                continue
            for c in game.board.castles:
                cont = st.castle_contenders(c.index)
                hol = st.castles.holder[c.index]
                assert hol in cont if cont else hol == -1, (c.id, hol, cont)
                ties += len(cont) > 1
        pos = Position.from_state(st.board_copy())
        tiles = tiles_state(game, pos)
        assert [tiles.castle_contenders(c.index) for c in game.board.castles] == \
            [st.castle_contenders(c.index) for c in game.board.castles]
        assert tiles.visited.cathedral_pieces == st.visited.cathedral_pieces
        assert tiles.visited.tower_visits == st.visited.tower_visits
        assert tiles.districts.influence == st.districts.influence
    assert ties, "no full tie came up: the test would not see the rule"


@pytest.mark.parametrize("variant", [False, True])
def test_t7_incomplete_as_small_tie_needs_no_last_placer(variant: bool) -> None:
    """T-7: a tie in an incomplete district depends on its last placer under the ranks, and on
    nothing under ``incomplete_as_small`` (each seat scores its own influence); a complete
    district's tie always did (T-4). Validation follows the same answer."""
    game = Game.create("scotland", 3, ["incomplete_as_small"] if variant else [])
    b = game.board
    perth = next(d for d in b.districts if d.id == "perth")
    tiles = [("I16", 0, "S2"), ("I17", 1, "S2")]
    pos = Position.from_json({
        "format": "rebirth-position", "version": 1, "board": "scotland", "players": 3,
        "variants": sorted(game.variants), "cathedrals": {"dunkeld": [0]},
        "tiles": [{"hex": h, "seat": q, "tile": t} for h, q, t in tiles]})
    st = tiles_state(game, pos)
    assert st.district_seats(perth.index) == [0, 1]
    assert st.last_placer_matters(perth.index) is not variant
    if not variant:
        with pytest.raises(PositionError, match="depends on who placed last"):
            pos.validate(game)
    else:
        end = end_scoring(game, pos)
        assert [(e.seat, e.points) for e in end.events if e.kind == "final_district"] == [(0, 2), (1, 2)]
    full = Position.from_json({**pos.to_json(), "tiles": [*pos.to_json()["tiles"],
                                                          {"hex": "J17", "seat": 2, "tile": "S1"}]})
    assert tiles_state(game, full).last_placer_matters(perth.index)
