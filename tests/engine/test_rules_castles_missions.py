"""Scotland castles (C-), cathedrals and secret missions (K-) and game end (E-)."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from engine.scotland_kit import (
    board,
    cards,
    castle_card,
    paid,
    play,
    region_card,
    rules_of,
    settle_card,
    start,
)
from rebirth.engine.actions import IllegalActionError
from rebirth.engine.events import Event
from rebirth.engine.state import TERMINAL, State

# Castle x in B2; adjacent: B1 (settlement c), C1, A2, C2 (settlement b), B3, C3.
CASTLE_MAP = """
B S:c B
B C:x S:b
B B B
"""


def castle_events(events: Iterable[Event]) -> list[tuple[str, str, int | None]]:
    """Castle claims, takeovers and holds (not the final C-5 payments)."""
    return [(e.kind, e.rule, e.seat) for e in events
            if e.kind in ("castle_claim", "castle_take", "castle_hold")]


# ---------------------------------------------------------------------- C


def test_C1_first_player_next_to_castle_takes_it() -> None:
    state = start(board(CASTLE_MAP), ["E", "F"])
    ev = state.apply("A1")  # not next to the castle
    assert castle_events(ev) == [] and state.view(None).castle_holders == (-1,)
    ev = state.apply("C1")
    assert castle_events(ev) == [("castle_claim", "C-1", 1)]
    assert state.view(None).castle_holders == (1,)


def test_C2_more_adjacent_spaces_take_the_castle_mandatory() -> None:
    state = start(board(CASTLE_MAP), ["E E E", "F F"])
    ev = play(state, "C1", "B3")  # 1-1, farms 1-1: seat 0 keeps
    assert castle_events(ev) == [("castle_claim", "C-1", 0), ("castle_hold", "C-3", 1)]
    ev = play(state, "A1", "C3")  # seat 1: 2 to 1
    assert castle_events(ev) == [("castle_take", "C-2", 1)]
    assert state.view(None).castle_holders == (1,)
    ev = state.apply("A2")  # seat 0: 2 to 2, farms 2 to 2: the holder keeps
    assert ("castle_hold", "C-3", 0) in castle_events(ev)
    assert state.is_terminal()
    assert paid(ev, "castle_final") == [(1, 5)]


def test_C2_takeover_with_settlements_counts_spaces_not_influence() -> None:
    b = board("""
    S:d S:c B
    B C:x S:b
    B B B
    """)
    state = start(b, ["S4", "E E"], start_player=1)
    play(state, "C1", "B1")  # seat 1 farm claims; seat 0 S4: 1-1, farms 0-1: keeps
    assert state.view(None).castle_holders == (1,)
    state.apply("B3")
    assert state.view(None).castle_holders == (1,)


def test_C3_farm_count_decides_an_equal_count() -> None:
    take = start(board(CASTLE_MAP), ["S1", "E"])
    ev = play(take, "B1", "C1")  # 1-1 spaces, attacker 1 farm vs holder 0
    assert castle_events(ev) == [("castle_claim", "C-1", 0), ("castle_take", "C-3", 1)]
    assert take.castles.holder == [1]
    keep = start(board(CASTLE_MAP), ["E", "S1"])
    ev = play(keep, "C1", "B1")  # attacker 0 farms vs holder 1
    assert castle_events(ev) == [("castle_claim", "C-1", 0), ("castle_hold", "C-3", 1)]
    assert keep.castles.holder == [0]


def test_C3_attacker_loses_full_tie() -> None:
    state = start(board(CASTLE_MAP), ["E", "F"])
    ev = play(state, "C1", "B3")
    assert castle_events(ev) == [("castle_claim", "C-1", 0), ("castle_hold", "C-3", 1)]
    assert state.castles.holder == [0]
    assert state.score == [6, 1]  # farm 1 + castle 5 / farm 1


def test_C4_only_the_placing_player_is_compared() -> None:
    state = start(board(CASTLE_MAP), ["E E", "F F", "E S1"])
    play(state, "C1", "B3")  # seat 0 claims, seat 1 ties and loses
    ev = state.apply("A1")  # seat 2, not next to the castle: nobody is compared
    assert castle_events(ev) == []
    ev = state.apply("C3")  # seat 0 (2) vs nobody: it holds already
    assert castle_events(ev) == []
    ev = state.apply("A2")  # seat 1: 2 vs holder's 2, farms 2-2: keeps
    assert [(e.seat, e.data["holder"])
            for e in ev if e.kind in ("castle_hold", "castle_take")] == [(1, 0)]
    ev = state.apply("C2")  # seat 2's settlement: 1 space vs the holder's 2
    assert [(e.seat, e.data["holder"])
            for e in ev if e.kind in ("castle_hold", "castle_take")] == [(2, 0)]
    assert state.castles.holder == [0]


def test_C5_each_castle_held_scores_5_at_game_end() -> None:
    b = board("B C:x B C:y B")
    state = start(b, ["E E", "F"])
    ev = play(state, "A1", "E1")
    assert state.breakdown(0)["castles"] == 0  # nothing during play
    ev = state.apply("C1")  # seat 0 next to x (its own) and y (1-1, farms 1-1: seat 1 keeps)
    assert state.is_terminal()
    assert sorted(paid(ev, "castle_final")) == [(0, 5), (1, 5)]
    assert [e.rule for e in ev if e.kind == "castle_final"] == ["C-5", "C-5"]
    assert state.breakdown(0)["castles"] == 5 and state.breakdown(1)["castles"] == 5


# ---------------------------------------------------------------------- K

K1_MAP = """
B K:k1 B K:k2
B B B B
"""


def test_K1_one_card_per_cathedral_per_player_pieces_stack() -> None:
    mc = cards(*(region_card(f"M{i}", "south") for i in range(1, 6)))
    b = board(K1_MAP, regions=["north", "south"])
    state = start(b, ["E E E", "F F F"], deck=("M1", "M2", "M3", "M4", "M5"),
                  mission_cards=mc)
    ev = play(state, "A1", "A2", "B2", "C1", "D2", "C2")
    assert [(e.seat, e.data["cathedral"]) for e in ev if e.rule == "K-1"] == [
        (0, "k1"), (1, "k1"), (1, "k2"), (0, "k2")]
    assert state.view(0).missions == ("M1", "M4")
    assert state.view(1).missions == ("M2", "M3")
    assert state.view(None).cathedral_pieces == ((0, 1), (0, 1))
    # Pieces score nothing: only farms (0: 1+1+1; 1: 1+1+2); the cards need south.
    assert state.score == [3, 4]
    assert state.breakdown(0)["missions"] == 0


def test_K1_tile_next_to_two_cathedrals_draws_two_cards_empty_deck_draws_none() -> None:
    mc = cards(region_card("M1", "north"), region_card("M2", "north"))
    b = board(K1_MAP)
    state = start(b, ["E", "F F"], deck=("M1", "M2"), mission_cards=mc)
    ev = state.apply("C1")
    assert [e.data["cathedral"] for e in ev if e.rule == "K-1"] == ["k1", "k2"]
    assert state.view(0).missions == ("M1", "M2")
    ev = state.apply("A1")  # deck empty: the piece goes on, no card
    k1 = [e for e in ev if e.rule == "K-1"]
    assert len(k1) == 1 and k1[0].private is None
    assert state.view(1).missions == () and state.view(None).cathedral_pieces[0] == (0, 1)


# Cathedral k in B1, adjacent A1, C1, A2, B2. Row 1 north, row 2 south except C2.
K3_MAP = """
B K:k B B B
B@south B@south B B@south B@south
"""


def _k3(moves: tuple[str, ...]) -> State:
    mc = cards(region_card("M1", "north", 3), region_card("M2", "north", 4),
               region_card("M3", "north", 5))
    state = start(board(K3_MAP), ["E E E", "E E E", "E E E"], deck=("M1", "M2", "M3"),
                  mission_cards=mc)
    play(state, *moves)
    return state


def test_K2_missions_score_at_end_only_if_fulfilled_several_players_can() -> None:
    state = _k3(("A1", "A2", "C1", "D1", "E1", "D2", "E2", "C2"))
    assert [state.breakdown(q)["missions"] for q in range(3)] == [0, 0, 0]  # not yet
    ev = state.apply("B2")
    assert state.is_terminal()
    # north: seat 0 2, seat 1 2, seat 2 1.
    assert [(e.seat, e.points, e.data["fulfilled"]) for e in ev if e.rule == "K-2"] == [
        (0, 3, True), (1, 4, True), (2, 0, False)]
    assert [state.breakdown(q)["missions"] for q in range(3)] == [3, 4, 0]


def test_K3_tie_with_leader_fulfils_never_more_than_all_others_together() -> None:
    state = _k3(("A1", "A2", "C1", "D1", "E1", "D2", "E2", "C2"))
    # Seats 0 and 1 tie for the lead with 2; seat 2 has 1.
    assert [state.secret_fulfilled(0, q) for q in range(3)] == [True, True, False]
    short = _k3(("A1", "A2", "C1", "D1", "E1", "D2"))
    assert not short.is_terminal()
    # north: seat 0 2, seats 1 and 2 1 each: 2 is not more than 1 + 1, still fulfilled.
    assert [short.mission_value(0, q) for q in range(3)] == [2, 1, 1]
    assert [short.secret_fulfilled(0, q) for q in range(3)] == [True, False, False]
    # Progress as a seat's own card shows it: its count and the most any other seat has.
    assert [short.mission_progress(0, q) for q in range(3)] == [(2, 1), (1, 2), (1, 2)]


def test_K4_tile_type_never_matters_on_a_card() -> None:
    mc = cards(region_card("R", "north"), settle_card("SN", region="north"),
               settle_card("S4", influence=4))
    b = board("""
    S:a S:b S:c S:d
    B B B B
    """)
    state = start(b, ["E S1 S1", "S4 E F"], mission_cards=mc)
    play(state, "A2", "C1", "A1", "B2", "B1", "C2")
    # Region: seat 0 has 1 farm + 2 settlements, seat 1 1 settlement + 2 farms: 3-3.
    assert [state.mission_value(0, q) for q in range(2)] == [3, 3]
    assert [state.secret_fulfilled(0, q) for q in range(2)] == [True, True]
    assert [state.mission_progress(0, q) for q in range(2)] == [(3, 3), (3, 3)]
    # Settlement cards count tiles, not influence: 2 (influence 2) beats 1 (influence 4).
    assert [state.mission_value(1, q) for q in range(2)] == [2, 1]
    assert [state.secret_fulfilled(1, q) for q in range(2)] == [True, False]
    assert [state.secret_fulfilled(2, q) for q in range(2)] == [False, True]


def test_K5_castle_card_needs_most_adjacent_spaces_not_control() -> None:
    b = board("""
    B K:k B
    B C:x B
    B B B
    """)
    mc = cards(castle_card("X0", ["x"], 3), castle_card("X1", ["x"], 4))
    state = start(b, ["E", "E"], deck=("X0", "X1"), mission_cards=mc)
    ev = play(state, "A2", "C1")  # both next to x and k; seat 0 holds x, seat 1 ties
    assert state.castles.holder == [0]
    assert [(e.seat, e.points) for e in ev if e.rule == "K-2"] == [(0, 3), (1, 4)]
    assert state.score == [1 + 5 + 3, 1 + 4]


def test_K6_structures_never_count_as_occupied_spaces() -> None:
    b = board("""
    B C:y B
    B C:x B
    B K:k B
    """)
    mc = cards(castle_card("X", ["x"], 5), region_card("N", "north", 3))
    state = start(b, ["E", "F"], deck=("X", "N"), mission_cards=mc)
    ev = play(state, "A1", "A3")  # seat 0 holds y (next to x), seat 1 has a piece on k (next to x)
    ids = [c.id for c in b.castles]
    assert state.castles.holder[ids.index("y")] == 0 and state.castles.holder[ids.index("x")] == -1
    assert [state.mission_value(0, q) for q in range(2)] == [0, 0]
    assert [state.mission_value(1, q) for q in range(2)] == [1, 1]  # the castle is no space
    assert [(e.seat, e.data["mission"], e.points) for e in ev if e.rule == "K-2"] == [
        (1, "X", 0)]


def test_K7_all_zero_fulfils_nothing() -> None:
    b = board("B K:k B B@south")
    mc = cards(region_card("SOUTH", "south", 5), settle_card("ANY", 4))
    state = start(b, ["E", "F"], deck=("SOUTH", "ANY"), mission_cards=mc)
    ev = play(state, "A1", "C1")
    assert [(e.seat, e.data["fulfilled"]) for e in ev if e.rule == "K-2"] == [
        (0, False), (1, False)]
    assert state.breakdown(0)["missions"] == 0 and state.breakdown(1)["missions"] == 0
    assert [state.mission_value(1, q) for q in range(2)] == [0, 0]


def test_K8_most_settlements_filters_region_size_port_influence() -> None:
    b = board("""
    S:a S:a^ S:b S:c^@south
    . . . .
    S:d@south S:d@south S:d@south B@south
    """)
    checks = [
        (settle_card("reg_n", region="north"), (2, 1), (True, False)),
        (settle_card("reg_s", region="south"), (1, 2), (False, True)),
        (settle_card("size1", district_size=1), (2, 0), (True, False)),
        (settle_card("size2", district_size=2), (1, 1), (True, True)),
        (settle_card("size3", district_size=3), (0, 2), (False, True)),
        (settle_card("port", port=True), (1, 1), (True, True)),
        (settle_card("inf4", influence=4), (1, 2), (False, True)),
        (settle_card("inf1", influence=1), (1, 0), (True, False)),
        (settle_card("inf3", influence=3), (0, 1), (False, True)),
        (settle_card("n_port", region="north", port=True), (0, 1), (False, True)),
        (settle_card("s_1_port", region="south", district_size=1, port=True), (1, 0),
         (True, False)),
        (settle_card("n_inf2", region="north", influence=2), (0, 0), (False, False)),
        (region_card("spaces_s", "south"), (1, 2), (False, True)),
    ]
    mc = cards(*(c for c, _, _ in checks))
    state = start(b, ["S4 S1 S2", "S4 S4 S3"], mission_cards=mc)
    play(state, "A1", "B1", "C1", "A3", "D1", "B3")
    for i, (c, values, ok) in enumerate(checks):
        assert (state.mission_value(i, 0), state.mission_value(i, 1)) == values, c[0]
        assert (state.secret_fulfilled(i, 0), state.secret_fulfilled(i, 1)) == ok, c[0]


def test_K8_two_castle_card_counts_a_space_next_to_both_once() -> None:
    b = board("""
    C:x B C:y B
    B B B B
    """)
    mc = cards(castle_card("XY", ["x", "y"]), castle_card("X", ["x"]), castle_card("Y", ["y"]))
    state = start(b, ["E E", "F F"], mission_cards=mc)
    play(state, "B1", "A2", "D2", "D1")  # B1 is next to both castles
    assert [state.mission_value(0, q) for q in range(2)] == [1, 2]
    assert [state.secret_fulfilled(0, q) for q in range(2)] == [False, True]
    assert [state.secret_fulfilled(1, q) for q in range(2)] == [True, True]
    assert [state.secret_fulfilled(2, q) for q in range(2)] == [True, True]


def test_K8_two_castle_card_end_to_end() -> None:
    b = board("""
    C:x B C:y B
    B B B B
    K:k B . .
    """)
    # x: B1, A2.  y: B1, D1, B2, C2.  k: A2, B3.
    mc = cards(castle_card("XY0", ["x", "y"], 5), castle_card("XY1", ["x", "y"], 4))
    state = start(b, ["E E", "F F"], deck=("XY0", "XY1"), mission_cards=mc)
    ev = play(state, "B3", "A2", "B1", "D1")
    # Seat 0: only B1 (next to both castles, counted once) = 1; seat 1: A2 + D1 = 2.
    assert [(e.seat, e.data["mission"], e.points) for e in ev if e.rule == "K-2"] == [
        (0, "XY0", 0), (1, "XY1", 4)]
    # Seat 0: farms 1 + 1, castle y 5.  Seat 1: farms 1 + 1, castle x 5, mission 4.
    assert state.score == [7, 11]


# ---------------------------------------------------------------------- E


def test_E1_game_ends_when_every_supply_is_placed_set_aside_never() -> None:
    b = board("B B B B S:a")
    state = start(b, ["E F", "F E"], aside=["S4 S4", "S1 S2"])
    play(state, "A1", "C1", "B1")
    assert not state.is_terminal() and state.current_player == 1
    state.apply("D1")
    assert state.is_terminal() and state.current_player == TERMINAL
    assert state.occupancy.placed == [2, 2]
    assert state.tiles_of(0)["set_aside"] == [5, 5]
    assert state.view(None).spaces[4] == (-1, None)  # S:a stays empty
    assert len(state.legal_actions) == 0
    with pytest.raises(IllegalActionError, match="over"):
        state.apply("E1")


def test_E2_final_scoring_order_districts_castles_missions() -> None:
    b = board("""
    S:a S:a C:x
    B K:k B
    """)
    mc = cards(region_card("M1", "north"))
    state = start(b, ["S2", "E"], deck=("M1",), mission_cards=mc)
    ev = play(state, "A1", "C2")
    assert state.is_terminal()
    assert rules_of(state.final_events) == ["T-7", "C-5", "K-2", "E-3"]
    assert rules_of(ev)[-4:] == ["T-7", "C-5", "K-2", "E-3"]
    # seat 0 alone in the incomplete medium district: first rank 5.
    # seat 1: farm 1 + castle 5 + mission 3 (1-1 in north, a tie counts).
    assert state.score == [5, 9]
    assert state.winners == [1]


E3_MAP = "B C:x B B C:edinburgh B B C:stirling B S:p S:q S:r B B"


def test_E3_edinburgh_holder_wins_a_tie() -> None:
    state = start(board(E3_MAP), ["E", "F"])
    play(state, "I1", "D1")  # seat 0 Stirling, seat 1 Edinburgh: 6-6
    assert state.score == [6, 6]
    assert state.winners == [1]
    assert state.returns() == [0.0, 1.0]
    # What decided is said by the engine (and shown in every seat's view).
    how = {"rule": "E-3", "points": 6, "tied": [0, 1], "by": "castle", "id": "edinburgh",
           "literal": False}
    assert state.tiebreak() == how
    # The view adds the sentence as an engine message (docs/messages.md).
    told = dict(state.view(None).tiebreak or {})
    assert told.pop("msg")["msg"] == "tiebreak.castle" and told == how


def test_E3_else_stirling_holder_wins_a_tie() -> None:
    state = start(board(E3_MAP), ["E", "F"])
    play(state, "G1", "A1")  # seat 0 Stirling, seat 1 castle x: 6-6, Edinburgh unheld
    assert state.score == [6, 6]
    assert state.winners == [0]
    assert (state.tiebreak() or {})["id"] == "stirling"


def test_E3_else_shared_win() -> None:
    state = start(board(E3_MAP), ["E", "F"])
    play(state, "M1", "N1")
    assert state.score == [1, 1]
    assert state.winners == [0, 1]
    assert state.returns() == [0.5, 0.5]
    assert (state.tiebreak() or {})["by"] == "shared"


def test_E3_edinburgh_holder_not_tied_does_not_win_stirling_decides() -> None:
    state = start(board(E3_MAP), ["E S1", "E S1", "E"])
    play(state, "A1", "G1", "D1", "J1", "K1")
    assert state.score == [7, 7, 6]  # seat 2 holds Edinburgh but is not tied
    assert state.winners == [1]


def test_E3_stirling_holder_not_tied_does_not_win_by_default() -> None:
    state = start(board(E3_MAP), ["E S1", "S4 S3", "E"])
    play(state, "A1", "J1", "G1", "L1", "K1")
    assert state.score == [7, 7, 6]
    assert state.winners == [0, 1]
