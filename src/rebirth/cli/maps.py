"""``rebirth maps check FILE`` and ``rebirth maps list``."""

from __future__ import annotations

import argparse
import random
import sys

from rebirth.engine.board import Board, MapError, builtin_board, builtin_names, load_board
from rebirth.engine.game import Game, SetupError
from rebirth.engine.missions import DataError


def run(args: argparse.Namespace) -> int:
    if args.maps_command == "list":
        for name in builtin_names():
            b = builtin_board(name)
            print(f"{name:10} {' / '.join(b.name.values())}: {len(b.spaces)} spaces, "
                  f"{len(b.castles)} castles, {len(b.cathedrals)} cathedrals, {len(b.towers)} towers")
        return 0
    try:
        board = load_board(args.file, check_capacity=False)
    except MapError as exc:
        print(f"{args.file}: INVALID: {exc}", file=sys.stderr)
        return 1
    kinds: dict[str, int] = {}
    for s in board.spaces:
        kinds[s.kind_name] = kinds.get(s.kind_name, 0) + 1
    sizes: dict[int, int] = {}
    for d in board.districts:
        sizes[d.size] = sizes.get(d.size, 0) + 1
    print(f"{args.file}: map {board.id!r} ({board.rules}), {board.width} x {board.height} hexes")
    print("  spaces: " + ", ".join(f"{k} {v}" for k, v in kinds.items()))
    print("  districts: " + ", ".join(f"{v} of size {k}" for k, v in sorted(sizes.items())))
    print(f"  markers: {sum(s.port for s in board.spaces)} port, "
          f"{sum(s.offshore for s in board.spaces)} offshore, {len(board.blockers)} blocker")
    print(f"  structures: {len(board.castles)} castles, {len(board.cathedrals)} cathedrals, "
          f"{len(board.towers)} towers")
    print("  regions: " + ", ".join(
        f"{r.id} {sum(1 for s in board.spaces if s.region == r.index)}" for r in board.regions))
    ok = True
    print("  capacity (S-9):")
    for row in board.capacity():
        flag = "ok" if row.ok else "FAILS"
        ok = ok and row.ok
        s_ok = row.settlement_spaces >= row.settlement_tiles
        f_free = row.farm_spaces - row.blockers
        f_ok = f_free >= row.farm_tiles
        print(f"    {row.players} players: settlement spaces {row.settlement_spaces} "
              f"{'>=' if s_ok else '<'} {row.settlement_tiles} tiles; farm spaces "
              f"{row.farm_spaces} - {row.blockers} blockers = {f_free} {'>=' if f_ok else '<'} "
              f"{row.farm_tiles} tiles: {flag}")
    if not ok:
        print("INVALID: capacity rule S-9 fails")
        return 1
    try:
        for line in play_checks(board):
            print("  " + line)
    except (MapError, SetupError, DataError) as exc:
        print(f"INVALID: {exc}")
        return 1
    print("VALID")
    return 0


def play_checks(board: Board) -> list[str]:
    """Run on ``board`` what play, bench and arena would, and say what was checked.

    Raises MapError, SetupError or DataError at the first fault: the mission
    cards (and Ireland's tower tokens) that would be used with the map, a game
    dealt and played to the end by random moves for 2, 3 and 4 players, and the
    terminal rendering of the map.
    """
    from rebirth.cli import render

    out: list[str] = []
    games = [Game.create(board, n) for n in (2, 3, 4)]
    game = games[0]
    out.append(f"mission cards: the {len(game.cards)} shipped {board.rules} cards fit the map "
               "(every region and castle they name exists)")
    if board.is_ireland:
        out.append(f"tower tokens: {len(game.tokens)} for {len(board.towers)} towers; "
                   f"display of 8 public missions from {len(game.cards)} cards")
    rng = random.Random(0)
    for g in games:
        state = g.new_state(rng.getrandbits(32))
        # A bounded loop: a game has at most one action per tile and marker.
        for _ in range(10_000):
            if state.done:
                break
            state.apply_id(state.random_action_id(rng))
        if not state.done:
            raise MapError("error.map.random_game", players=g.players)
    out.append("games: a game with 2, 3 and 4 players dealt and played to the end by random "
               "moves (as bench and arena do)")
    view = games[1].new_state(0).view(None)
    text = render.render_map(board, view, wide=True)
    out.append(f"terminal: the map renders ({render.map_width(board, wide=True)} columns wide, "
               f"{len(text.plain.splitlines())} lines), as play shows it")
    return out
