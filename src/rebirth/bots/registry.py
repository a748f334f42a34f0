"""Bots by name: every implementation imported (so each has registered its kinds and levels in
:data:`rebirth.bots.base.REGISTRY`), then looked up. The one place above all the bot modules, so
no bot module imports its siblings to be found."""

from __future__ import annotations

# Imported for their registrations (the decorators run at import).
from rebirth.bots import expert, greedy, heuristic, levels, mcts, randombot  # noqa: F401
from rebirth.bots.base import DESCRIPTIONS, REGISTRY, Bot, BotError
from rebirth.engine.game import Game


def make_bot(kind: str, game: Game, seat: int, seed: int | None = None) -> Bot:
    """A bot of ``kind`` (a bot name or a level name) for ``seat``."""
    key = kind.strip().lower()
    if key not in REGISTRY:
        raise BotError("error.bot.unknown_kind", kind=repr(kind), known=", ".join(BOT_KINDS()))
    return REGISTRY[key](game, seat, seed)


def BOT_KINDS() -> list[str]:
    """The registered bot and level names."""
    return list(REGISTRY)


def bot_descriptions() -> dict[str, str]:
    """Each registered bot or level name with a one-line description."""
    return dict(DESCRIPTIONS)
