"""Reinforcement learning: Rebirth as a PettingZoo AEC environment (``pip install rebirth[rl]``).

``rebirth.env.env(board="scotland", players=3, variants=(), reward="margin")`` is the
wrapped environment, ``raw_env(...)`` the bare one, as in ``pettingzoo.classic``.
:func:`rebirth.env.observe.observe` computes a seat's observation from its view with numpy
alone (the server's bot API uses it without pettingzoo installed), so the environment itself
is loaded only when one of its names is asked for.
"""

from __future__ import annotations

from typing import Any

__all__ = ["REWARDS", "env", "raw_env"]


def __getattr__(name: str) -> Any:
    # Lazily: importing rebirth.env.observe must not need pettingzoo (the rl extra).
    if name in __all__:
        from rebirth.env import rebirth_env

        return getattr(rebirth_env, name)
    raise AttributeError(name)
