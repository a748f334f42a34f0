"""``rebirth train``: refusals, the message without PyTorch, and (with it) a model that the
numpy evaluator loads."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rebirth.bots.value import ValueNet
from rebirth.cli.main import main


def _data(tmp_path: Path) -> Path:
    out = tmp_path / "data"
    assert main(["selfplay", "--players", "2", "--games", "6", "--seats", "random,random",
                 "--out", str(out)]) == 0
    return out


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", str(tmp_path), "--out", str(tmp_path / "m.npz")]) == 2
    assert "no manifest.json" in capsys.readouterr().err
    assert main(["train", str(tmp_path), "--out", str(tmp_path / "m.bin")]) == 2
    assert "must name a .npz file" in capsys.readouterr().err
    assert main(["train", str(tmp_path), "--out", str(tmp_path / "nodir" / "m.npz")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["train", str(tmp_path), "--out", str(tmp_path / "m.npz"), "--hidden", "8,x"]) == 2
    assert "--hidden" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_without_torch_a_clear_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    data = _data(tmp_path)
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    assert main(["train", str(data), "--out", str(tmp_path / "m.npz")]) == 2
    assert "training needs PyTorch" in capsys.readouterr().err
    assert not (tmp_path / "m.npz").exists()


def test_train_writes_a_model_numpy_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    data = _data(tmp_path)
    out = tmp_path / "m.npz"
    assert main(["train", str(data), "--out", str(out), "--epochs", "2", "--hidden", "16"]) == 0
    net = ValueNet.load(out)
    manifest = json.loads(out.with_suffix(".json").read_text())
    assert manifest["training"]["epochs"] == 2 and manifest["hidden"] == [16]
    assert net.players == 2 and net.input_size == manifest["observer_size"] + 4
    assert "val loss" in capsys.readouterr().out
