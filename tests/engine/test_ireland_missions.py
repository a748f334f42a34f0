"""Ireland public missions, their conditions and the tiebreak (RULES.md I-10, I-11, E-4).

Hand-made maps (``mapkit``: odd rows sit half a hex to the right); every expected
value is worked out by hand from RULES.md and docs/missions.md.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.ireland_kit import card, never_cards, play, start
from mapkit import make_board
from rebirth.engine.events import Event
from rebirth.engine.game import Game
from rebirth.engine.missions import DataError, parse_cards
from rebirth.engine.state import State


def fulfilled(state: State, cid: str) -> tuple[int, ...]:
    return state.view(None).fulfilled[cid]


def mission_events(events: list[Event]) -> list[tuple[int | None, str, int]]:
    return [(e.seat, e.data["mission"], e.points) for e in events if e.kind == "public_mission"]


# ------------------------------------------------------------------ I-10
ROW = """
E E E E E E
E E E E E E
"""


def test_I10_first_player_high_value_later_players_low_once_each() -> None:
    board = make_board(ROW, rules="ireland")
    cards = [card(0, "G2", {"type": "farm_group", "size": 2}), *never_cards(1, 7)]
    state = start(board, 3, ["E E E", "E E", "E E"], cards=cards)
    play(state, "A1", "E1", "D2")
    assert state.score == [1, 1, 1]
    state.apply("B1")  # seat 0: group of 2, first: 12
    assert state.score[0] == 1 + 2 + 12
    state.apply("F1")  # seat 1: later: 8
    assert state.score[1] == 1 + 2 + 8
    state.apply("E2")  # seat 2: later: 8
    assert state.score[2] == 1 + 2 + 8
    state.apply("C1")  # seat 0: group of 3, G2 already paid to seat 0
    assert state.score[0] == 15 + 3
    assert fulfilled(state, "G2") == (0, 1, 2)
    assert [state.breakdown(q)["public_missions"] for q in range(3)] == [12, 8, 8]


# A1, B1 = the 2-space district m; C1 = castle c (next to B1, D1, B2, C2); D1 = E
#   A2, B2, C2, D2 = E
DISTRICT_CASTLE = """
S:m S:m C:c E
E E E E
"""


def test_I10_every_player_checked_placer_first_then_clockwise() -> None:
    # Seat 2 completes m: seat 0 takes the first rank (4 to 1) and fulfils DF1 on seat 2's
    # placement; seat 2 takes castle c and fulfils CH1. Order: seat 2 (placer), then seat 0.
    board = make_board(DISTRICT_CASTLE, rules="ireland")
    cards = [card(0, "DF1", {"type": "district_firsts", "count": 1}, (8, 5)),
             card(1, "CH1", {"type": "castles_held", "count": 1}, (6, 4)),
             *never_cards(2, 6)]
    state = start(board, 3, ["S4 E", "E", "S1"], cards=cards)
    play(state, "A1", "D2")
    events = state.apply("B1")
    assert mission_events(events) == [(2, "CH1", 6), (0, "DF1", 8)]
    assert state.score == [5 + 8, 1, 3 + 6]


def test_I10_castle_changing_hands_pays_the_new_holder_the_low_value() -> None:
    board = make_board(DISTRICT_CASTLE, rules="ireland")
    cards = [card(0, "CH1", {"type": "castles_held", "count": 1}, (6, 4)), *never_cards(1, 7)]
    state = start(board, 2, ["E E E", "E E"], cards=cards)
    state.apply("D1")  # seat 0 claims c: CH1 first, 6
    assert state.score == [1 + 6, 0]
    state.apply("C2")  # seat 1: 1 to 1, farms 1 to 1: the holder keeps it (C-3)
    assert state.castles.holder == [0] and fulfilled(state, "CH1") == (0,)
    state.apply("A2")  # seat 0, not next to c
    events = state.apply("B2")  # seat 1: 2 to 1, takes c (C-2): CH1 not first, 4
    assert state.castles.holder == [1]
    assert mission_events(events) == [(1, "CH1", 4)]
    assert state.score == [1 + 6 + 1, 1 + 2 + 4]
    state.apply("D2")  # seat 0: group D1-D2; it lost the castle but keeps its 6 (paid once)
    assert state.breakdown(0)["public_missions"] == 6


def test_I10_value_pairs_are_validated() -> None:
    board = make_board(ROW, rules="ireland")
    good: dict[str, Any] = {"format": "rebirth-missions", "version": 1, "board": "ireland", "cards": [
        {"id": "A", "values": [8, 5], "condition": {"type": "farm_group", "size": 3},
         "text": {"en": "a", "de": "a"}}]}
    assert parse_cards(good, board)[0].values == (8, 5)
    bad = copy.deepcopy(good)
    bad["cards"][0]["values"] = [10, 5]
    with pytest.raises(DataError):
        parse_cards(bad, board)


# ------------------------------------------------------------------ I-11

def test_I11_farm_group_counts_one_farm_type_only() -> None:
    # A1, B1, C1 = E; A2, B2, C2 = F. Seat 0: Energy A1, Food A2, Energy B1 touch each other,
    # but the largest group is 2 (F-1: types never merge). The Energy on C1 makes 3.
    board = make_board("E E E\nF F F", rules="ireland")
    cards = [card(0, "FG3", {"type": "farm_group", "size": 3}), *never_cards(1, 7)]
    state = start(board, 2, ["E F E E", "F F"], cards=cards)
    play(state, "A1", "C2", "A2", "B2", "B1")
    assert fulfilled(state, "FG3") == ()  # seat 1's Food group is 2 as well
    state.apply("C1")
    assert fulfilled(state, "FG3") == (0,)
    assert state.score[0] == 1 + 1 + 2 + 3 + 12


# A1 = E, B1 = castle a, C1 = E, D1 = E, E1 = castle b
#   A2..E2 = E;  a is next to A1, C1, A2, B2; b is next to D1, D2, E2.
CASTLES = """
E C:a E E C:b
E E E E E
"""


def test_I11_castles_held_counts_castles_held_at_once() -> None:
    board = make_board(CASTLES, rules="ireland")
    cards = [card(0, "CH2", {"type": "castles_held", "count": 2}), *never_cards(1, 7)]
    state = start(board, 2, ["E E", "E"], cards=cards)
    play(state, "A1", "C2", "D1")  # seat 0 claims a, then b
    assert state.castles.holder == [0, 0]
    assert fulfilled(state, "CH2") == (0,)
    assert state.breakdown(0)["public_missions"] == 12


def test_I11_castles_held_not_fulfilled_by_castles_held_one_after_another() -> None:
    board = make_board(CASTLES, rules="ireland")
    cards = [card(0, "CH2", {"type": "castles_held", "count": 2}), *never_cards(1, 7)]
    state = start(board, 2, ["E E E", "E E"], cards=cards)
    state.apply("A1")  # seat 0 claims a
    state.apply("C1")  # seat 1 next to a: 1 to 1, farms 1 to 1: seat 0 keeps it
    state.apply("C2")  # seat 0, next to no castle
    state.apply("B2")  # seat 1: 2 to 1, takes a
    assert state.castles.holder == [1, -1]
    state.apply("D1")  # seat 0 claims b: it has held two castles, never two at once
    assert state.castles.holder == [1, 0]
    assert fulfilled(state, "CH2") == ()


# A1 = tower t1 (next to B1, A2), C1 = tower t2 (next to B1, D1, B2, C2),
# E1 = tower t3 (next to D1, D2, E2); B1, D1 = E;  A2..E2 = E
TOWERS = """
T:t1 E T:t2 E T:t3
E E E E E
"""


def test_I11_towers_adjacent_counts_different_towers() -> None:
    board = make_board(TOWERS, rules="ireland")
    cards = [card(0, "TA3", {"type": "towers_adjacent", "count": 3}, (6, 4)),
             *never_cards(1, 7)]
    state = start(board, 2, ["E E E", "E E E"], cards=cards)
    state.apply("B1")  # seat 0 next to t1 and t2: 2 towers with one tile
    state.apply("E2")  # seat 1: t3
    state.apply("B2")  # seat 0: t2 again, still 2 different towers
    state.apply("A2")  # seat 1: t1, 2 towers
    assert fulfilled(state, "TA3") == ()
    state.apply("D1")  # seat 0: t2 and t3: now 3
    assert fulfilled(state, "TA3") == (0,)
    assert state.score[0] == 1 + 2 + 1 + 6


# Provinces: n = A1, B1, A2; s = C1, D1, C2; w = B2, D2.
# A1=E@n B1=E@n C1=F@s D1=F@s;  A2=S:a@n B2=E@w C2=S:b@s D2=F@w
PROVINCES = """
E@n E@n F@s F@s
S:a@n E@w S:b@s F@w
"""


def test_I11_tiles_in_provinces_counts_tiles_of_any_type_per_province() -> None:
    board = make_board(PROVINCES, rules="ireland")
    cards = [card(0, "TP", {"type": "tiles_in_provinces", "tiles": 2, "provinces": 2}, (8, 5)),
             *never_cards(1, 7)]
    state = start(board, 2, ["E F S1 S1", "E F E F"], cards=cards)
    play(state, "A1", "B2", "C1", "D2", "A2", "B1")
    # Seat 0: n 2, s 1. Seat 1: w 2, n 1. Nobody has 2 tiles in 2 provinces yet.
    assert fulfilled(state, "TP") == ()
    state.apply("C2")  # seat 0: a settlement, s 2
    assert fulfilled(state, "TP") == (0,)
    state.apply("D1")  # seat 1: s 1 only
    assert fulfilled(state, "TP") == (0,)
    assert state.score == [1 + 1 + 1 + 1 + 8, 1 + 1 + 2 + 2]


# p = A1, B1 (2 spaces); s = C1 (1 space); q = D1, E1 (2 spaces)
#   A2, B2, C2 = E;  D2, E2 = F
DISTRICTS = """
S:p S:p S:s S:q S:q
E E E F F
"""


def test_I11_district_firsts_alone_and_by_tie_small_districts_do_not_count() -> None:
    board = make_board(DISTRICTS, rules="ireland")
    cards = [card(0, "DF1", {"type": "district_firsts", "count": 1}, (8, 5)),
             card(1, "DF2", {"type": "district_firsts", "count": 2}, (6, 4)),
             *never_cards(2, 6)]
    state = start(board, 2, ["S4 S1 S1 S2", "E E E S2"], cards=cards)
    state.apply("C1")  # seat 0: small district +4; no rank, no first
    assert fulfilled(state, "DF1") == ()
    play(state, "A2", "A1", "B2")
    state.apply("B1")  # seat 0 fills p alone: 8, first rank 1 -> DF1 8
    assert fulfilled(state, "DF1") == (0,) and fulfilled(state, "DF2") == ()
    play(state, "C2", "D1")
    events = state.apply("E1")  # seat 1 completes q, 2 to 2: the completer loses the tie
    assert mission_events(events) == [(0, "DF2", 6)]
    assert state.score == [4 + 8 + 8 + 5 + 6, 1 + 2 + 3 + 3]


# A1 = tower m (next to B1, A2);  B1, C1 = the 2-space district p
#   A2, B2, C2 = E
SECRET = """
T:m S:p S:p
E E E
"""


def test_I11_district_firsts_counts_only_districts_completed_during_play() -> None:
    board = make_board(SECRET, rules="ireland")
    cards = [*never_cards(0, 8),
             card(8, "DF1", {"type": "district_firsts", "count": 1}, (8, 5))]
    # Incomplete at the end: seat 0 takes the first rank by T-7, but no completed district.
    state = start(board, 2, ["E S3", "E E"], cards=cards, deck=("DF1",))
    play(state, "A2", "B2", "B1", "C2")
    assert state.is_terminal()
    assert state.cards.tower_cards[0] == [8]
    assert state.score[0] == 1 + 5
    assert state.breakdown(0)["missions"] == 0
    # Completed during play: the secret card (I-9) pays its first value, 8.
    state = start(board, 2, ["E S3 S1", "E E"], cards=cards, deck=("DF1",))
    play(state, "A2", "B2", "B1", "C2", "C1")
    assert state.is_terminal()
    assert state.score[0] == 1 + 8 + 8
    assert state.breakdown(0)["missions"] == 8


# A1=E~  B1=F~  C1=E;  A2=F  B2=S:a  C2=X~
OFFSHORE = """
E~ F~ E
F S:a X~
"""


def test_I11_offshore_farms_counts_farms_on_offshore_spaces() -> None:
    board = make_board(OFFSHORE, rules="ireland")
    cards = [card(0, "OF2", {"type": "offshore_farms", "count": 2}, (6, 4)),
             *never_cards(1, 7)]
    state = start(board, 2, ["E E E", "F F"], cards=cards)
    play(state, "A1", "A2", "C1", "B1")  # seat 0: 1 offshore farm; seat 1: 1
    assert fulfilled(state, "OF2") == ()
    state.apply("C2")  # seat 0: Energy on the offshore flexible space next to C1: 2 + 1
    assert fulfilled(state, "OF2") == (0,)
    assert state.score == [2 + 1 + 3 + 6, 1 + 3]


def test_I11_unknown_condition_is_refused() -> None:
    board = make_board(ROW, rules="ireland")
    data = {"format": "rebirth-missions", "version": 1, "board": "ireland", "cards": [
        {"id": "A", "values": [8, 5], "condition": {"type": "most_spaces_in_region",
                                                    "region": "north"},
         "text": {"en": "a", "de": "a"}}]}
    with pytest.raises(DataError):
        parse_cards(data, board)


# ------------------------------------------------------------------ E-4
# A1 = castle bl (next to B1, A2);  B2 = tower tara (next to B1, C1, A2, C2, B3, C3)
# B1=E C1=E D1=S:a;  A2=E C2=S:b D2=S:c;  A3=S:d B3=S:e C3=E D3=E  (every district 1 space)
TIE = """
C:bl E E S:a
E T:tara S:b S:c
S:d S:e E E
"""


def tie_state(players: int, supplies: list[str]) -> State:
    board = make_board(TIE, rules="ireland", tiebreak=["castle:bl", "tower:tara"])
    return start(board, players, supplies)


def test_E4_blarney_holder_among_the_tied_wins() -> None:
    state = tie_state(2, ["E S4", "S4 E E S3"])
    play(state, "B1", "C2", "D1", "C3", "D3", "B3")
    assert state.is_terminal()
    # Seat 0: 1 + 4 + Blarney 5 = 10; seat 1: 4 + 1 + 2 + 3 = 10. Seat 1 has 3 spaces next to
    # the Hill of Tara, seat 0 only 1: Blarney decides first.
    assert state.score == [10, 10]
    assert state.tara_count(0, 0) == 1 and state.tara_count(0, 1) == 3
    assert state.winners == [0]
    assert state.returns() == [1.0, 0.0]


def test_E4_no_blarney_holder_most_spaces_next_to_tara_wins() -> None:
    state = tie_state(2, ["S4 S1", "E E S3"])
    play(state, "C2", "C1", "D1", "C3", "D2")
    assert state.is_terminal()
    # Seat 0: 4 + 1 = 5 (Tara: C2); seat 1: 1 + 1 + 3 = 5 (Tara: C1, C3). Blarney unheld.
    assert state.score == [5, 5]
    assert state.castles.holder == [-1]
    assert state.winners == [1]
    how = state.tiebreak() or {}
    assert (how["rule"], how["by"], how["counts"]) == ("E-4", "tower", [1, 2])


def test_E4_blarney_holder_not_tied_does_not_win_tara_decides() -> None:
    state = tie_state(3, ["S4 S3", "S4 S3", "E"])
    play(state, "D1", "C2", "A2", "D2", "B3")
    assert state.is_terminal()
    # Seat 0: 7 (no Tara space); seat 1: 7 (Tara: C2, B3); seat 2: 1 + Blarney 5 = 6.
    assert state.score == [7, 7, 6]
    assert state.castles.holder == [2]
    assert state.winners == [1]


def test_E4_full_tie_is_a_shared_win() -> None:
    state = tie_state(2, ["S4", "S4"])
    play(state, "C2", "B3")
    assert state.is_terminal()
    assert state.score == [4, 4]
    assert state.winners == [0, 1]
    assert state.returns() == [0.5, 0.5]


def test_E4_tara_narrows_a_three_way_tie_to_a_shared_win() -> None:
    state = tie_state(3, ["S4", "S4", "S4"])
    play(state, "C2", "B3", "D1")
    assert state.is_terminal()
    # All 4; Blarney unheld; Tara: seat 0 (C2) 1, seat 1 (B3) 1, seat 2 (D1) 0.
    assert state.score == [4, 4, 4]
    assert state.winners == [0, 1]
    assert state.returns() == [0.5, 0.5, 0.0]


def test_E4_shipped_map_tiebreak_is_blarney_then_hill_of_tara() -> None:
    board = Game.builtin("ireland", 2).board
    assert [(k, (board.castles if k == "castle" else board.towers)[i].id)
            for k, i in board.tiebreak] == [("castle", "blarney"), ("tower", "hill_of_tara")]
