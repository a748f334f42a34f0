"""Scotland farms (F-) and settlements (T-) on small hand-made maps; points from RULES.md."""

from __future__ import annotations

from engine.scotland_kit import board, paid, play, start

# ---------------------------------------------------------------------- F


def test_F1_lone_farm_scores_one() -> None:
    state = start(board("E E E F"), ["E", "F"])
    ev = state.apply("A1")
    assert paid(ev, "farm") == [(0, 1)]
    assert state.score == [1, 0]
    assert state.breakdown(0)["farms"] == 1


def test_F1_energy_and_food_never_merge_nor_colours() -> None:
    state = start(board("B B B B B"), ["E F E", "E F"])
    ev = play(state, "A1", "E1", "B1", "D1", "C1")
    # Seat 0: E A1 (1), F B1 next to its Energy (1), E C1 next to the Food only (1).
    # Seat 1: E E1 (1), F D1 next to its Energy and to seat 0's E C1 (1).
    assert [(e.seat, e.points) for e in ev if e.rule == "F-1"] == [
        (0, 1), (1, 1), (0, 1), (1, 1), (0, 1)]
    assert state.score == [3, 2]


def test_F1_chain_of_eight_built_one_by_one_scores_36() -> None:
    b = board("""
    E E E E E E E E
    . . . . . . . .
    F . F . F . F . F . F . F . F
    """)
    state = start(b, ["E E E E E E E E", "F F F F F F F F"])
    seat0 = []
    for i in range(8):
        ev = state.apply(f"{'ABCDEFGH'[i]}1")
        seat0 += [e.points for e in ev if e.rule == "F-1"]
        state.apply(f"{'ACEGIKMO'[i]}3")
    assert seat0 == [1, 2, 3, 4, 5, 6, 7, 8]
    assert state.breakdown(0)["farms"] == 36
    assert state.breakdown(1)["farms"] == 8  # eight lone farms
    assert state.score == [36, 8]


def test_F1_tile_joining_two_groups_scores_the_merged_group() -> None:
    b = board("""
    E E E E E E
    . . . . . .
    F . F . F . F . F . F
    """)
    state = start(b, ["E E E E E E", "F F F F F F"])
    pts = []
    for me, other in zip(["A1", "B1", "D1", "E1", "C1", "F1"],
                         ["A3", "C3", "E3", "G3", "I3", "K3"], strict=True):
        pts += [e.points for e in state.apply(me) if e.rule == "F-1"]
        state.apply(other)
    assert pts == [1, 2, 1, 2, 5, 6]
    assert state.breakdown(0)["farms"] == 17


# ---------------------------------------------------------------------- T


def test_T1_influence_is_the_sum_of_tile_values() -> None:
    state = start(board("S:a S:a S:a"), ["S1 S3", "S3"])
    ev = play(state, "A1", "B1", "C1")
    # Seat 0: 1 + 3 = 4 against seat 1's 3 (a max would tie 3-3 and the completer lose).
    assert [(e.seat, e.points, e.data["influence"]) for e in ev if e.kind == "district"] == [
        (0, 8, 4), (1, 5, 3)]
    assert state.score == [8, 5]


def test_T2_small_district_scores_its_influence_at_once() -> None:
    state = start(board("S:s S:t B B"), ["S3 S4", "E E"])
    ev = play(state, "A1", "C1", "B1")
    assert paid(ev, "small_district") == [(0, 3), (0, 4)]
    assert [e.rule for e in ev if e.kind == "small_district"] == ["T-2", "T-2"]
    assert state.breakdown(0)["settlements"] == 7


def test_T3_medium_district_pays_5_and_3() -> None:
    state = start(board("S:a S:a"), ["S4", "S1"])
    assert paid(state.apply("A1"), "district") == []  # not complete yet
    ev = state.apply("B1")
    assert paid(ev, "district") == [(0, 5), (1, 3)]
    assert state.score == [5, 3]


def test_T3_large_district_pays_8_and_5() -> None:
    state = start(board("S:a S:a S:a"), ["S4 S1", "S2"])
    ev = play(state, "A1", "B1")
    assert paid(ev, "district") == []
    ev = state.apply("C1")
    assert paid(ev, "district") == [(0, 8), (1, 5)]
    assert [e.rule for e in ev if e.kind == "district"] == ["T-3", "T-3"]
    assert state.score == [8, 5]


def test_T3_one_rank_per_player_and_third_player_unpaid() -> None:
    three = start(board("S:a S:a S:a"), ["S4", "S3", "S1"])
    ev = play(three, "A1", "B1", "C1")
    assert paid(ev, "district") == [(0, 8), (1, 5)]
    assert three.score == [8, 5, 0]
    # The leader with two tiles takes one rank only, not 8 + 5.
    two = start(board("S:a S:a S:a"), ["S4 S3", "S1"])
    ev = play(two, "A1", "B1", "C1")
    assert paid(ev, "district") == [(0, 8), (1, 5)]
    assert two.score == [8, 5]


