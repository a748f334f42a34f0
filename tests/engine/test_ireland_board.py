"""Ireland placement and scoring on the board (RULES.md I-2, I-3, I-4, I-12, I-13).

Hand-made maps (``mapkit``: odd rows sit half a hex to the right); every expected
value is worked out by hand from RULES.md.
"""

from __future__ import annotations

import pytest

from engine.ireland_kit import play, start
from mapkit import make_board
from rebirth.engine.actions import IllegalActionError
from rebirth.engine.board import MapError
from rebirth.engine.tiles import parse_tile

# ------------------------------------------------------------------ I-2
# A1=E  B1=X  C1=F
#   A2=S:a  B2=S:a
FLEX = """
E X F
S:a S:a
"""


def test_I2_flexible_space_takes_either_farm_never_a_settlement() -> None:
    board = make_board(FLEX, rules="ireland")
    state = start(board, 2, ["E", "F S1"])
    assert sorted(str(a) for a in state.legal_actions) == ["A1", "B1"]
    state.apply("A1")
    assert sorted(str(a) for a in state.legal_actions) == ["B1", "C1"]
    state.apply("B1")  # the Food Farm goes on the flexible space
    assert state.occupancy.tile[board.space("B1").index] == parse_tile("F")
    assert sorted(str(a) for a in state.legal_actions) == ["A2", "B2"]  # S1: settlements only


def test_I2_flexible_farm_joins_the_group_of_its_type() -> None:
    board = make_board(FLEX, rules="ireland")
    state = start(board, 2, ["E E", "S1 S1"])
    play(state, "A1", "A2", "B1")  # Energy on A1, then Energy on flexible B1 next to it
    assert state.score[0] == 1 + 2
    state2 = start(board, 2, ["F F", "S1 S1"])
    play(state2, "C1", "A2", "B1")  # Food on C1, then Food on flexible B1 next to it
    assert state2.score[0] == 1 + 2


def test_I2_flexible_space_counts_before_the_emergency_rule() -> None:
    # P-3 applies only when no energy/food/blank/flexible space of the right kind is free.
    board = make_board("E X", rules="ireland")
    state = start(board, 2, ["F", "F"])
    assert [str(a) for a in state.legal_actions] == ["B1"]
    with pytest.raises(IllegalActionError):
        state.apply("A1")
    state.apply("B1")
    assert [str(a) for a in state.legal_actions] == ["A1"]  # now the emergency rule
    state.apply("A1")
    assert state.score == [1, 1]


# ------------------------------------------------------------------ I-3
# A1=E~  B1=F~  C1=E
#   A2=F  B2=S:a  C2=X~
OFFSHORE = """
E~ F~ E
F S:a X~
"""


def test_I3_offshore_farm_scores_one_extra_in_category_offshore() -> None:
    board = make_board(OFFSHORE, rules="ireland")
    state = start(board, 2, ["E E", "F F"])
    state.apply("A1")  # Energy alone on offshore: 1 + 1
    assert state.score == [2, 0]
    assert state.breakdown(0)["farms"] == 1 and state.breakdown(0)["offshore"] == 1
    state.apply("B1")  # Food alone on offshore (next to the Energy: no merge): 1 + 1
    assert state.score == [2, 2]
    state.apply("C1")  # Energy, not offshore, not next to A1: 1
    state.apply("A2")  # Food next to B1: group of 2, not offshore: +2
    assert state.score == [3, 4]
    assert state.breakdown(1) == {"farms": 3, "settlements": 0, "castles": 0, "missions": 0,
                                  "offshore": 1, "towers": 0, "public_missions": 0}


def test_I3_offshore_flexible_space_and_emergency_farm_also_get_the_bonus() -> None:
    board = make_board(OFFSHORE, rules="ireland")
    state = start(board, 2, ["E E", "S1 S1"])
    state.apply("C2")  # Energy on the flexible offshore space: 1 + 1
    assert state.score[0] == 2
    # Emergency: an Energy Farm on the offshore Food space A1... first fill every energy space.
    board2 = make_board("E F~ S:a", rules="ireland")
    s2 = start(board2, 2, ["E E", "S1"])
    s2.apply("A1")  # 1
    s2.apply("C1")  # seat 1: small district, +1
    assert [str(a) for a in s2.legal_actions] == ["B1"]  # P-3 emergency
    s2.apply("B1")  # Energy next to A1: group of 2, +2, offshore +1
    assert s2.score == [1 + 2 + 1, 1]
    assert s2.breakdown(0)["offshore"] == 1 and s2.breakdown(0)["farms"] == 3


def test_I3_settlement_space_cannot_be_offshore() -> None:
    with pytest.raises(MapError, match="offshore"):
        make_board("E S:a~", rules="ireland")


# ------------------------------------------------------------------ I-4
# A1..D1: the 4-space district d (a row, connected)
#   A2=E  B2=F  C2=E  D2=F
SPRAWL = """
S:d S:d S:d S:d
E F E F
"""


def test_I4_sprawling_district_pays_12_8_5_only_when_complete() -> None:
    board = make_board(SPRAWL, rules="ireland")
    state = start(board, 3, ["S4 S1", "S3", "S2"])
    play(state, "A1", "B1", "C1")
    assert state.score == [0, 0, 0]  # nothing until the last space is filled (T-3)
    state.apply("D1")  # seat 0 completes: influence 5, 3, 2
    assert state.score == [12, 8, 5]
    assert [state.breakdown(q)["settlements"] for q in range(3)] == [12, 8, 5]


