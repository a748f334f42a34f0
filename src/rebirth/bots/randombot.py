"""The random bot: a uniformly random legal action."""

from __future__ import annotations

from rebirth.bots.base import Bot, register
from rebirth.engine.game import Game
from rebirth.engine.views import View


class RandomBot(Bot):
    """Uniformly random among the legal actions (seeded)."""

    kind = "random"

    def choose(self, view: View) -> str:
        return view.legal_actions[int(self.rng.random() * len(view.legal_actions))]


@register("random", "uniformly random legal moves")
def _make(game: Game, seat: int, seed: int | None) -> RandomBot:
    return RandomBot(game, seat, seed)
