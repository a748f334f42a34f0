"""Information sets (src/rebirth/engine/infoset.py): one rule set for view, determinize and
resample (S-3, S-4, S-5, K-1, I-7, I-9 and the two set-aside variants)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebirth.engine.determinize import determinize
from rebirth.engine.game import IRELAND_VARIANTS, SCOTLAND_VARIANTS, Game
from rebirth.engine.infoset import HIDDEN_ITEMS, Visibility


def test_S3_S4_visibility_of_set_aside_tiles() -> None:
    sc = Visibility.of(Game.create("scotland", 3))
    assert sc.sees_set_aside(0, 0) and not sc.sees_set_aside(1, 0) and not sc.sees_set_aside(None, 0)
    pub = Visibility.of(Game.create("scotland", 3, ["set_aside_public"]))
    assert pub.sees_set_aside(1, 0) and pub.sees_set_aside(None, 2)
    ir = Visibility.of(Game.create("ireland", 3))
    assert not ir.sees_set_aside(0, 0)
    known = Visibility.of(Game.create("ireland", 3, ["ireland_set_aside_known"]))
    assert known.sees_set_aside(0, 0) and not known.sees_set_aside(1, 0)
    assert {h.rule for h in HIDDEN_ITEMS} >= {"S-3", "S-4", "S-5", "I-7", "K-1, I-9"}


@st.composite
def positions(draw: st.DrawFn) -> tuple[str, int, frozenset[str], int, int]:
    board = draw(st.sampled_from(["scotland", "ireland"]))
    players = draw(st.integers(2, 4))
    pool = sorted(IRELAND_VARIANTS if board == "ireland" else SCOTLAND_VARIANTS)
    variants = frozenset(draw(st.sets(st.sampled_from(pool), max_size=2)))
    return board, players, variants, draw(st.integers(0, 2**31 - 1)), draw(st.integers(0, 90))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=positions())
def test_resampled_twin_and_determinization_keep_the_seats_view(
        pos: tuple[str, int, frozenset[str], int, int]) -> None:
    """For every seat (and a spectator): a twin with everything hidden from it redrawn gives
    the same view; so does a determinization of its view."""
    board, players, variants, seed, plies = pos
    game = Game.create(board, players, variants)
    state = game.new_state(seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply_id(state.random_action_id(rng))
    if state.is_terminal() or state.is_chance_node():
        return
    for seat in range(players):
        twin = state.resample_from_infostate(seat, rng)
        assert twin.view(seat) == state.view(seat)
        assert twin.view(None) == state.view(None)
        assert determinize(game, state.view(seat), rng).view(seat) == state.view(seat)
