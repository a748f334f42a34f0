"""Play a fixed list of seeded bot games and print them as JSON lines, for comparing builds.

Run with the build to check first on the path (``PYTHONPATH=src`` for the pure package,
``PYTHONPATH=build/compiled`` for the compiled one)::

    python tests/compiled/games.py [--quick]

The first line names the build that ran; every further line is one game: its
configuration, the complete record (RULES.md S-1…S-8 deal, every action and chance
outcome, E-1 result) and the spectator's event stream. Two builds that play the same
games print the same lines after the first. ``--quick`` plays one seed per configuration
with fewer mcts iterations (a smoke run by hand).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from typing import Any

from rebirth.app.bench import random_playout
from rebirth.app.match import Match
from rebirth.bots.levels import build_kind
from rebirth.bots.mcts import MCTSBot
from rebirth.engine import state as state_module
from rebirth.engine.board import builtin_names
from rebirth.engine.game import Game

KINDS = ("random", "greedy", "heuristic", "easy", "mcts")
"""Every bot kind (``easy`` is greedy with random slips; ``normal`` is the heuristic bot and
``hard`` the mcts bot with a build-dependent budget, so they are covered by their kinds)."""

MCTS_ITERATIONS = 12
"""A small fixed budget: the search is deterministic for a seed and an iteration count."""

VARIANTS = {"scotland": ("set_aside_public",), "ireland": ("ireland_set_aside_known",)}
"""One variant game per board (S-3/S-4 visibility), besides the plain games."""


def configs(quick: bool) -> Iterator[tuple[str, int, tuple[str, ...], str, int]]:
    """(board, players, variants, kind, seed) of every game, in a fixed order."""
    seeds = (1,) if quick else (1, 2)
    for board in builtin_names():
        for players in (2, 3, 4):
            for kind in KINDS:
                for seed in seeds:
                    yield board, players, (), kind, seed
        yield board, 3, VARIANTS.get(board, ()), "random", 3


def play(board: str, players: int, variants: tuple[str, ...], kind: str, seed: int,
         iterations: int) -> dict[str, Any]:
    """One bot game through the authority (:class:`~rebirth.app.match.Match`), as JSON."""
    game = Game.create(board, players, variants)
    match = Match.start(game, [kind] * players, seed=seed)
    for bot in match.bots.values():
        if isinstance(bot, MCTSBot):
            bot.iterations = iterations
    match.run_bots()
    return {"config": [board, players, list(variants), kind, seed],
            "record": match.record(), "events": match.events_for(None)}


def playouts(board: str, players: int, seed: int, games: int = 20) -> dict[str, Any]:
    """Random games on the fast path (``apply_id``, no events): each one's actions and scores."""
    game = Game.create(board, players)
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        st = random_playout(game.new_state(rng.getrandbits(32)), rng)
        out.append({"actions": st.history_json(), "score": st.score})
    return {"config": [board, players, "playouts", seed], "games": out}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="one seed per configuration")
    args = parser.parse_args(argv)
    iterations = 4 if args.quick else MCTS_ITERATIONS
    print(json.dumps({"build": build_kind(), "engine": state_module.__file__}), flush=True)
    for board in builtin_names():
        for players in (2, 3, 4):
            print(json.dumps(playouts(board, players, players), sort_keys=True), flush=True)
    for cfg in configs(args.quick):
        print(json.dumps(play(*cfg, iterations=iterations), sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
