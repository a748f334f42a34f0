"""Monte Carlo value estimates from one seat's view only (used by analysis and hints).

A *world* is a full state drawn from the seat's information set: one
:func:`~rebirth.engine.determinize.determinize` of the view, then
``State.resample_from_infostate`` for each further world (what the search bot does),
so nothing the seat could not see is ever used. From each world every candidate
action is applied and the game is played to its end by the bots' fast greedy
policy; the world's outcome blends that playout's result with what the learned value
network (the expert bot's, :data:`NET_WEIGHT`) predicts for the position just after the
action, and the final margin (own score minus the best rival's) and the win share are
averaged over the worlds. All candidates share the same worlds *and* the same
playout random stream per world (common random numbers), so the difference
between two candidates is much less noisy than either value.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from rebirth.bots.evaluate import DEFAULT, projected
from rebirth.bots.expert import model_for
from rebirth.bots.mcts import fast_policy
from rebirth.bots.value import ValueNet, heuristic_features
from rebirth.engine import native
from rebirth.engine.determinize import determinize
from rebirth.engine.game import Game
from rebirth.engine.observer import Observer
from rebirth.engine.state import State
from rebirth.engine.tables import Phase
from rebirth.engine.views import View

_CHANCE = int(Phase.CHANCE)

WIN_POINTS = 40.0
"""Points of final margin that a whole win (1.0 of win chance) is worth in a seat's expected
outcome: 10 percentage points of win chance weigh as much as 4 points of margin. The expected
outcome ``margin + WIN_POINTS * win`` is what the analysis ranks moves, labels them and
measures accuracy by (docs/analysis.md, "Expected outcome"): the win chance alone is flat for
a seat that has won or lost already, the margin alone ignores what a close game is about."""


NET_WEIGHT = 0.5
"""Share of the learned value in a world's outcome (the rest is the greedy playout's), as in
the expert bot's leaves. A greedy playout values a move by what greedy players make of it
afterwards: it judged the two search levels alike although expert beat hard by 20 points
a game (issue 27); the network, trained on the heuristic's games, sees what a plan is
worth, and the playout keeps the immediate points and the end of the game exact. Without a
model for the board, player count and variants, the playout alone."""


@dataclass(frozen=True)
class Outcome:
    """One playout's result for the seat: win share (1/k of a k-way shared win), final margin
    over the best rival and the seat's own final score."""

    win: float
    margin: float
    score: float

    @property
    def value(self) -> float:
        """The expected-outcome value of this playout, in points (see :data:`WIN_POINTS`)."""
        return self.margin + WIN_POINTS * self.win


@dataclass(frozen=True)
class Estimate:
    """Mean and standard error over the worlds of a candidate's (or position's) outcomes.
    ``win`` is a probability (0..1), ``margin`` and ``score`` are points."""

    action: str | None
    win: float
    win_se: float
    margin: float
    margin_se: float
    score: float
    worlds: int

    @property
    def value(self) -> float:
        """The expected outcome in points: margin plus :data:`WIN_POINTS` times win chance."""
        return self.margin + WIN_POINTS * self.win

    def to_json(self) -> dict[str, Any]:
        """Rounded for output: win chance in percent, margins in points."""
        return {
            "action": self.action,
            "win_pct": round(100 * self.win, 1),
            "win_se_pct": round(100 * self.win_se, 1),
            "margin": round(self.margin, 2),
            "margin_se": round(self.margin_se, 2),
            "score": round(self.score, 1),
            "worlds": self.worlds,
        }


def mean_se(xs: list[float]) -> tuple[float, float]:
    """The mean and its standard error (sample standard deviation / sqrt(n))."""
    n = len(xs)
    if n == 0:
        raise ValueError("no samples")
    m = sum(xs) / n
    if n == 1:
        return m, 0.0
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, math.sqrt(var / n)


def final_outcome(state: State, seat: int) -> Outcome:
    """The seat's result in a finished game (public results only: returns and breakdown)."""
    returns = state.returns()
    n = len(returns)
    scores = [sum(state.breakdown(q).values()) for q in range(n)]
    rival = max(scores[q] for q in range(n) if q != seat)
    return Outcome(returns[seat], float(scores[seat] - rival), float(scores[seat]))


