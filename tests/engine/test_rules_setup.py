"""Scotland setup (S-) and turn (P-) rules on small hand-made maps."""

from __future__ import annotations

import json

import pytest

from engine.scotland_kit import board, cards, play, region_card, rules_of, start, tiles
from mapkit import map_data
from rebirth.engine.actions import IllegalActionError
from rebirth.engine.board import MapError, parse_board
from rebirth.engine.game import Game, Setup, SetupError
from rebirth.engine.state import State
from rebirth.engine.tiles import starting_tiles, tile_code, tile_counts

FULL = (12, 12, 3, 3, 3, 3)  # E, F, S1, S2, S3, S4
AFTER_RETURN = (9, 9, 3, 2, 2, 2)


def legal(state: State) -> set[str]:
    return {str(a) for a in state.legal_actions}


# ---------------------------------------------------------------------- S


def test_S1_each_player_has_36_tiles_of_one_colour() -> None:
    for n in (2, 3):
        in_play, returned = starting_tiles(n)
        assert len(in_play) == 36
        assert tile_counts(in_play) == FULL
        assert returned == ()
    b = board("E F B S:a")
    game = Game.create(b, 3, cards=())
    setup = game.deal(11)
    for p in range(3):
        assert tile_counts(setup.supplies[p] + setup.set_aside[p]) == FULL
    game.check_setup(setup)  # strict: accepted
    short = Setup((setup.supplies[0][1:], *setup.supplies[1:]), setup.set_aside, ())
    with pytest.raises(SetupError, match="S-1"):
        game.check_setup(short)
    # Each seat places tiles of its own colour: the owner of a placed tile is the placer.
    state = start(b, ["E", "F", "S1"])
    play(state, "A1", "B1", "D1")
    assert [o for o, _ in state.view(None).spaces] == [0, 1, -1, 2]


def test_S2_four_players_return_nine_fixed_tiles() -> None:
    in_play, returned = starting_tiles(4)
    assert len(in_play) == 27
    assert tile_counts(in_play) == AFTER_RETURN
    assert len(returned) == 9
    assert tile_counts(returned) == (3, 3, 0, 1, 1, 1)
    b = board("E F B S:a")
    game = Game.create(b, 4, cards=())
    setup = game.deal(5)
    for p in range(4):
        assert len(setup.supplies[p]) == 25 and len(setup.set_aside[p]) == 2
        assert tile_counts(setup.supplies[p] + setup.set_aside[p]) == AFTER_RETURN
    state = game.from_setup(setup)
    for p in range(4):
        assert tile_counts(state.tiles_of(p)["returned"]) == (3, 3, 0, 1, 1, 1)
    # A 36-tile set is not a legal 4-player setup.
    game3 = Game.create(b, 3, cards=())
    full = game3.deal(5)
    bad = Setup((*full.supplies, full.supplies[0]), (*full.set_aside, full.set_aside[0]), ())
    with pytest.raises(SetupError, match="S-2"):
        game.check_setup(bad)


def test_S3_two_tiles_set_aside_seen_only_by_owner() -> None:
    b = board("E F B S:a")
    game = Game.create(b, 2, cards=())
    setup = game.deal(3)
    assert [len(a) for a in setup.set_aside] == [2, 2]
    assert [len(s) for s in setup.supplies] == [34, 34]
    state = game.from_setup(setup)
    for p in range(2):
        own = tuple(tile_code(t) for t in setup.set_aside[p])
        assert state.view(p).set_aside == own
        assert state.view(p).public_set_aside == ()
    assert state.view(None).set_aside == ()
    assert state.view(0).set_aside_counts == (2, 2)
    wrong = Setup(setup.supplies, (setup.set_aside[0][:1], setup.set_aside[1]), ())
    with pytest.raises(SetupError):
        game.check_setup(wrong)


