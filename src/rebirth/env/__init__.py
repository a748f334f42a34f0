"""Reinforcement learning: Rebirth as a PettingZoo AEC environment (``pip install rebirth[rl]``).

``rebirth.env.env(board="scotland", players=3, variants=(), reward="margin")`` is the
wrapped environment, ``raw_env(...)`` the bare one, as in ``pettingzoo.classic``.
"""

from __future__ import annotations

from rebirth.env.rebirth_env import REWARDS, env, raw_env

__all__ = ["REWARDS", "env", "raw_env"]
