"""docs/api.md: every example is the engine's real output (the contract cannot drift)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from engine.scotland_kit import board, cards, castle_card, region_card, start
from rebirth.engine.actions import Mark, Place, Reveal, parse_action
from rebirth.engine.events import Event
from rebirth.engine.position import Position
from rebirth.engine.state import State

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def examples() -> dict[str, Any]:
    text = DOC.read_text(encoding="utf-8")
    found = re.findall(r"<!-- example: ([a-z-]+) -->\n```json\n(.*?)\n```", text, re.DOTALL)
    return {name: json.loads(body) for name, body in found}


def scripted() -> tuple[State, list[Event]]:
    b = board("""
E C:edinburgh S:a K:abbey
F S:a S:b^ B
""")
    cs = cards(region_card("M1", "north", 3), castle_card("M2", ["edinburgh"], 4))
    state = start(b, ["E S2 F", "S3 F E"], aside=["S1", "E"], deck=["M1", "M2"], mission_cards=cs)
    state.apply("A1")
    return state, state.apply("C1")


def test_api_examples_are_real_output() -> None:
    ex = examples()
    assert set(ex) == {"view", "event-owner", "event-other", "position"}
    state, events = scripted()
    assert ex["view"] == state.view(0).to_json()
    cathedral = next(e for e in events if e.rule == "K-1")
    assert ex["event-owner"] == cathedral.to_json(1)
    assert ex["event-other"] == cathedral.to_json(0) == cathedral.to_json(None)
    assert ex["position"] == Position.from_state(state).to_json()
    assert Position.from_json(ex["position"]) == Position.from_state(state)


def test_action_texts_and_ids_of_the_table() -> None:
    state, _ = scripted()
    codec = state.game.codec
    assert parse_action("C2") == Place("C2") and codec.encode(Place("C2")) == 4
    assert codec.text(4) == "C2" and state.view(0).legal_action_ids == (3, 4)
    assert codec.num_actions == len(state.board.spaces) + len(state.game.cards) == state.game.num_actions
    assert codec.encode(Mark("m2")) == codec.mark_id(1) and codec.text(codec.mark_id(1)) == "mark M2"
    assert parse_action("reveal s2") == Reveal("S2") and codec.encode(Reveal("S2")) == 3
    assert state.view(0).legal_mask(codec.num_actions) == [0, 0, 0, 1, 1, 0, 0, 0]