def _s5_state(seat1_supply: str, seat1_aside: str, deck: tuple[str, ...]) -> State:
    b = board("""
    B K:k B B
    B B B B
    """)
    mc = cards(region_card("M1", "north"), region_card("M2", "north"),
               region_card("M3", "north"))
    return start(b, ["E E E", seat1_supply], aside=["S4 S4", seat1_aside], deck=deck,
                 mission_cards=mc)


def test_S5_hand_supply_set_aside_and_missions_hidden_from_others() -> None:
    a = _s5_state("F S1 E", "E F", ("M1", "M2", "M3"))
    b = _s5_state("F E S2", "S3 S4", ("M1", "M3", "M2"))
    # The hand is the first supply tile; the owner sees it, nobody else does.
    assert a.view(1).hand == "F" and a.view(0).hand == "E" and a.view(None).hand is None
    assert a.view(0).supply_counts == (2, 2)
    assert a.view(0).to_json() == b.view(0).to_json()
    assert a.view(None).to_json() == b.view(None).to_json()
    play(a, "A1")  # seat 0 next to the cathedral: draws M1
    play(b, "A1")
    ev_a = a.apply("C1")  # seat 1 next to the cathedral: M2 in a, M3 in b
    ev_b = b.apply("C1")
    assert a.view(1).missions == ("M2",) and b.view(1).missions == ("M3",)
    assert a.view(1).hand == "S1" and b.view(1).hand == "E"
    assert a.view(0).missions == ("M1",) and a.view(0).mission_counts == (1, 1)
    assert a.view(0).to_json() == b.view(0).to_json()
    assert a.view(None).to_json() == b.view(None).to_json()
    assert [e.to_json(0) for e in ev_a] == [e.to_json(0) for e in ev_b]
    cath = [e for e in ev_a if e.rule == "K-1"]
    assert len(cath) == 1 and cath[0].seat == 1
    assert cath[0].for_seat(1).private == {"mission": "M2"}
    assert cath[0].for_seat(0).private is None
    assert "M2" not in cath[0].render("en", ["A", "B"], seat=0)
    assert "M2" not in json.dumps(a.view(0).to_json())


def test_S6_two_players_neutral_tiles_on_blockers() -> None:
    b = board("E* F* B B S:a")
    two = start(b, ["E", "F"])
    v = two.view(None)
    assert v.spaces[0] == (4, None) and v.spaces[1] == (4, None)
    assert legal(two) == {"C1", "D1"}
    assert two.occupancy.placed == [0, 0]
    with pytest.raises(IllegalActionError):
        two.apply("A1")
    three = start(b, ["E", "F", "E"])
    assert three.view(None).spaces[0] == (-1, None)
    assert legal(three) == {"A1", "C1", "D1"}
    # Neutral tiles belong to nobody: no castle claim, no count on a mission card.
    nb = board("E* C:x B B@south", regions=["north", "south"])
    mc = cards(region_card("N", "north"))
    neutral = start(nb, ["E", "F"], mission_cards=mc)
    assert neutral.castles.holder == [-1]
    assert [neutral.mission_value(0, q) for q in range(2)] == [0, 0]
    ev = neutral.apply("C1")
    assert [(e.rule, e.seat) for e in ev if e.kind == "castle_claim"] == [("C-1", 0)]
    assert [neutral.mission_value(0, q) for q in range(2)] == [1, 0]


def test_S7_start_player_then_clockwise() -> None:
    b = board("B B B B B B B B")
    state = start(b, ["E E", "E E", "E E"], start_player=1)
    order = []
    for lab in ("A1", "C1", "E1", "G1", "B1", "D1"):
        order.append(state.current_player)
        state.apply(lab)
    assert order == [1, 2, 0, 1, 2, 0]
    four = start(board("B B B B"), ["E", "E", "E", "E"], start_player=3)
    seen = []
    for lab in ("A1", "B1", "C1", "D1"):
        seen.append(four.current_player)
        four.apply(lab)
    assert seen == [3, 0, 1, 2]