def test_I4_ties_completer_loses_and_others_go_clockwise_after_the_completer() -> None:
    # Start player 1: turns 1, 2, 0, 1. Every player ends with influence 2; seat 1 completes.
    # T-4: the completer (1) loses every tie; then clockwise from seat 2: 2, 0.
    board = make_board(SPRAWL, rules="ireland")
    state = start(board, 3, ["S2", "S1 S1", "S2"], first=1)
    play(state, "A1", "B1", "C1", "D1")
    assert state.score == [8, 5, 12]


def test_I4_tie_for_first_against_the_completer_and_unreached_rank_unpaid() -> None:
    # Seat 0: S3 + S1 = 4; seat 1: S2 + S2 = 4 and completes. Rank 3 (5) is reached by nobody.
    board = make_board(SPRAWL, rules="ireland")
    state = start(board, 2, ["S3 S1", "S2 S2"])
    play(state, "A1", "B1", "C1", "D1")
    assert state.score == [12, 8]


def test_I4_ties_rule_unchanged_by_medium_completer_wins() -> None:
    # The variant is about 2-space districts only; the 4-space district keeps T-4.
    board = make_board(SPRAWL, rules="ireland")
    state = start(board, 2, ["S3 S1", "S2 S2"], variants=("medium_completer_wins",))
    play(state, "A1", "B1", "C1", "D1")
    assert state.score == [12, 8]


def test_I4_alone_in_the_sprawling_district_scores_25() -> None:
    board = make_board(SPRAWL, rules="ireland")
    state = start(board, 2, ["S1 S1 S1 S1", "E F E F"])
    play(state, "A1", "A2", "B1", "B2", "C1", "C2", "D1")
    assert state.score[0] == 12 + 8 + 5
    assert state.breakdown(0)["settlements"] == 25


def test_I4_four_players_fourth_gets_nothing() -> None:
    board = make_board(SPRAWL, rules="ireland")
    state = start(board, 4, ["S4", "S3", "S2", "S1"])
    play(state, "A1", "B1", "C1", "D1")
    assert state.score == [12, 8, 5, 0]


# ------------------------------------------------------------------ I-12
# A1=castle c (next to B1, A2)
# B1=S:s (small)  C1=E
#   A2=F  B2=E  C2=E
CASTLE = """
C:c S:s E
F E E
"""


def test_I12_castle_held_with_a_single_tile_scores_5_at_the_end() -> None:
    board = make_board(CASTLE, rules="ireland")
    state = start(board, 2, ["F", "E"])
    state.apply("A2")  # seat 0: the only tile next to the castle
    assert state.castles.holder == [0]
    assert state.breakdown(0)["castles"] == 0  # castles score only at the end (C-5)
    state.apply("C2")
    assert state.is_terminal()
    assert state.score == [1 + 5, 1]
    assert state.breakdown(0)["castles"] == 5 and state.breakdown(0)["farms"] == 1


def test_I12_castle_and_settlement_are_separate_categories() -> None:
    board = make_board(CASTLE, rules="ireland")
    state = start(board, 2, ["S3", "E"])
    state.apply("B1")  # small district next to the castle: +3 settlement, castle claimed
    state.apply("C1")
    assert state.is_terminal()
    assert state.breakdown(0)["settlements"] == 3
    assert state.breakdown(0)["castles"] == 5
    assert state.score == [8, 1]


# ------------------------------------------------------------------ I-13
# A1=S:s (1 space)  B1,C1=S:m (2 spaces)  D1=E
#   A2,B2,C2=S:l (3 spaces)  D2=F
DISTRICTS = """
S:s S:m S:m E
S:l S:l S:l F
"""


def test_I13_small_district_scores_its_influence_at_once() -> None:
    board = make_board(DISTRICTS, rules="ireland")
    state = start(board, 2, ["S3", "E"])
    state.apply("A1")
    assert state.score == [3, 0]


def test_I13_medium_district_tie_completer_loses_and_variant_flips_it() -> None:
    board = make_board(DISTRICTS, rules="ireland")
    state = start(board, 2, ["S2", "S2"])
    play(state, "B1", "C1")  # seat 1 completes with a tie at 2: completer loses
    assert state.score == [5, 3]
    state = start(board, 2, ["S2", "S2"], variants=("medium_completer_wins",))
    play(state, "B1", "C1")
    assert state.score == [3, 5]


def test_I13_large_district_alone_13_and_ranks_8_5() -> None:
    board = make_board(DISTRICTS, rules="ireland")
    state = start(board, 2, ["S1 S1 S1", "E F"])
    play(state, "A2", "D1", "B2", "D2", "C2")
    assert state.score == [13, 2]
    state = start(board, 2, ["S4 S1", "S3"])
    play(state, "A2", "B2", "C2")  # seat 0: 5, seat 1: 3
    assert state.score == [8, 5]


def test_I13_incomplete_sprawling_district_at_end_T7() -> None:
    board = make_board(SPRAWL, rules="ireland")
    # Tie 3-3 in an incomplete 4-space district; seat 1 placed its last tile and loses the tie.
    state = start(board, 2, ["S3", "S3"])
    play(state, "A1", "B1")
    assert state.is_terminal()
    assert state.score == [12, 8]
    # Alone in an incomplete district: only the first rank (not 25).
    state = start(board, 2, ["S1 S1", "E F"])
    play(state, "A1", "A2", "B1", "B2")
    assert state.is_terminal()
    assert state.score == [12, 1 + 1]


def test_I13_incomplete_as_small_variant_on_ireland() -> None:
    board = make_board(SPRAWL, rules="ireland")
    state = start(board, 2, ["S3", "S2"], variants=("incomplete_as_small",))
    play(state, "A1", "B1")
    assert state.is_terminal()
    assert state.score == [3, 2]
