"""Post-game analysis (``rebirth analyse``): skill and luck of every seat, from its own view.

``from rebirth.analysis import analyse`` — the names are loaded on first use, so the command
line's start (which reads :data:`DEFAULT_WORLDS` for its help) stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

DEFAULT_WORLDS = 48
"""Worlds (determinizations of the seat's information set) per decision: the default budget."""
DEFAULT_TOP_K = 5
"""Candidates compared with the move played: the heuristic bot's best ones."""

if TYPE_CHECKING:
    from rebirth.analysis.core import (
        LABELS,
        Analysis,
        AnalysisError,
        Decision,
        Luck,
        SeatSummary,
        analyse,
        analyse_decision,
    )
    from rebirth.analysis.estimate import Estimate

__all__ = ["DEFAULT_TOP_K", "DEFAULT_WORLDS", "LABELS", "Analysis", "AnalysisError", "Decision",
           "Estimate", "Luck", "SeatSummary", "analyse", "analyse_decision"]

_LAZY = {"Estimate": "rebirth.analysis.estimate"}


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module(_LAZY.get(name, "rebirth.analysis.core")), name)
    raise AttributeError(f"module 'rebirth.analysis' has no attribute {name!r}")
