"""Small hand-made maps for rule tests, drawn as text.

Each row is a line of whitespace-separated tokens in odd-r offset layout (odd
rows sit half a hex to the right). Tokens:

``.`` no hex; ``E`` ``F`` ``B`` ``X`` energy, food, blank, flexible;
``S:d`` a settlement space of district ``d``; ``C:id`` castle; ``K:id``
cathedral; ``T:id`` tower. Suffixes: ``*`` blocker, ``^`` port, ``~`` offshore,
``@r`` region ``r`` (default ``north``).
"""

from __future__ import annotations

from typing import Any

from rebirth.engine.board import Board, parse_board
from rebirth.engine.hexgrid import from_offset

KINDS = {"E": "energy", "F": "food", "B": "blank", "X": "flexible"}
STRUCTS = {"C": "castle", "K": "cathedral", "T": "tower"}


def map_data(rows: str, *, rules: str = "scotland", tiebreak: list[str] | None = None,
             regions: list[str] | None = None) -> dict[str, Any]:
    spaces: list[dict[str, Any]] = []
    structures: list[dict[str, Any]] = []
    seen_regions: list[str] = list(regions or [])
    lines = [ln for ln in rows.strip("\n").splitlines() if ln.strip()]
    for row, line in enumerate(lines):
        for col, tok in enumerate(line.split()):
            if tok == ".":
                continue
            region = "north"
            if "@" in tok:
                tok, region = tok.split("@", 1)
            if region not in seen_regions:
                seen_regions.append(region)
            markers = []
            while tok and tok[-1] in "*^~":
                markers.append({"*": "blocker", "^": "port", "~": "offshore"}[tok[-1]])
                tok = tok[:-1]
            q, r = from_offset(col, row)
            head, _, arg = tok.partition(":")
            if head in STRUCTS:
                structures.append({"kind": STRUCTS[head], "id": arg, "q": q, "r": r,
                                   "name": {"en": arg.title(), "de": arg.title()}})
            elif head == "S":
                sp: dict[str, Any] = {"q": q, "r": r, "kind": "settlement", "region": region,
                                      "district": arg}
                if markers:
                    sp["markers"] = markers[::-1]
                spaces.append(sp)
            else:
                sp = {"q": q, "r": r, "kind": KINDS[head], "region": region}
                if markers:
                    sp["markers"] = markers[::-1]
                spaces.append(sp)
    return {
        "format": "rebirth-map", "version": 1, "id": "test", "rules": rules,
        "name": {"en": "Test", "de": "Test"},
        "regions": [{"id": r, "name": {"en": r, "de": r}} for r in seen_regions],
        "structures": structures, "spaces": spaces, "tiebreak": tiebreak or [],
    }


def make_board(rows: str, **kw: Any) -> Board:
    """A board from text rows; capacity (S-9) is not checked for such small maps."""
    return parse_board(map_data(rows, **kw), check_capacity=False)
