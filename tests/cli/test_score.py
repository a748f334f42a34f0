"""``rebirth score``: a record's last position or a Position JSON scored "if the game ended
now" (E-2: T-7, C-5, K-2/I-9; winners E-3/E-4), equal to ``rebirth replay`` on finished games."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from rebirth.app.match import Match
from rebirth.cli.main import main
from rebirth.cli.score import from_record, tiebreak
from rebirth.engine.game import Game
from rebirth.engine.position import Position, end_scoring
from rebirth.engine.records import make_record, table_entries, table_record
from rebirth.engine.table import new_table_game

FINISHED = [("scotland", 3, 21), ("ireland", 4, 22), ("scotland", 2, 23), ("ireland", 3, 24)]


@cache
def finished_record(board: str, n: int, seed: int) -> dict[str, Any]:
    m = Match.start(Game.create(board, n), ["greedy"] * n, seed)
    m.run_bots()
    return m.record()


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(list(argv)) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def write(tmp_path: Path, name: str, data: Any) -> str:
    p = tmp_path / name
    p.write_text(json.dumps(data), encoding="utf-8")
    return str(p)


@pytest.mark.parametrize(("board", "n", "seed"), FINISHED)
def test_finished_record_equals_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       board: str, n: int, seed: int) -> None:
    """A finished record: scores, breakdown and winners exactly as ``rebirth replay --json``."""
    path = write(tmp_path, "g.json", finished_record(board, n, seed))
    rep = run_json(capsys, "replay", path, "--json")
    sc = run_json(capsys, "score", path, "--json")
    for key in ("scores", "breakdown", "winners"):
        assert sc[key] == rep[key]
    assert sc["finished"] is True and sc["missions_scored"] is True
    assert sum(e["points"] for e in sc["end_scoring"]) > 0
    # C-5 in the end scoring agrees with the castle control shown.
    held = [c["holder"] for c in sc["castles"] if c["holder"] >= 0]
    assert len([e for e in sc["end_scoring"] if e["rule"] == "C-5"]) == len(held)
    assert all(m["fulfilled"] in (True, False) for m in sc["missions"])


@pytest.mark.parametrize(("board", "n", "seed"), FINISHED[:2])
def test_table_record_scores_like_the_original(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               board: str, n: int, seed: int) -> None:
    """The same game re-entered at the table scores exactly as the original record."""
    rec = finished_record(board, n, seed)
    su = rec["setup"]
    ts = new_table_game(board, n, start_player=su["start_player"], display=su.get("display", []))
    flat = [e for grp in table_entries(rec) for e in grp]
    for e in flat:
        ts.apply(str(e.get("action") or e.get("chance")))
    orig = run_json(capsys, "replay", write(tmp_path, "g.json", rec), "--json")
    sc = run_json(capsys, "score", write(tmp_path, "t.json", table_record(ts)), "--json")
    for key in ("scores", "breakdown", "winners"):
        assert sc[key] == orig[key]
    # Mid-game at the table: cards not entered yet, so missions are not scored.
    mid = new_table_game(board, n, start_player=su["start_player"], display=su.get("display", []))
    for e in flat[:50]:
        mid.apply(str(e.get("action") or e.get("chance")))
    if mid.is_chance_node():
        mid.apply(str(flat[50].get("chance")))
    sc = run_json(capsys, "score", write(tmp_path, "m.json", table_record(mid)), "--json")
    assert sc["finished"] is False and sc["missions_scored"] is False
    assert sc["running"]["scores"] == mid.score
    assert sc["scores"] == list(end_scoring(mid.game, mid.position()).scores)


@pytest.mark.parametrize(("board", "n"), [("scotland", 3), ("ireland", 4)])
def test_mid_game_record_and_position(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      board: str, n: int) -> None:
    """A running record and its Position JSON: "if the game ended now" through the engine,
    running totals kept apart; the Position file gives the same standings."""
    game = Game.create(board, n)
    m = Match.start(game, ["greedy"] * n, 5)
    for _ in range(45):
        m.step_bot()
    st = m.state
    if st.is_chance_node():
        m.step_bot()
        st = m.state
    rec = make_record(st)
    sc = run_json(capsys, "score", write(tmp_path, "r.json", rec), "--json")
    want = end_scoring(game, Position.from_state(st, secrets=True))
    assert sc["scores"] == list(want.scores) and sc["winners"] == list(want.winners)
    assert sc["running"]["scores"] == st.score and sc["finished"] is False
    assert all(a >= b for a, b in zip(sc["scores"], st.score, strict=True))
    pos = Position.from_state(st).to_json()
    ps = run_json(capsys, "score", write(tmp_path, "p.json", pos), "--json")
    assert ps["castles"] == sc["castles"] and ps["settlements"] == sc["settlements"]
    assert ps["missions_scored"] is False
    # T-7: every incomplete district with influence appears with what it would pay.
    incomplete = [d for d in ps["settlements"] if not d["complete"]]
    assert all(sum(d["points"]) > 0 for d in incomplete)


@pytest.mark.parametrize(("board", "n", "seed"), FINISHED[:2])
def test_tiebreak_names_the_deciding_rule(board: str, n: int, seed: int) -> None:
    """E-3/E-4: with every score equal, the castle chain (or Tara) decides as the engine does."""
    sc = from_record(finished_record(board, n, seed), None)
    tie = sc.board_state.clone()
    tie.score = [100] * n
    sc.scores = [100] * n
    sc.winners = tie._winners()
    tb = tiebreak(sc, "en")
    first_castle = sc.game.board.castles[sc.game.board.tiebreak[0][1]]
    if sc.board_state.castles.holder[first_castle.index] >= 0:
        assert tb["by"] == f"castle:{first_castle.id}"
        assert tb["rule"] == ("E-4" if board == "ireland" else "E-3")
        assert first_castle.name["en"] in tb["text"]
    assert tb["tied"] == list(range(n))
    assert tiebreak(sc, "de")["text"].startswith("Gleichstand")


def test_text_output_english_and_german(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "g.json", finished_record("scotland", 3, 21))
    assert main(["score", path]) == 0
    en = capsys.readouterr().out
    assert "Final scoring" in en and "Winner" in en and "[C-5]" in en and "[K-2]" in en
    assert main(["score", path, "--lang", "de"]) == 0
    de = capsys.readouterr().out
    assert "Schlusswertung" in de and "Sieger" in de and "Burgen" in de


def test_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing file, an unknown format, a broken hex in a Position, a tampered record."""
    assert main(["score", str(tmp_path / "none.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["score", write(tmp_path, "x.json", {"format": "other"})]) == 1
    assert "neither" in capsys.readouterr().err
    game = Game.create("scotland", 3)
    st = game.new_state(3)
    for _ in range(6):
        st.apply(st.legal_actions.__iter__().__next__())
    pos = Position.from_state(st).to_json()
    pos["tiles"][0]["hex"] = "Z99"
    assert main(["score", write(tmp_path, "p.json", pos), "--lang", "de"]) == 1
    assert "Z99" in capsys.readouterr().err
    rec = json.loads(json.dumps(finished_record("scotland", 3, 21)))
    rec["result"]["scores"][1] += 1
    assert main(["score", write(tmp_path, "r.json", rec)]) == 1
    assert "scores" in capsys.readouterr().err
