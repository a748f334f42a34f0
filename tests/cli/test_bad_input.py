"""Bad command-line input gets a clear message and exit code 2 (a bad file: 1), never a
traceback and never a hang: the faults the fuzzer found in issue 7."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest

from rebirth.cli.main import main
from rebirth.engine.board import parse_board
from rebirth.engine.game import Game
from rebirth.engine.records import make_record
from recordkit import MAPS, game_record, map_json

BOTS3 = ["--seats", "random,random,random"]


def err_of(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().err


@pytest.mark.parametrize("names", ["[/],b,c", "[bold]x,b,c", "a\\,b,c", "a\x1b[2J,b,c", ",b,c",
                                   "x" * 31 + ",b,c"])
def test_names_that_cannot_be_shown_are_refused(names: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", *BOTS3, "--names", names]) == 2
    assert "error: the name" in err_of(capsys)


def test_names_are_refused_in_german(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", *BOTS3, "--names", "[/],b,c", "--lang", "de"]) == 2
    assert "Fehler: der Name '[/]'" in err_of(capsys)


def test_plain_unicode_names_play(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = tmp_path / "g.json"
    assert main(["play", *BOTS3, "--names", "Zoë,Ørjan,李", "--seed", "2", "--record", str(rec)]) == 0
    assert "Zoë" in capsys.readouterr().out
    assert [p["name"] for p in json.loads(rec.read_text())["players"]] == ["Zoë", "Ørjan", "李"]


@pytest.mark.parametrize("delay", ["inf", "nan", "-inf", "-1", "61", "1e400", "abc"])
def test_delay_must_be_0_to_60_seconds(delay: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", *BOTS3, f"--delay={delay}"]) == 2
    assert "argument --delay: " in err_of(capsys)


@pytest.mark.parametrize("args", [["--runs", "0"], ["--runs", "-3"], ["--seconds", "0"],
                                  ["--seconds", "-1"], ["--seconds", "nan"], ["--seconds", "inf"]])
def test_bench_runs_and_seconds_must_be_positive(args: list[str],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    start = time.perf_counter()
    assert main(["bench", *args]) == 2
    assert f"argument {args[0]}: must be" in err_of(capsys)
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("args", [["--iterations", "0"], ["--iterations", "-5"], ["--seat", "0"],
                                  ["--seat", "9"], ["--seed", "9" * 5000]])
def test_hint_numbers_must_be_in_range(tmp_path: Path, args: list[str],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(game_record(stop_after=10)))
    seat = [] if args[0] == "--seat" else ["--seat", "1"]
    assert main(["hint", str(path), *seat, *args]) == 2
    assert f"argument {args[0]}: " in err_of(capsys)


@pytest.mark.parametrize("command", [["play", *BOTS3], ["bench"],
                                     ["arena", "--seats", "random,random,random"]])
def test_unknown_board_lists_the_shipped_maps(command: list[str],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*command, "--board", "wales"]) == 2
    err = err_of(capsys)
    assert "unknown map 'wales'" in err and "ireland, scotland" in err


def test_replay_invalid_utf8_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(b'{"format": "rebirth-record", "board": "\xff"}')
    assert main(["replay", str(path)]) == 1
    assert "record: not valid UTF-8 text" in err_of(capsys)


def test_replay_of_a_fifo_does_not_hang(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    start = time.perf_counter()
    assert main(["replay", str(fifo)]) == 1
    assert "not a regular file" in err_of(capsys)
    assert time.perf_counter() - start < 2


@pytest.mark.parametrize("board", ["/dev/zero", "fifo"])
def test_record_board_is_not_opened(tmp_path: Path, board: str, capsys: pytest.CaptureFixture[str]) -> None:
    if board == "fifo":
        board = str(tmp_path / "pipe")
        os.mkfifo(board)
    rec = game_record()
    rec["board"] = board
    path = tmp_path / "r.json"
    path.write_text(json.dumps(rec))
    start = time.perf_counter()
    assert main(["replay", str(path)]) == 1
    assert "record: board: " in err_of(capsys)
    assert time.perf_counter() - start < 2


def test_custom_map_record_needs_map_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = map_json("ireland")
    data["id"] = "my_ireland"
    map_file = tmp_path / "my_ireland.json"
    map_file.write_text(json.dumps(data))
    state = Game.create(parse_board(data), 2).new_state(3)
    rng = random.Random(3)
    for _ in range(12):
        state.apply_id(state.random_action_id(rng))
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps(make_record(state, seed=3)))
    assert main(["replay", str(rec)]) == 1
    assert "give the map file of a custom map with --map FILE" in err_of(capsys)
    assert main(["replay", str(rec), "--map", str(map_file)]) == 0
    assert main(["replay", str(rec), "--map", str(tmp_path)]) == 1
    assert "not a regular file" in err_of(capsys)


def _map_without_highlands(tmp_path: Path) -> Path:
    """A Scotland map that is fine on its own, but the shipped cards name 'highlands'."""
    data = map_json("scotland")
    data["id"] = "no_highlands"
    text = json.dumps(data).replace('"highlands"', '"hills"')
    path = tmp_path / "no_highlands.json"
    path.write_text(text)
    return path


def test_maps_check_runs_the_mission_card_check(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = _map_without_highlands(tmp_path)
    assert main(["maps", "check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "ok" in out and "INVALID: mission 'S01': unknown region 'highlands'" in out
    # bench, arena and play refuse the same map cleanly (bench and arena crashed before).
    assert main(["bench", "--board", str(path), "--runs", "1", "--seconds", "0.01"]) == 2
    assert "unknown region 'highlands'" in err_of(capsys)
    assert main(["arena", "--board", str(path), "--seats", "random,random,random", "--games", "3"]) == 2
    assert "unknown region 'highlands'" in err_of(capsys)
    assert main(["play", "--board", str(path), *BOTS3]) == 2
    assert "unknown region 'highlands'" in err_of(capsys)


def test_maps_check_counts_ireland_tower_tokens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = map_json("ireland")
    used = {(s["q"], s["r"]) for s in data["spaces"] + data["structures"]}
    q, r = next((q, r) for r in range(21) for q in range(-8, 12) if (q, r) not in used)
    data["structures"].append({"kind": "tower", "id": "extra_tower", "q": q, "r": r,
                               "name": {"en": "Extra", "de": "Extra"}})
    path = tmp_path / "towers.json"
    path.write_text(json.dumps(data))
    assert main(["maps", "check", str(path)]) == 1
    assert "INVALID: 15 towers but only 14 tower tokens" in capsys.readouterr().out


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_maps_check_says_what_it_checked(board: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["maps", "check", str(MAPS / f"{board}.json")]) == 0
    out = capsys.readouterr().out
    for needle in ("capacity (S-9)", "mission cards: the", "games: a game with 2, 3 and 4 players",
                   "terminal: the map renders", "VALID"):
        assert needle in out
    assert ("tower tokens: 14 for 14 towers" in out) == (board == "ireland")


@pytest.mark.parametrize("text", [b"\xff\xfe", b"[" * 100_000, b'{"version": 1.0}', b"",
                                  b'{"format": "rebirth-map", "version": 1, "id": "../../etc"}'])
def test_maps_check_bad_files(tmp_path: Path, text: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.json"
    path.write_bytes(text)
    assert main(["maps", "check", str(path)]) == 1
    assert "INVALID: " in err_of(capsys)
