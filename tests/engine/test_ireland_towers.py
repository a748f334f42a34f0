"""Ireland round towers and their tokens (RULES.md P-5, I-5, I-6, I-7, I-8, I-9).

Hand-made maps (``mapkit``: odd rows sit half a hex to the right); every expected
value is worked out by hand from RULES.md.
"""

from __future__ import annotations

import copy

import pytest

from engine.ireland_kit import act, card, never_cards, start, tiles, token
from mapkit import make_board
from rebirth.engine.actions import IllegalActionError
from rebirth.engine.events import Event
from rebirth.engine.game import Game, Setup
from rebirth.engine.missions import MissionCard
from rebirth.engine.records import RecordError, make_record, replay
from rebirth.engine.state import CHANCE
from rebirth.engine.tiles import parse_tile, starting_tiles


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


# ------------------------------------------------------------ I-5, I-6
# A1=E  B1=tower t  C1=F  D1=E
#   A2=E  B2=E  C2=tower u  D2=E
# t is next to A1, C1, A2, B2; u is next to B2, C1, D1, D2.
TWO_TOWERS = """
E T:t F E
E E T:u E
"""


def test_I5_tower_bonus_once_per_player_and_every_player_gets_it() -> None:
    board = make_board(TWO_TOWERS, rules="ireland")
    toks = [token(0, "p3", "points", 3), token(1, "m", "mission")]
    state = start(board, 3, ["E E", "E", "F"], tokens=toks)
    act(state, "A1")  # seat 0 next to t: 1 + 3
    assert state.score == [4, 0, 0]
    act(state, "B2")  # seat 1 next to t (and u, inert): 1 + 3
    assert state.score == [4, 4, 0]
    act(state, "C1")  # seat 2 next to t: 1 + 3
    assert state.score == [4, 4, 4]
    act(state, "A2")  # seat 0 next to t again: only the farm (group of 2)
    assert state.score == [6, 4, 4]
    assert state.view(None).tower_visits == ((0, 1, 2), (1, 2))  # C1 is next to u too


def test_I6_points_token_pays_at_once_in_category_towers() -> None:
    board = make_board(TWO_TOWERS, rules="ireland")
    toks = [token(0, "p5", "points", 5), token(1, "p4", "points", 4)]
    state = start(board, 2, ["E", "E"], tokens=toks)
    events = act(state, "B2")  # next to t (5) and u (4)
    assert state.score[0] == 1 + 5 + 4
    assert state.breakdown(0)["towers"] == 9 and state.breakdown(0)["farms"] == 1
    assert [e.points for e in events if e.kind == "tower"] == [5, 4]


def test_I6_non_point_tokens_pay_nothing_themselves() -> None:
    board = make_board(TWO_TOWERS, rules="ireland")
    toks = [token(0, "m", "mission"), token(1, "x", "extra_tile")]
    state = start(board, 2, ["E", "E"], tokens=toks)  # empty deck, no set-aside tiles
    act(state, "B2")
    assert state.score == [1, 0]
    assert state.breakdown(0)["towers"] == 0


# ---------------------------------------------------------------- P-5
# A1=tower zeta  B1=S:q  C1=tower alpha  D1=E
#   A2=S:q  B2=castle c  C2=F  D2=E
# B1 is next to zeta, alpha and c; A2 is next to zeta and c.
ORDER = """
T:zeta S:q T:alpha E
S:q C:c F E
"""


def test_P5_order_tile_district_castle_towers_in_map_order_then_missions() -> None:
    board = make_board(ORDER, rules="ireland")
    toks = [token(0, "p3", "points", 3), token(1, "p4", "points", 4)]
    cards = [card(0, "TW2", {"type": "towers_adjacent", "count": 2}, (8, 5)),
             card(1, "DF1", {"type": "district_firsts", "count": 1}, (6, 4)),
             *never_cards(2, 6)]
    state = start(board, 2, ["S3 E", "S1 E"], tokens=toks, cards=cards, first=1)
    act(state, "A2")  # seat 1: S1, takes castle c, zeta +3
    assert state.score == [0, 3] and state.castles.holder == [1]
    events = act(state, "B1")
    # Seat 0 completes q (3 to 1: 5 and 3), ties seat 1 at c (1 each, no farms: holder keeps),
    # then zeta (+3) and alpha (+4) in the map's tower order, then TW2 (8) and DF1 (6).
    assert kinds(events) == ["place", "district", "district", "castle_hold", "tower", "tower",
                             "public_mission", "public_mission"]
    assert [e.data["tower"] for e in events if e.kind == "tower"] == ["zeta", "alpha"]
    assert {e.data["mission"] for e in events if e.kind == "public_mission"} == {"TW2", "DF1"}
    assert state.castles.holder == [1]
    assert state.score == [5 + 3 + 4 + 8 + 6, 3 + 3]


