"""The observation and action mask of one seat's view, exactly as the PettingZoo environment
(:mod:`rebirth.env.rebirth_env`) gives them — one function for both, so the bot API's stream
(server/api/bot.py) and the environment cannot drift apart. Needs numpy only (no pettingzoo):
the server imports it."""

from __future__ import annotations

from typing import Any

import numpy as np

from rebirth.engine.observer import Observer
from rebirth.engine.views import View


def observe(observer: Observer, view: View, num_actions: int) -> dict[str, Any]:
    """``{"observation": float32[observer.size], "action_mask": int8[num_actions]}`` of ``view``
    (the mask is all zeros unless the view's seat is to move)."""
    mask = np.zeros(num_actions, dtype=np.int8)
    if view.legal_action_ids:
        mask[list(view.legal_action_ids)] = 1
    obs = np.zeros(observer.size, dtype=np.float32)
    entries = observer.sparse(view)
    obs[list(entries)] = list(entries.values())
    return {"observation": obs, "action_mask": mask}
