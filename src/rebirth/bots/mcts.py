"""Information-set Monte Carlo tree search (SO-ISMCTS, Cowling, Powley and Whitehouse 2012).

The bot sees only its view. Every iteration resamples everything the seat cannot
see (other players' hands, supply orders and set-aside tiles, their secret
missions and the deck; on Ireland also the seat's own face-down tiles and
future draws), then descends one shared tree, choosing among the actions legal
in *this* determinization by UCB with availability counts, expands one node,
plays a short guided playout and backs up a reward per player computed from
:func:`rebirth.bots.evaluate.projected`.

To make a few hundred iterations count, the root considers only the best
``top_k`` actions of the heuristic bot (its favourite is always among them), and
deeper nodes widen progressively in the order of a fast greedy policy.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from rebirth.bots.base import Bot, register
from rebirth.bots.evaluate import DEFAULT, projected
from rebirth.bots.heuristic import score_actions
from rebirth.engine import native
from rebirth.engine.determinize import determinize
from rebirth.engine.game import Game
from rebirth.engine.state import (
    L_EITHER,
    L_ENERGY,
    L_FOOD,
    L_SETTLE,
    PHASE_CHANCE,
    PHASE_EXTRA,
    PHASE_PLACE,
    State,
)
from rebirth.engine.views import View


def fast_policy(state: State, rng: random.Random, epsilon: float = 0.1) -> int:
    """A cheap greedy move: the biggest farm group or the most settlement points now."""
    if (state.phase != PHASE_PLACE and state.phase != PHASE_EXTRA) or rng.random() < epsilon:
        # x2 markers and chance outcomes: uniformly random / drawn with their probability.
        return state.random_action_id(rng)
    t = state.tile_to_place
    p = state.cur
    free = state.occupancy.free
    if t >= 2:
        cands = free[L_SETTLE]
        spaces = state.board.spaces
        dists = state.board.districts
        best_v = -1.0
        best: list[int] = []
        inf = t - 1
        n = state.n
        influence = state.districts.influence  # bound once: the playouts' inner loop
        filled = state.districts.filled
        for h in cands:
            sp = spaces[h]
            d = sp.district
            dsize = len(dists[d].spaces)
            if dsize == 1:
                v = float(inf)
            else:
                mine = influence[d * n + p] + inf
                top = max(influence[d * n + q] for q in range(n) if q != p)
                # Leading a district that this tile fills is worth its first rank.
                lead = mine > top
                v = (2.0 if lead else 0.5) * (1 + filled[d]) / dsize
            if sp.port:
                v += 1
            if v > best_v:
                best_v, best = v, [h]
            elif v == best_v:
                best.append(h)
        return best[int(rng.random() * len(best))]
    own = free[L_ENERGY if t == 0 else L_FOOD]
    either = free[L_EITHER]
    cands = own + either if (own or either) else free[L_FOOD if t == 0 else L_ENERGY]
    best = state.best_farm_spaces(cands, p, t)
    return best[int(rng.random() * len(best))]


@dataclass(frozen=True)
class Candidate:
    """One root action after a search: visits, mean reward (0..1) and the mean projected final
    score of the searching seat after it."""

    aid: int
    action: str
    visits: int
    reward: float
    expected_score: float


class _Node:
    __slots__ = ("avail", "children", "value", "visits", "w")

    def __init__(self, players: int) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.w = [0.0] * players
        # Sum of the searching seat's projected final score over the visits (for hints).
        self.value = 0.0


class MCTSBot(Bot):
    """SO-ISMCTS with heuristic root pruning, greedy-guided playouts and a projected-value
    reward. Reproducible for a given seed and iteration budget."""

    kind = "mcts"

    def __init__(self, game: Game, seat: int, seed: int | None = None, *,
                 iterations: int | None = 400, seconds: float | None = None, top_k: int = 8,
                 playout_plies: int | None = None, c: float = 0.6,
                 temperature: float = 8.0) -> None:
        super().__init__(game, seat, seed)
        self.iterations = iterations
        self.seconds = seconds
        self.top_k = top_k
        self.playout_plies = playout_plies if playout_plies is not None else 2 * game.players
        self.c = c
        self.temperature = temperature
        self.last_stats: dict[str, float] = {}

    def _reward(self, vals: list[float]) -> list[float]:
        n = len(vals)
        out = []
        for q in range(n):
            rival = max(vals[o] for o in range(n) if o != q)
            x = (vals[q] - rival) / self.temperature
            out.append(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x)))))
        return out

    def leaf(self, st: State) -> tuple[list[float], list[float]]:
        """Per seat, the projected final score and the reward (0..1) at the end of a playout
        (a subclass may evaluate differently: the expert bot's learned value)."""
        vals = projected(st, DEFAULT)
        return vals, self._reward(vals)

    def native_leaf(self) -> bool:
        """Whether :meth:`leaf` is the heuristic one, which the native core computes itself
        (a subclass's leaf is called back from the native search)."""
        return type(self).leaf is MCTSBot.leaf

    def native_callback(self, bridge: native.Native, base: State
                        ) -> Callable[[native.CStateLike], tuple[list[float], list[float]]] | None:
        """What the native search calls at a leaf: None for the heuristic leaf (the core
        computes it), else :meth:`leaf` of the leaf's state made a :class:`State` (a subclass
        may read the core's state directly, as the expert bot does)."""
        if self.native_leaf():
            return None

        def leaf(c: native.CStateLike) -> tuple[list[float], list[float]]:
            return self.leaf(bridge.to_state(c, base))
        return leaf

    def analyse(self, view: View) -> list[Candidate]:
        """Search from ``view``: the root candidates, most visited first. With the native
        core (:mod:`rebirth.engine.native`) the same search runs there: the same draws, the
        same tree, the same candidates."""
        rng = self.rng
        base = determinize(self.game, view, rng)
        me = self.seat
        n = base.n
        bridge = native.for_game(self.game)
        cbase = bridge.load(base) if bridge is not None else None
        if cbase is not None:
            scored = cbase.score_actions(me, native.weights_tuple(DEFAULT))
        else:
            scored = score_actions(base, me)
        ranked = sorted(scored, key=lambda x: (-x[0], x[1]))
        if len(ranked) == 1:
            return [Candidate(ranked[0][1], self.game_action_text(ranked[0][1]), 0, 0.0,
                              float(base.score[me]))]
        root_moves = [a for _, a in ranked[: self.top_k]]
        if bridge is not None and cbase is not None:
            return self._analyse_native(bridge, base, cbase, root_moves)
        root = _Node(n)
        deadline = time.perf_counter() + self.seconds if self.seconds else None
        it = 0
        c = self.c
        while True:
            if self.iterations is not None and it >= self.iterations:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            it += 1
            st = base.resample_from_infostate(me, rng)
            node = root
            path = [(root, -1)]
            while not st.done:
                if st.phase == PHASE_CHANCE:
                    # Chance is not part of the tree: the outcome is drawn with its probability.
                    st.apply_id(st.sample_chance(rng))
                    continue
                p = st.cur
                legal = root_moves if node is root else st.legal_action_ids()
                kids = node.children
                untried = [a for a in legal if a not in kids]
                # Progressive widening: a node may have about sqrt(visits)+1 children.
                if untried and (node is root or len(kids) < 1 + int(math.sqrt(node.visits))):
                    aid = untried[0] if node is root else fast_policy(st, rng, 0.0)
                    if aid in kids:
                        aid = untried[int(rng.random() * len(untried))]
                    child = _Node(n)
                    kids[aid] = child
                    for a in legal:
                        if a in kids:
                            kids[a].avail += 1
                    st.apply_id(aid)
                    path.append((child, p))
                    break
                best_u = -1.0
                best_a = -1
                for a in legal:
                    ch = kids.get(a)
                    if ch is None:
                        continue
                    ch.avail += 1
                    u = ch.w[p] / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                    if u > best_u:
                        best_u, best_a = u, a
                if best_a < 0:
                    break
                st.apply_id(best_a)
                node = kids[best_a]
                path.append((node, p))
            plies = 0
            while not st.done and plies < self.playout_plies:
                st.apply_id(fast_policy(st, rng))
                plies += 1
            vals, reward = self.leaf(st)
            for nd, mover in path:
                nd.visits += 1
                nd.value += vals[me]
                if mover >= 0:
                    nd.w[mover] += reward[mover]
                else:
                    for q in range(n):
                        nd.w[q] += reward[q]
        self.last_stats = {"iterations": it}
        out = []
        for a in root_moves:
            ch = root.children.get(a)
            text = self.game_action_text(a)
            if ch is None or ch.visits == 0:
                out.append(Candidate(a, text, 0, 0.0, float(base.score[me])))
            else:
                out.append(Candidate(a, text, ch.visits, ch.w[me] / ch.visits, ch.value / ch.visits))
        out.sort(key=lambda x: (-x.visits, -x.reward, x.aid))
        return out

    def _analyse_native(self, bridge: native.Native, base: State, cbase: native.CStateLike,
                        root_moves: list[int]) -> list[Candidate]:
        """:meth:`analyse`'s search loop in the native core (bots/mcts.py's loop, in C)."""
        me = self.seat
        leaf = self.native_callback(bridge, base)
        it, stats = cbase.mcts(me, self.rng, root_moves,
                               -1 if self.iterations is None else self.iterations,
                               float(self.seconds or 0.0), self.c, self.playout_plies,
                               self.temperature, native.weights_tuple(DEFAULT), leaf)
        self.last_stats = {"iterations": it}
        out = []
        for a, (visits, w, value) in zip(root_moves, stats, strict=True):
            text = self.game_action_text(a)
            if visits == 0:
                out.append(Candidate(a, text, 0, 0.0, float(base.score[me])))
            else:
                out.append(Candidate(a, text, visits, w / visits, value / visits))
        out.sort(key=lambda x: (-x.visits, -x.reward, x.aid))
        return out

    def choose(self, view: View) -> str:
        return self.analyse(view)[0].action

    def final_score_estimate(self, view: View, aid: int, playouts: int = 40) -> float:
        """Mean final score of this seat after ``aid``, over full guided playouts from
        resampled determinizations of ``view``."""
        base = determinize(self.game, view, self.rng)
        total = 0.0
        for _ in range(playouts):
            st = base.resample_from_infostate(self.seat, self.rng)
            st.apply_id(aid)
            while not st.done:
                st.apply_id(fast_policy(st, self.rng))
            total += st.score[self.seat]
        return total / playouts

    def game_action_text(self, aid: int) -> str:
        """The text of a player's action id."""
        return self.game.codec.text(aid)


@register("mcts", "information-set Monte Carlo tree search (400 iterations)")
def _make(game: Game, seat: int, seed: int | None) -> MCTSBot:
    return MCTSBot(game, seat, seed)