# ---------------------------------------------------------------- I-7
# A1=E  B1=tower x  C1=F  D1=F  E1=tower p
#   A2=S:a  B2=E  C2=X  D2=E  E2=E
# x is next to C1, A1, B2, A2; p is next to D1, E2, D2.
EXTRA = """
E T:x F F T:p
S:a E X E E
"""


def test_I7_extra_tile_revealed_placed_same_turn_and_scores_with_bonus() -> None:
    board = make_board(EXTRA, rules="ireland")
    toks = [token(0, "x1", "extra_tile"), token(1, "p4", "points", 4)]
    state = start(board, 2, ["E E", "S1 S1"], aside=["F S2 E S1", ""], tokens=toks)
    events = act(state, "A1", "F")
    assert "extra_tile" in kinds(events)
    v = state.view(0)
    assert v.phase == "extra" and v.current_player == 0 and v.extra_tile == "F"
    assert state.view(1).extra_tile == "F"  # revealed: public
    assert sorted(v.legal_actions) == ["C1", "C2", "D1"]  # a Food Farm's spaces
    assert v.set_aside_counts == (3, 0)
    act(state, "D1")  # the extra Food Farm next to p: 1 + 4
    assert state.score == [1 + 1 + 4, 0]
    assert state.breakdown(0)["towers"] == 4
    assert sorted(state.tiles.set_aside[0]) == sorted(tiles("S2 E S1"))
    assert state.current_player == 1 and state.view(1).phase == "place"
    # The player draws once (P-6): the next hand tile is the second supply tile.
    assert state.tiles.hand[0] == parse_tile("E")
    assert state.history_json() == [{"seat": 0, "action": "A1"}, {"chance": "reveal F"},
                                    {"seat": 0, "action": "D1"}]


def test_I7_extra_tile_joins_groups_and_can_fulfil_missions() -> None:
    board = make_board(EXTRA, rules="ireland")
    toks = [token(0, "x1", "extra_tile"), token(1, "m", "mission")]
    cards = [card(0, "G2", {"type": "farm_group", "size": 2}), *never_cards(1, 7)]
    state = start(board, 2, ["E", "S1"], aside=["E", ""], tokens=toks, cards=cards)
    act(state, "B2")  # Energy next to x: 1
    events = act(state, "C2")  # the extra Energy on the flexible space next to B2: group 2
    assert state.score[0] == 1 + 2 + 12
    assert state.breakdown(0)["public_missions"] == 12
    assert kinds(events)[-1] == "public_mission"


def test_I7_extra_tile_can_trigger_another_extra_tile() -> None:
    board = make_board(EXTRA, rules="ireland")
    toks = [token(0, "x1", "extra_tile"), token(1, "x2", "extra_tile")]
    state = start(board, 2, ["E", "S1"], aside=["F E", ""], tokens=toks)
    act(state, "A1", "F")  # x: reveal F
    act(state, "D1", "E")  # F next to p: another extra tile, reveal E
    assert state.view(0).phase == "extra" and state.view(0).extra_tile == "E"
    act(state, "E2")  # E next to p (already visited by seat 0): no third bonus
    assert state.score == [3, 0]
    assert state.tiles.set_aside[0] == []
    assert state.current_player == 1
    assert [h for h in state.history_json() if "chance" in h] == [
        {"chance": "reveal F"}, {"chance": "reveal E"}]


def test_I7_no_set_aside_tile_left_bonus_lost() -> None:
    board = make_board(EXTRA, rules="ireland")
    toks = [token(0, "x1", "extra_tile"), token(1, "m", "mission")]
    state = start(board, 2, ["E E", "S1 S1"], tokens=toks)
    events = act(state, "A1")
    assert "extra_lost" in kinds(events)
    assert state.current_player == 1 and state.view(1).phase == "place"
    assert state.score == [1, 0]


