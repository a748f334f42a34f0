"""The greedy bot: the action with the most immediate points; ties broken by its seeded RNG."""

from __future__ import annotations

from rebirth.bots.base import Bot, register
from rebirth.engine.determinize import determinize
from rebirth.engine.game import Game
from rebirth.engine.state import State
from rebirth.engine.views import View


class GreedyBot(Bot):
    """Most points now. Immediate points depend only on public facts and the seat's own
    tile, so one determinization of the view gives the exact figures."""

    kind = "greedy"

    def gains(self, view: View) -> tuple[State, list[tuple[int, int]]]:
        """One determinization of ``view`` and (immediate points, action id) per legal
        action, in id order; on a x2 marker (no points now) the card's first value."""
        state = determinize(self.game, view, self.rng)
        me = self.seat
        base = state.score[me]
        out = []
        for aid in sorted(state.legal_action_ids()):
            if view.phase == "mark":
                # A x2 marker earns nothing now; prefer the most valuable card.
                out.append((self.game.cards[self.game.codec.card_of(aid)].values[0], aid))
                continue
            child = state.clone()
            child.apply_id(aid)
            out.append((child.score[me] - base, aid))
        return state, out

    def choose(self, view: View) -> str:
        state, gains = self.gains(view)
        top = max(g for g, _ in gains)
        best = [aid for g, aid in gains if g == top]
        return state.action_text(best[int(self.rng.random() * len(best))])


@register("greedy", "most immediate points")
def _make(game: Game, seat: int, seed: int | None) -> GreedyBot:
    return GreedyBot(game, seat, seed)
