"""Player ratings: openskill's Plackett–Luce model by finishing place (docs/ratings.md).

Pure: no server, no database. A game is rated per board × player count. Places come from
the final result: the winners after the tiebreak (E-3/E-4) share first place, the other
seats follow by score (equal scores share a place), and seats forfeited for good
(resigned, or out of time) finish last, sharing that place. Bots take part with their
published fixed ratings (:func:`bot_rating`, ``data/ratings/bots.json``) and are never
updated: only the humans' ratings move.

The displayed rating is a conservative ordinal, ``1000 + 40·(μ − 3σ)``: a new player
(μ = 25, σ = 25/3) shows 1000, and it rises as μ grows and σ shrinks.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from openskill.models import PlackettLuce

MU = 25.0
SIGMA = MU / 3.0
BETA = MU / 6.0
TAU = MU / 300.0
"""openskill's defaults, written out: they are part of every stored rating's meaning."""
DISPLAY_BASE = 1000.0
DISPLAY_SCALE = 40.0
Z = 3.0
BOARDS = ("scotland", "ireland")
PLAYERS = (2, 3, 4)
LEVELS = ("random", "easy", "greedy", "normal", "hard", "expert")
"""The bot kinds with a fixed rating: the server's four levels and the two plain bots."""


@dataclass(frozen=True)
class Rating:
    """A skill estimate: mean μ and uncertainty σ (openskill's scale)."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        """μ − 3σ: a value the true skill exceeds with about 99.7 % confidence."""
        return self.mu - Z * self.sigma

    @property
    def display(self) -> int:
        """The rating shown to players: ``1000 + 40·(μ − 3σ)``, rounded."""
        return display(self.mu, self.sigma)


def display(mu: float, sigma: float) -> int:
    """The shown rating of (μ, σ): ``round(1000 + 40·(μ − 3σ))``."""
    return round(DISPLAY_BASE + DISPLAY_SCALE * (mu - Z * sigma))


def model(tau: float = TAU) -> PlackettLuce:
    """The Plackett–Luce model every rating uses (``tau=0``: strengths held still, calibration)."""
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=tau)


def places(scores: Sequence[int], winners: Sequence[int],
           forfeited: Iterable[int] = ()) -> list[int]:
    """Finishing places (1 = first) of every seat; equal keys share a place (competition
    ranking: 1, 1, 3).

    The key, best first: not forfeited, a winner (E-3/E-4 decide a tie for first: a seat
    level on points that lost the tiebreak is not a winner), then the score. Forfeited
    seats (resigned or timed out for good) all share the last place, whatever they scored.
    """
    n = len(scores)
    out = set(forfeited)
    if any(not 0 <= s < n for s in out) or any(not 0 <= w < n for w in winners):
        raise ValueError("seat out of range")
    win = set(winners)
    keys = [(s not in out, s in win and s not in out, scores[s] if s not in out else 0)
            for s in range(n)]
    return [1 + sum(1 for k in keys if k > keys[s]) for s in range(n)]


@dataclass(frozen=True)
class Entrant:
    """One seat going into a rated game: its rating before, and whether it is held fixed
    (a bot's published rating)."""

    rating: Rating
    fixed: bool = False


def rate(entrants: Sequence[Entrant], ranks: Sequence[int], *, tau: float = TAU) -> list[Rating]:
    """Every seat's rating after a game with these finishing places; fixed seats keep theirs.

    All seats enter the update with their current (μ, σ), bots too (their σ is their
    calibration's uncertainty), so a win over a strong bot counts for more than one over
    a weak bot. With fewer than two seats nothing changes.
    """
    if len(entrants) != len(ranks):
        raise ValueError("one place per seat")
    if len(entrants) < 2:
        return [e.rating for e in entrants]
    m = model(tau)
    teams = [[m.rating(mu=e.rating.mu, sigma=e.rating.sigma)] for e in entrants]
    new = m.rate(teams, ranks=[float(r) for r in ranks])
    out: list[Rating] = []
    for e, team in zip(entrants, new, strict=True):
        p = team[0]
        out.append(e.rating if e.fixed else Rating(float(p.mu), float(p.sigma)))
    return out


# ------------------------------------------------------------------ bots' fixed ratings


class BotRatingsError(ValueError):
    """The shipped bot ratings file is malformed."""


def _number(value: Any, where: str, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BotRatingsError(f"{where}: not a finite number")
    if positive and value <= 0:
        raise BotRatingsError(f"{where}: not positive")
    return float(value)


def validate_bot_ratings(doc: Any) -> dict[tuple[str, int, str], Rating]:
    """Check the bot ratings document and return ``(board, players, level) -> Rating``.

    Every board × player count × level must be there, with a finite μ, a positive σ and a
    non-negative whole number of games; the model parameters must be the ones this module
    rates with. Raises :class:`BotRatingsError` naming the first fault.
    """
    if not isinstance(doc, dict) or doc.get("version") != 1:
        raise BotRatingsError("version: expected 1")
    params = doc.get("model")
    want: dict[str, float] = {"mu": MU, "sigma": SIGMA, "beta": BETA}
    if not isinstance(params, dict) or params.get("name") != "PlackettLuce" or any(
            not isinstance(params.get(k), int | float) or not math.isclose(float(params[k]), v)
            for k, v in want.items()):
        raise BotRatingsError(f"model: expected PlackettLuce with {want}")
    table = doc.get("ratings")
    if not isinstance(table, dict):
        raise BotRatingsError("ratings: expected an object")
    out: dict[tuple[str, int, str], Rating] = {}
    for board in BOARDS:
        per_board = table.get(board)
        if not isinstance(per_board, dict):
            raise BotRatingsError(f"ratings.{board}: missing")
        for n in PLAYERS:
            per_count = per_board.get(str(n))
            if not isinstance(per_count, dict):
                raise BotRatingsError(f"ratings.{board}.{n}: missing")
            for level in LEVELS:
                entry = per_count.get(level)
                where = f"ratings.{board}.{n}.{level}"
                if not isinstance(entry, dict):
                    raise BotRatingsError(f"{where}: missing")
                games = entry.get("games")
                if isinstance(games, bool) or not isinstance(games, int) or games < 0:
                    raise BotRatingsError(f"{where}.games: not a count")
                out[(board, n, level)] = Rating(_number(entry.get("mu"), f"{where}.mu"),
                                                _number(entry.get("sigma"), f"{where}.sigma",
                                                        positive=True))
            extra = set(per_count) - set(LEVELS)
            if extra:
                raise BotRatingsError(f"ratings.{board}.{n}: unknown levels {sorted(extra)}")
    return out


@cache
def bot_ratings() -> dict[tuple[str, int, str], Rating]:
    """The shipped, validated bot ratings (``rebirth/data/ratings/bots.json``)."""
    text = files("rebirth").joinpath("data", "ratings", "bots.json").read_text(encoding="utf-8")
    return validate_bot_ratings(json.loads(text))


def bot_rating(level: str, board: str, players: int) -> Rating:
    """The fixed rating of bot ``level`` on ``board`` with ``players`` seats; KeyError if none."""
    return bot_ratings()[(board, players, level)]
