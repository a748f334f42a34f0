"""Position evaluation for bots: points on the board now plus what is likely to score later.

The projection is deliberately simple and cheap: castles held (C-5), incomplete
districts ranked as if the game ended now (T-7), secret missions fulfilled now
(K-2, I-9), and open farm groups that can still grow (F-1). Weights are
discounts for the uncertainty of the rest of the game.
"""

from __future__ import annotations

from dataclasses import dataclass

from rebirth.engine.board import BLANK, ENERGY, FLEXIBLE, FOOD
from rebirth.engine.state import RANKS, State, rank_order


@dataclass(frozen=True)
class Weights:
    """Discounts of the projected end-of-game points."""

    castle: float = 0.8
    district: float = 0.55
    mission_done: float = 0.85
    mission_open: float = 0.25
    farm_growth: float = 0.35


DEFAULT = Weights()


def projected(state: State, w: Weights = DEFAULT) -> list[float]:
    """Score plus discounted projected end-of-game points, per seat."""
    n = state.n
    b = state.board
    val = [float(s) for s in state.score]
    for hol in state.castles.holder:
        if hol >= 0:
            val[hol] += 5 * w.castle
    infl = state.districts.influence
    variants = state.game.variants
    for d, dist in enumerate(b.districts):
        f = state.districts.filled[d]
        size = len(dist.spaces)
        if f == 0 or f == size:
            continue
        base = d * n
        present = [q for q in range(n) if infl[base + q] > 0]
        if not present:
            continue
        if "incomplete_as_small" in variants:
            for q in present:
                val[q] += infl[base + q] * w.district
            continue
        rank_order(present, infl, base, state.districts.last_placer[d], n,
                   size == 2 and "medium_completer_wins" in variants)
        ranks = RANKS[size]
        for i, q in enumerate(present[: len(ranks)]):
            val[q] += ranks[i] * w.district
    cards = state.game.cards
    ireland = b.is_ireland
    for q in range(n):
        own = state.cards.tower_cards[q] if ireland else state.cards.cathedral_cards[q]
        for c in own:
            pts = cards[c].values[0] if ireland else cards[c].points
            done = state.secret_fulfilled(c, q)
            val[q] += pts * (w.mission_done if done else w.mission_open)
    if w.farm_growth:
        _farm_growth(state, val, w.farm_growth)
    return val


_FITS = {0: (ENERGY, BLANK, FLEXIBLE), 1: (FOOD, BLANK, FLEXIBLE)}


def _farm_growth(state: State, val: list[float], weight: float) -> None:
    """Groups with free matching space next to them can still score size+1, size+2..."""
    b = state.board
    occ = state.occupancy.owner
    tile = state.occupancy.tile
    parent = state.occupancy.group_parent
    size = state.occupancy.group_size
    spaces = b.spaces
    n = state.n
    frontier: dict[int, set[int]] = {}
    owner: dict[int, int] = {}
    for s in spaces:
        h = s.index
        p = occ[h]
        if p < 0 or p >= n:
            continue
        t = tile[h]
        if t > 1:
            continue
        r = h
        while parent[r] != r:
            r = parent[r]
        fits = _FITS[t]
        for nb in b.nbrs[h]:
            if occ[nb] == -1 and spaces[nb].kind in fits:
                frontier.setdefault(r, set()).add(nb)
                owner[r] = p
    for r, fr in frontier.items():
        g = size[r]
        # One more tile next to a group of g scores g+1; two open spaces make it likelier.
        val[owner[r]] += weight * (g + 1) * min(len(fr), 2) / 2
