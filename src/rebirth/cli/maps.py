"""``rebirth maps check FILE`` and ``rebirth maps list``."""

from __future__ import annotations

import argparse
import sys

from rebirth.engine.board import MapError, builtin_board, builtin_names, load_board


def run(args: argparse.Namespace) -> int:
    if args.maps_command == "list":
        for name in builtin_names():
            b = builtin_board(name)
            print(f"{name:10} {b.name['en']} / {b.name['de']}: {len(b.spaces)} spaces, "
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
    print("VALID" if ok else "INVALID: capacity rule S-9 fails")
    return 0 if ok else 1
