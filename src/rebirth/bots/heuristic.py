"""The heuristic bot: immediate points plus what a move is likely to be worth later."""

from __future__ import annotations

from rebirth.bots.base import Bot, register
from rebirth.bots.evaluate import DEFAULT, Weights, projected
from rebirth.engine import native
from rebirth.engine.determinize import determinize
from rebirth.engine.game import Game
from rebirth.engine.state import State
from rebirth.engine.views import View


def score_actions(state: State, seat: int, w: Weights = DEFAULT) -> list[tuple[float, int]]:
    """(value, action id) for every legal action: own projected value minus the best rival's."""
    bridge = native.for_game(state.game)
    c = bridge.load(state) if bridge is not None else None
    if c is not None:
        # The native core's projection: the same values (tests/core/test_search.py).
        return c.score_actions(seat, native.weights_tuple(w))
    out: list[tuple[float, int]] = []
    n = state.n
    for aid in state.legal_action_ids():
        child = state.clone()
        child.apply_id(aid)
        vals = projected(child, w)
        rival = max(vals[q] for q in range(n) if q != seat)
        # Half weight on the rival keeps the bot building rather than only blocking.
        out.append((vals[seat] - 0.5 * rival, aid))
    return out


class HeuristicBot(Bot):
    """Best move by a one-ply projection of end-of-game value (castles, districts, missions,
    farm growth); ties broken by the seeded RNG."""

    kind = "heuristic"
    weights = DEFAULT

    def choose(self, view: View) -> str:
        state = determinize(self.game, view, self.rng)
        scored = score_actions(state, self.seat, self.weights)
        best = max(v for v, _ in scored)
        top = sorted(a for v, a in scored if v >= best - 1e-9)
        return state.action_text(top[int(self.rng.random() * len(top))])


@register("heuristic", "immediate points plus castles, majorities, missions and farm growth")
def _make(game: Game, seat: int, seed: int | None) -> HeuristicBot:
    return HeuristicBot(game, seat, seed)