def test_S8_scotland_missions_are_one_shuffled_face_down_deck() -> None:
    b = board("""
    B K:k B
    B B B
    """)
    ids = [f"card-{i:02d}x" for i in range(32)]
    mc = cards(*(region_card(c, "north") for c in ids))
    game = Game.create(b, 2, cards=mc)
    d1, d2 = game.deal(1), game.deal(2)
    assert sorted(d1.mission_deck) == sorted(ids) and len(d1.mission_deck) == 32
    assert d1.display == () and d1.tower_tokens == ()
    assert d1.mission_deck != d2.mission_deck  # shuffled
    state = game.from_setup(d1)
    v = state.view(None)
    assert v.deck_count == 32 and v.display == ()
    text = json.dumps(v.to_json())
    assert not any(c in text for c in ids)
    # Cards are drawn from the top of the deck, in its order.
    scripted = start(b, ["E", "F"], deck=("card-07x", "card-03x"), mission_cards=mc)
    play(scripted, "A1", "A2")
    assert scripted.cards.cathedral_cards == [[7], [3]]
    with pytest.raises(SetupError, match="Ireland"):
        game.check_setup(Setup(d1.supplies, d1.set_aside, d1.mission_deck[1:],
                               display=(d1.mission_deck[0],)), strict=False)


def _capacity_map(settle: int, farms: int, blockers: int) -> str:
    toks = [f"S:d{i}" for i in range(settle)] + ["B*"] * blockers + ["B"] * (farms - blockers)
    return "\n".join(" ".join(toks[i:i + 12]) for i in range(0, len(toks), 12))


def test_S9_capacity_is_checked_for_every_player_count() -> None:
    ok = parse_board(map_data(_capacity_map(36, 80, 32)), check_capacity=True)
    assert all(row.ok for row in ok.capacity())
    # No blockers: 72 farm spaces are enough for 3 and 4 players (and 2).
    parse_board(map_data(_capacity_map(36, 72, 0)), check_capacity=True)
    with pytest.raises(MapError, match=r"S-9.*3 players"):
        parse_board(map_data(_capacity_map(35, 80, 32)), check_capacity=True)
    with pytest.raises(MapError, match=r"S-9.*2 players"):
        parse_board(map_data(_capacity_map(36, 79, 32)), check_capacity=True)
    with pytest.raises(MapError, match=r"S-9.*2 players"):
        parse_board(map_data(_capacity_map(36, 80, 33)), check_capacity=True)
    with pytest.raises(MapError, match=r"S-9.*3 players"):
        parse_board(map_data(_capacity_map(36, 71, 0)), check_capacity=True)
    with pytest.raises(MapError, match="S-9"):
        parse_board(map_data("E F S:a"), check_capacity=True)


# ---------------------------------------------------------------------- P


def test_P1_hand_tile_goes_on_a_free_space_it_may_use() -> None:
    b = board("B B S:a")
    state = start(b, ["E E", "F"])
    assert state.tile_to_place == tiles("E")[0]
    play(state, "A1")
    assert legal(state) == {"B1"}  # A1 is occupied now
    with pytest.raises(IllegalActionError, match="occupied"):
        state.apply("A1")


def test_P2_energy_on_energy_or_blank_food_on_food_or_blank() -> None:
    b = board("E F B S:a")
    energy = start(b, ["E", "F"])
    assert legal(energy) == {"A1", "C1"}
    with pytest.raises(IllegalActionError):
        energy.apply("B1")
    food = start(b, ["F", "E"])
    assert legal(food) == {"B1", "C1"}
    with pytest.raises(IllegalActionError):
        food.apply("A1")