def test_I7_no_legal_space_for_revealed_tile_bonus_lost_tile_stays_aside() -> None:
    board = make_board(EXTRA, rules="ireland")
    toks = [token(0, "x1", "extra_tile"), token(1, "m", "mission")]
    # Seat 1 fills the only settlement space A2 first; seat 0's only set-aside tile is an S2.
    state = start(board, 2, ["E E", "S1 E E"], aside=["S2", ""], tokens=toks, first=1)
    act(state, "A2")  # seat 1: small district +1 (and x for seat 1: an extra tile, none aside)
    events = act(state, "A1")
    lost = [e for e in events if e.kind == "extra_lost"]
    assert len(lost) == 1 and lost[0].data["tile"] == "S2"
    assert state.tiles.set_aside[0] == [parse_tile("S2")]
    assert state.view(0).set_aside_counts == (1, 0)
    assert state.current_player == 1 and state.view(1).phase == "place"
    assert state.score == [1, 1]


def test_I7_random_reveal_comes_from_own_set_aside_tiles() -> None:
    board = make_board(EXTRA, rules="ireland")
    toks = [token(0, "x1", "extra_tile"), token(1, "m", "mission")]
    for seed in range(6):
        game = Game.create(board, 2, cards=tuple(never_cards(0, 8)), tokens=tuple(toks))
        setup = Setup((tiles("E E"), tiles("S1 S1")), (tiles("F F"), tiles("S4 S4")), (), 0,
                      tuple(f"Z{i}" for i in range(1, 9)), ("x1", "m"))
        state = game.from_setup(setup, seed=seed, strict=False)
        act(state, "A1")
        assert state.view(0).extra_tile == "F"  # never seat 1's S4
        assert state.tiles.set_aside == [[parse_tile("F")], tiles_list("S4 S4")]


def tiles_list(codes: str) -> list[int]:
    return list(tiles(codes))


REGIONS = ["r1", "r2", "r3", "r4"]


def _strict_setup(first_tile: str, aside: str) -> tuple[int, ...]:
    """A full supply (36 tiles minus ``aside``) whose first tile is ``first_tile``."""
    rest = list(starting_tiles(2)[0])
    for t in tiles(aside):
        rest.remove(t)
    rest.remove(parse_tile(first_tile))
    return (parse_tile(first_tile), *rest)


def test_I7_record_stores_the_chance_outcome_and_replays() -> None:
    # Shipped cards and tokens (a record names them by id); 4 provinces for card I04.
    board = make_board(EXTRA, rules="ireland", regions=REGIONS)
    game = Game.create(board, 2)
    setup = Setup(
        supplies=(_strict_setup("E", "E F S1 S2"), _strict_setup("E", "E F S3 S4")),
        set_aside=(tiles("E F S1 S2"), tiles("E F S3 S4")),
        mission_deck=("I09", "I10", "I11", "I12"),
        start_player=0,
        display=("I01", "I02", "I03", "I04", "I05", "I06", "I07", "I08"),
        tower_tokens=("extra1", "points4a"),
    )
    state = game.from_setup(setup, seed=5)
    act(state, "A1", "S2")
    act(state, "A2")  # the revealed S2 on the small district: +2
    act(state, "E2")  # seat 1: Energy next to p: 1 + 4
    assert state.score == [1 + 2, 1 + 4]
    rec = make_record(state)
    assert {"chance": "reveal S2"} in rec["actions"]
    for seed in (None, 0, 1, 2, 3, 99):
        rec2 = copy.deepcopy(rec)
        rec2["seed"] = seed
        again = replay(rec2, board=board)
        assert again.occupancy.owner == state.occupancy.owner and again.occupancy.tile == state.occupancy.tile
        assert again.score == state.score and again.tiles.set_aside == state.tiles.set_aside
        assert again.history_json() == state.history_json()
    # The replay takes the outcome from the record: another set-aside tile changes the game...
    tampered = copy.deepcopy(rec)
    ix = tampered["actions"].index({"chance": "reveal S2"})
    tampered["actions"][ix] = {"chance": "reveal S4"}  # not among seat 0's set-aside tiles
    with pytest.raises(RecordError):
        replay(tampered, board=board)
    missing = copy.deepcopy(rec)
    del missing["actions"][ix]
    with pytest.raises(RecordError):
        replay(missing, board=board)


# ---------------------------------------------------------------- I-8
# A1=E  B1=tower d  C1=F  D1=E
#   A2=E  B2=E  C2=tower x  D2=E
# d is next to A1, C1, A2, B2; x is next to B2, C1, D1, D2. B2 is next to A2 and C1.
MARKS = """
E T:d F E
E E T:x E
"""


def g2_cards() -> list[MissionCard]:
    return [card(0, "G2", {"type": "farm_group", "size": 2}), *never_cards(1, 7)]