def test_T4_completer_loses_ties_medium_and_large() -> None:
    medium = start(board("S:a S:a"), ["S2", "S2"])
    ev = play(medium, "A1", "B1")  # seat 1 completes, tie 2-2
    assert paid(ev, "district") == [(0, 5), (1, 3)]
    assert [e.rule for e in ev if e.kind == "district"] == ["T-4", "T-4"]
    large = start(board("S:a S:a S:a"), ["S1 S2", "S3"])
    ev = play(large, "A1", "B1", "C1")  # seat 0 completes, tie 3-3
    assert paid(ev, "district") == [(1, 8), (0, 5)]
    assert large.score == [5, 8]


def test_T4_three_way_tie_three_players_clockwise_after_completer() -> None:
    state = start(board("S:a S:a S:a"), ["S2", "S2", "S2"], start_player=2)
    ev = play(state, "A1", "B1", "C1")  # seats 2, 0, then 1 completes
    # Order after completer 1: seat 2, then seat 0; the completer is last, unpaid.
    assert paid(ev, "district") == [(2, 8), (0, 5)]
    assert state.score == [5, 0, 8]


def test_T4_three_way_tie_four_players_clockwise_after_completer() -> None:
    state = start(board("S:a S:a S:a"), ["S2", "S2", "S2", "S2"], start_player=3)
    ev = play(state, "A1", "B1", "C1")  # seats 3, 0, then 1 completes
    # Order after completer 1: seats 2 (absent), 3, 0.
    assert paid(ev, "district") == [(3, 8), (0, 5)]
    assert state.score == [5, 0, 0, 8]


def test_T4_tie_among_others_four_players_clockwise_after_completer() -> None:
    b = board("S:a S:a S:a B")
    state = start(b, ["S2", "E", "S1", "S2"], start_player=3)
    ev = play(state, "A1", "B1", "D1", "C1")  # seat 3, seat 0, seat 1 farm, seat 2 completes
    # Seats 3 and 0 tie on 2; after completer 2 comes seat 3, then 0.
    assert paid(ev, "district") == [(3, 8), (0, 5)]
    assert state.score == [5, 1, 0, 8]


def test_T5_alone_in_a_district_scores_all_ranks() -> None:
    b = board("""
    S:a S:a . S:b S:b S:b
    . . . . . .
    B . B . B . B . B
    """)
    state = start(b, ["S1 S4 S1 S1 S1", "E E E E E"])
    ev = play(state, "A1", "A3", "B1", "C3", "D1", "E3", "E1", "G3", "F1", "I3")
    assert paid(ev, "district_alone") == [(0, 8), (0, 13)]
    assert [e.rule for e in ev if e.kind == "district_alone"] == ["T-5", "T-5"]
    assert state.breakdown(0)["settlements"] == 21


def test_T6_port_adds_one_at_once() -> None:
    state = start(board("S:a^ S:a S:b^"), ["S2", "S3"])
    ev = state.apply("A1")
    assert paid(ev, "port") == [(0, 1)]
    assert state.score == [1, 0]
    ev = state.apply("C1")
    assert paid(ev, "small_district") == [(1, 3)] and paid(ev, "port") == [(1, 1)]
    assert state.breakdown(1) == {"farms": 0, "settlements": 3, "ports": 1, "castles": 0,
                                  "missions": 0}


def test_T7_incomplete_districts_score_at_end_last_placer_as_completer() -> None:
    b = board("S:a S:a S:a . S:b S:b")
    state = start(b, ["S2 S3", "S2"])
    ev = play(state, "A1", "B1", "E1")
    assert state.is_terminal()
    final = [(e.seat, e.points, e.rule) for e in ev if e.kind == "final_district"]
    # a: 2-2, seat 1 placed last and loses the tie: 8 / 5.  b: seat 0 alone: first rank only.
    assert final == [(0, 8, "T-7"), (1, 5, "T-7"), (0, 5, "T-7")]
    assert state.score == [13, 5]


def test_T7_last_placer_loses_the_tie_at_end() -> None:
    b = board("S:a S:a S:a B")
    state = start(b, ["E S2", "S2"])
    ev = play(state, "D1", "A1", "B1")  # seat 0 places last in district a
    final = [(e.seat, e.points) for e in ev if e.kind == "final_district"]
    assert final == [(1, 8), (0, 5)]
    assert state.score == [6, 8]


def test_T7_alone_in_incomplete_large_district_takes_first_rank_only() -> None:
    state = start(board("S:a S:a S:a B"), ["S1 S1", "E"])
    ev = play(state, "A1", "D1", "B1")
    assert [(e.seat, e.points, e.rule) for e in ev if e.kind == "final_district"] == [
        (0, 8, "T-7")]
    assert state.score == [8, 1]
