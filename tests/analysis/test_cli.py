"""``rebirth analyse``: JSON schema, German text, the PNG chart, and clear errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.kit import bot_record
from rebirth.cli.main import main
from rebirth.engine.game import Game
from rebirth.engine.records import redacted_record

FAST = ["--budget", "2", "--candidates", "1"]


def _write(tmp_path: Path, rec: object, name: str = "game.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(rec), encoding="utf-8")
    return p


def test_json_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, bot_record(seed=3))
    assert main(["analyse", str(path), "--seat", "2", "--json", *FAST]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["format"] == "rebirth-analysis" and out["version"] == 1
    assert out["seats"] == [2] and out["worlds"] == 2 and out["players"] == 3
    assert set(out["noise"]) == {"value_win_se_pct", "value_margin_se", "loss_win_se_pct",
                                 "loss_margin_se"}
    assert out["thresholds"]["labels"] == ["good", "inaccuracy", "mistake", "blunder"]
    [s] = out["summaries"]
    assert s["seat"] == 2 and 0 <= s["accuracy"] <= 100
    assert {"labels", "luck_win_pct", "luck_win_se_pct", "costliest", "final_score"} <= set(s)
    d = out["decisions"][0]
    assert {"index", "seat", "phase", "played", "best", "loss_win_pct", "loss_win_se_pct",
            "loss_margin", "loss_margin_se", "label", "accuracy", "candidates"} <= set(d)
    assert {"win_pct", "win_se_pct", "margin", "margin_se", "action"} <= set(d["played"])
    assert all(x["seat"] == 2 for x in out["decisions"] + out["luck"])
    assert {x["kind"] for x in out["luck"]} == {"draw"}


def test_german_text_and_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, bot_record(seed=3))
    png = tmp_path / "win.png"
    assert main(["analyse", str(path), "--lang", "de", "--seat", "3", "--plot", str(png), *FAST]) == 0
    out = capsys.readouterr().out
    assert "Genauigkeit" in out and "Glück" in out and "Die teuersten Züge von P3" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["analyse", str(path), *FAST]) == 0
    summary = capsys.readouterr().out.split("\n\n")[1]
    # One summary line per seat (a costliest move's line may say "inaccuracy", not a seat's).
    assert [line.split(":")[0] for line in summary.splitlines() if " accuracy " in line] == \
        ["P1", "P2", "P3"]


def test_bad_input_is_refused_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, bot_record(seed=3))
    assert main(["analyse", str(tmp_path / "missing.json"), *FAST]) == 1
    assert "error:" in capsys.readouterr().err
    assert main(["analyse", str(path), "--seat", "4", *FAST]) == 2
    assert "seat 4 does not exist" in capsys.readouterr().err
    game = Game.create("scotland", 3)
    st = game.new_state(1)
    st.apply(st.view(st.current_player).legal_actions[0])
    red = _write(tmp_path, redacted_record(st, None, 0), "red.json")
    assert main(["analyse", str(red), *FAST]) == 1
    assert "redacted" in capsys.readouterr().err
    bad = _write(tmp_path, {"format": "rebirth-record"}, "bad.json")
    assert main(["analyse", str(bad), *FAST]) == 1
    assert "error:" in capsys.readouterr().err
    # A chart that cannot be written is refused before the analysis, and nothing is written.
    assert main(["analyse", str(path), "--plot", str(tmp_path / "x.jpg"), *FAST]) == 2
    assert "PNG" in capsys.readouterr().err
    assert main(["analyse", str(path), "--plot", str(tmp_path / "no" / "x.png"), *FAST]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "game.json", "red.json"]
    assert main(["analyse", str(path), "--budget", "1"]) == 2
    assert "must be from 2" in capsys.readouterr().err