def playout(state: State, seat: int, rng: random.Random) -> Outcome:
    """Play ``state`` (changed in place) to the end by the fast greedy policy."""
    while not state.is_terminal():
        state.apply_id(fast_policy(state, rng))
    return final_outcome(state, seat)


class Worlds:
    """``count`` worlds of ``view``'s information set, each with its own playout seed."""

    def __init__(self, game: Game, view: View, count: int, rng: random.Random) -> None:
        if view.seat is None:
            raise ValueError("a spectator's view has no information set to sample")
        if count < 1:
            raise ValueError(f"at least one world is needed, not {count}")
        self.seat = view.seat
        self.base = determinize(game, view, rng)
        # The native core (rebirth.engine.native) draws the same worlds and plays the same
        # playouts: the same outcomes, in a fraction of the time.
        bridge = native.for_game(game)
        cbase = bridge.load(self.base) if bridge is not None else None
        self.native = None if cbase is None else cbase.resample_many(self.seat, rng, count)
        self.states = [] if self.native is not None else [
            self.base.resample_from_infostate(self.seat, rng) for _ in range(count)]
        self.seeds = [rng.getrandbits(64) for _ in range(count)]
        self.judge = Judge.of(game)
        if self.judge is not None and bridge is not None:
            # Set here, not once: the bridge of a game may have been made anew since.
            bridge.observing(self.judge.layout)

    def outcomes(self, aid: int | None) -> list[Outcome]:
        """Per world: apply ``aid`` (None: nothing) to a copy, play it out and blend in the
        network's value of the position after ``aid`` (:data:`NET_WEIGHT`)."""
        judge = self.judge
        if self.native is not None:
            played = [Outcome(*o) for o in native.Native.outcomes(
                self.native, self.seeds, -1 if aid is None else aid, self.seat)]
            if judge is None:
                return played
            after = [c.clone() for c in self.native]
            if aid is not None:
                for c in after:
                    c.apply(aid)
            values = judge.native_values(after, self.seat)
        else:
            children = [st.clone() for st in self.states]
            if aid is not None:
                for child in children:
                    child.apply_id(aid)
            # Valued before the playout changes them in place.
            before = judge.values(children, self.seat) if judge is not None else None
            played = [playout(child, self.seat, random.Random(seed))
                      for child, seed in zip(children, self.seeds, strict=True)]
            if before is None:
                return played
            values = before
        return [Judge.blend(o, v) for o, v in zip(played, values, strict=True)]


Value = tuple[float, float] | None
"""The network's (win chance, final margin) of the analysed seat in one world; None when
the game is over there (the playout's result is then exact)."""


