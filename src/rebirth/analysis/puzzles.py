"""Puzzle finding and checking: is one move best by a clear margin in nearly every deal?

A position is judged from the seat's view only, on the analysis' own sampling of the hidden
information (:class:`~rebirth.analysis.estimate.Worlds`: one ``determinize`` of the view, then
``resample_from_infostate`` per further world). Each world is one *deal*; in every deal each
candidate move is played out ``playouts`` times by the bots' fast policy (common random
numbers: every candidate gets the same playout seeds in a deal), and the deal's value of a
candidate is its mean final margin there. The move with the best mean margin is the answer
when

* it beats the runner-up by at least :data:`MARGIN_MIN` points on average, at least
  :data:`Z_MIN` paired standard errors above zero (the "clear margin"), and
* it is best — no other candidate has a higher margin in that deal — in at least
  :data:`SHARE_MIN` of the deals (the "stays best" condition).

The candidates are the heuristic bot's :data:`TOP_K` best moves plus the two that score the
most at once (what a greedy player looks at). ``docs/puzzles.md`` explains the figures.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rebirth.analysis.estimate import Estimate as Estimate
from rebirth.analysis.estimate import Outcome, Worlds, mean_se, playout, summarise
from rebirth.bots.heuristic import score_actions
from rebirth.engine import native
from rebirth.engine.game import Game
from rebirth.engine.views import View

MARGIN_MIN = 3.0
"""Points by which the best move must beat the runner-up on average over the deals."""
Z_MIN = 2.0
"""The average lead must be at least this many (paired) standard errors above zero."""
SHARE_MIN = 0.8
"""The best move must be best in at least this share of the deals."""
TOP_K = 6
"""Candidates from the heuristic bot's ranking."""
MIN_OPTIONS = 4
"""Fewer legal moves than this make no puzzle (the answer would be a guess among few)."""
DEALS = 32
"""Deals (worlds) per position when puzzles are made."""
PLAYOUTS = 8
"""Playouts per candidate and deal: a deal's value is their mean margin."""
SCREEN_DEALS = 8
SCREEN_PLAYOUTS = 2
"""The first look at a position before it is judged in full (:func:`find_puzzle`)."""
_MASK = 2**64 - 1


@dataclass(frozen=True)
class Judgement:
    """The candidates of a position, judged on the same deals.

    ``estimates`` follow ``candidates``; ``best`` and ``runner`` are action ids; ``share`` is
    the fraction of deals in which ``best`` has the highest margin (ties count as best);
    ``gap``/``gap_se`` the mean lead of ``best`` over ``runner`` in points, paired."""

    candidates: tuple[int, ...]
    estimates: tuple[Estimate, ...]
    best: int
    runner: int
    share: float
    gap: float
    gap_se: float
    deals: int

    def estimate(self, aid: int) -> Estimate:
        """The estimate of candidate ``aid``."""
        return self.estimates[self.candidates.index(aid)]

    @property
    def clear(self) -> bool:
        """True when the best move is a puzzle's answer (both conditions of the module doc)."""
        return (self.gap >= MARGIN_MIN and self.gap >= Z_MIN * self.gap_se
                and self.share >= SHARE_MIN)


def deal_outcomes(ws: Worlds, aid: int, playouts: int) -> list[Outcome]:
    """Per deal of ``ws``: the mean outcome of ``playouts`` playouts after ``aid``.

    The playout seeds of a deal are derived from the deal's own seed, so every action gets
    the same random streams (common random numbers), as ``Worlds.outcomes`` does."""
    if playouts < 1:
        raise ValueError(f"at least one playout per deal is needed, not {playouts}")
    seeds = [(s + k * 0x9E3779B97F4A7C15) & _MASK for s in ws.seeds for k in range(playouts)]
    if ws.native is not None:
        states = [w for w in ws.native for _ in range(playouts)]
        raw = [Outcome(*o) for o in native.Native.outcomes(states, seeds, aid, ws.seat)]
    else:
        raw = []
        for i, st in enumerate(ws.states):
            for k in range(playouts):
                child = st.clone()
                child.apply_id(aid)
                raw.append(playout(child, ws.seat, random.Random(seeds[i * playouts + k])))
    out = []
    for i in range(len(ws.seeds)):
        part = raw[i * playouts:(i + 1) * playouts]
        out.append(Outcome(sum(o.win for o in part) / playouts,
                           sum(o.margin for o in part) / playouts,
                           sum(o.score for o in part) / playouts))
    return out


