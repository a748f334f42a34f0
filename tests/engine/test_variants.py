"""Scotland rule variants (RULES.md section V): each flips its ruling, and only it."""

from __future__ import annotations

import pytest

from engine.scotland_kit import board, paid, play, start
from rebirth.engine.game import Game, SetupError

E3_MAP = "B C:x B B C:edinburgh B B C:stirling B S:p S:q S:r B B"
CASTLE_MAP = """
B S:c B
B C:x S:b
B B B
"""


def test_variants_are_off_by_default_and_checked() -> None:
    b = board("B B")
    assert start(b, ["E", "F"]).game.variants == frozenset()
    with pytest.raises(SetupError, match="unknown variant"):
        Game.create(b, 2, ["no_such_variant"], cards=())
    with pytest.raises(SetupError, match="does not apply"):
        Game.create(b, 2, ["ireland_set_aside_known"], cards=())


@pytest.mark.parametrize("variant", [False, True])
def test_variant_medium_completer_wins(variant: bool) -> None:
    b = board("S:a S:a . S:b S:b S:b")
    vs = ["medium_completer_wins"] if variant else []
    state = start(b, ["S2 S1 S1", "S2 S2"], variants=vs)
    ev = play(state, "A1", "B1")  # seat 1 completes the medium district, 2-2
    assert paid(ev, "district") == ([(1, 5), (0, 3)] if variant else [(0, 5), (1, 3)])
    ev = play(state, "D1", "E1", "F1")  # seat 0 completes the large district, 2-2
    assert paid(ev, "district") == [(1, 8), (0, 5)]  # large: the completer still loses
    assert state.score == ([8, 13] if variant else [10, 11])


@pytest.mark.parametrize("variant", [False, True])
def test_variant_castle_tie_to_active(variant: bool) -> None:
    vs = ["castle_tie_to_active"] if variant else []
    state = start(board(CASTLE_MAP), ["E", "F"], variants=vs)
    ev = play(state, "C1", "B3")  # 1-1 spaces, 1-1 farms: a full tie
    got = [(e.kind, e.rule) for e in ev if e.kind in ("castle_take", "castle_hold")]
    assert got == ([("castle_take", "C-3")] if variant else [("castle_hold", "C-3")])
    assert state.castles.holder == ([1] if variant else [0])
    assert state.score == ([1, 6] if variant else [6, 1])
    # The farm count still decides first: a settlement never takes from a farm.
    farm_first = start(board(CASTLE_MAP), ["E", "S4"], variants=vs)
    play(farm_first, "C1", "B1")
    assert farm_first.castles.holder == [0]


@pytest.mark.parametrize("variant", [False, True])
def test_variant_incomplete_as_small(variant: bool) -> None:
    b = board("S:a S:a S:a . S:b S:b")
    vs = ["incomplete_as_small"] if variant else []
    state = start(b, ["S2 S4", "S3"], variants=vs)
    ev = play(state, "A1", "B1", "E1")
    assert state.is_terminal()
    final = [(e.seat, e.points) for e in ev if e.kind == "final_district"]
    if variant:
        assert final == [(0, 2), (1, 3), (0, 4)]  # each player's own influence
        assert state.score == [6, 3]
    else:
        assert final == [(1, 8), (0, 5), (0, 5)]  # ranks; alone: first rank only
        assert state.score == [10, 8]
    assert {e.rule for e in ev if e.kind == "final_district"} == {"T-7"}


@pytest.mark.parametrize("variant", [False, True])
def test_variant_stirling_literal(variant: bool) -> None:
    vs = ["stirling_literal"] if variant else []
    state = start(board(E3_MAP), ["E S1", "S4 S3", "E"], variants=vs)
    play(state, "A1", "J1", "G1", "L1", "K1")
    # Seats 0 and 1 tie on 7; Edinburgh is unheld; seat 2 (6) holds Stirling.
    assert state.score == [7, 7, 6]
    assert state.winners == ([2] if variant else [0, 1])
    how = state.tiebreak() or {}
    assert (how["by"], how.get("literal")) == (("castle", True) if variant else ("shared", None))


@pytest.mark.parametrize("variant", [False, True])
def test_E3_variant_stirling_literal_on_a_map_without_edinburgh(variant: bool) -> None:
    """E-3 ruling: with no Edinburgh in the chain, Stirling's holder still wins a tie he is
    not part of under stirling_literal (the tied players share without it)."""
    b = board("B C:x B B B B B C:stirling B S:p S:q S:r B B")
    assert b.tiebreak == (("castle", 1),)
    vs = ["stirling_literal"] if variant else []
    state = start(b, ["E S1", "S4 S3", "E"], variants=vs)
    play(state, "A1", "J1", "G1", "L1", "K1")
    assert state.score == [7, 7, 6]
    assert state.winners == ([2] if variant else [0, 1])


def test_variant_stirling_literal_keeps_edinburgh_first() -> None:
    state = start(board(E3_MAP), ["E", "F", "E"], variants=["stirling_literal"])
    play(state, "D1", "A1", "G1")  # seat 0 Edinburgh, seat 1 x, seat 2 Stirling: 6-6-6
    assert state.score == [6, 6, 6]
    assert state.winners == [0]


@pytest.mark.parametrize("variant", [False, True])
def test_variant_set_aside_public(variant: bool) -> None:
    vs = ["set_aside_public"] if variant else []
    state = start(board("B B B"), ["E", "F"], aside=["S4 S3", "E F"], variants=vs)
    v0, v1, spec = state.view(0), state.view(1), state.view(None)
    assert v0.set_aside == ("S4", "S3") and v1.set_aside == ("E", "F")
    if variant:
        assert v0.public_set_aside == (("S4", "S3"), ("E", "F"))
        assert spec.public_set_aside == (("S4", "S3"), ("E", "F"))
    else:
        assert v0.public_set_aside == () and spec.public_set_aside == ()
        assert v1.public_set_aside == ()
    assert spec.set_aside == ()
