"""``rebirth play``: unattended games, the human input loop, records and languages."""

from __future__ import annotations

import io
import json
import random
import re
import string
import sys
from importlib import resources
from pathlib import Path

import pytest

import replaykit as rk
from rebirth.app.match import Match
from rebirth.cli.main import main
from rebirth.cli.play import resume_match
from rebirth.engine.board import SETTLEMENT
from rebirth.engine.determinize import preview
from rebirth.engine.game import Game
from rebirth.engine.messages import catalog
from rebirth.engine.records import load_record, replay


def _shipped(*parts: str) -> bool:
    return resources.files("rebirth.data").joinpath(*parts).is_file()


def _need(board: str) -> None:
    """Fail unless the map and the data files a game on it needs are shipped: a data file
    missing from the package is a packaging bug and must be red, never skipped."""
    files = [("maps", f"{board}.json"), ("missions", f"{board}.json")]
    if board == "ireland":
        files.append(("tokens", "ireland_towers.json"))
    for f in files:
        if not _shipped(*f):
            pytest.fail(f"shipped data file data/{'/'.join(f)} is missing (packaging bug)")


def _board_for_human() -> str:
    _need("scotland")
    return "scotland"


@pytest.mark.parametrize("missing", [("maps", "scotland.json"), ("missions", "ireland.json"),
                                     ("tokens", "ireland_towers.json")])
