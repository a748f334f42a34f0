"""``rebirth bench``: random all-bot games per second and mcts iterations per second, one core,
of the build that runs (``"build"``: ``"compiled"`` or ``"pure"``, see README "Compiled build";
``"build_note"``: why a compiled build that was asked for is pure, else null)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rebirth.app.bench import bench_mcts, bench_random
from rebirth.bots.levels import build_kind, build_note
from rebirth.engine.board import MapError
from rebirth.engine.game import Game, SetupError
from rebirth.engine.missions import DataError

# The two reference configurations measured when no board is named.
STANDARD = (("scotland", 3), ("ireland", 4))


def measure(game: Game, args: argparse.Namespace) -> dict[str, Any]:
    res = bench_random(game, runs=args.runs, seconds=args.seconds)
    out: dict[str, Any] = {"board": game.board.id, "players": game.players, "build": build_kind(),
                           "build_note": build_note(), **res}
    if not args.no_mcts:
        out.update(bench_mcts(game, runs=args.runs, seconds=args.seconds))
    return out


def run(args: argparse.Namespace) -> int:
    configs = [(args.board, args.players or 3)] if args.board else list(STANDARD)
    if args.json:
        configs = configs[:1]
    try:
        games = [Game.create(b, n, args.variant) for b, n in configs]
    except (MapError, SetupError, DataError) as exc:  # DataError: cards that do not fit the map
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for game in games:
        out = measure(game, args)
        if args.json:
            print(json.dumps(out))
            continue
        print(f"{game.board.id}, {game.players} players, {out['build']} build: "
              f"{out['games_per_s']:.0f} random games/s on one core (median of {out['runs']} runs; "
              f"min {out['min']:.0f}, max {out['max']:.0f})")
        if out["build_note"]:
            print(f"  {out['build_note']}")
        if not args.no_mcts:
            print(f"  mcts: {out['mcts_iterations_per_s']:.0f} iterations/s (median; min "
                  f"{out['mcts_min']:.0f}, max {out['mcts_max']:.0f})")
    return 0