def candidate_moves(game: Game, ws: Worlds, top_k: int = TOP_K) -> list[int]:
    """The heuristic bot's ``top_k`` best moves and the two that score most at once, on the
    deals' base world (immediate points depend only on public facts and the seat's tile)."""
    base = ws.base
    seat = ws.seat
    ranked = sorted(score_actions(base, seat), key=lambda x: (-x[0], x[1]))
    cands = [a for _, a in ranked[:top_k]]
    now = []
    for aid in base.legal_action_ids():
        child = base.clone()
        child.apply_id(aid)
        now.append((child.score[seat] - base.score[seat], -aid))
    now.sort(reverse=True)
    for _, neg in now[:2]:
        if -neg not in cands:
            cands.append(-neg)
    return cands


def judge(game: Game, view: View, candidates: list[int] | None = None, *, deals: int = DEALS,
          playouts: int = PLAYOUTS, rng: random.Random, answer: int | None = None) -> Judgement:
    """Judge ``candidates`` (None: :func:`candidate_moves`) for ``view.seat`` on ``deals``
    fresh deals of its information set drawn with ``rng``. ``best`` is the candidate with the
    highest mean margin, or ``answer`` when given (a stored puzzle's answer, checked again)."""
    if view.seat is None:
        raise ValueError("a spectator's view has no information set to sample")
    legal = set(view.legal_action_ids)
    ws = Worlds(game, view, deals, rng)
    cands = candidate_moves(game, ws) if candidates is None else list(candidates)
    if len(cands) < 2:
        raise ValueError("at least two candidate moves are needed")
    bad = [a for a in cands if a not in legal]
    if bad:
        raise ValueError(f"not legal here: {', '.join(game.codec.text(a) for a in bad)}")
    raw = {a: deal_outcomes(ws, a, playouts) for a in cands}
    est = {a: summarise(game.codec.text(a), raw[a]) for a in cands}
    order = sorted(cands, key=lambda a: (-est[a].margin, -est[a].win, a))
    best = order[0] if answer is None else answer
    runner = next(a for a in order if a != best)
    gap, gap_se = mean_se([x.margin - y.margin for x, y in
                           zip(raw[best], raw[runner], strict=True)])
    wins = sum(1 for w in range(deals)
               if all(raw[best][w].margin >= raw[a][w].margin for a in cands))
    return Judgement(tuple(cands), tuple(est[a] for a in cands), best, runner,
                     wins / deals, gap, gap_se, deals)


def find_puzzle(game: Game, view: View, *, deals: int = DEALS, playouts: int = PLAYOUTS,
                rng: random.Random) -> Judgement | None:
    """The judgement of a placement decision when it makes a puzzle, else None (not the
    seat's placement, too few options, or no clear best move)."""
    if view.seat is None or view.phase != "place" or view.current_player != view.seat:
        return None
    if len(view.legal_action_ids) < MIN_OPTIONS:
        return None
    # A cheap first look (1/16 of the work) drops the many positions without a clear move:
    # only a candidate that leads by half the margin in half the deals is judged in full.
    screen = judge(game, view, deals=SCREEN_DEALS, playouts=SCREEN_PLAYOUTS, rng=rng)
    if screen.gap < MARGIN_MIN / 2 or screen.share < 0.5:
        return None
    j = judge(game, view, list(screen.candidates), deals=deals, playouts=playouts, rng=rng)
    return j if j.clear else None


def recheck(game: Game, view: View, best: int, candidates: list[int], *, deals: int,
            playouts: int, seed: int | str) -> Judgement:
    """Judge a stored puzzle again on fresh deals drawn from ``seed`` (another seed than the
    one it was made with): its answer should still be best in :data:`SHARE_MIN` of them."""
    if best not in candidates:
        raise ValueError("the answer must be one of the candidates")
    return judge(game, view, candidates, deals=deals, playouts=playouts,
                 rng=random.Random(f"rebirth-puzzle-check:{seed}"), answer=best)
