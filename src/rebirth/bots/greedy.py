"""The greedy bot: the action with the most immediate points; ties broken by its seeded RNG."""

from __future__ import annotations

from rebirth.bots.base import Bot, register
from rebirth.engine.determinize import determinize
from rebirth.engine.game import Game
from rebirth.engine.views import View


class GreedyBot(Bot):
    """Most points now. Immediate points depend only on public facts and the seat's own
    tile, so one determinization of the view gives the exact figures."""

    kind = "greedy"

    def choose(self, view: View) -> str:
        state = determinize(self.game, view, self.rng)
        me = self.seat
        base = state.score[me]
        best: list[int] = []
        best_pts = -1
        for aid in state.legal_action_ids():
            child = state.clone()
            child.apply_id(aid)
            gain = child.score[me] - base
            if view.phase == "mark":
                # A x2 marker earns nothing now; prefer the most valuable card.
                gain = self.game.cards[self.game.codec.card_of(aid)].values[0]
            if gain > best_pts:
                best_pts, best = gain, [aid]
            elif gain == best_pts:
                best.append(aid)
        best.sort()
        return state.action_text(best[int(self.rng.random() * len(best))])


@register("greedy", "most immediate points")
def _make(game: Game, seat: int, seed: int | None) -> GreedyBot:
    return GreedyBot(game, seat, seed)