class Judge:
    """The learned value of worlds for the analysed seat (:data:`NET_WEIGHT`): the expert
    bot's network fed, per world, the observation of the seat to move (on a chance step, the
    analysed seat's) and the world's projected values, as the expert bot's leaves are; the
    worlds of one candidate go through the network as one batch."""

    _made: ClassVar[dict[int, tuple[Game, Judge | None]]] = {}

    def __init__(self, game: Game, net: ValueNet) -> None:
        self.game = game
        self.net = net
        self.observer = Observer(game)
        self.layout = self.observer.layout()
        self.weights = native.weights_tuple(DEFAULT)
        self._mask = np.zeros(game.num_actions, dtype=np.int8)

    @classmethod
    def of(cls, game: Game) -> Judge | None:
        """The judge of ``game`` (made once per game object), None without a model."""
        found = cls._made.get(id(game))
        if found is None or found[0] is not game:
            net = model_for(game)
            found = (game, None if net is None else cls(game, net))
            if len(cls._made) >= 64:  # a server analyses game after game: keep the last ones
                del cls._made[next(iter(cls._made))]
            cls._made[id(game)] = found
        return found[1]

    def _batch(self, live: int, seat: int, fill: Callable[[int, npt.NDArray[np.float32]], int]
               ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The network's (win, margin) of ``seat`` for ``live`` rows; ``fill(row, x)`` writes
        one world's observation into ``x`` and returns its seat to move."""
        n = self.game.players
        xs = np.zeros((live, self.net.input_size), dtype=np.float32)
        rel = np.zeros(live, dtype=np.intp)
        for row in range(live):
            q = fill(row, xs[row])
            rel[row] = (seat - q) % n
        wins, margins = self.net.evaluate_batch(xs)
        rows = np.arange(live)
        return wins[rows, rel], margins[rows, rel]

    def _extras(self, x: npt.NDArray[np.float32], q: int, vals: list[float]) -> None:
        if self.net.extra_inputs:
            n = self.game.players
            x[self.observer.size:] = heuristic_features([vals[(q + r) % n] for r in range(n)])

    def values(self, states: list[State], seat: int) -> list[Value]:
        """The value of each world (a :class:`State`) for ``seat``."""
        live = [st for st in states if not st.done]

        def fill(row: int, x: npt.NDArray[np.float32]) -> int:
            st = live[row]
            q = st.current_player if st.current_player >= 0 else seat
            for i, v in self.observer.sparse(st.view(q, detail=False)).items():
                x[i] = v
            self._extras(x, q, projected(st, DEFAULT))
            return q
        return self._spread([st.done for st in states], self._batch(len(live), seat, fill))

    def native_values(self, states: list[native.CStateLike], seat: int) -> list[Value]:
        """:meth:`values` of native states (their observations written by the core)."""
        live = [c for c in states if not c.done]
        size = self.observer.size

        def fill(row: int, x: npt.NDArray[np.float32]) -> int:
            c = live[row]
            q = seat if c.phase == _CHANCE else c.cur
            c.observe(q, x[:size], self._mask)
            self._extras(x, q, c.projected(self.weights))
            return q
        return self._spread([c.done for c in states], self._batch(len(live), seat, fill))

    @staticmethod
    def _spread(done: list[bool], got: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]
                ) -> list[Value]:
        it = iter(zip(got[0].tolist(), got[1].tolist(), strict=True))
        return [None if d else next(it) for d in done]

    @staticmethod
    def blend(played: Outcome, value: Value) -> Outcome:
        """The playout's outcome with the network's ``value`` of the position blended in."""
        if value is None:
            return played
        a = NET_WEIGHT
        return Outcome((1 - a) * played.win + a * value[0],
                       (1 - a) * played.margin + a * value[1], played.score)


def summarise(action: str | None, outs: list[Outcome]) -> Estimate:
    """The :class:`Estimate` of a list of outcomes."""
    w, wse = mean_se([o.win for o in outs])
    m, mse = mean_se([o.margin for o in outs])
    s, _ = mean_se([o.score for o in outs])
    return Estimate(action, w, wse, m, mse, s, len(outs))


def evaluate_actions(game: Game, view: View, aids: list[int], *, worlds: int,
                     rng: random.Random) -> tuple[list[Estimate], list[list[Outcome]]]:
    """Estimates of each action in ``aids`` for ``view.seat``, on shared worlds; also the raw
    per-world outcomes (same world order for every action) for paired differences."""
    ws = Worlds(game, view, worlds, rng)
    raw = [ws.outcomes(a) for a in aids]
    return [summarise(game.codec.text(a), r) for a, r in zip(aids, raw, strict=True)], raw


def evaluate_position(game: Game, view: View, *, worlds: int, rng: random.Random) -> Estimate:
    """The value of the position for ``view.seat`` when every seat goes on by the fast
    policy (whoever is to act). A finished game's value is its result."""
    if view.phase == "end":
        raise ValueError("the game is over: its value is its result")
    ws = Worlds(game, view, worlds, rng)
    return summarise(None, ws.outcomes(None))


def paired_difference(a: list[Outcome], b: list[Outcome]) -> tuple[float, float, float, float]:
    """Mean and standard error of ``a - b`` per world (win, then margin): common random
    numbers make these much tighter than the separate errors."""
    dw, dwse = mean_se([x.win - y.win for x, y in zip(a, b, strict=True)])
    dm, dmse = mean_se([x.margin - y.margin for x, y in zip(a, b, strict=True)])
    return dw, dwse, dm, dmse


def paired_value_difference(a: list[Outcome], b: list[Outcome]) -> tuple[float, float]:
    """Mean and standard error of ``a - b`` in expected outcome (points, :data:`WIN_POINTS`),
    per world: the error of the weighted sum, with the covariance of its two parts."""
    return mean_se([x.value - y.value for x, y in zip(a, b, strict=True)])
