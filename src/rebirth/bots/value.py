"""The value network at inference time: numpy only (no PyTorch).

A model is an MLP over one seat's :class:`~rebirth.engine.observer.Observer` vector
(relative seats: slot 0 is the observing seat). Hidden layers use ReLU; two heads
read the last hidden layer:

* ``win``: N logits, a softmax over relative seats — the probability that each seat
  wins (a shared win counts 1/k, as in the training targets);
* ``margin``: N values times ``margin_scale`` — each relative seat's expected final
  score minus the best rival's.

The file is one ``.npz`` (``W0, b0, W1, b1, ..., Wwin, bwin, Wmargin, bmargin`` as
float32, and ``manifest``, a JSON string: board, players, observer size and
fingerprint, layer sizes, training figures). It loads with ``allow_pickle=False``:
a model file cannot run code.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from rebirth.engine.messages import UserError
from rebirth.engine.observer import Observer
from rebirth.engine.views import View

FORMAT = "rebirth-value/1"

Vector = Sequence[float] | Mapping[int, float] | npt.NDArray[np.floating[Any]]
"""One observation: a dense vector, or the observer's sparse ``{index: value}`` dict."""


def observer_fingerprint(observer: Observer) -> str:
    """A short hash of the observer's layout (board, players, pieces): data and models built
    for another layout are refused rather than silently misread."""
    layout = [observer.game.board.id, observer.n, observer.size,
              [(name, off, size) for name, off, size, _ in observer.pieces]]
    return hashlib.sha256(json.dumps(layout).encode()).hexdigest()[:16]


def heuristic_features(projected: Sequence[float]) -> list[float]:
    """The extra inputs after the observation: per relative seat its projected final value
    (:func:`rebirth.bots.evaluate.projected` of a determinization of the view) / 100, then its
    projected margin over the best rival / 20. Most points of a game are scored at its end
    (districts, castles, missions: E-2), which a few hundred games do not teach a network."""
    n = len(projected)
    out = [v / 100.0 for v in projected]
    for r in range(n):
        out.append((projected[r] - max(projected[q] for q in range(n) if q != r)) / 20.0)
    return out


def with_extras(sparse: Mapping[int, float], size: int, extras: Sequence[float]) -> dict[int, float]:
    """An observer's sparse vector (``size`` entries) followed by ``extras``."""
    out = dict(sparse)
    for i, v in enumerate(extras):
        out[size + i] = v
    return out


def predict(net: ValueNet, size: int, q: int, projected: Sequence[float],
            sparse: Mapping[int, float]) -> tuple[list[float], list[float]]:
    """Every seat's win chance and final margin (indexed by seat, not relative) as ``net``
    predicts them from seat ``q``'s observation ``sparse`` (an observer's ``size`` entries)
    and the position's ``projected`` values (per seat), as the expert bot's leaves read it
    (the analysis feeds the same inputs as a batch, ``rebirth.analysis.estimate.Judge``)."""
    n = len(projected)
    x = sparse
    if net.extra_inputs:
        # The projected values relative to q, as in training.
        x = with_extras(sparse, size, heuristic_features([projected[(q + r) % n]
                                                          for r in range(n)]))
    wins, margins = net.evaluate_all(x)
    return ([wins[(s - q) % n] for s in range(n)], [margins[(s - q) % n] for s in range(n)])


class ModelError(UserError):
    """A model file that is missing, malformed or made for another observer layout: a catalog
    key plus arguments."""


