"""Issue 14, item 5: the loaders' refusals (records, maps, mission data, file formats) are a key
plus arguments and read in English and German; a nested reason (the engine's refusal of an
action, a setup fault, the place in a map) is translated with them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rebirth.engine.board import MapError, builtin_board, parse_board
from rebirth.engine.messages import UserError
from rebirth.engine.missions import DataError, parse_cards
from rebirth.engine.records import RecordError, load_record, replay
from recordkit import game_record, map_json


def _refused(cls: type[UserError], fn: Any, *args: Any) -> UserError:
    with pytest.raises(cls) as exc:
        fn(*args)
    assert isinstance(exc.value, ValueError)  # callers that catch ValueError still do
    return exc.value


def test_a_malformed_record_reads_in_both_languages() -> None:
    e = _refused(RecordError, load_record, "{not json")
    assert e.key == "error.format.not_json"
    assert e.text("en") == "record: not valid JSON (line 1, column 2)"
    assert e.text("de") == "Partieprotokoll: kein gültiges JSON (Zeile 1, Spalte 2)"


def test_a_schema_fault_names_the_field_in_both_languages() -> None:
    rec = game_record()
    rec["version"] = True
    e = _refused(RecordError, replay, rec)
    assert str(e) == "record: version: must be an integer, got True"
    assert e.text("de") == "Partieprotokoll: version: muss eine ganze Zahl sein, ist aber True"
    rec = game_record()
    rec["actions"][2]["seat"] = 7
    e = _refused(RecordError, replay, rec)
    assert e.text("de") == "Partieprotokoll: actions[2].seat: darf höchstens 3 sein"
    assert e.to_json()["key"] == "error.format.at"


def test_an_illegal_action_nests_the_engines_reason() -> None:
    rec = game_record("scotland", 3)
    first = rec["actions"][0]
    rec["actions"][1] = {"seat": rec["actions"][1]["seat"], "action": first["action"]}
    e = _refused(RecordError, replay, rec)
    en, de = e.text("en"), e.text("de")
    assert en.startswith("action #2 (seat ") and "already occupied" in en, en
    assert de.startswith("Aktion Nr. 2 (Platz ") and "schon belegt" in de, de
    assert e.params["why"]["msg"].startswith("error.")


def test_a_setup_fault_inside_a_record_is_nested() -> None:
    rec = game_record()
    rec["setup"]["start_player"] = "0"
    e = _refused(RecordError, replay, rec)
    assert e.text("de").startswith("Partieprotokoll: setup.start_player: muss eine ganze Zahl sein")


def test_a_map_fault_names_the_place_in_both_languages() -> None:
    data = map_json("scotland")
    data["regions"].append(dict(data["regions"][0]))
    rid = data["regions"][0]["id"]
    e = _refused(MapError, parse_board, data)
    assert e.text("en") == f"region {rid!r}: defined twice"
    assert e.text("de") == f"Region {rid!r}: doppelt festgelegt"
    data = map_json("scotland")
    data["spaces"][0]["kind"] = "castle"
    e = _refused(MapError, parse_board, data)
    assert "is a structure; list it under 'structures'" in e.text("en")
    assert e.text("de").startswith("Feld ") and "ist ein Bauwerk" in e.text("de")


def test_a_mission_file_fault_reads_in_both_languages() -> None:
    board = builtin_board("scotland")
    data = json.loads(json.dumps({"format": "rebirth-missions", "version": 1, "board": "scotland",
                                  "cards": [{"id": "S01", "points": 9, "text": {"en": "x", "de": "x"},
                                             "condition": {"type": "most_settlements", "filter": {}}}]}))
    e = _refused(DataError, parse_cards, data, board)
    assert e.text("en") == "mission 'S01': 'points' must be 3, 4 or 5 (K-2)"
    assert e.text("de") == "Mission 'S01': 'points' muss 3, 4 oder 5 sein (K-2)"


def test_refusals_survive_a_trip_to_another_process() -> None:
    # Arena and self-play games run in worker processes: a refusal raised there is pickled
    # back and must keep its key, its arguments and its place.
    import pickle

    from rebirth.engine.formats import _fail

    rec = game_record()
    rec["version"] = True
    errors: list[UserError] = [_refused(RecordError, replay, rec),
                               RecordError("error.record.because", reason=MapError("error.map.not_object"))]
    with pytest.raises(UserError) as fault:
        _fail("result.winners", "error.format.seat_twice")
    errors.append(fault.value)
    for e in errors:
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is type(e) and back.key == e.key and back.params == e.params
        assert back.text("de") == e.text("de") and vars(back) == vars(e)
