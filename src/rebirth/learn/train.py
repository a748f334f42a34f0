"""Training the value network on self-play data (needs PyTorch: the ``train`` extra).

The split is by game (whole games go to validation, so no position of a validation
game is seen in training: positions of one game share its outcome). The loss is the
cross-entropy of the win head against the win shares plus the squared error of the
margin head against the margins / ``margin_scale``. The weights of the epoch with the
lowest validation loss are kept and exported for :class:`rebirth.bots.value.ValueNet`.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from rebirth.bots.value import ValueNet, heuristic_features
from rebirth.engine.messages import UserError
from rebirth.learn.selfplay import Dataset

MARGIN_SCALE = 20.0
"""Margins are learnt in units of 20 points (a typical spread; keeps both losses near 1)."""


SD_FLOOR = 1.0
"""Observation entries are divided by max(std, this), i.e. only centred: scaling the board's
one-hots up made the network memorise games. The heuristic features are standardised."""


class TrainError(UserError):
    """Training that cannot start (no torch, too little data, bad options): a catalog key plus
    arguments."""


def _torch() -> Any:
    # Imported by name: mypy (and CI) need no torch when only numpy inference is used.
    try:
        torch = importlib.import_module("torch")
    except ImportError:
        raise TrainError("error.train.torch") from None
    return torch


def margins_per_seat(scores: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """Each relative seat's final score minus the best other seat's, shape (P, N)."""
    s = scores.astype(np.float32)
    n = s.shape[1]
    out = np.empty_like(s)
    for r in range(n):
        others = np.delete(s, r, axis=1)
        out[:, r] = s[:, r] - others.max(axis=1)
    return out


def features(data: Dataset) -> npt.NDArray[np.float32]:
    """The network's inputs: each observation followed by its :func:`heuristic_features`."""
    extra = np.asarray([heuristic_features(row) for row in data.heuristic.tolist()], dtype=np.float32)
    return np.concatenate([data.x, extra.reshape(len(data.x), -1)], axis=1)


def split_games(games: npt.NDArray[np.int32], val_share: float, seed: int) -> npt.NDArray[np.bool_]:
    """A mask of validation rows: a seeded ``val_share`` of the games, whole."""
    ids = np.unique(games)
    rng = np.random.default_rng(seed)
    k = max(1, round(len(ids) * val_share))
    if k >= len(ids):
        raise TrainError("error.train.too_few", n=len(ids), k=k)
    val = rng.choice(ids, size=k, replace=False)
    return np.isin(games, val)


@dataclass(frozen=True)
class TrainResult:
    """The exported network and the figures of the run."""

    net: ValueNet
    figures: dict[str, Any]
    forward: Callable[[npt.NDArray[np.float32]], tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]
    """The trained torch modules as a function of (B, features) (:func:`features`) -> (win
    probabilities, margins), to
    check the export against."""


def winner_accuracy(pred: npt.NDArray[Any], share: npt.NDArray[Any]) -> float:
    """Share of rows whose top predicted seat is among the winners (argmax per row)."""
    top = np.argmax(pred, axis=1)
    return float(np.mean(share[np.arange(len(share)), top] > 0))


