"""The bot interface and the registry of bot kinds and levels.

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
_REGISTRY: dict[str, BotFactory] = {}
_DESCRIPTIONS: dict[str, str] = {}


def register(name: str, description: str) -> Callable[[BotFactory], BotFactory]:
    def deco(factory: BotFactory) -> BotFactory:
        _REGISTRY[name] = factory
        _DESCRIPTIONS[name] = description
        return factory

    return deco


def make_bot(kind: str, game: Game, seat: int, seed: int | None = None) -> Bot:
    """A bot of ``kind`` (a bot name or a level name) for ``seat``."""
    _load()
    key = kind.strip().lower()
    if key not in _REGISTRY:
        raise BotError("error.bot.unknown_kind", kind=repr(kind), known=", ".join(BOT_KINDS()))
    return _REGISTRY[key](game, seat, seed)


def BOT_KINDS() -> list[str]:
    """The registered bot and level names."""
    _load()
    return list(_REGISTRY)


def bot_descriptions() -> dict[str, str]:
    """Each registered bot or level name with a one-line description."""
    _load()
    return dict(_DESCRIPTIONS)


def _load() -> None:
    # Importing the modules registers their bots.
    from rebirth.bots import expert, greedy, heuristic, levels, mcts, randombot  # noqa: F401
