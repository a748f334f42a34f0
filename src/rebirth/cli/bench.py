"""``rebirth bench``: random all-bot games per second on one core."""

from __future__ import annotations

import argparse
import json
import sys

from rebirth.bench import bench_mcts, bench_random
from rebirth.engine.board import MapError
from rebirth.engine.game import Game, SetupError


def run(args: argparse.Namespace) -> int:
    try:
        game = Game.create(args.board, args.players, args.variant)
    except (MapError, SetupError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    res = bench_random(game, runs=args.runs, seconds=args.seconds)
    out = {"board": game.board.id, "players": game.players, **res}
    if not args.no_mcts:
        out.update(bench_mcts(game, runs=args.runs, seconds=args.seconds))
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{game.board.id}, {game.players} players: {res['games_per_s']:.0f} random games/s "
          f"on one core (median of {res['runs']} runs; min {res['min']:.0f}, "
          f"max {res['max']:.0f})")
    if not args.no_mcts:
        print(f"mcts: {out['mcts_iterations_per_s']:.0f} iterations/s (median; min "
              f"{out['mcts_min']:.0f}, max {out['mcts_max']:.0f})")
    return 0
