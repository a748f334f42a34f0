"""The model that ships (src/rebirth/data/models): small, loads without PyTorch, fits the
observer, and gives its recorded value on a fixed position (golden)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rebirth.bots.value import observer_fingerprint, shipped_model, shipped_model_path
from rebirth.engine.game import Game
from rebirth.engine.observer import Observer

SHIPPED = [("scotland", 3), ("ireland", 3), ("scotland", 2), ("ireland", 2), ("scotland", 4),
           ("ireland", 4)]
"""The models that ship: every board with 2, 3 and 4 players."""


@pytest.mark.parametrize(("BOARD", "PLAYERS"), SHIPPED)
def test_shipped_model_is_small_and_fits_the_observer(BOARD: str, PLAYERS: int) -> None:
    path = shipped_model_path(BOARD, PLAYERS)
    assert path is not None
    assert path.stat().st_size < 5_000_000
    net = shipped_model(BOARD, PLAYERS)
    assert net is not None
    obs = Observer(Game.create(BOARD, PLAYERS))
    net.check(obs)
    assert net.manifest["observer_fingerprint"] == observer_fingerprint(obs)
    assert net.players == PLAYERS and net.extra_inputs == 2 * PLAYERS
    for board in ("scotland", "ireland"):
        assert shipped_model_path(board, 5) is None and shipped_model(board, 5) is None
    # The training figures travel with the model (docs/ai.md quotes them).
    t = net.manifest["training"]
    assert t["val_loss"] < t["baseline_val_loss"]


GOLDEN_SCRIPT = """
import json, random, sys
sys.modules["torch"] = None  # any import of torch now fails
from rebirth.bots.evaluate import projected
from rebirth.engine.determinize import determinize
from rebirth.engine.game import Game
from rebirth.engine.observer import Observer
from rebirth.bots.value import heuristic_features, shipped_model, with_extras
from rebirth.app.match import Match
board, n = sys.argv[1], int(sys.argv[2])
game = Game.create(board, n)
obs = Observer(game)
m = Match.start(game, ["random"] * n, seed=12345)
for _ in range(30):
    m.step_bot()
seat = m.state.current_player
view = m.state.view(seat)  # the seat's view only: its projection comes from a determinization
proj = projected(determinize(game, view, random.Random(0)))
rel = [proj[(seat + r) % n] for r in range(n)]
net = shipped_model(board, n)
win, margin = net.evaluate_all(with_extras(obs.sparse(view), obs.size, heuristic_features(rel)))
assert net.evaluate_view(obs, view, rel) == (win[0], margin[0])
print(json.dumps({"seat": seat, "win": win, "margin": margin, "torch": sys.modules["torch"] is not None}))
"""

# Each shipped model's output on that position (random bots, seed 12345, 30 moves).
GOLDENS: dict[tuple[str, int], dict[str, Any]] = {
    ("scotland", 3): {"seat": 0, "win": [0.380631, 0.316490, 0.302879],
                      "margin": [-1.87266, -5.45334, -6.94851]},
    ("ireland", 3): {"seat": 1, "win": [0.309087, 0.412279, 0.278635],
                     "margin": [-9.76909, -2.15855, -11.4707]},
    ("scotland", 2): {"seat": 0, "win": [0.295118, 0.704882], "margin": [-8.67037, 7.57063]},
    ("ireland", 2): {"seat": 1, "win": [0.856754, 0.143246], "margin": [20.85802, -20.81149]},
    ("scotland", 4): {"seat": 2, "win": [0.258599, 0.265455, 0.245159, 0.230788],
                      "margin": [-3.97670, -3.90483, -4.66077, -3.74712]},
    ("ireland", 4): {"seat": 0, "win": [0.411096, 0.173938, 0.229805, 0.185161],
                     "margin": [-1.53284, -14.12932, -7.37429, -12.50880]},
}


@pytest.mark.parametrize(("BOARD", "PLAYERS"), SHIPPED)
def test_shipped_model_golden_value_without_torch(BOARD: str, PLAYERS: int) -> None:
    GOLDEN = GOLDENS[BOARD, PLAYERS]
    src = Path(__file__).resolve().parents[2] / "src"
    out = subprocess.run([sys.executable, "-c", GOLDEN_SCRIPT, BOARD, str(PLAYERS)],
                         capture_output=True, text=True,
                         env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"}, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["torch"] is False
    assert got["seat"] == GOLDEN["seat"]
    assert got["win"] == pytest.approx(GOLDEN["win"], abs=1e-4)
    assert got["margin"] == pytest.approx(GOLDEN["margin"], abs=1e-3)
    assert sum(got["win"]) == pytest.approx(1.0, abs=1e-6)