def test_I8_marker_never_doubles_same_turn_mission() -> None:
    # B2 is next to d (x2 marker) and x (extra tile). The extra Energy on A2 makes a group
    # of 2 and fulfils G2 in the same turn: G2 pays 12 once and cannot take the marker.
    board = make_board(MARKS, rules="ireland")
    toks = [token(0, "dbl", "double"), token(1, "xt", "extra_tile")]
    state = start(board, 2, ["E", "E"], aside=["E", ""], tokens=toks, cards=g2_cards())
    events = act(state, "B2")
    assert "double_marker" not in kinds(events)  # not yet: first the extra tile
    assert state.view(0).phase == "extra"
    events = act(state, "A2")
    assert state.score[0] == 1 + 2 + 12
    v = state.view(0)
    assert v.phase == "mark" and v.current_player == 0
    assert sorted(v.legal_actions) == sorted(f"mark Z{i}" for i in range(1, 8))
    with pytest.raises(IllegalActionError):
        act(state, "mark G2")
    act(state, "mark Z3")
    assert state.view(1).marks == (("Z3",), ())
    assert state.current_player == 1
    assert state.score[0] == 15  # nothing delayed, nothing doubled


def test_I8_marker_placed_at_end_of_turn_after_all_placements() -> None:
    board = make_board(MARKS, rules="ireland")
    toks = [token(0, "dbl", "double"), token(1, "xt", "extra_tile")]
    state = start(board, 2, ["E", "E"], aside=["F", ""], tokens=toks, cards=g2_cards())
    events = act(state, "B2")
    # The x2 marker waits while the extra tile is placed: no mark phase before it.
    assert state.view(0).phase == "extra"
    assert not any(e.kind == "double_marker" for e in events)
    act(state, "C1")  # the extra Food Farm
    assert state.view(0).phase == "mark"
    act(state, "mark G2")
    assert state.cards.marks[0] == [0]


def test_I8_marker_doubles_the_high_value() -> None:
    board = make_board(MARKS, rules="ireland")
    toks = [token(0, "dbl", "double"), token(1, "m", "mission")]
    state = start(board, 2, ["E E", "E E"], tokens=toks, cards=g2_cards())
    act(state, "A1")  # next to d: an x2 marker
    v = state.view(0)
    assert v.phase == "mark"
    assert sorted(v.legal_actions) == sorted(["mark G2"] + [f"mark Z{i}" for i in range(1, 8)])
    act(state, "mark G2")
    act(state, "D1")  # seat 1
    act(state, "A2")  # seat 0: group of 2, first to fulfil G2: 12, doubled
    assert state.score[0] == 1 + 2 + 24
    assert state.breakdown(0)["public_missions"] == 24


def test_I8_marker_doubles_the_low_value() -> None:
    board = make_board(MARKS, rules="ireland")
    toks = [token(0, "dbl", "double"), token(1, "m", "mission")]
    state = start(board, 2, ["E F E", "E E"], tokens=toks, cards=g2_cards())
    act(state, "A1")
    act(state, "mark G2")
    act(state, "D1")  # seat 1
    act(state, "C1")  # seat 0: Food, no group of 2
    act(state, "D2")  # seat 1: group of 2, first: 12
    assert state.score[1] == 1 + 2 + 12
    act(state, "A2")  # seat 0: group of 2, not first: 8, doubled
    assert state.score[0] == 1 + 1 + 2 + 16
    assert state.breakdown(0)["public_missions"] == 16


def test_I8_other_players_marker_does_not_double_mine() -> None:
    board = make_board(MARKS, rules="ireland")
    toks = [token(0, "dbl", "double"), token(1, "m", "mission")]
    state = start(board, 2, ["E E", "E E"], tokens=toks, cards=g2_cards())
    act(state, "D1")  # seat 0, not next to d
    act(state, "A1")  # seat 1 next to d: marker on G2
    act(state, "mark G2")
    act(state, "D2")  # seat 0: group of 2, first: 12, not doubled
    assert state.score[0] == 1 + 2 + 12


