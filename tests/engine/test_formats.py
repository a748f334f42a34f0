"""The typed record and map schemas (engine/formats.py): every fault the fuzzer found
gets a clear error naming the field, nothing is opened or read that should not be,
and the records the project writes (format version 1) stay valid."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest

from rebirth.app.bench import random_playout
from rebirth.engine.board import MapError, builtin_names, load_board, parse_board, resolve_board
from rebirth.engine.formats import COORD_LIMIT, MAX_EXTENT, MAX_HEXES, RecordModel, describe
from rebirth.engine.game import Game
from rebirth.engine.hexgrid import column_letters, parse_label
from rebirth.engine.records import RecordError, load_record, make_record, map_digest, read_record, replay
from recordkit import MAPS, game_record, ireland_record_with_chance, map_json

# --- records --------------------------------------------------------------------------------------


def refused(rec: Any, needle: str) -> str:
    """Both entry points (load_record on text, replay on the decoded dict) refuse ``rec``."""
    with pytest.raises(RecordError) as a:
        load_record(json.dumps(rec))
    with pytest.raises(RecordError) as b:
        replay(rec)
    assert needle in str(a.value), str(a.value)
    assert str(a.value) == str(b.value)
    return str(a.value)


@pytest.mark.parametrize(("board", "players"), [("scotland", 2), ("scotland", 3), ("scotland", 4),
                                                ("ireland", 2), ("ireland", 3), ("ireland", 4)])
def test_version_1_records_stay_valid(board: str, players: int) -> None:
    rec = game_record(board, players)
    state = replay(load_record(json.dumps(rec)))
    assert state.is_terminal() and state.score == rec["result"]["scores"]
    RecordModel.model_validate(rec)


def test_unfinished_and_chance_records_stay_valid() -> None:
    assert not replay(load_record(json.dumps(game_record("scotland", 3, stop_after=20)))).is_terminal()
    rec = ireland_record_with_chance()  # I-7 reveals recorded as chance entries
    assert replay(load_record(json.dumps(rec))).is_terminal()


@pytest.mark.parametrize(("result", "needle"), [
    (5, "record: result: must be an object, got 5"),
    ("won", "record: result: must be an object, got 'won'"),
    ([1, 2], "record: result: must be an object"),
    ("misspelled",
     "record: result.winners: is required (and 1 more, e.g. result.winner: is not a known key)"),
])
def test_result_must_be_a_well_formed_object(result: Any, needle: str) -> None:
    rec = game_record()
    if result == "misspelled":
        result = dict(rec["result"])
        result["winner"] = result.pop("winners")
    rec["result"] = result
    refused(rec, needle)


@pytest.mark.parametrize(("path", "value", "needle"), [
    (("version",), True, "record: version: must be an integer, got True"),
    (("version",), 1.0, "record: version: must be an integer, got 1.0"),
    (("version",), 2, "record: version: unsupported version 2"),
    (("players", 1, "seat"), True, "record: players[1].seat: must be an integer, got True"),
    (("players", 1, "seat"), 1.0, "record: players[1].seat: must be an integer, got 1.0"),
    (("actions", 3, "seat"), False, "record: actions[3].seat: must be an integer, got False"),
    (("actions", 3, "seat"), 0.0, "record: actions[3].seat: must be an integer, got 0.0"),
    (("result", "winners", 0), True, "record: result.winners[0]: must be an integer, got True"),
    (("result", "winners", 0), 0.0, "record: result.winners[0]: must be an integer, got 0.0"),
    (("setup", "start_player"), True, "record: setup.start_player: must be an integer, got True"),
    (("setup", "start_player"), 1.5, "record: setup.start_player: must be an integer, got 1.5"),
    (("setup", "start_player"), 3, "record: setup.start_player: 3 is not a seat of 0..2"),
    (("seed",), True, "record: seed: must be an integer, got True"),
    (("result", "scores", 0), 9.5, "record: result.scores[0]: must be an integer, got 9.5"),
    (("actions", 2, "seat"), 7, "record: actions[2].seat: input should be less than or equal to 3"),
    (("setup", "supplies", 0, 4), "Q", "record: setup.supplies[0][4]: unknown tile 'Q'"),
])
def test_booleans_floats_and_ranges_are_refused(path: tuple[Any, ...], value: Any, needle: str) -> None:
    rec = game_record()
    node = rec
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    refused(rec, needle)


@pytest.mark.parametrize("name", ["[/]", "[bold]x", "a\\b", "a\x1b[2Jb", "a\u202eb"])
def test_player_names_that_cannot_be_shown_are_refused(name: str) -> None:
    rec = game_record()
    rec["players"][1]["name"] = name
    refused(rec, "record: players[1].name: ")


def test_map_names_that_cannot_be_shown_are_refused() -> None:
    data = map_json("scotland")
    data["structures"][2]["name"]["de"] = "Burg [/]"
    map_refused(data, "map: structures[2].name.de: 'Burg [/]' has [ ] \\ or control characters")


def test_unknown_keys_are_refused() -> None:
    rec = game_record()
    rec["players"][0]["colour"] = "red"
    refused(rec, "record: players[0].colour: is not a known key")
    rec = game_record()
    rec["setup"]["extra_tiles"] = []
    refused(rec, "record: setup.extra_tiles: is not a known key")


@pytest.mark.parametrize("chance", ["reveal S2", "reveal NOT-A-TILE"])
def test_chance_entry_before_the_first_action_is_refused(chance: str) -> None:
    rec = ireland_record_with_chance()
    rec["actions"].insert(0, {"chance": chance})
    refused(rec, "record: actions[0]")


def test_chance_entry_with_an_unknown_outcome_is_refused() -> None:
    rec = ireland_record_with_chance()
    i = next(i for i, a in enumerate(rec["actions"]) if "chance" in a)
    rec["actions"][i] = {"chance": "reveal NOT-A-TILE"}
    refused(rec, f"record: actions[{i}]: unknown chance outcome 'reveal NOT-A-TILE'")
    rec["actions"][i] = {"chance": "reveal S2", "seat": 0}
    refused(rec, f"record: actions[{i}]: a chance entry has only the key 'chance'")


def test_invalid_utf8_is_a_record_error(tmp_path: Path) -> None:
    raw = json.dumps(game_record()).encode()
    bad = raw[:40] + b"\xff\xfe" + raw[40:]
    with pytest.raises(RecordError, match="not valid UTF-8"):
        load_record(bad)
    path = tmp_path / "bad.json"
    path.write_bytes(bad)
    with pytest.raises(RecordError, match="not valid UTF-8"):
        read_record(str(path))
    path.write_bytes(raw)
    assert replay(read_record(str(path))).is_terminal()


def test_deeply_nested_json_is_a_record_error() -> None:
    for depth in (40, 100_000):
        with pytest.raises(RecordError, match="nested"):
            load_record("[" * depth + "]" * depth)
    rec = json.dumps(game_record()).replace('"engine": ', '"engine": ' + "[" * 5000 + "]" * 5000 + ', "x": ')
    with pytest.raises(RecordError, match="nested 5001 levels deep"):
        load_record(rec)
    # Brackets inside strings are text, not nesting.
    rec2 = game_record()
    rec2["engine"] = "[[[{" * 10
    assert load_record(json.dumps(rec2))["engine"] == "[[[{" * 10


def test_huge_numbers_are_a_record_error() -> None:
    text = json.dumps(game_record()).replace('"seed": 1', '"seed": ' + "9" * 5000)
    with pytest.raises(RecordError, match="a number with 5000 digits"):
        load_record(text)
    rec = game_record()
    rec["seed"] = 10**159  # 160 digits, above the 2**512 a seed may have
    refused(rec, "record: seed: input should be less than or equal to")
    rec["seed"] = 2**256 - 1  # a 256-bit secret seed is fine
    assert load_record(json.dumps(rec))["seed"] == 2**256 - 1
    with pytest.raises(RecordError, match="a number with 161 digits"):
        load_record(json.dumps(game_record()).replace('"seed": 1', '"seed": ' + "1" * 161))
    with pytest.raises(RecordError, match="NaN is not a number JSON allows"):
        load_record(json.dumps(game_record()).replace('"seed": 1', '"seed": NaN'))


@pytest.mark.parametrize("name", ["/dev/zero", "../../etc/passwd", "Scotland", "a" * 41, "", "fifo"])
def test_record_board_is_never_opened_as_a_path(tmp_path: Path, name: str) -> None:
    if name == "fifo":
        name = str(tmp_path / "pipe")
        os.mkfifo(name)  # opening it for reading would block forever
    rec = game_record()
    rec["board"] = name
    start = time.perf_counter()
    refused(rec, "record: board: ")
    assert time.perf_counter() - start < 2


def test_record_board_names_a_shipped_map(tmp_path: Path) -> None:
    rec = game_record()
    # A file named like the board in the working directory is never read.
    (tmp_path / "atlantis").write_text(json.dumps(map_json("scotland")))
    rec["board"] = "atlantis"
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        load_record(json.dumps(rec))  # well-formed: only replay knows the shipped maps
        with pytest.raises(RecordError, match="record: board: 'atlantis' is not a shipped map") as exc:
            replay(rec)
        msg = str(exc.value)
    finally:
        os.chdir(cwd)
    assert "--map FILE" in msg and all(b in msg for b in builtin_names())


def test_custom_map_is_passed_explicitly_and_checked_by_digest() -> None:
    data = map_json("scotland")
    data["id"] = "my_scotland"
    board = parse_board(data)
    state = Game.create(board, 3).new_state(5)
    random_playout(state, random.Random(5))
    rec = make_record(state, seed=5)
    assert replay(rec, board=board).score == state.score
    with pytest.raises(RecordError, match="'my_scotland' is not a shipped map"):
        replay(rec)
    changed = map_json("scotland")
    changed["id"] = "my_scotland"
    changed["name"]["en"] = "Scotland, edited"
    with pytest.raises(RecordError, match="different version of map 'my_scotland'"):
        replay(rec, board=parse_board(changed))
    with pytest.raises(RecordError, match="played on map 'my_scotland', not on 'scotland'"):
        replay(rec, board=resolve_board("scotland"))
    assert map_digest(board) == rec["map_digest"]


def test_messages_count_further_faults() -> None:
    rec = game_record()
    rec["version"] = "1"
    rec["players"][0]["seat"] = "0"
    msg = refused(rec, "record: version: ")
    assert msg.endswith("(and 1 more, e.g. players[0].seat: must be an integer, got '0')")


def test_describe_names_nested_fields() -> None:
    from pydantic import ValidationError

    rec = game_record()
    rec["actions"][3]["seat"] = "two"
    with pytest.raises(ValidationError) as exc:
        RecordModel.model_validate(rec)
    assert describe(exc.value, "record") == "record: actions[3].seat: must be an integer, got 'two'"


# --- maps -----------------------------------------------------------------------------------------


def map_refused(data: Any, needle: str) -> str:
    with pytest.raises(MapError) as exc:
        parse_board(data)
    assert needle in str(exc.value), str(exc.value)
    return str(exc.value)


def test_shipped_maps_stay_valid() -> None:
    for name in ("scotland", "ireland"):
        assert parse_board(map_json(name)).id == name


def test_region_given_as_a_list_is_a_map_error() -> None:
    data = map_json("scotland")
    data["regions"][1] = ["north", {"en": "North", "de": "Norden"}]
    map_refused(data, "map: regions[1]: must be an object, got ['north'")
    data = map_json("scotland")
    data["spaces"][0]["region"] = ["highlands"]
    map_refused(data, "map: spaces[0].region: must be a string")


def test_invalid_utf8_map_is_a_map_error(tmp_path: Path) -> None:
    raw = (MAPS / "ireland.json").read_bytes()
    path = tmp_path / "m.json"
    path.write_bytes(raw[:100] + b"\xc3\x28" + raw[100:])
    with pytest.raises(MapError, match="not valid UTF-8"):
        load_board(path)


@pytest.mark.parametrize(("key", "value"), [("q", 10**6), ("r", 10**18), ("q", -(COORD_LIMIT + 1)),
                                            ("r", True), ("q", 2.0)])
def test_coordinates_are_bounded_integers(key: str, value: Any) -> None:
    data = map_json("scotland")
    data["spaces"][7][key] = value
    start = time.perf_counter()
    map_refused(data, f"map: spaces[7].{key}: ")
    assert time.perf_counter() - start < 2


def test_labels_that_cannot_be_parsed_back_are_refused() -> None:
    # Column 702 would be labelled AAA, row 1000 needs four digits: both beyond the extent.
    assert len(column_letters(702)) == 3 and parse_label("AAA1") is None and parse_label("A1000") is None
    for q, r in ((702, 0), (0, 999)):
        data = map_json("scotland")
        data["spaces"][0]["q"], data["spaces"][0]["r"] = q, r
        map_refused(data, "map: ")
    data = map_json("scotland")
    data["spaces"][0]["q"] = 170  # inside the coordinate bound, outside the extent
    map_refused(data, f"at most {MAX_EXTENT} x {MAX_EXTENT}")


def test_widest_allowed_map_has_labels_that_parse_back() -> None:
    # Two corners MAX_EXTENT apart in both directions: every label still parses back.
    data = {"format": "rebirth-map", "version": 1, "id": "wide", "rules": "scotland",
            "name": {"en": "W", "de": "W"}, "regions": [{"id": "a", "name": {"en": "A", "de": "A"}}],
            "spaces": [{"q": 0, "r": 0, "kind": "food", "region": "a"},
                       {"q": MAX_EXTENT - 1 - (MAX_EXTENT - 1) // 2, "r": MAX_EXTENT - 1,
                        "kind": "food", "region": "a"}]}
    board = parse_board(data, check_capacity=False)
    assert (board.width, board.height) == (MAX_EXTENT, MAX_EXTENT)
    for s in board.spaces:
        assert board.space(s.label).index == s.index


def test_map_size_is_bounded() -> None:
    data = map_json("scotland")
    data["spaces"] = [{"q": q, "r": r, "kind": "food", "region": "highlands"}
                      for q in range(50) for r in range(45)]
    map_refused(data, f"map: spaces: list should have at most {MAX_HEXES} items")


@pytest.mark.parametrize("map_id", ["../../etc", "Scotland", "a b", "", "x" * 41, "/dev/zero", ".hidden"])
def test_map_ids_are_plain_names(map_id: str) -> None:
    data = map_json("scotland")
    data["id"] = map_id
    map_refused(data, "map: id: ")


@pytest.mark.parametrize(("version", "needle"), [(1.0, "got 1.0"), (True, "got True"), ("1", "got '1'"),
                                                 (2, "unsupported version 2")])
def test_map_version_must_be_the_integer_1(version: Any, needle: str) -> None:
    data = map_json("ireland")
    data["version"] = version
    map_refused(data, "map: version: ")
    map_refused(data, needle)


def test_unknown_map_keys_are_refused() -> None:
    data = map_json("scotland")
    data["spaces"][3]["colour"] = "green"
    map_refused(data, "map: spaces[3].colour: is not a known key")


@pytest.mark.parametrize("what", ["fifo", "/dev/zero", "dir", "big"])
def test_load_board_reads_only_small_regular_files(tmp_path: Path, what: str) -> None:
    path = Path(what)
    if what == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)
    elif what == "dir":
        path = tmp_path
    elif what == "big":
        path = tmp_path / "big.json"
        path.write_bytes(b" " * 3_000_000)
    start = time.perf_counter()
    with pytest.raises(MapError, match=r"not a regular file|too large"):
        load_board(path)
    assert time.perf_counter() - start < 2


def test_unknown_board_name_lists_the_shipped_maps() -> None:
    with pytest.raises(MapError) as exc:
        resolve_board("wales")
    assert "unknown map 'wales'" in str(exc.value)
    assert all(b in str(exc.value) for b in builtin_names())
    with pytest.raises(MapError, match="no such map file"):
        resolve_board("maps/wales.json")
