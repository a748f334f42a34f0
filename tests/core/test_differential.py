"""The native core against the pure engine, step by step (issue 28 item 3): more than 10,000
games over both boards with 2-4 players, every variant alone, capacity-tight, hand-made and
fuzzed maps (tests/core/corekit.py). Every step compares the legal ids in their order, the
id each core draws from the same random stream, the scores, the seat and the phase; one
game in ten compares the whole state (every table) after every step, and every game its
whole state at the end and the random generator's state. The rules checked are all of the
placement and end-scoring rules the games reach: P-1…P-7, F-1…F-3, T-1…T-7, C-1…C-5,
K-1…K-8, I-6…I-11, E-1…E-4, S-6 (neutral blockers) and the deal S-1…S-8."""

from __future__ import annotations

import os
import random

import pytest

from core.corekit import compare_game, configs, fuzzed_boards, make_game
from rebirth.engine import native
from rebirth.engine.game import Game

SEEDS = int(os.environ.get("REBIRTH_DIFF_SEEDS", "210"))
"""Games per configuration: 48 configurations, 10,080 games (plus the fuzzed maps'); the
sanitizer run (scripts/test-sanitizer.sh) plays fewer."""
FULL_EVERY = 10


@pytest.mark.parametrize(("board", "players", "variants"), configs(),
                         ids=[f"{b}-{n}-{'+'.join(sorted(v)) or 'plain'}" for b, n, v in configs()])
def test_games_step_by_step(board: str, players: int, variants: frozenset[str]) -> None:
    game = make_game(board, players, variants)
    steps = 0
    for seed in range(SEEDS):
        # Random moves (the bench's) and the playouts' greedy policy, alternately.
        steps += compare_game(game, seed, policy=seed % 2, full=seed % FULL_EVERY == 0)
    assert steps >= SEEDS


def test_fuzzed_maps_step_by_step() -> None:
    boards = list(fuzzed_boards(60, seed=11))
    assert boards, "the mutations must leave some maps the loader accepts"
    for board in boards:
        for n in (2, 3, 4):
            game = Game.create(board, n)
            for seed in range(8):
                compare_game(game, seed, policy=seed % 2, full=seed == 0)


@pytest.mark.parametrize(("board", "players"), [("scotland", 3), ("ireland", 4), ("small_ireland", 2)])
def test_bench_games_are_the_engines(board: str, players: int) -> None:
    """app/bench.py's random games dealt and played natively are the engine's: the same
    number of games from a seed, the same sum of final scores."""
    from rebirth.app.bench import random_playout

    game = make_game(board, players)
    bridge = native.for_game(game)
    assert bridge is not None
    count, _, checksum = bridge.random_games(3, 0.0, 40)
    rng = random.Random(3)
    total = 0
    for _ in range(40):
        st = random_playout(game.new_state(rng.getrandbits(32)), rng)
        total += sum(st.score)
    assert (count, checksum) == (40, total)


def test_pure_forced_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    game = make_game("scotland", 3)
    assert native.core_kind() == "native" and native.for_game(game) is not None
    monkeypatch.setenv("REBIRTH_CORE", "pure")
    assert native.core_kind() == "pure" and native.for_game(game) is None
