"""Player levels: ``easy``, ``normal`` and ``hard``, each a concrete bot and budget.

``hard`` is the mcts bot with a fixed iteration budget (not a time budget), so
games stay reproducible for a seed; 600 iterations take well under 1 s per move
on the reference machine (2 cores, one used), see ``rebirth bench``.
"""

from __future__ import annotations

from rebirth.bots.base import Bot, register
from rebirth.bots.greedy import GreedyBot
from rebirth.bots.heuristic import HeuristicBot
from rebirth.bots.mcts import MCTSBot
from rebirth.engine.determinize import determinize
from rebirth.engine.game import Game
from rebirth.engine.views import View

HARD_ITERATIONS = 600


class EasyBot(Bot):
    """Friendly: mostly the greedy move, but about one move in three is one of the five best
    by immediate points, so it plays sensibly and leaves chances."""

    kind = "easy"

    def choose(self, view: View) -> str:
        state = determinize(self.game, view, self.rng)
        me = self.seat
        base = state.score[me]
        scored = []
        for aid in sorted(state.legal_action_ids()):
            child = state.clone()
            child.apply_id(aid)
            # A random tiebreak: equal moves must not all pile up in one corner of the map.
            scored.append((child.score[me] - base, self.rng.random(), aid))
        scored.sort(reverse=True)
        pool = scored[:1] if self.rng.random() < 0.65 else scored[:5]
        return state.action_text(pool[int(self.rng.random() * len(pool))][2])


@register("easy", "level easy: greedy with deliberate slips")
def _easy(game: Game, seat: int, seed: int | None) -> Bot:
    return EasyBot(game, seat, seed)


@register("normal", "level normal: the heuristic bot")
def _normal(game: Game, seat: int, seed: int | None) -> Bot:
    bot = HeuristicBot(game, seat, seed)
    bot.kind = "normal"
    return bot


@register("hard", f"level hard: mcts with {HARD_ITERATIONS} iterations per move")
def _hard(game: Game, seat: int, seed: int | None) -> Bot:
    bot = MCTSBot(game, seat, seed, iterations=HARD_ITERATIONS)
    bot.kind = "hard"
    return bot


__all__ = ["EasyBot", "GreedyBot"]