def test_P3_emergency_rule_only_without_matching_or_blank_space_never_settlement() -> None:
    b = board("E B F F S:a")
    state = start(b, ["E E E", "F F"])
    assert legal(state) == {"A1", "B1"}
    with pytest.raises(IllegalActionError, match="P-3"):
        state.apply("C1")  # food space while energy/blank are free
    play(state, "A1", "B1")  # seat 1 takes the blank
    assert legal(state) == {"C1", "D1"}  # emergency: food spaces, never E1
    ev = state.apply("C1")
    assert ev[0].rule == "P-1" and ev[0].data["emergency"] is True
    assert [e.points for e in ev if e.rule == "F-1"] == [1]
    assert legal(state) == {"D1"}  # seat 1's food farm: the last food space
    ev = state.apply("D1")
    # Seat 0's third Energy Farm: no farm space left, only settlement E1 is free:
    # the emergency rule never allows it, the tile is discarded (P-7).
    assert [(e.seat, e.data.get("tile")) for e in ev if e.rule == "P-7"] == [(0, "E")]
    assert state.view(None).spaces[4] == (-1, None)
    assert state.is_terminal()


def test_P4_settlement_only_on_settlement_space() -> None:
    b = board("E S:a B S:b")
    state = start(b, ["S1 S2", "E"])
    assert legal(state) == {"B1", "D1"}
    with pytest.raises(IllegalActionError, match="P-4"):
        state.apply("A1")
    with pytest.raises(IllegalActionError, match="P-4"):
        state.apply("C1")


def test_P5_scoring_order_tile_district_castle_cathedral() -> None:
    b = board("""
    S:a S:a^ C:x
    E K:k E
    """)
    mc = cards(region_card("M1", "north"), region_card("M2", "north"))
    state = start(b, ["S2 E", "S1"], deck=("M1", "M2"), mission_cards=mc)
    assert rules_of(state.apply("A1")) == ["P-1"]
    ev = state.apply("B1")  # port, completes district a, next to castle x and cathedral k
    assert rules_of(ev) == ["P-1", "T-6", "T-3", "T-3", "C-1", "K-1"]
    assert [(e.seat, e.points) for e in ev] == [(1, 0), (1, 1), (0, 5), (1, 3), (1, 0), (1, 0)]
    assert state.score == [5, 4]
    # A farm: its own group score first, then the castle, then the cathedral.
    ev = state.apply("C2")
    assert rules_of(ev)[:4] == ["P-1", "F-1", "C-3", "K-1"]
    # A small district on a port: influence first, then the port bonus.
    small = start(board("S:s^ B"), ["S3", "E"])
    assert rules_of(small.apply("A1")) == ["P-1", "T-2", "T-6"]
    assert small.score == [4, 0]


def test_P6_draw_after_placing_then_play_passes() -> None:
    b = board("B B B B")
    state = start(b, ["E F", "F E"])
    assert state.view(0).hand == "E" and state.view(0).supply_counts == (1, 1)
    state.apply("A1")
    assert state.view(0).hand == "F" and state.view(0).supply_counts == (0, 1)
    assert state.current_player == 1
    state.apply("C1")
    state.apply("B1")
    assert state.view(0).hand is None  # supply empty: nothing to draw
    assert state.current_player == 1


def test_P7_tile_without_legal_space_is_discarded_logged_and_player_draws() -> None:
    b = board("E F B B")
    state = start(b, ["E S2 F", "F E"])
    play(state, "A1")
    ev = state.apply("B1")  # then seat 0's S2 has no settlement space at all
    disc = [e for e in ev if e.rule == "P-7"]
    assert len(disc) == 1 and disc[0].seat == 0 and disc[0].data["tile"] == "S2"
    assert disc[0].points == 0
    assert state.view(None).discarded == (("S2",), ())
    assert state.score == [1, 1]
    # Seat 0 drew its next tile; the discard used its turn, play passed on.
    assert state.view(0).hand == "F"
    assert state.current_player == 1
    play(state, "C1", "D1")
    assert state.is_terminal()
    assert state.score == [2, 2]
    assert state.tiles_of(0)["discarded"] == list(tiles("S2"))


def test_P7_start_hand_without_space_is_discarded_before_first_turn() -> None:
    state = start(board("B B"), ["S4 E", "F"])
    assert state.view(None).discarded == (("S4",), ())
    assert state.current_player == 1
    assert state.view(0).hand == "E"