def test_I8_not_twice_on_the_same_mission_and_only_on_displayed_ones() -> None:
    # B2 is next to two double towers: two markers, but not both on G2.
    board = make_board(MARKS, rules="ireland")
    toks = [token(0, "d1", "double"), token(1, "d2", "double")]
    cards = [*g2_cards(), card(8, "DK", {"type": "farm_group", "size": 3})]
    state = start(board, 2, ["E", "E"], tokens=toks, cards=cards, deck=("DK",))
    act(state, "B2")
    with pytest.raises(IllegalActionError):
        act(state, "mark DK")  # in the deck, not on display
    act(state, "mark G2")
    v = state.view(0)
    assert v.phase == "mark"
    assert "mark G2" not in v.legal_actions
    assert len(v.legal_actions) == 7
    with pytest.raises(IllegalActionError):
        act(state, "mark G2")
    act(state, "mark Z1")
    assert state.view(1).marks == (("G2", "Z1"), ())


def test_I8_no_mission_left_marker_lost() -> None:
    # Eight missions "a farm group of 1": the first tile fulfils all of them (8 x 12).
    board = make_board(MARKS, rules="ireland")
    toks = [token(0, "dbl", "double"), token(1, "m", "mission")]
    cards = [card(i, f"O{i}", {"type": "farm_group", "size": 1}) for i in range(8)]
    state = start(board, 2, ["E E", "E"], tokens=toks, cards=cards)
    events = act(state, "A1")
    assert state.score[0] == 1 + 8 * 12
    assert "double_lost" in kinds(events)
    assert state.current_player == 1 and state.view(1).phase == "place"
    assert state.cards.marks[0] == []


def test_I8_mission_already_marked_by_same_player_does_not_count() -> None:
    board = make_board(MARKS, rules="ireland")
    toks = [token(0, "d1", "double"), token(1, "d2", "double")]
    cards = [*[card(i, f"O{i}", {"type": "farm_group", "size": 1}) for i in range(7)],
             card(7, "G3", {"type": "farm_group", "size": 3})]
    state = start(board, 2, ["E", "E"], tokens=toks, cards=cards)
    act(state, "B2")  # 7 x 12 and two markers
    assert state.score[0] == 1 + 7 * 12
    assert state.view(0).legal_actions == ("mark G3",)
    events = act(state, "mark G3")
    assert "double_lost" in kinds(events)  # the second marker has nothing left
    assert state.cards.marks[0] == [7]
    assert state.current_player == 1


# ---------------------------------------------------------------- I-9

def test_I9_mission_token_draws_top_card_secretly_and_scores_first_value_at_end() -> None:
    board = make_board(MARKS, rules="ireland")
    toks = [token(0, "m1", "mission"), token(1, "m2", "mission")]
    cards = [*never_cards(0, 8),
             card(8, "K1", {"type": "farm_group", "size": 2}, (8, 5)),
             card(9, "K2", {"type": "offshore_farms", "count": 1}, (6, 4))]
    state = start(board, 2, ["E E", "E E"], tokens=toks, cards=cards, deck=("K1", "K2"))
    act(state, "A1")  # seat 0 next to d: top card K1
    assert state.view(0).missions == ("K1",)
    assert state.view(1).missions == ()
    assert state.view(1).deck_count == 1
    assert state.view(0).mission_progress == ((1, 2, False),)  # a group of 1 of the 2 needed
    act(state, "D1")  # seat 1 next to x: K2
    assert state.view(1).missions == ("K2",)
    assert state.view(1).mission_progress == ((0, 1, False),)  # no offshore farm yet
    assert state.view(0).mission_counts == (1, 1) and state.view(0).deck_count == 0
    act(state, "A2")  # seat 0: group of 2 fulfils K1, but it is secret: nothing now
    assert state.view(0).mission_progress == ((2, 2, True),)
    assert state.score == [3, 1]
    act(state, "D2")  # seat 1: group of 2; game over
    assert state.is_terminal()
    # K1 pays its first value 8 at the end; K2 (an offshore farm) is not fulfilled.
    assert state.score == [3 + 8, 3]
    assert state.breakdown(0)["missions"] == 8 and state.breakdown(0)["public_missions"] == 0
    assert state.breakdown(1)["missions"] == 0


def test_I9_empty_deck_gives_nothing() -> None:
    board = make_board(MARKS, rules="ireland")
    toks = [token(0, "m1", "mission"), token(1, "m2", "mission")]
    cards = [*never_cards(0, 8), card(8, "K1", {"type": "farm_group", "size": 1}, (6, 4))]
    state = start(board, 2, ["E", "E"], tokens=toks, cards=cards, deck=("K1",))
    act(state, "A1")
    events = act(state, "D1")  # seat 1 next to x: the deck is empty
    assert [e.kind for e in events if e.kind == "tower"] == ["tower"]
    assert state.view(1).missions == () and state.view(1).mission_counts == (1, 0)
    assert state.is_terminal()
    assert state.score == [1 + 6, 1]


