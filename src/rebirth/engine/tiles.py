"""Tiles: six kinds, coded as small integers for speed."""

from __future__ import annotations

from rebirth.engine.messages import UserError, render_message

ENERGY_TILE, FOOD_TILE, S1, S2, S3, S4 = 0, 1, 2, 3, 4, 5
TILE_CODES = ("E", "F", "S1", "S2", "S3", "S4")
# The names live in the message catalogs (``tile.name.<code>``); these are their renderings.
TILE_NAMES_EN = tuple(render_message(f"tile.name.{c}", {}, "en", ())
                      for c in ("E", "F", "S1", "S2", "S3", "S4"))
NEUTRAL = 4
"""Owner code of a 2-player neutral tile (S-6); seats are 0..3."""

# S-1: 12 Energy, 12 Food, three settlements of each influence.
FULL_SET = (ENERGY_TILE,) * 12 + (FOOD_TILE,) * 12 + (S1, S1, S1, S2, S2, S2, S3, S3, S3, S4, S4, S4)
# S-2: with 4 players these 9 go back to the box.
RETURNED_4P = (ENERGY_TILE,) * 3 + (FOOD_TILE,) * 3 + (S2, S3, S4)


def influence(tile: int) -> int:
    """Influence value of a settlement tile (T-1); 0 for farms."""
    return tile - 1 if tile >= S1 else 0


def tile_code(tile: int) -> str:
    return TILE_CODES[tile]


def parse_tile(code: str) -> int:
    """``E``, ``F``, ``S1``..``S4`` to a tile number; a :class:`UserError` (a ValueError, so it
    reads in every language when a caller nests it) otherwise."""
    try:
        return TILE_CODES.index(code.strip().upper())
    except ValueError:
        raise UserError("error.format.unknown_tile", tile=repr(code), known=", ".join(TILE_CODES)) from None


def tile_counts(tiles: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """How many of each kind, in code order."""
    out = [0] * 6
    for t in tiles:
        out[t] += 1
    return tuple(out)


def starting_tiles(players: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(tiles in play, tiles returned to the box) for one player (S-1, S-2)."""
    if players == 4:
        rest = list(FULL_SET)
        for t in RETURNED_4P:
            rest.remove(t)
        return tuple(rest), RETURNED_4P
    return FULL_SET, ()
