"""More Ireland rulings: I-10 ordering on one placement, an extra tile completing a district.

Two players fulfilling the same public mission on one placement cannot arise in
play with the shipped condition vocabulary: on a placement only the placer's
measures grow, except a first rank that a completed district gives to one other
player. That test therefore sets the measures by hand and runs the check the
engine runs after every placement.
"""

from __future__ import annotations

from engine.ireland_kit import act, card, never_cards, start, token
from mapkit import make_board
from rebirth.engine.tiles import parse_tile


def test_I10_same_mission_same_placement_placing_player_first_then_clockwise() -> None:
    board = make_board("""
E E E E
 E E E E
""", rules="ireland")
    cards = [card(0, "FG5", {"type": "farm_group", "size": 5}, (12, 8)), *never_cards(1, 7)]
    state = start(board, 3, ["E", "E", "E"], cards=cards)
    # Everyone now has a group of 5; seat 1 is the placing player and a district was completed,
    # so all three are checked: seat 1 first (high value), then seats 2 and 0 (low value).
    state.occupancy.largest_group = [5, 5, 5]
    state._events = []
    state._public_missions(1, True)
    paid = [(e.seat, e.points) for e in state._events if e.kind == "public_mission"]
    assert paid == [(1, 12), (2, 8), (0, 8)]
    assert state.cards.fulfilled[0] == 0b111
    # Checked again, nobody is paid twice (once per player).
    state._events = []
    state._public_missions(2, True)
    assert state._events == []


def test_I7_extra_tile_that_completes_a_district_scores_it() -> None:
    # A1, A2: the 2-space district d; B1: tower x (extra tile), next to A1, A2, C1, B2.
    board = make_board("""
S:d T:x F
S:d E E
""", rules="ireland")
    state = start(board, 2, ["S3 E", "E E"], aside=["S1", ""],
                  tokens=[token(0, "x1", "extra_tile")])
    events = act(state, "A1")  # seat 0: S3 into d (no points yet), first next to x
    assert [e.kind for e in events][-1] == "extra_tile"
    assert state.view(0).legal_actions == ("A2",) and state.extra_tile == parse_tile("S1")
    events = state.apply("A2")  # the revealed S1 fills d: seat 0 alone takes 5 + 3 (T-5)
    assert [(e.rule, e.points) for e in events if e.points] == [("T-5", 8)]
    assert state.score == [8, 0] and state.breakdown(0)["settlements"] == 8
    assert state.current_player == 1
