"""The Game: rules, configuration and factory of states (OpenSpiel's Game/State split).

A game is a board, a player count and a set of rule variants. It deals a new
state from a seed, or builds one from an explicit :class:`Setup` (scripted
setups for tests and puzzles, and the setup stored in a record).

The names are kept here for their importers. :class:`Game` is defined beside the state in
:mod:`rebirth.engine.state` (each type names the other: one module holds both without an
import circle); the configuration values and the deal are in :mod:`rebirth.engine.config`.
"""

from __future__ import annotations

from rebirth.engine.config import (
    DISPLAY_SIZE,
    IRELAND_VARIANTS,
    SCOTLAND_VARIANTS,
    VARIANTS,
    Setup,
    SetupError,
)
from rebirth.engine.state import Game

__all__ = ["DISPLAY_SIZE", "IRELAND_VARIANTS", "SCOTLAND_VARIANTS", "VARIANTS", "Game", "Setup",
           "SetupError"]
