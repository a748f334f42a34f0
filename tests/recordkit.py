"""Real game records and map documents for the loader tests (played by random moves, seeded)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

from rebirth.app.bench import random_playout
from rebirth.engine.game import Game
from rebirth.engine.records import make_record

MAPS = Path(__file__).resolve().parents[1] / "src" / "rebirth" / "data" / "maps"
_CACHE: dict[tuple[str, int, int, int | None], dict[str, Any]] = {}


def game_record(board: str = "scotland", players: int = 3, seed: int = 1,
                stop_after: int | None = None) -> dict[str, Any]:
    """A record of a random game; ``stop_after`` actions leaves it unfinished."""
    key = (board, players, seed, stop_after)
    if key not in _CACHE:
        game = Game.create(board, players)
        state = game.new_state(seed)
        rng = random.Random(seed)
        if stop_after is None:
            random_playout(state, rng)
        else:
            for _ in range(stop_after):
                state.apply_id(state.random_action_id(rng))
        _CACHE[key] = make_record(state, seed=seed)
    return copy.deepcopy(_CACHE[key])


def ireland_record_with_chance() -> dict[str, Any]:
    """An Ireland record that has at least one chance outcome (I-7 reveal)."""
    for seed in range(1, 50):
        rec = game_record("ireland", 3, seed)
        if any("chance" in a for a in rec["actions"]):
            return rec
    raise AssertionError("no Ireland game with a reveal in 50 seeds")  # pragma: no cover


def map_json(name: str) -> dict[str, Any]:
    """A shipped map file, decoded (a fresh copy to mutate)."""
    data: dict[str, Any] = json.loads((MAPS / f"{name}.json").read_text(encoding="utf-8"))
    return data
