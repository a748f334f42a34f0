"""The numpy value network: the forward pass by hand, sparse and batched paths, model files,
and (with PyTorch installed) the export against the torch modules it came from."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from rebirth.bots.value import ModelError, ValueNet
from rebirth.engine.game import Game
from rebirth.engine.observer import Observer
from rebirth.learn.selfplay import Dataset


def tiny() -> ValueNet:
    """3 inputs, one hidden layer of 2, 2 seats: small enough to compute by hand."""
    w0 = np.array([[1.0, -1.0], [0.5, 2.0], [0.0, 1.0]], dtype=np.float32)
    b0 = np.array([0.0, -0.5], dtype=np.float32)
    ww = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    bw = np.array([0.0, 0.0], dtype=np.float32)
    wm = np.array([[1.0, -1.0], [2.0, 0.0]], dtype=np.float32)
    bm = np.array([0.5, 0.0], dtype=np.float32)
    return ValueNet([(w0, b0)], (ww, bw), (wm, bm), {"margin_scale": 10.0})


def test_forward_pass_by_hand() -> None:
    net = tiny()
    x = [1.0, 1.0, 0.0]
    # hidden: relu([1 + 0.5 + 0, -1 + 2 + 0 - 0.5]) = [1.5, 0.5]
    # win logits [1.5, 0.5]: softmax; margins ([1.5 + 1.0 + 0.5, -1.5] ) * 10
    p0 = math.exp(1.5) / (math.exp(1.5) + math.exp(0.5))
    win, margin = net.evaluate_all(x)
    assert win == pytest.approx([p0, 1 - p0], abs=1e-6)
    assert margin == pytest.approx([30.0, -15.0], abs=1e-5)
    assert net.evaluate(x) == pytest.approx((p0, 30.0), abs=1e-5)
    # ReLU cuts the second unit: hidden relu([1, -1 - 0.5]) = [1, 0]
    win, margin = net.evaluate_all([1.0, 0.0, 0.0])
    assert win[0] == pytest.approx(math.exp(1) / (math.exp(1) + 1), abs=1e-6)
    assert margin == pytest.approx([15.0, -10.0], abs=1e-5)


def test_sparse_dense_and_batch_agree() -> None:
    net = tiny()
    rng = np.random.default_rng(1)
    xs = rng.random((5, 3)).astype(np.float32)
    xs[:, 1] = 0.0
    bp, bm = net.evaluate_batch(xs)
    for i, x in enumerate(xs):
        sparse = {j: float(v) for j, v in enumerate(x) if v != 0.0}
        for got in (net.evaluate_all(x), net.evaluate_all(sparse), net.evaluate_all(list(map(float, x)))):
            assert got[0] == pytest.approx(bp[i].tolist(), abs=1e-6)
            assert got[1] == pytest.approx(bm[i].tolist(), abs=1e-4)
    assert net.evaluate_all({}) == net.evaluate_all([0.0, 0.0, 0.0])


def test_bad_observations_are_refused() -> None:
    net = tiny()
    with pytest.raises(ValueError, match="3 values expected"):
        net.evaluate([1.0, 2.0])
    with pytest.raises(ValueError, match="out of range"):
        net.evaluate({7: 1.0})
    with pytest.raises(ValueError, match="batch expected"):
        net.evaluate_batch(np.zeros((2, 4)))


def test_model_file_round_trip_and_bad_files(tmp_path: Path) -> None:
    net = tiny()
    path = tmp_path / "m.npz"
    np.savez(path, **net.arrays())  # type: ignore[arg-type]
    back = ValueNet.load(path)
    assert back.evaluate_all([0.3, 0.2, 0.1]) == net.evaluate_all([0.3, 0.2, 0.1])
    with pytest.raises(ModelError, match="no model file"):
        ValueNet.load(tmp_path / "missing.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ModelError, match="not a model file"):
        ValueNet.load(junk)
    arrays = net.arrays()
    del arrays["Wmargin"]
    np.savez(tmp_path / "part.npz", **arrays)  # type: ignore[arg-type]
    with pytest.raises(ModelError, match="not a complete model"):
        ValueNet.load(tmp_path / "part.npz")
    arrays = net.arrays()
    arrays["W0"] = np.zeros((3, 5), dtype=np.float32)
    np.savez(tmp_path / "shape.npz", **arrays)  # type: ignore[arg-type]
    with pytest.raises(ModelError, match="do not chain"):
        ValueNet.load(tmp_path / "shape.npz")


def test_a_model_for_another_observer_is_refused() -> None:
    net = tiny()
    with pytest.raises(ModelError, match="trained for observer"):
        net.check(Observer(Game.create("scotland", 3)))


# ---------------------------------------------------------------------- against torch


def test_numpy_forward_equals_torch_forward() -> None:
    pytest.importorskip("torch")
    from rebirth.learn.train import train

    rng = np.random.default_rng(3)
    rows, size, n = 240, 40, 3
    x = (rng.random((rows, size)) < 0.2).astype(np.float32)
    scores = rng.integers(50, 150, size=(rows, n)).astype(np.int16)
    win = np.zeros((rows, n), dtype=np.float32)
    win[np.arange(rows), scores.argmax(axis=1)] = 1.0
    data = Dataset(
        manifest={"board": "test", "players": n, "observer_fingerprint": "test"},
        x=x, game=np.repeat(np.arange(24), 10).astype(np.int32), win_share=win,
        margin=np.zeros(rows, dtype=np.float32), scores=scores,
        heuristic=rng.random((rows, n)).astype(np.float32), legal=np.ones(rows, dtype=np.int16))
    result = train(data, epochs=3, seed=0, hidden=(16, 8), batch_size=32)
    probe = rng.random((17, size + 2 * n)).astype(np.float32)  # observation + heuristic features
    tp, tm = result.forward(probe)
    np_p, np_m = result.net.evaluate_batch(probe)
    assert np.allclose(tp, np_p, atol=1e-5)
    assert np.allclose(tm, np_m, atol=1e-3)
    assert result.figures["val_games"] == 5
    assert result.figures["train_positions"] + result.figures["val_positions"] == rows
