"""What a remote seat plays (docs/bot-api.md): one of the project's bots by level or name, a
user's ``Bot`` subclass (``module:Class``: built for the game and seat, given only the seat's
view, as in the arena), or a function of (observation, action mask) — a PettingZoo-style policy
(``module:function``, or a class whose instances are called so)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol

import msgspec
import numpy as np

from rebirth.bots.base import Bot
from rebirth.bots.registry import make_bot
from rebirth.engine.game import Game
from rebirth.engine.views import View

ObsPolicy = Callable[[Any, Any], Any]
"""``f(observation: float32 array, action_mask: int8 array) -> action id``."""


class Policy(Protocol):
    """Chooses the seat's move from a stream line."""

    def choose(self, line: dict[str, Any]) -> int | str: ...


def view_of(line: dict[str, Any]) -> View:
    """The seat's :class:`View` of a stream line (exactly the one the server built)."""
    return msgspec.convert(line["view"], View)


def game_of(view: View) -> Game:
    """The game a view is of (its board, player count and variants)."""
    return Game.create(view.board, view.players, tuple(view.variants))


class BotPolicy:
    """A :class:`Bot` at the seat: it gets the seat's view and nothing else."""

    def __init__(self, make: Callable[[Game, int], Bot]) -> None:
        self.make = make
        self.bot: Bot | None = None

    def choose(self, line: dict[str, Any]) -> int | str:
        view = view_of(line)
        if self.bot is None:
            self.bot = self.make(game_of(view), int(line["seat"]))
        return self.bot.act(view)


class FunctionPolicy:
    """A function of (observation, action mask), as an RL policy is called."""

    def __init__(self, f: ObsPolicy) -> None:
        self.f = f

    def choose(self, line: dict[str, Any]) -> int | str:
        obs = np.asarray(line["observation"], dtype=np.float32)
        mask = np.asarray(line["action_mask"], dtype=np.int8)
        return int(self.f(obs, mask))


def load(spec: str, seed: int | None = None) -> Policy:
    """``spec``: a bot level or name (``expert``, ``greedy``…) or ``module:Name`` — a ``Bot``
    subclass, a class whose instances are called with (observation, mask) (or have such an
    ``act``), or such a function."""
    if ":" not in spec:
        make_bot(spec, Game.create("ireland", 2), 0)  # an unknown name fails here, before the claim
        return BotPolicy(lambda g, s: make_bot(spec, g, s, seed))
    module, _, name = spec.partition(":")
    obj = getattr(importlib.import_module(module), name)
    if isinstance(obj, type) and issubclass(obj, Bot):
        cls = obj
        return BotPolicy(lambda g, s: cls(g, s, seed))
    if isinstance(obj, type):
        inst = obj()
        return FunctionPolicy(inst.act if hasattr(inst, "act") else inst)
    if callable(obj):
        return FunctionPolicy(obj)
    raise TypeError(f"{spec} is neither a Bot class nor a function of (observation, mask)")