def test_missing_shipped_data_file_fails_not_skips(missing: tuple[str, str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "_shipped", lambda *parts: parts != missing)
    board = "scotland" if missing[1] == "scotland.json" else "ireland"
    with pytest.raises(pytest.fail.Exception, match=f"data/{'/'.join(missing)} is missing"):
        _need(board)
    if board == "scotland":
        with pytest.raises(pytest.fail.Exception, match="missing"):
            _board_for_human()


def test_every_data_file_a_game_needs_is_shipped() -> None:
    for f in (("maps", "scotland.json"), ("missions", "scotland.json"), ("maps", "ireland.json"),
              ("missions", "ireland.json"), ("tokens", "ireland_towers.json")):
        assert _shipped(*f), f


@pytest.mark.parametrize("board", ["scotland", "ireland"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_unattended_game_finishes_and_replays(board: str, players: int, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    _need(board)
    rec = tmp_path / "g.json"
    seats = ",".join(["greedy", "random", "greedy", "random"][:players])
    rc = main(["play", "--board", board, "--players", str(players), "--seats", seats,
               "--seed", "7", "--record", str(rec)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "Winner" in out or "Shared win" in out
    # The map is drawn once, not after every bot move.
    assert out.count("Final result") == 1
    # Column-letter rows (top and bottom of one drawing) appear at most twice.
    assert 1 <= len(re.findall(r"^\s+A\s+B\s+C\s", out, re.MULTILINE)) <= 2
    record = json.loads(rec.read_text(encoding="utf-8"))
    state = replay(record)
    assert state.is_terminal()
    assert record["result"]["scores"] == state.score
    assert record["result"]["winners"] == state.winners


def _setup(board: str, seed: int) -> tuple[Game, Match]:
    game = Game.create(board, 2)
    match = Match.start(game, ["human", "greedy"], seed, ["Ann", "Bob"], 0)
    return game, match


def _illegal_for(game: Game, match: Match) -> str:
    """A free hex of the wrong kind for seat 0's first tile."""
    view = match.view(0)
    legal = set(view.legal_actions)
    for sp in game.board.spaces:
        if sp.label not in legal and view.spaces[sp.index][0] == -1:
            return sp.label
    raise AssertionError("every free space is legal")


def test_human_illegal_then_legal_then_quit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    board = _board_for_human()
    game, match = _setup(board, 11)
    view = match.view(0)
    legal = sorted(view.legal_actions)[0]
    bad = _illegal_for(game, match)
    kind_is_settlement = game.board.space(bad).kind == SETTLEMENT
    rec = tmp_path / "partial.json"
    monkeypatch.setattr("sys.stdin", io.StringIO(
        f"{bad.lower()}\nZ99\nfoo\nhelp\nlegal\nmissions\n{legal.lower()}\n\nlog\nquit\n"))
    rc = main(["play", "--board", board, "--players", "2", "--seats", "human,greedy",
               "--names", "Ann,Bob", "--seed", "11", "--start", "1", "--record", str(rec)])
    assert rc == 0
    out = capsys.readouterr().out
    assert f"Refused: {bad}" in out
    assert ("P-3" if kind_is_settlement else "P-") in out
    assert "Refused: hex Z99 does not exist" in out
    assert "'foo' is not an action" in out
    assert "Confirm? [Y/n]" in out
    assert re.search(rf"{legal}: \+\d+", out)
    assert "Record written" in out
    record = json.loads(rec.read_text(encoding="utf-8"))
    assert "result" not in record
    assert record["actions"][0] == {"seat": 0, "action": legal}
    # The human's move, the bot's reply, and nothing else.
    assert [a["seat"] for a in record["actions"] if "seat" in a][:2] == [0, 1]
    state = replay(record)
    assert not state.is_terminal()


def test_preview_matches_the_real_points() -> None:
    board = _board_for_human()
    game, match = _setup(board, 3)
    rng = random.Random(1)
    for _ in range(12):
        if match.state.is_terminal():
            break
        if match.is_human_turn():
            view = match.view(0)
            for a in list(view.legal_actions)[:8]:
                gain, _ = preview(game, view, 0, a, rng)
                real = match.state.clone()
                before = real.score[0]
                real.apply(a)
                assert gain == real.score[0] - before, a
            match.submit(0, sorted(view.legal_actions)[0])
        else:
            match.step_bot()


def test_declining_the_preview_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    board = _board_for_human()
    _, match = _setup(board, 5)
    legal = sorted(match.view(0).legal_actions)
    rec = tmp_path / "r.json"
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{legal[0]}\nn\n{legal[-1]}\ny\nquit\n"))
    assert main(["play", "--board", board, "--players", "2", "--seats", "human,greedy",
                 "--seed", "5", "--start", "1", "--record", str(rec)]) == 0
    assert "Not placed" in capsys.readouterr().out
    assert json.loads(rec.read_text())["actions"][0]["action"] == legal[-1]


def test_end_of_input_ends_cleanly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    board = _board_for_human()
    rec = tmp_path / "eof.json"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "--board", board, "--players", "3", "--seats", "greedy,human,random",
                 "--seed", "2", "--start", "1", "--record", str(rec)]) == 0
    assert "End of input" in capsys.readouterr().out
    record = json.loads(rec.read_text())
    # The bot before the human moved; the human did not.
    assert [a["seat"] for a in record["actions"] if "seat" in a] == [0]
    replay(record)


@pytest.mark.parametrize("seats", ["human,foo", "greedy,greedy,greedy,greedy"])
def test_bad_seats_exit_2(seats: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["play", "--board", "ireland", "--players", "2", "--seats", seats])
    assert rc == 2
    err = capsys.readouterr().err
    if "foo" in seats:
        assert "'foo'" in err and "human" in err and "greedy" in err and "random" in err
    else:
        assert "2 players need 2 seats" in err


def test_bad_board_variant_names_start_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--board", "atlantis", "--seats", "greedy,greedy,greedy"]) == 2
    assert "atlantis" in capsys.readouterr().err
    assert main(["play", "--board", "ireland", "--seats", "greedy,greedy,greedy",
                 "--variant", "nonsense"]) == 2
    assert "nonsense" in capsys.readouterr().err
    assert main(["play", "--board", "ireland", "--seats", "greedy,greedy,greedy",
                 "--names", "a,b"]) == 2
    assert "names" in capsys.readouterr().err
    assert main(["play", "--board", "ireland", "--seats", "greedy,greedy,greedy",
                 "--start", "4"]) == 2
    assert "--start" in capsys.readouterr().err


def test_german_ui(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> None:
    board = _board_for_human()
    _, match = _setup(board, 4)
    legal = sorted(match.view(0).legal_actions)[0]
    monkeypatch.setattr("sys.stdin", io.StringIO(f"Z99\n{legal}\nj\nende\n"))
    assert main(["play", "--board", board, "--players", "2", "--seats", "human,greedy",
                 "--seed", "4", "--start", "1", "--lang", "de",
                 "--record", str(tmp_path / "de.json")]) == 0
    out = capsys.readouterr().out
    assert "Spieler 1" in out
    assert "Dein Plättchen" in out
    assert "Bestätigen? [J/n]" in out
    assert "Abgelehnt" in out
    assert "Partie gespeichert" in out
    assert "Your tile" not in out and "Confirm?" not in out


def test_german_unattended(capsys: pytest.CaptureFixture[str]) -> None:
    _need("ireland")
    assert main(["play", "--board", "ireland", "--players", "3", "--seats",
                 "random,random,random", "--seed", "1", "--lang", "de"]) == 0
    out = capsys.readouterr().out
    assert "Endergebnis" in out and ("Sieger" in out or "Geteilter Sieg" in out)
    assert "Spielende" in out


def test_catalogue_has_matching_placeholders() -> None:
    fmt = string.Formatter()
    en_cat, de_cat = catalog("en") or {}, catalog("de") or {}
    cli_keys = [k for k in en_cat if k.startswith("cli.")]
    assert len(cli_keys) > 100
    for key in cli_keys:
        en, de = en_cat[key], de_cat[key]
        fields_en = {f for _, f, _, _ in fmt.parse(en) if f}
        fields_de = {f for _, f, _, _ in fmt.parse(de) if f}
        assert fields_en == fields_de, key
        assert en and de, key


def test_ireland_x2_marker_decision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Play the human's moves with a greedy policy until an x2 decision (I-8), then mark."""
    _need("ireland")
    from rebirth.bots.registry import make_bot

    game = Game.create("ireland", 2)
    for seed in range(60):
        match = Match.start(game, ["human", "greedy"], seed, ["Ann", "Bob"], 0)
        policy = make_bot("greedy", game, 0, 99)
        moves: list[str] = []
        while not match.state.is_terminal():
            if match.is_human_turn():
                view = match.view(0)
                if view.phase == "mark":
                    break
                moves.append(policy.act(view))
                match.submit(0, moves[-1])
            else:
                match.step_bot()
        if not match.state.is_terminal():
            break
    else:
        pytest.skip("no x2 decision reached in the seeds tried")
    choice = view.legal_actions[-1].split()[-1]
    rec = tmp_path / "m.json"
    feed = "".join(f"{m}\n\n" for m in moves) + f"C7\nmark ZZZ\n{choice.lower()}\nquit\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(feed))
    assert main(["play", "--board", "ireland", "--players", "2", "--seats", "human,greedy",
                 "--names", "Ann,Bob", "--seed", str(seed), "--start", "1",
                 "--record", str(rec)]) == 0
    out = capsys.readouterr().out
    assert "Choose a public mission for your x2 marker" in out
    assert f"mark {choice}" in out
    assert "ZZZ is not a mission you can mark now" in out
    # The x2 menu says, per mission, who already fulfilled it (I-8).
    assert "already fulfilled by" in out or "not fulfilled yet" in out
    assert "x2 marker on mission" in out
    actions = [a["action"] for a in json.loads(rec.read_text())["actions"] if a.get("seat") == 0]
    assert actions == [*moves, f"mark {choice}"]


def test_a_resumed_game_draws_the_reveals_the_uninterrupted_game_drew(tmp_path: Path) -> None:
    """I-7: ``rebirth play --resume`` (the saved record read back and replayed by the one
    replay) continues with the seed's chance stream where the saved game left it: the reveals
    still to come are those of the uninterrupted game."""
    for seed, cut in rk.seeds_with_chance_after_cut(1, 2, 2):
        whole = rk.history(rk.uninterrupted(seed))
        m = Match.start(rk.ireland(), list(rk.KINDS), seed)
        rk.play(m, rk.at_version(cut))
        saved = tmp_path / f"saved-{seed}.json"
        saved.write_text(json.dumps(m.snapshot(), indent=1) + "\n")  # as Ctrl-C saves it
        r = resume_match(load_record(saved.read_text()))
        assert [(s.version, s.seat, s.text) for s in r.steps] == \
            [(s.version, s.seat, s.text) for s in m.steps]
        rk.play(r)
        assert rk.chances(rk.history(r)[cut:]) >= 2
        assert rk.history(r) == whole