def test_I8_marker_on_the_last_turn_is_placed_before_the_game_ends() -> None:
    board = make_board(MARKS, rules="ireland")
    toks = [token(0, "dbl", "double"), token(1, "m", "mission")]
    state = start(board, 2, ["E", "E"], tokens=toks, cards=g2_cards())
    act(state, "D1")
    act(state, "A1")  # the last tile of the game, next to d
    assert not state.is_terminal()
    assert state.view(1).phase == "mark"
    act(state, "mark G2")
    assert state.is_terminal()
    assert state.score == [1, 1]  # a marker alone pays nothing


def test_I7_extra_tile_on_the_last_turn_is_placed_before_the_game_ends() -> None:
    board = make_board(EXTRA, rules="ireland")
    toks = [token(0, "x1", "extra_tile"), token(1, "p4", "points", 4)]
    state = start(board, 2, ["S1", "E"], aside=["", "F"], tokens=toks)
    act(state, "A2")  # seat 0: small district +1; x: no set-aside tile, lost
    act(state, "A1")  # seat 1, the last hand tile, next to x: reveal F
    assert not state.is_terminal() and state.view(1).phase == "extra"
    act(state, "D1")  # next to p: 1 + 4
    assert state.is_terminal()
    assert state.score == [1, 1 + 1 + 4]
    assert state.occupancy.placed == [1, 2]


def test_I7_second_extra_tile_lost_when_set_aside_runs_out() -> None:
    # B2 is next to t and u, both extra_tile: two reveals owed, one set-aside tile.
    board = make_board(TWO_TOWERS, rules="ireland")
    toks = [token(0, "x1", "extra_tile"), token(1, "x2", "extra_tile")]
    state = start(board, 2, ["E", "E"], aside=["F", ""], tokens=toks)
    act(state, "B2")
    assert state.view(0).extra_tile == "F"
    events = act(state, "C1")
    assert "extra_lost" in kinds(events)
    assert state.current_player == 1
    assert state.score == [2, 0] and state.tiles.set_aside[0] == []


def test_I7_a_revealed_tile_left_face_up_is_never_revealed_again() -> None:
    """I-7 ruling 2026-11-30: a revealed tile that found no space stays set aside face up;
    a later extra tile draws only among the tiles still face down."""
    board = make_board(EXTRA, rules="ireland")
    toks = [token(0, "x1", "extra_tile"), token(1, "p1", "extra_tile")]
    state = start(board, 2, ["E E", "S1 E E"], aside=["S2 E", ""], tokens=toks, first=1)
    act(state, "A2")  # seat 1 fills the only settlement space
    act(state, "A1", "S2")  # seat 0 next to x: reveals S2, which has no space: face up
    assert state.view(1).known_set_aside == (("S2",), ())
    assert state.face_down(0) == [parse_tile("E")]
    act(state, "B2")  # seat 1 (its own extra tile from x is lost: nothing set aside)
    state.apply("D2")  # seat 0 next to p: a second extra tile
    assert state.is_chance_node() and state.current_player == CHANCE
    assert state.chance_outcomes() == [(parse_tile("E"), 1.0)]
    with pytest.raises(IllegalActionError):
        state.apply("reveal S2")  # the face-up S2 cannot be revealed again
    assert state.is_chance_node()
    state.apply("reveal E")
    assert state.extra_tile == parse_tile("E")
    assert state.view(0).known_set_aside == (("S2",), ())


def test_I8_mission_ids_are_matched_without_regard_to_case() -> None:
    """Custom data with lower-case mission ids: `mark m2` is listed, accepted and doubles."""
    board = make_board(MARKS, rules="ireland")
    toks = [token(0, "dbl", "double"), token(1, "m", "mission")]
    cards = [card(0, "m2", {"type": "farm_group", "size": 2}), *never_cards(1, 7)]
    state = start(board, 2, ["E E", "E E"], tokens=toks, cards=cards)
    act(state, "A1")
    v = state.view(0)
    assert "mark m2" in v.legal_actions and "mark m2" in state.legal_actions
    assert "mark M2" in state.legal_actions  # typed in another case: the same card
    act(state, "MARK M2")
    assert state.view(0).marks == (("m2",), ())
    act(state, "D1")
    act(state, "A2")
    assert state.breakdown(0)["public_missions"] == 24
