"""Perft-style regression: legal-action counts along fixed seeded games.

The counts live in tests/data/perft.json. After a deliberate rules or map
change, regenerate with ``REBIRTH_REGEN_PERFT=1 pytest tests/engine/test_perft.py``
and review the diff.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from rebirth.engine.board import builtin_board
from rebirth.engine.game import Game

DATA = Path(__file__).parent.parent / "data" / "perft.json"
CASES = [(b, n, seed) for b in ("scotland", "ireland") for n in (2, 3, 4) for seed in (7, 8)]


def trace(board: str, players: int, seed: int) -> dict[str, Any]:
    """Counts of legal actions at every decision, choosing by a seeded RNG over sorted ids."""
    game = Game.create(builtin_board(board), players)
    state = game.new_state(seed)
    rng = random.Random(seed)
    counts: list[int] = []
    while not state.is_terminal():
        if state.is_chance_node():
            # Chance (I-7) is resolved as the authority does, from the game's own RNG.
            state.apply_id(state.sample_chance(state.rng))
            continue
        ids = sorted(state.legal_action_ids())
        counts.append(len(ids))
        state.apply_id(ids[int(rng.random() * len(ids))])
    return {"counts": counts, "scores": state.score, "winners": state.winners}


def key(board: str, players: int, seed: int) -> str:
    return f"{board}/{players}/{seed}"


def test_perft_counts() -> None:
    got = {key(*c): trace(*c) for c in CASES}
    if os.environ.get("REBIRTH_REGEN_PERFT"):
        lines = [f"{json.dumps(k)}: {json.dumps(got[k])}" for k in sorted(got)]
        DATA.write_text("{\n" + ",\n".join(lines) + "\n}\n")
        pytest.skip("perft file regenerated")
    want = json.loads(DATA.read_text())
    for k, v in got.items():
        assert k in want, f"{k} missing from {DATA.name}"
        assert v["counts"] == want[k]["counts"], f"{k}: legal-action counts differ"
        assert v["scores"] == want[k]["scores"], f"{k}: final scores differ"
        assert v["winners"] == want[k]["winners"], f"{k}: winners differ"
