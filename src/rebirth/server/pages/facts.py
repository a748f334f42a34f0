"""The facts of a board that the pages need and must not re-derive from the rules: hex labels,
neighbours, tile codes, score categories, the neutral tiles of a fresh game (S-6), the size of
the public mission display (S-8), what a secret mission pays (K-2, I-9) and the seat colours.

Sent with ``GET /api/boards/{board}`` as ``facts``. Every value comes from the engine (a fresh
game's public view where a rule decides it), so the pages hold no rule of their own."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rebirth.engine.board import builtin_board
from rebirth.engine.game import DISPLAY_SIZE, Game
from rebirth.engine.tiles import NEUTRAL, TILE_CODES
from rebirth.server.tables.authority import COLOURS

PLAYER_COUNTS = (2, 3, 4)


@lru_cache(maxsize=8)
def board_facts(name: str) -> dict[str, Any]:
    """The facts of the shipped board ``name`` (MapError if there is none); computed once."""
    board = builtin_board(name)
    games = {n: Game.builtin(name, n) for n in PLAYER_COUNTS}
    # A fresh game's public view says which hexes start with a neutral tile (S-6: the blockers
    # with 2 players) and which score categories the board has; the deal's seed changes neither.
    fresh = {n: g.new_state(0).view(None) for n, g in games.items()}
    structure_labels = [board.structure_at[(int(s["q"]), int(s["r"]))].label
                        for s in board.source.get("structures", [])]
    cards = games[2].cards
    return {
        # Per space in map file order; structures in map file order.
        "labels": [s.label for s in board.spaces],
        "structure_labels": structure_labels,
        # Per space: the indices of the spaces next to it (structures are not spaces).
        "neighbours": [list(n) for n in board.nbrs],
        "tiles": list(TILE_CODES),
        "categories": list(fresh[2].breakdown[0]),
        "neutral": {str(n): [board.spaces[i].label for i, (owner, _) in enumerate(v.spaces)
                             if owner == NEUTRAL] for n, v in fresh.items()},
        "display_size": DISPLAY_SIZE if board.is_ireland else 0,
        # K-2: a Scotland card pays its points; I-9: a secret Ireland card its first value.
        "secret_points": {c.id: c.values[0] if board.is_ireland else c.points for c in cards},
        # The colours a table seat may take; the first four are every page's default seat colours.
        "colours": list(COLOURS),
    }
