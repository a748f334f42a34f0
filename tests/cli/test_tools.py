"""The replay, maps, bench, hint and variants commands, as a user calls them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fakeclock
import rebirth.app.bench
from rebirth.app.match import Match
from rebirth.bots.levels import build_kind
from rebirth.bots.mcts import Candidate, MCTSBot
from rebirth.cli.main import main
from rebirth.engine.game import Game
from rebirth.engine.records import make_record
from rebirth.engine.views import View

DATA = Path(__file__).resolve().parents[2] / "src" / "rebirth" / "data" / "maps"


def finished_record(tmp_path: Path, board: str = "scotland", players: int = 3) -> Path:
    m = Match.start(Game.create(board, players), ["greedy"] + ["random"] * (players - 1), seed=3)
    m.run_bots()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(m.record()))
    return path


@pytest.mark.parametrize(("board", "players"), [("scotland", 2), ("scotland", 4), ("ireland", 3)])
def test_replay_json(tmp_path: Path, board: str, players: int,
                     capsys: pytest.CaptureFixture[str]) -> None:
    path = finished_record(tmp_path, board, players)
    assert main(["replay", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rec = json.loads(path.read_text())
    assert out["scores"] == rec["result"]["scores"]
    assert out["winners"] == rec["result"]["winners"]
    cats = {"farms", "settlements", "castles", "missions"}
    cats |= {"ports"} if board == "scotland" else {"offshore", "towers", "public_missions"}
    assert all(set(b) == cats for b in out["breakdown"])
    # S-6: a neutral tile on every blocker hex with 2 players, 32 in Scotland, 24 in Ireland.
    assert out["neutral"] == ({"scotland": 32, "ireland": 24}[board] if players == 2 else 0)
    assert len(out["placements"]) == sum(out["placed"])
    assert out["setup"] == rec["setup"]


def test_replay_text_and_events(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = finished_record(tmp_path)
    assert main(["replay", str(path), "--events", "--lang", "de"]) == 0
    out = capsys.readouterr().out
    assert "[F-1]" in out and "Sieger" in out


def test_tampered_record_is_rejected_naming_the_action(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = finished_record(tmp_path)
    rec = json.loads(path.read_text())
    # Move the 5th placement onto a hex that is taken by then.
    rec["actions"][4]["action"] = rec["actions"][0]["action"]
    path.write_text(json.dumps(rec))
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert "action #5" in err and "already occupied" in err


def test_tampered_result_and_setup_are_rejected(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = finished_record(tmp_path)
    rec = json.loads(path.read_text())
    rec["result"]["scores"][0] += 1
    path.write_text(json.dumps(rec))
    assert main(["replay", str(path)]) == 1
    assert "do not match" in capsys.readouterr().err
    rec = json.loads(finished_record(tmp_path).read_text())
    rec["setup"]["supplies"][0][0] = "S4" if rec["setup"]["supplies"][0][0] != "S4" else "E"
    path.write_text(json.dumps(rec))
    assert main(["replay", str(path)]) == 1
    assert "S-1" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "needle"), [
    ("{not json", "not valid JSON"),
    ('{"format": "rebirth-record", "version": 1, "board": "atlantis", "players": [{}, {}],'
     ' "setup": {}, "actions": []}', "players[0].seat: is required"),
    ('{"format": "something"}', "format"),
])
def test_malformed_records(tmp_path: Path, text: str, needle: str,
                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert main(["replay", str(path)]) == 1
    assert needle in capsys.readouterr().err


def test_unfinished_record_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = Game.create("scotland", 3)
    state = game.new_state(1)
    for _ in range(10):
        state.apply(next(iter(state.legal_actions)))
    path = tmp_path / "part.json"
    path.write_text(json.dumps(make_record(state)))
    assert main(["replay", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["terminal"] is False


def test_maps_check_shipped_and_broken(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("scotland", "ireland"):
        assert main(["maps", "check", str(DATA / f"{name}.json")]) == 0
        out = capsys.readouterr().out
        assert "VALID" in out and "2 players" in out and "4 players" in out
    data = json.loads((DATA / "scotland.json").read_text())
    # Break a district: give one Perth space the id of a 1-space district far to the north.
    sizes: dict[str, int] = {}
    for s in data["spaces"]:
        if s.get("district"):
            sizes[s["district"]] = sizes.get(s["district"], 0) + 1
    far = next(s for s in data["spaces"] if s.get("district") and sizes[s["district"]] == 1
               and s["r"] < 8)
    moved = next(s for s in data["spaces"] if s.get("district") == "perth")
    moved["district"] = far["district"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    assert main(["maps", "check", str(path)]) == 1
    err = capsys.readouterr().err
    assert "INVALID" in err and "not connected" in err and f"district '{far['district']}'" in err
    assert main(["maps", "list"]) == 0
    assert "scotland" in capsys.readouterr().out


def test_bench_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # bench reads a clock that ticks 0.1 s a read: start 0.0, then after each game 0.1, 0.2,
    # 0.3 >= 0.25 -> 3 games in 0.3 s = 10 games/s. MCTS keeps real time; bench times it
    # with two reads, 0.1 s apart, so its rate is the iterations it reports times 10.
    # The pure core's loops are the ones the fake clock sees (tests/core: the native one).
    monkeypatch.setenv("REBIRTH_CORE", "pure")
    fakeclock.install(monkeypatch, rebirth.app.bench, 0.1)
    counts: list[int] = []
    real_analyse = MCTSBot.analyse

    def analyse(self: MCTSBot, view: View) -> list[Candidate]:
        out = real_analyse(self, view)
        counts.append(int(self.last_stats["iterations"]))
        return out

    monkeypatch.setattr(MCTSBot, "analyse", analyse)
    assert main(["bench", "--board", "scotland", "--players", "3", "--runs", "1",
                 "--seconds", "0.25", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["board"] == "scotland" and out["players"] == 3 and out["runs"] == 1
    assert out["build"] == build_kind()  # both values: tests/compiled/test_identity.py
    assert out["core"] == "pure"
    assert out["games_per_s"] == pytest.approx(10.0)
    assert out["min"] == out["max"] == out["games_per_s"]
    assert len(counts) == 1 and counts[0] >= 1
    assert out["mcts_iterations_per_s"] == pytest.approx(counts[0] / 0.1)


def test_hint_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = Game.create("scotland", 3)
    state = game.new_state(2)
    for _ in range(9):
        state.apply(next(iter(state.legal_actions)))
    path = tmp_path / "part.json"
    path.write_text(json.dumps(make_record(state)))
    seat = state.current_player + 1
    assert main(["hint", str(path), "--seat", str(seat), "--iterations", "50", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["action"] in state.legal_actions
    assert main(["hint", str(path), "--seat", str(seat % 3 + 1), "--iterations", "5"]) == 2
    assert "not to act" in capsys.readouterr().err


def test_variants_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["variants"]) == 0
    out = capsys.readouterr().out
    assert "stirling_literal" in out and "ireland_set_aside_known" in out


@pytest.mark.parametrize(("lang", "needle"), [("en", "broken by adjacent farm tiles"),
                                              ("de", "durch angrenzende Farm-Plättchen")])
def test_rules_help(lang: str, needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    """C-3: the farm tiebreak comes before the holder keeps a castle."""
    assert main(["rules", "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert needle in out and "[K-3]" in out and "[I-8]" in out and "[C-3]" in out
    assert "loses every tie" not in out and "jeden Gleichstand" not in out


def test_bots_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    for name in ("human", "random", "greedy", "heuristic", "mcts", "easy", "normal", "hard"):
        assert name in out
