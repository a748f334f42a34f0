"""Hints: the best action for one seat in a record's last position, from that seat's view only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rebirth.analysis.estimate import Estimate, evaluate_actions
from rebirth.bots.base import BotError
from rebirth.bots.mcts import Candidate, MCTSBot
from rebirth.bots.registry import make_bot
from rebirth.engine.board import Board
from rebirth.engine.messages import UserError
from rebirth.engine.records import replay

# How the advised action is chosen among the candidates (named in the output).
CRITERION = "most_visits"
# Worlds of the seat's information set on which the candidates' outcomes are estimated
# (shared by all candidates, as in the post-game analysis: rebirth.analysis.estimate).
WORLDS = 40


@dataclass(frozen=True)
class Hint:
    """The advice for ``seat`` (0-based): the action the search visited most (its criterion:
    the search aims at winning, so this need not be the candidate with the highest expected
    score) and the expected final score it leads to (mean of full playouts by the bots'
    fast policy after that action, on worlds shared by all candidates, as the post-game
    analysis estimates them). Candidates are ranked by visits, the advice first; ``estimates``
    (same order) add each one's win chance and final margin with their standard errors."""

    seat: int
    action: str
    expected_score: float
    current_score: int
    candidates: tuple[Candidate, ...]
    estimates: tuple[Estimate, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The advice as JSON; seats are numbered from 1 as on the command line."""
        return {
            "seat": self.seat + 1,
            "criterion": CRITERION,
            "action": self.action,
            "expected_score": round(self.expected_score, 1),
            "current_score": self.current_score,
            "candidates": [
                {"action": c.action, "visits": c.visits, "win_chance_proxy": round(c.reward, 3),
                 "expected_score": round(c.expected_score, 1),
                 **({k: v for k, v in e.to_json().items() if k != "action"} if e else {})}
                for c, e in zip(self.candidates,
                                self.estimates or (None,) * len(self.candidates), strict=True)
            ],
        }


class HintError(UserError):
    """A record or seat for which no hint can be given: a catalog key plus arguments."""


def hint(record: Any, seat: int, *, level: str = "hard", iterations: int | None = None,
         seed: int = 0, board: Board | None = None) -> Hint:
    """Replay ``record`` and search the last position for ``seat`` (0-based) with an mcts bot.

    Raises RecordError for a bad record and :class:`HintError` (a ValueError) when ``seat`` is
    not to act.
    """
    state = replay(record, board=board)
    if state.is_terminal():
        raise HintError("error.hint.over")
    if seat != state.current_player:
        raise HintError("error.hint.not_to_act", seat=seat + 1, to_act=state.current_player + 1)
    bot = make_bot(level, state.game, seat, seed)
    if not isinstance(bot, MCTSBot):
        raise BotError("error.hint.level", level=repr(level))
    if iterations is not None:
        bot.iterations = iterations
    # The bot gets the seat's view only, never the replayed state.
    view = state.view(seat)
    cands = bot.analyse(view)[:3]
    # analyse() ranks by visits; keep that order so the advice is the list's first line.
    cands.sort(key=lambda c: -c.visits)
    est, _ = evaluate_actions(state.game, view, [c.aid for c in cands], worlds=WORLDS, rng=bot.rng)
    top = [Candidate(c.aid, c.action, c.visits, c.reward, e.score) for c, e in zip(cands, est, strict=True)]
    best = top[0]
    return Hint(seat, best.action, best.expected_score, view.scores[seat], tuple(top), tuple(est))
