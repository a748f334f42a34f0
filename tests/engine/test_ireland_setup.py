"""Ireland setup, hidden information and scoring categories (RULES.md S-4, S-6, S-8, I-1, P-5).

Every map here is drawn by hand with ``mapkit`` (odd rows sit half a hex to the
right); the expected values are worked out from RULES.md, not read off the engine.
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine.ireland_kit import card, never_cards, start, tiles, token
from mapkit import make_board
from rebirth.engine.actions import IllegalActionError
from rebirth.engine.board import MapError
from rebirth.engine.game import Game, Setup, SetupError
from rebirth.engine.missions import builtin_tokens
from rebirth.engine.state import State
from rebirth.engine.tiles import NEUTRAL, starting_tiles

# A small Ireland map: blockers on A1, C1, C2; tower t next to C1, D2, C2; castle c next to D2.
#   row 1:  A1=E*  B1=F   C1=X*  D1=tower t  E1=castle c
#   row 2:    A2=S:a  B2=S:b  C2=F*  D2=E
BLOCKED = """
E* F X* T:t C:c
S:a S:b F* E
"""


# ------------------------------------------------------------------ S-4

def _dealt(variants: tuple[str, ...] = ()) -> tuple[Game, Setup, State]:
    board = make_board(BLOCKED, rules="ireland")
    cs = never_cards(0, 10)
    game = Game.create(board, 3, variants, cards=tuple(cs),
                       tokens=(token(0, "p3", "points", 3), token(1, "m", "mission")))
    setup = game.deal(7)
    return game, setup, game.from_setup(setup)


def test_S4_four_tiles_set_aside_per_player_out_of_the_supply() -> None:
    _, setup, state = _dealt()
    full = Counter(starting_tiles(3)[0])
    for p in range(3):
        assert len(setup.set_aside[p]) == 4
        assert len(setup.supplies[p]) == 32
        assert Counter(setup.supplies[p] + setup.set_aside[p]) == full
        assert state.tiles.set_aside[p] == list(setup.set_aside[p])


def test_S4_set_aside_hidden_even_from_the_owner() -> None:
    _, _, state = _dealt()
    for seat in (0, 1, 2, None):
        v = state.view(seat)
        assert v.set_aside == ()
        assert v.public_set_aside == ()
        assert v.set_aside_counts == (4, 4, 4)
        assert "set_aside" in v.to_json() and v.to_json()["set_aside"] == []
    # The owner still sees their own hand (S-5): only the set-aside tiles are hidden.
    assert state.view(0).hand is not None


def test_S4_variant_ireland_set_aside_known_shows_them_to_the_owner_only() -> None:
    _, setup, state = _dealt(("ireland_set_aside_known",))
    for p in range(3):
        v = state.view(p)
        assert len(v.set_aside) == 4
        assert v.set_aside == tuple(("E", "F", "S1", "S2", "S3", "S4")[t]
                                    for t in setup.set_aside[p])
        assert v.public_set_aside == ()
    assert state.view(None).set_aside == ()


def test_S4_set_aside_tiles_are_never_placed_without_a_tower() -> None:
    # E-1: the game ends when the supplies are empty; the set-aside tiles stay out.
    board = make_board(BLOCKED, rules="ireland")
    state = start(board, 3, ["E", "F", "S2"], aside=["S4 S4 F E", "E E E E", "F F F F"])
    state.apply("D2")
    state.apply("B1")
    state.apply("A2")
    assert state.is_terminal()
    assert [sorted(a) for a in state.tiles.set_aside] == [sorted(tiles("S4 S4 F E")),
                                                 sorted(tiles("E E E E")),
                                                 sorted(tiles("F F F F"))]
    assert state.occupancy.placed == [1, 1, 1]


# ------------------------------------------------------------------ S-6

def test_S6_two_players_neutral_tile_on_every_blocker() -> None:
    board = make_board(BLOCKED, rules="ireland")
    state = start(board, 2, ["E", "F"])
    v = state.view(0)
    by_label = {s.label: v.spaces[s.index] for s in board.spaces}
    for lab in ("A1", "C1", "C2"):
        assert by_label[lab] == (NEUTRAL, None)
    for lab in ("B1", "A2", "B2", "D2"):
        assert by_label[lab] == (-1, None)
    # Blocker hexes are not legal: the Energy Farm has only D2 (A1, C1 hold neutral tiles).
    assert [str(a) for a in state.legal_actions] == ["D2"]
    with pytest.raises(IllegalActionError):
        state.apply("C1")


def test_S6_neutral_tiles_count_for_nobody() -> None:
    board = make_board(BLOCKED, rules="ireland")
    cards = [card(0, "G2", {"type": "farm_group", "size": 2}),
             *never_cards(1, 7)]
    state = start(board, 2, ["E S1", "F S1"], cards=cards)
    state.apply("D2")  # seat 0: Energy next to neutral flexible C1 and neutral food C2
    assert state.score == [1, 0]  # a group of 1: the neutral tiles do not join it (F-1)
    assert state.castles.holder == [0]  # castle c: seat 0 is the first (the neutral tiles hold nothing)
    assert state.tara_count(0, 0) == 1 and state.tara_count(0, 1) == 0
    state.apply("B1")  # seat 1: Food next to neutral energy A1 and neutral flexible C1
    assert state.score == [1, 1]
    assert state.view(None).fulfilled["G2"] == ()


def test_S6_24_neutral_tiles_on_the_shipped_ireland_map() -> None:
    g2 = Game.builtin("ireland", 2)
    s2 = g2.new_state(3)
    assert len(g2.board.blockers) == 24
    assert sum(1 for o in s2.occupancy.owner if o == NEUTRAL) == 24
    assert all(s2.occupancy.owner[h] == NEUTRAL for h in g2.board.blockers)


def test_S6_no_neutral_tiles_with_three_players() -> None:
    board = make_board(BLOCKED, rules="ireland")
    state = start(board, 3, ["E", "F", "E"])
    assert all(o == -1 for o in state.occupancy.owner)
    assert sorted(str(a) for a in state.legal_actions) == ["A1", "C1", "D2"]


# ------------------------------------------------------------------ S-8

TOWERS3 = """
T:a E F T:b
S:x S:x E T:c
"""


def test_S8_deal_one_token_per_tower_eight_missions_on_display() -> None:
    board = make_board(TOWERS3, rules="ireland")
    cs = never_cards(0, 11)
    toks = [token(0, "p3", "points", 3), token(1, "p4", "points", 4), token(2, "x", "extra_tile"),
            token(3, "d", "double"), token(4, "m", "mission")]
    game = Game.create(board, 2, cards=tuple(cs), tokens=tuple(toks))
    ids = {c.id for c in cs}
    seen_tokens: set[tuple[str, ...]] = set()
    seen_display: set[tuple[str, ...]] = set()
    for seed in range(12):
        setup = game.deal(seed)
        assert len(setup.display) == 8
        assert len(setup.mission_deck) == 3
        assert set(setup.display) | set(setup.mission_deck) == ids
        assert not set(setup.display) & set(setup.mission_deck)
        assert len(setup.tower_tokens) == 3  # one per tower
        assert len(set(setup.tower_tokens)) == 3
        assert set(setup.tower_tokens) <= {t.id for t in toks}
        seen_tokens.add(setup.tower_tokens)
        seen_display.add(setup.display)
        state = game.from_setup(setup)  # strict: a complete, legal setup
        v = state.view(None)
        # Tokens lie face up, missions on display are public, the deck is face down.
        assert v.tower_tokens == setup.tower_tokens
        assert v.display == setup.display
        assert v.deck_count == 3
    assert len(seen_tokens) > 1 and len(seen_display) > 1  # shuffled, not fixed


def test_S8_setup_needs_exactly_eight_displayed_missions() -> None:
    board = make_board(TOWERS3, rules="ireland")
    cs = never_cards(0, 9)
    game = Game.create(board, 2, cards=tuple(cs), tokens=tuple(
        token(i, f"m{i}", "mission") for i in range(3)))
    ok = Setup((tiles("E"), tiles("F")), ((), ()), ("Z9",), 0,
               tuple(f"Z{i}" for i in range(1, 9)), ("m0", "m1", "m2"))
    game.from_setup(ok, strict=False)
    seven = Setup((tiles("E"), tiles("F")), ((), ()), ("Z8", "Z9"), 0,
                  tuple(f"Z{i}" for i in range(1, 8)), ("m0", "m1", "m2"))
    with pytest.raises(SetupError):
        game.from_setup(seven, strict=False)
    two_tokens = Setup((tiles("E"), tiles("F")), ((), ()), ("Z9",), 0,
                       tuple(f"Z{i}" for i in range(1, 9)), ("m0", "m1"))
    with pytest.raises(SetupError):
        game.from_setup(two_tokens, strict=False)
    twice = Setup((tiles("E"), tiles("F")), ((), ()), ("Z9",), 0,
                  tuple(f"Z{i}" for i in range(1, 9)), ("m0", "m0", "m1"))
    with pytest.raises(SetupError):
        game.from_setup(twice, strict=False)


# ------------------------------------------------------------------ I-1

def test_I1_no_cathedrals_on_ireland() -> None:
    with pytest.raises(MapError, match="cathedral"):
        make_board("E F K:k\nS:a E F", rules="ireland")
    board = make_board(BLOCKED, rules="ireland")
    assert board.cathedrals == ()
    state = start(board, 3, ["E", "F", "E"])
    state.apply("D2")
    # No cathedral pieces and no secret card from placing next to structures.
    v = state.view(0)
    assert v.cathedral_pieces == ()
    assert v.missions == () and v.mission_counts == (0, 0, 0)


def test_I1_towers_only_on_ireland() -> None:
    with pytest.raises(MapError, match="tower"):
        make_board("E F T:t\nS:a E F", rules="scotland")


# ---------------------------------------------------- categories and views

def test_P5_ireland_breakdown_categories() -> None:
    board = make_board(BLOCKED, rules="ireland")
    state = start(board, 3, ["E", "F", "E"])
    assert state.categories == ("farms", "settlements", "castles", "missions", "offshore",
                                "towers", "public_missions")
    for q in range(3):
        assert list(state.breakdown(q)) == list(state.categories)
        assert "ports" not in state.breakdown(q)
    assert list(state.view(None).breakdown[0]) == list(state.categories)


def test_S5_view_never_shows_other_secret_mission_or_face_down_tiles() -> None:
    board = make_board(BLOCKED, rules="ireland")
    cards = [*never_cards(0, 8), card(8, "SECRETQ", {"type": "farm_group", "size": 1})]
    state = start(board, 3, ["E", "F", "E"], aside=["S4 S4 S4 S4", "S3 S3 S3 S3", "S2 S2 S2 S2"],
                  cards=cards, deck=("SECRETQ",))
    events = state.apply("D2")  # next to tower t: mission token, seat 0 draws SECRETQ (I-9)
    assert state.view(0).missions == ("SECRETQ",)
    for seat in (1, 2, None):
        v = state.view(seat)
        assert v.missions == ()
        assert v.mission_counts == (1, 0, 0)
        assert "SECRETQ" not in repr(v.to_json())
        assert v.set_aside == () and v.public_set_aside == ()
        for e in events:
            assert "SECRETQ" not in repr(e.for_seat(seat).to_json(seat))
    assert any("SECRETQ" in repr(e.for_seat(0).to_json(0)) for e in events)
    # Seat 0 sees its card but none of its own face-down tiles (S-4).
    assert state.view(0).set_aside == ()


def test_S8_shipped_ireland_deal_uses_all_14_tokens_and_12_missions() -> None:
    game = Game.builtin("ireland", 3)
    setup = game.deal(11)
    assert len(game.board.towers) == 14
    assert sorted(setup.tower_tokens) == sorted(t.id for t in builtin_tokens())
    assert len(setup.display) == 8 and len(setup.mission_deck) == 4
    assert sorted(setup.display + setup.mission_deck) == sorted(c.id for c in game.cards)


def test_I6_shipped_token_mix() -> None:
    toks = builtin_tokens()
    assert Counter(t.kind for t in toks) == {"points": 5, "extra_tile": 3, "double": 3,
                                             "mission": 3}
    assert sorted(t.points for t in toks if t.kind == "points") == [3, 3, 4, 4, 5]


def test_I11_shipped_missions_four_per_value_pair_from_the_vocabulary() -> None:
    game = Game.builtin("ireland", 2)
    assert len(game.cards) == 12
    assert Counter(c.values for c in game.cards) == {(12, 8): 4, (8, 5): 4, (6, 4): 4}
    assert {c.condition["type"] for c in game.cards} <= {
        "farm_group", "castles_held", "towers_adjacent", "tiles_in_provinces",
        "district_firsts", "offshore_farms"}


def test_S8_game_refuses_too_few_missions_or_tokens() -> None:
    board = make_board(TOWERS3, rules="ireland")
    toks = tuple(token(i, f"m{i}", "mission") for i in range(3))
    with pytest.raises(SetupError):
        Game.create(board, 2, cards=tuple(never_cards(0, 7)), tokens=toks)
    with pytest.raises(SetupError):
        Game.create(board, 2, cards=tuple(never_cards(0, 8)), tokens=toks[:2])