class ValueNet:
    """A loaded value network (see the module doc)."""

    def __init__(self, hidden: Sequence[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]],
                 win: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
                 margin: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
                 manifest: dict[str, Any]) -> None:
        if not hidden:
            raise ModelError("error.model.no_hidden")
        self.hidden = [(np.ascontiguousarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32))
                       for w, b in hidden]
        self.win = (np.asarray(win[0], dtype=np.float32), np.asarray(win[1], dtype=np.float32))
        self.margin = (np.asarray(margin[0], dtype=np.float32),
                       np.asarray(margin[1], dtype=np.float32))
        self.manifest = dict(manifest)
        self.margin_scale = float(manifest.get("margin_scale", 1.0))
        self.input_size = int(self.hidden[0][0].shape[0])
        self.extra_inputs = int(manifest.get("extra_inputs", 0))
        """Inputs after the observation (:func:`heuristic_features`; 0: the observation only)."""
        self.players = int(self.win[0].shape[1])
        prev = self.input_size
        for w, b in [*self.hidden, self.win, self.margin]:
            if w.ndim != 2 or w.shape[0] != prev or b.shape != (w.shape[1],):
                raise ModelError("error.model.shapes", shape=str(w.shape), prev=prev)
            if w is not self.win[0] and w is not self.margin[0]:
                prev = w.shape[1]
        if self.margin[0].shape[1] != self.players:
            raise ModelError("error.model.heads")

    # ------------------------------------------------------------------ files

    @staticmethod
    def load(path: str | Path) -> ValueNet:
        """Read a model file (ModelError when it is not one)."""
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except FileNotFoundError:
            raise ModelError("error.model.no_file", path=str(path)) from None
        except (OSError, ValueError) as exc:
            raise ModelError("error.model.not_model", path=str(path), reason=str(exc)) from None
        try:
            manifest = json.loads(str(arrays.pop("manifest")))
            if manifest.get("format") != FORMAT:
                raise ModelError("error.model.format", path=str(path), format=FORMAT)
            layers = int(manifest["hidden_layers"])
            hidden = [(arrays[f"W{i}"], arrays[f"b{i}"]) for i in range(layers)]
            return ValueNet(hidden, (arrays["Wwin"], arrays["bwin"]),
                            (arrays["Wmargin"], arrays["bmargin"]), manifest)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ModelError):
                raise
            raise ModelError("error.model.incomplete", path=str(path), reason=repr(exc)) from None

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """The arrays of the model file (with the manifest as a JSON string)."""
        out: dict[str, npt.NDArray[Any]] = {}
        for i, (w, b) in enumerate(self.hidden):
            out[f"W{i}"], out[f"b{i}"] = w, b
        out["Wwin"], out["bwin"] = self.win
        out["Wmargin"], out["bmargin"] = self.margin
        manifest = {**self.manifest, "format": FORMAT, "hidden_layers": len(self.hidden)}
        out["manifest"] = np.asarray(json.dumps(manifest, sort_keys=True))
        return out

    def check(self, observer: Observer) -> None:
        """ModelError unless this model was trained on ``observer``'s layout."""

        want = self.manifest.get("observer_fingerprint")
        got = observer_fingerprint(observer)
        if observer.size + self.extra_inputs != self.input_size or (want is not None and want != got):
            raise ModelError("error.model.observer", want=str(want), inputs=self.input_size,
                             extra=self.extra_inputs, got=got, size=observer.size,
                             board=observer.game.board.id, players=observer.n)

    # ------------------------------------------------------------------ inference

    def _first(self, x: Vector) -> npt.NDArray[np.float32]:
        w, b = self.hidden[0]
        if isinstance(x, Mapping):
            # Sparse: sum the rows of the non-zero inputs (about 150 of 3,600 on Scotland).
            if not x:
                return b.copy()
            idx = np.fromiter(x.keys(), dtype=np.intp, count=len(x))
            val = np.fromiter(x.values(), dtype=np.float32, count=len(x))
            if idx.min() < 0 or idx.max() >= self.input_size:
                raise ValueError(f"observation index out of range 0..{self.input_size - 1}")
            return np.asarray(val @ w[idx] + b, dtype=np.float32)
        arr = np.asarray(x, dtype=np.float32)
        if arr.shape != (self.input_size,):
            raise ValueError(f"an observation of {self.input_size} values expected, got shape {arr.shape}")
        return np.asarray(arr @ w + b, dtype=np.float32)

    def _heads(self, h: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.float64],
                                                          npt.NDArray[np.float64]]:
        np.maximum(h, 0.0, out=h)
        for w, b in self.hidden[1:]:
            h = np.maximum(h @ w + b, 0.0)
        logits = (h @ self.win[0] + self.win[1]).astype(np.float64)
        logits -= logits.max(axis=-1, keepdims=True)
        e = np.exp(logits)
        p = e / e.sum(axis=-1, keepdims=True)
        m = (h @ self.margin[0] + self.margin[1]).astype(np.float64) * self.margin_scale
        return p, m

    def evaluate_all(self, x: Vector) -> tuple[list[float], list[float]]:
        """Win probability and expected margin of every relative seat of one observation."""
        p, m = self._heads(self._first(x))
        return [float(v) for v in p], [float(v) for v in m]

    def evaluate(self, x: Vector) -> tuple[float, float]:
        """(win probability, expected final margin) of the observing seat."""
        p, m = self.evaluate_all(x)
        return p[0], m[0]

    def evaluate_batch(self, xs: npt.ArrayLike) -> tuple[npt.NDArray[np.float64],
                                                         npt.NDArray[np.float64]]:
        """Win probabilities and margins, shape (B, N) each, of B dense observations."""
        arr = np.asarray(xs, dtype=np.float32)
        if arr.ndim != 2 or arr.shape[1] != self.input_size:
            raise ValueError(f"a (B, {self.input_size}) batch expected, got shape {arr.shape}")
        w, b = self.hidden[0]
        # Observations are mostly zeros (about 150 of 3,600 on Scotland) and a batch's worlds
        # share most of theirs: the product over the columns any of them uses.
        cols = np.flatnonzero(arr.any(axis=0))
        return self._heads(np.asarray(arr[:, cols] @ w[cols] + b, dtype=np.float32))

    def evaluate_view(self, observer: Observer, view: View,
                      projected: Sequence[float] | None = None) -> tuple[float, float]:
        """:meth:`evaluate` of a view's observation; ``projected`` (per relative seat) is needed
        when the model takes :func:`heuristic_features`."""
        x = observer.sparse(view)
        if self.extra_inputs:
            if projected is None:
                raise ValueError("this model needs the projected values of the view's seats")
            x = with_extras(x, observer.size, heuristic_features(projected))
        return self.evaluate(x)


def shipped_model_path(board: str, players: int) -> Path | None:
    """The model that ships for ``board`` with ``players`` players, or None."""
    ref = resources.files("rebirth").joinpath("data", "models", f"value-{board}-{players}p.npz")
    path = Path(str(ref))
    return path if path.is_file() else None


_SHIPPED: dict[tuple[str, int], ValueNet | None] = {}


def shipped_model(board: str, players: int) -> ValueNet | None:
    """The shipped model, loaded once per process (None when none ships)."""
    key = (board, players)
    if key not in _SHIPPED:
        path = shipped_model_path(board, players)
        _SHIPPED[key] = None if path is None else ValueNet.load(path)
    return _SHIPPED[key]
