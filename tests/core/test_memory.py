"""Memory stays flat over playouts (issue 28 item 3): the native core frees what it takes.
This test runs tens of thousands of playouts through every entry point and checks the
traced Python allocations (the core allocates through PyMem, which tracemalloc sees) and the
resident size; benchmarks/core_memory.py measures the million."""

from __future__ import annotations

import os
import random
import tracemalloc

from rebirth.bots.mcts import MCTSBot
from rebirth.engine import native
from rebirth.engine.game import Game


def _rss_kb() -> int:
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * 4


def _round(game: Game, bridge: native.Native, k: int) -> None:
    bridge.random_games(k, 0.0, 2000)
    base = bridge.deal(k)
    rng = random.Random(k)
    for _ in range(300):
        c = base.resample(base.cur, rng)
        c.playout(rng, 1, 0.1, -1)
    st = game.new_state(k)
    seat = st.current_player
    MCTSBot(game, seat, k, iterations=1500).analyse(st.view(seat))
    native.Native.outcomes([base.clone() for _ in range(50)], list(range(50)), -1, 0)


def test_memory_is_flat_over_playouts() -> None:
    game = Game.builtin("scotland", 3)
    bridge = native.for_game(game)
    assert bridge is not None
    _round(game, bridge, 0)  # warm-up: caches, arenas
    tracemalloc.start()
    try:
        _round(game, bridge, 1)
        first, _ = tracemalloc.get_traced_memory()
        rss = _rss_kb()
        for k in range(2, 6):
            _round(game, bridge, k)
        last, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Each round plays 2,000 + 300 + 1,500 + 50 playouts: 15,000 after the first.
    assert last - first < 64 * 1024, (first, last)
    if "asan" not in os.environ.get("LD_PRELOAD", ""):  # ASan holds freed memory in quarantine
        assert _rss_kb() - rss < 4 * 1024
