"""The ``expert`` level: the ``hard`` search with the learned value network at its leaves.

At the end of each playout the seat to move looks at its own view of that sampled
world (a determinization: nothing of the real hidden state) and the shipped value
network (:mod:`rebirth.bots.value`, numpy), fed that view's observation and the
heuristic's projected values of the world, predicts every seat's final margin over
its best rival. The leaf reward of a seat is the logistic of that margin — the same scale
the heuristic reward uses (:meth:`MCTSBot._reward`) — blended with the heuristic
reward. Without a model for the board and player count (or with rule variants the
model was not trained on) the bot is exactly ``hard``: the heuristic is the fallback.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from rebirth.bots.base import Bot, register
from rebirth.bots.evaluate import DEFAULT
from rebirth.bots.levels import hard_iterations
from rebirth.bots.mcts import MCTSBot
from rebirth.bots.value import ValueNet, predict, shipped_model
from rebirth.engine import native
from rebirth.engine.game import Game
from rebirth.engine.observer import Observer
from rebirth.engine.state import State
from rebirth.engine.tables import Phase

EXPERT_ITERATIONS = 600
"""The same budget as pure ``hard``: the difference between the two is the evaluation."""
EXPERT_ITERATIONS_NATIVE = 2000
"""With the native core the search, the leaf's projection and its observation run in C
(``CState.observe``); the network's two small layers stay numpy. 600 iterations took 0.66 s of
CPU per move with the pure core and 2,000 took 0.65 s natively (3-player Scotland, one run,
median of four positions, ``benchmarks/expert_time.py``), so 2,000 keep the time per move
(750 did while the leaf made a State and its view in Python)."""
_CHANCE = int(Phase.CHANCE)


def expert_iterations() -> int:
    """The ``expert`` level's budget for the core that runs now."""
    return EXPERT_ITERATIONS_NATIVE if native.core_kind() == "native" else EXPERT_ITERATIONS
NET_WEIGHT = 0.5
"""Share of the learned value in the leaf reward (the rest is the heuristic's)."""


def model_for(game: Game) -> ValueNet | None:
    """The shipped model that fits ``game`` (board, players, no untrained variants), or None."""
    net = shipped_model(game.board.id, game.players)
    if net is None or sorted(game.variants) != sorted(net.manifest.get("variants", [])):
        return None
    net.check(Observer(game))
    return net


class ExpertBot(MCTSBot):
    """SO-ISMCTS (see :class:`MCTSBot`) whose leaf reward blends the learned value in."""

    kind = "expert"

    def __init__(self, game: Game, seat: int, seed: int | None = None, *,
                 iterations: int | None = EXPERT_ITERATIONS, net: ValueNet | None = None,
                 net_weight: float = NET_WEIGHT) -> None:
        super().__init__(game, seat, seed, iterations=iterations)
        self.net = net if net is not None else model_for(game)
        self.observer = Observer(game)
        self.net_weight = net_weight
        self._obs = np.zeros(self.observer.size, dtype=np.float32)
        self._mask = np.zeros(game.num_actions, dtype=np.int8)

    def leaf(self, st: State) -> tuple[list[float], list[float]]:
        vals, heur = super().leaf(st)
        if self.net is None or st.done or self.net_weight == 0.0:
            return vals, heur
        # The seat to move judges the sampled world from its own view (on a chance step,
        # this bot's seat does): the network was trained on acting seats' views.
        q = st.current_player if st.current_player >= 0 else self.seat
        # A light view (``detail=False``: no history, no legal actions' texts, no missions'
        # progress): the observer reads none of those, and building them cost a third of a leaf.
        entries = self.observer.sparse(st.view(q, detail=False))
        # The network's input in one order on both cores: the non-zero entries, ascending.
        return vals, self._blend(q, vals, heur, {i: v for i, v in sorted(entries.items()) if v})

    def native_callback(self, bridge: native.Native, base: State
                        ) -> Callable[[native.CStateLike], tuple[list[float], list[float]]] | None:
        """The leaf read straight from the core's state: its projection and the observation
        (``CState.observe``, byte for byte the observer's) in C, no :class:`State` made."""
        if self.net is None or self.net_weight == 0.0:
            return super().native_callback(bridge, base)
        bridge.observing(self.observer.layout())
        weights = native.weights_tuple(DEFAULT)
        obs, mask = self._obs, self._mask

        def leaf(c: native.CStateLike) -> tuple[list[float], list[float]]:
            vals = c.projected(weights)
            heur = self._reward(vals)
            if c.done:
                return vals, heur
            q = self.seat if c.phase == _CHANCE else c.cur
            c.observe(q, obs, mask)
            idx = np.flatnonzero(obs)
            return vals, self._blend(q, vals, heur, dict(zip(idx.tolist(), obs[idx].tolist(),
                                                             strict=True)))
        return leaf

    def _blend(self, q: int, vals: list[float], heur: list[float],
               x: dict[int, float]) -> list[float]:
        """The leaf reward of every seat: the network's logistic margin from seat ``q``'s
        observation ``x`` (sparse) blended with the heuristic's ``heur``."""
        assert self.net is not None
        _, margins = predict(self.net, self.observer.size, q, vals, x)
        a = self.net_weight
        out = list(heur)
        t = self.temperature
        for s, m in enumerate(margins):
            z = max(-30.0, min(30.0, m / t))
            out[s] = a / (1.0 + math.exp(-z)) + (1.0 - a) * heur[s]
        return out


@register("expert", f"level expert: mcts with {EXPERT_ITERATIONS} iterations and the learned value")
def _make(game: Game, seat: int, seed: int | None) -> Bot:
    net = model_for(game)
    # Without a model the expert is the hard bot, budget included: its own budget without
    # the network's leaves would make it a weaker hard.
    return ExpertBot(game, seat, seed, net=net,
                     iterations=expert_iterations() if net is not None else hard_iterations())
