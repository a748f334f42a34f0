"""Speed measurements: random all-bot games per second on one core (the fast path), in the
core that runs (:func:`rebirth.engine.native.core_kind`: ``"native"`` or ``"pure"``)."""

from __future__ import annotations

import random
import statistics
import time

from rebirth.engine import native
from rebirth.engine.game import Game
from rebirth.engine.state import State


def random_playout(state: State, rng: random.Random) -> State:
    """Play ``state`` to the end with uniformly random legal actions (in place)."""
    pick = state.random_action_id
    apply = state.apply_id
    while not state.done:
        apply(pick(rng))
    return state


def games_per_second(game: Game, *, seconds: float = 1.0, seed: int = 0) -> float:
    """Deal and play random games for about ``seconds``; games per second. The native core
    deals and plays the same games (the same seeds, the same moves) in C."""
    bridge = native.for_game(game)
    if bridge is not None:
        count, secs, _ = bridge.random_games(seed, seconds)
        return count / secs
    rng = random.Random(seed)
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        st = game.new_state(rng.getrandbits(32))
        random_playout(st, rng)
        count += 1
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start)


def mcts_iterations_per_second(game: Game, *, seconds: float = 1.0, seed: int = 0) -> float:
    """MCTS iterations per second from a position a third into a random game."""
    from rebirth.bots.mcts import MCTSBot  # bots sit above the engine; bench may use both

    rng = random.Random(seed)
    state = game.new_state(seed)
    plies = game.players * 10
    while plies and not state.done:
        state.apply_id(state.random_action_id(rng))
        plies -= 1
    seat = state.current_player
    bot = MCTSBot(game, seat, seed, iterations=None, seconds=seconds)
    start = time.perf_counter()
    bot.analyse(state.view(seat))
    return bot.last_stats["iterations"] / (time.perf_counter() - start)


def bench_mcts(game: Game, *, runs: int = 5, seconds: float = 1.0, seed: int = 0) -> dict[str, float]:
    """Median of :func:`mcts_iterations_per_second` over ``runs`` runs."""
    rates = [mcts_iterations_per_second(game, seconds=seconds, seed=seed + i) for i in range(runs)]
    return {"mcts_iterations_per_s": statistics.median(rates), "mcts_min": min(rates),
            "mcts_max": max(rates)}


def bench_random(game: Game, *, runs: int = 5, seconds: float = 1.0, seed: int = 0) -> dict[str, float | str]:
    """Median and spread of :func:`games_per_second` over ``runs`` runs."""
    rates = [games_per_second(game, seconds=seconds, seed=seed + i) for i in range(runs)]
    return {
        "core": native.core_kind() if native.for_game(game) is not None else "pure",
        "games_per_s": statistics.median(rates),
        "min": min(rates),
        "max": max(rates),
        "runs": runs,
    }
