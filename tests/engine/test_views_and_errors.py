"""Views (S-5) and refused input: bad maps, illegal and malformed actions."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from engine.scotland_kit import board, cards, play, region_card, start
from mapkit import map_data
from rebirth.engine.actions import ActionSyntaxError, IllegalActionError, parse_action
from rebirth.engine.board import MapError, parse_board

VIEW_MAP = """
B K:k B B
S:a S:b B B
"""


def test_S5_view_shows_own_hand_set_aside_missions_never_another_seats() -> None:
    mc = cards(region_card("SECRET-ZERO", "north"), region_card("SECRET-ONE", "north"))
    state = start(board(VIEW_MAP), ["E S3", "F S4"], aside=["S1 S2", "E E"],
                  deck=("SECRET-ZERO", "SECRET-ONE"), mission_cards=mc)
    play(state, "A1", "C1")  # both next to the cathedral: one card each
    v0, v1, spec = state.view(0), state.view(1), state.view(None)
    assert (v0.hand, v0.set_aside, v0.missions) == ("S3", ("S1", "S2"), ("SECRET-ZERO",))
    assert (v1.hand, v1.set_aside, v1.missions) == ("S4", ("E", "E"), ("SECRET-ONE",))
    assert (spec.hand, spec.set_aside, spec.missions) == (None, (), ())
    assert "SECRET-ONE" not in json.dumps(v0.to_json())
    assert "SECRET-ZERO" not in json.dumps(v1.to_json())
    assert not {"SECRET-ZERO", "SECRET-ONE"} & set(json.dumps(spec.to_json()).split('"'))
    # Public counts for everyone.
    assert v0.mission_counts == v1.mission_counts == spec.mission_counts == (1, 1)
    assert v0.supply_counts == spec.supply_counts == (0, 0)
    assert v0.set_aside_counts == (2, 2)
    # Legal actions only for the seat to act.
    assert state.current_player == 0
    assert set(v0.legal_actions) == {"A2", "B2"} and v1.legal_actions == ()
    assert spec.legal_actions == ()


# ------------------------------------------------------------ bad maps


def _data(rows: str = "E S:a B\nB C:x F") -> dict[str, Any]:
    return copy.deepcopy(map_data(rows))


def test_map_refuses_unknown_space_kind() -> None:
    d = _data()
    d["spaces"][0]["kind"] = "swamp"
    with pytest.raises(MapError, match=r"hex A1.*unknown space kind 'swamp'"):
        parse_board(d, check_capacity=False)


def test_map_refuses_district_whose_spaces_are_not_connected() -> None:
    with pytest.raises(MapError, match=r"district 'a'.*not connected.*hex C1"):
        parse_board(_data("S:a B S:a"), check_capacity=False)


def test_map_refuses_district_on_non_settlement_space() -> None:
    d = _data()
    d["spaces"][2]["district"] = "a"  # C1, a blank space
    with pytest.raises(MapError, match=r"hex C1.*district 'a' on a blank space"):
        parse_board(d, check_capacity=False)


def test_map_refuses_structure_with_marker() -> None:
    d = _data()
    d["structures"][0]["markers"] = ["port"]
    with pytest.raises(MapError, match=r"hex B2.*castle cannot carry markers"):
        parse_board(d, check_capacity=False)


def test_map_refuses_duplicate_hex() -> None:
    d = _data()
    d["spaces"].append(dict(d["spaces"][2]))
    with pytest.raises(MapError, match=r"hex C1.*duplicate hex"):
        parse_board(d, check_capacity=False)
    d = _data()
    d["structures"][0]["q"], d["structures"][0]["r"] = d["spaces"][0]["q"], d["spaces"][0]["r"]
    with pytest.raises(MapError, match=r"hex A1.*duplicate hex \(space and structure\)"):
        parse_board(d, check_capacity=False)


def test_map_refuses_unknown_region() -> None:
    d = _data()
    d["spaces"][1]["region"] = "atlantis"
    with pytest.raises(MapError, match=r"hex B1.*unknown region 'atlantis'"):
        parse_board(d, check_capacity=False)


def test_map_refuses_port_off_settlement_and_blocker_on_settlement() -> None:
    with pytest.raises(MapError, match=r"hex A1.*port"):
        parse_board(_data("E^ S:a"), check_capacity=False)
    with pytest.raises(MapError, match=r"hex B1.*blocker"):
        parse_board(_data("E S:a*"), check_capacity=False)


# ------------------------------------------------------------ bad actions


def _snapshot(state: Any) -> tuple[Any, ...]:
    return (state.view(None).to_json(), state.view(0).to_json(), state.view(1).to_json(),
            state.score[:], state.current_player)


@pytest.mark.parametrize(
    ("hand", "label", "why"),
    [
        ("E", "B1", "occupied"),     # taken by seat 1's first tile
        ("E", "D1", "P-3"),          # food space while energy/blank are free
        ("E", "E1", "P-3"),          # settlement space for a farm
        ("S2", "C1", "P-4"),         # settlement on a farm space
        ("E", "Z9", "does not exist"),
        ("E", "B2", "does not exist"),  # the castle hex: no tile space
    ],
)
def test_illegal_action_raises_and_changes_nothing(hand: str, label: str, why: str) -> None:
    b = board("""
    E B F F S:a
    B C:x B B B
    """)
    state = start(b, ["E " + hand, "F F"], aside=["S4 S4", "E F"])
    play(state, "A1", "B1")
    before = _snapshot(state)
    with pytest.raises(IllegalActionError, match=why):
        state.apply(label)
    assert _snapshot(state) == before
    state.apply(sorted(str(a) for a in state.legal_actions)[0])  # still playable


@pytest.mark.parametrize("text", ["", "hello", "C", "7C", "C-7", "A1 B2", "mark", "AAA1"])
def test_malformed_action_text_raises_syntax_error(text: str) -> None:
    state = start(board("B B B"), ["E", "F"])
    before = _snapshot(state)
    with pytest.raises(ActionSyntaxError):
        state.apply(text)
    with pytest.raises(ActionSyntaxError):
        parse_action(text)
    assert _snapshot(state) == before
    assert not issubclass(ActionSyntaxError, IllegalActionError)


def test_mark_action_is_illegal_on_scotland() -> None:
    mc = cards(region_card("M1", "north"))
    state = start(board("B B B"), ["E", "F"], mission_cards=mc)
    before = _snapshot(state)
    for text in ("mark M1", "mark NOPE"):
        with pytest.raises(IllegalActionError):
            state.apply(text)
    assert _snapshot(state) == before