def train(data: Dataset, *, epochs: int = 6, seed: int = 0, hidden: Sequence[int] = (64, 32),
          val_share: float = 0.2, batch_size: int = 256, lr: float = 2e-4,
          weight_decay: float = 0.05, dropout: float = 0.5,
          log: Callable[[str], None] | None = None) -> TrainResult:
    """Train on ``data`` and return the best epoch's network with the run's figures."""
    torch = _torch()
    if epochs < 1:
        raise TrainError("error.train.epochs", epochs=epochs)
    if not 0.0 <= dropout < 1.0:
        raise TrainError("error.train.dropout", dropout=str(dropout))
    if not hidden or any(h < 1 for h in hidden):
        raise TrainError("error.train.hidden", hidden=str(list(hidden)))
    torch.manual_seed(seed)
    # One thread: the figures in docs/ai.md are for one core, and the result does not depend
    # on the machine's core count.
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    n = int(data.manifest["players"])
    val_mask = split_games(data.game, val_share, seed)
    margins = margins_per_seat(data.scores) / MARGIN_SCALE
    # Standardised inputs: the few score entries (0..1.5) would otherwise drown among three
    # thousand board one-hots, and the network would learn the board (memorise games) rather
    # than the score. The scaling is folded into the first layer on export.
    feats = features(data)
    mu = feats[~val_mask].mean(axis=0)
    sd = feats[~val_mask].std(axis=0)
    obs_size = data.x.shape[1]
    sd[:obs_size] = np.maximum(sd[:obs_size], SD_FLOOR)
    sd = np.maximum(sd, 1e-3).astype(np.float32)
    x = torch.from_numpy((feats - mu) / sd)
    ws = torch.from_numpy(data.win_share)
    mg = torch.from_numpy(margins)
    tr_idx = torch.from_numpy(np.flatnonzero(~val_mask))
    va_idx = torch.from_numpy(np.flatnonzero(val_mask))

    layers: list[Any] = []
    prev = feats.shape[1]
    for h in hidden:
        # Dropout after each hidden layer (training only): a few hundred games' outcomes are
        # easy to memorise from the board, and dropout slows that down.
        layers += [torch.nn.Linear(prev, h), torch.nn.ReLU()]
        if dropout > 0.0:
            layers.append(torch.nn.Dropout(dropout))
        prev = h
    body = torch.nn.Sequential(*layers)
    win_head = torch.nn.Linear(prev, n)
    margin_head = torch.nn.Linear(prev, n)
    params = [*body.parameters(), *win_head.parameters(), *margin_head.parameters()]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)

    def losses(idx: Any) -> tuple[Any, Any]:
        h = body(x[idx])
        logp = torch.log_softmax(win_head(h), dim=1)
        ce = -(ws[idx] * logp).sum(dim=1).mean()
        mse = ((margin_head(h) - mg[idx]) ** 2).mean()
        return ce, mse

    best: tuple[float, int, list[Any]] | None = None
    history: list[dict[str, float]] = []
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(1, epochs + 1):
        body.train()
        perm = tr_idx[torch.randperm(len(tr_idx), generator=gen)]
        total = 0.0
        for i in range(0, len(perm), batch_size):
            ce, mse = losses(perm[i:i + batch_size])
            loss = ce + mse
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(perm[i:i + batch_size])
        body.eval()
        with torch.no_grad():
            vce, vmse = losses(va_idx)
        v = float(vce + vmse)
        history.append({"epoch": epoch, "train_loss": total / len(perm), "val_loss": v,
                        "val_win_ce": float(vce), "val_margin_mse": float(vmse)})
        if log is not None:
            log(f"epoch {epoch:3d}  train {total / len(perm):.4f}  val {v:.4f} "
                f"(win ce {float(vce):.4f}, margin mse {float(vmse):.4f})")
        if best is None or v < best[0]:
            best = (v, epoch, [p.detach().clone() for p in params])
    assert best is not None
    with torch.no_grad():
        for p, b in zip(params, best[2], strict=True):
            p.copy_(b)
    wall = time.perf_counter() - t0

    def np_(t: Any) -> npt.NDArray[np.float32]:
        return np.asarray(t.detach().numpy(), dtype=np.float32)

    lin = [m for m in body if isinstance(m, torch.nn.Linear)]
    manifest: dict[str, Any] = {
        "board": data.manifest["board"], "players": n,
        "variants": data.manifest.get("variants", []),
        "observer_size": int(data.x.shape[1]), "extra_inputs": int(feats.shape[1] - data.x.shape[1]),
        "observer_fingerprint": data.manifest["observer_fingerprint"],
        "hidden": list(hidden), "margin_scale": MARGIN_SCALE,
    }
    layers_np = [(np_(m.weight.T), np_(m.bias)) for m in lin]
    w0, b0 = layers_np[0]
    # (x - mu) / sd @ W0 + b0  ==  x @ (W0 / sd) + (b0 - (mu / sd) @ W0)
    layers_np[0] = ((w0 / sd[:, None]).astype(np.float32),
                    (b0 - (mu / sd).astype(np.float32) @ w0).astype(np.float32))
    net = ValueNet(layers_np,
                   (np_(win_head.weight.T), np_(win_head.bias)),
                   (np_(margin_head.weight.T), np_(margin_head.bias)), manifest)
    figures = _figures(net, data, feats, val_mask, margins, history, best[1], wall, seed, val_share,
                       epochs, batch_size, lr, weight_decay, dropout)
    net.manifest["training"] = figures

    def forward(xs: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        body.eval()
        with torch.no_grad():
            h = body(torch.from_numpy(((np.asarray(xs, dtype=np.float32) - mu) / sd)
                                      .astype(np.float32)))
            p = torch.softmax(win_head(h), dim=1)
            m = margin_head(h) * MARGIN_SCALE
        return p.double().numpy(), m.double().numpy()

    return TrainResult(net, figures, forward)


def _figures(net: ValueNet, data: Dataset, feats: npt.NDArray[np.float32], val_mask: npt.NDArray[np.bool_],
             margins: npt.NDArray[np.float32], history: list[dict[str, float]], best_epoch: int,
             wall: float, seed: int, val_share: float, epochs: int, batch_size: int, lr: float,
             weight_decay: float, dropout: float) -> dict[str, Any]:
    """Validation figures of the exported network beside simple baselines."""
    tr, va = ~val_mask, val_mask
    ws = data.win_share
    p, m = net.evaluate_batch(feats[va])
    eps = 1e-7
    ce = float(-(ws[va] * np.log(np.clip(p, eps, 1))).sum(axis=1).mean())
    mse = float(((m / MARGIN_SCALE - margins[va]) ** 2).mean())
    # Baseline: predict the training set's mean win shares and margins for every position.
    mean_w = ws[tr].mean(axis=0)
    mean_m = margins[tr].mean(axis=0)
    base_ce = float(-(ws[va] * np.log(np.clip(mean_w, eps, 1))).sum(axis=1).mean())
    base_mse = float(((margins[va] - mean_m) ** 2).mean())
    legal = data.legal[va]
    # The heuristic's projected margins (own projected value minus the best rival's) read as
    # a prediction of the final margins: the evaluation the network should beat.
    heur_m = margins_per_seat(data.heuristic[va]) / MARGIN_SCALE
    heur_mse = float(((heur_m - margins[va]) ** 2).mean())
    out: dict[str, Any] = {
        "positions": len(ws), "train_positions": int(tr.sum()), "val_positions": int(va.sum()),
        "games": len(np.unique(data.game)), "val_games": len(np.unique(data.game[va])),
        "epochs": epochs, "best_epoch": best_epoch, "batch_size": batch_size, "lr": lr,
        "weight_decay": weight_decay, "dropout": dropout, "seed": seed, "val_share": val_share,
        "wall_seconds": round(wall, 1),
        "val_loss": round(ce + mse, 4), "val_win_ce": round(ce, 4), "val_margin_mse": round(mse, 4),
        "baseline_val_loss": round(base_ce + base_mse, 4), "baseline_val_win_ce": round(base_ce, 4),
        "baseline_val_margin_mse": round(base_mse, 4),
        "val_margin_mae_points": round(float(np.abs(m[:, 0] - margins[va][:, 0] * MARGIN_SCALE).mean()), 2),
        "baseline_margin_mae_points": round(
            float(np.abs(mean_m[0] - margins[va][:, 0]).mean() * MARGIN_SCALE), 2),
        "heuristic_val_margin_mse": round(heur_mse, 4),
        "heuristic_margin_mae_points": round(
            float(np.abs(heur_m[:, 0] - margins[va][:, 0]).mean() * MARGIN_SCALE), 2),
        "val_winner_accuracy": round(winner_accuracy(p, ws[va]), 4),
        "heuristic_winner_accuracy": round(winner_accuracy(data.heuristic[va], ws[va]), 4),
        "forced_share": round(float(np.mean(legal == 1)), 4),
        "history": history,
    }
    # By stage of the game: thirds of each game's decisions.
    stage = _stage(data.game[va])
    by: dict[str, Any] = {}
    for k, name in enumerate(("early", "middle", "late")):
        sel = stage == k
        if sel.any():
            by[name] = {"positions": int(sel.sum()),
                        "net_winner_accuracy": round(winner_accuracy(p[sel], ws[va][sel]), 4),
                        "heuristic_winner_accuracy": round(
                            winner_accuracy(data.heuristic[va][sel], ws[va][sel]), 4),
                        "net_margin_mse": round(float(
                            ((m[sel] / MARGIN_SCALE - margins[va][sel]) ** 2).mean()), 4),
                        "heuristic_margin_mse": round(float(
                            ((heur_m[sel] - margins[va][sel]) ** 2).mean()), 4),
                        "mean_margin_mse": round(float(((margins[va][sel] - mean_m) ** 2).mean()), 4)}
    out["by_stage"] = by
    return out


def _stage(games: npt.NDArray[np.int32]) -> npt.NDArray[np.int64]:
    """0/1/2 for the first, middle and last third of each game's rows (rows are in order)."""
    out = np.zeros(len(games), dtype=np.int64)
    for g in np.unique(games):
        idx = np.flatnonzero(games == g)
        out[idx] = np.minimum(2, (np.arange(len(idx)) * 3) // len(idx))
    return out
