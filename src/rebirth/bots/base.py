"""The bot interface and the table the bot kinds and levels register in (looked up through
:mod:`rebirth.bots.registry`, which imports every implementation).

A bot is built for one seat of one :class:`~rebirth.engine.game.Game` (public
rules and configuration) and afterwards receives nothing but that seat's
:class:`~rebirth.engine.views.View`. It has no reference to any state, so it
cannot look at hidden information: that is enforced by construction.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable

from rebirth.engine.game import Game
from rebirth.engine.messages import UserError
from rebirth.engine.views import View


class BotError(UserError):
    """An unknown bot kind, or a bot asked to act out of turn: a catalog key plus arguments."""


class Bot(ABC):
    """A player that chooses an action from a view."""

    kind: str = "bot"

    def __init__(self, game: Game, seat: int, seed: int | None = None) -> None:
        self.game = game
        self.seat = seat
        self.rng = random.Random(seed)

    @abstractmethod
    def choose(self, view: View) -> str:
        """The text of one of ``view.legal_actions``."""

    def act(self, view: View) -> str:
        """Check the view is this bot's turn, then choose."""
        if view.seat != self.seat or view.current_player != self.seat or not view.legal_actions:
            raise BotError("error.bot.out_of_turn", kind=self.kind, seat=self.seat)
        action = self.choose(view)
        if action not in view.legal_actions:  # pragma: no cover - a bug in a bot
            raise BotError("error.bot.illegal", kind=self.kind, action=repr(action))
        return action


BotFactory = Callable[[Game, int, "int | None"], Bot]
REGISTRY: dict[str, BotFactory] = {}
"""Every bot kind and level name with its factory (filled by :func:`register`)."""
DESCRIPTIONS: dict[str, str] = {}
"""Every bot kind and level name with its one-line description."""


def register(name: str, description: str) -> Callable[[BotFactory], BotFactory]:
    """Class or factory decorator: ``name`` builds bots with it."""

    def deco(factory: BotFactory) -> BotFactory:
        REGISTRY[name] = factory
        DESCRIPTIONS[name] = description
        return factory

    return deco
