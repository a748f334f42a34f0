"""Calibrating the bot levels' fixed ratings with arena games (docs/ratings.md).

The cheap levels (random, easy, greedy, normal: a fraction of a second per game) play each
other in every board × player count, every set of distinct levels in turn with its seats
rotated. The searching levels (hard, expert: seconds per move) play two-player games only —
against ``normal`` and against each other — and their three- and four-player ratings are
carried over from two players by their margin over ``normal`` (:func:`document`), because
the CPU for measuring them in every player count was not there. Games are played round by
round across the boards, so a run stopped by its CPU budget leaves every board a share.

The fit: openskill's Plackett–Luce update with ``tau = 0`` (strengths held still), one pass
over the games from the default prior, in several random orders whose μ and σ are averaged
(a single pass depends a little on the order of the games). Every outcome is appended to a
JSON-lines log first, so a run can be refit (:func:`fit_log`) or continued.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from rebirth.app.arena import play_game
from rebirth.app.ratings import BETA, BOARDS, LEVELS, MU, PLAYERS, SIGMA, Entrant, Rating, places, rate

CHEAP = ("random", "easy", "greedy", "normal")
"""Levels whose games take well under a second (measured: docs/ratings.md)."""


@dataclass(frozen=True)
class Task:
    """One calibration game: where, who (one level per seat) and its seed."""

    board: str
    players: int
    seats: tuple[str, ...]
    seed: int
    index: int


@dataclass(frozen=True)
class Played:
    """A calibration game's result and the CPU seconds it took."""

    board: str
    players: int
    kinds: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    cpu: float

    def to_json(self) -> dict[str, Any]:
        return {"board": self.board, "players": self.players, "kinds": list(self.kinds),
                "scores": list(self.scores), "winners": list(self.winners), "cpu": self.cpu}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Played:
        return Played(str(d["board"]), int(d["players"]), tuple(d["kinds"]),
                      tuple(int(x) for x in d["scores"]), tuple(int(x) for x in d["winners"]),
                      float(d.get("cpu", 0.0)))


def _rotate(seats: Sequence[str], r: int) -> tuple[str, ...]:
    r %= len(seats)
    return tuple(seats[r:]) + tuple(seats[:r])


EXPENSIVE = ("hard", "expert")
"""Levels that search (seconds per move): measured in two-player games only (docs/ratings.md)."""
EXPENSIVE_SETS = (("hard", "normal"), ("expert", "normal"), ("hard", "expert"))
"""The two-player games that place the searching levels: against the best cheap level and
against each other."""


def schedule(sets: Sequence[tuple[str, ...]] = EXPENSIVE_SETS, cheap: Sequence[str] = CHEAP, *,
             boards: Sequence[str] = BOARDS, players: Sequence[int] = PLAYERS,
             cheap_per_round: int = 4, seed: int = 0) -> Iterator[Task]:
    """The endless round-robin of calibration games (see the module's docstring): each round,
    on each board, ``cheap_per_round`` games of the cheap levels per player count (every set
    of distinct cheap levels in turn, its seats rotated), and one game of each of ``sets``
    (their seats alternating from round to round)."""
    light = {n: list(itertools.combinations(cheap, n)) if len(cheap) >= n else [] for n in players}
    index = 0
    for r in itertools.count():
        for board in boards:
            picks: list[tuple[str, ...]] = []
            for n in players:
                for k in range(cheap_per_round if light[n] else 0):
                    j = r * cheap_per_round + k
                    picks.append(_rotate(light[n][j % len(light[n])], j // len(light[n])))
            picks += [_rotate(seats, r) for seats in sets]
            for seats in picks:
                index += 1
                yield Task(board, len(seats), seats, seed, index)


def play(task: Task) -> Played:
    """Play one calibration game (a worker process's job)."""
    t0 = time.process_time()
    # play_game rotates the seat list by index mod N; index 0 keeps ours.
    o = play_game(task.board, task.players, (), task.seats,
                  task.seed * 1_000_003 + task.index, 0)
    return Played(task.board, task.players, o.kinds, o.scores, o.winners,
                  round(time.process_time() - t0, 3))


def run(tasks: Iterable[Task], *, cpu_budget: float, jobs: int = 1, log: Path | None = None,
        max_games: int | None = None,
        progress: Callable[[Played, float], None] | None = None) -> list[Played]:
    """Play tasks until their summed CPU seconds reach ``cpu_budget`` (or ``max_games``),
    appending each result to ``log``; returns the results in the order played."""
    out: list[Played] = []
    spent = 0.0
    it = iter(tasks)
    if max_games is not None:
        it = itertools.islice(it, max_games)
    ctx = get_context("spawn")
    with ctx.Pool(jobs) as pool:
        for p in pool.imap(play, it):
            out.append(p)
            spent += p.cpu
            if log is not None:
                with log.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(p.to_json()) + "\n")
            if progress is not None:
                progress(p, spent)
            if spent >= cpu_budget:
                pool.terminate()
                break
    return out


def read_log(path: Path) -> list[Played]:
    """Every game of a calibration log."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Played.from_json(json.loads(x)) for x in lines if x.strip()]


def fit(games: Sequence[Played], levels: Sequence[str] = LEVELS, *, orders: int = 20,
        seed: int = 0) -> dict[str, tuple[Rating, int]]:
    """Each level's fitted rating and number of games, from games of one board × player
    count (see the module's docstring)."""
    count = dict.fromkeys(levels, 0)
    for g in games:
        for k in g.kinds:
            count[k] = count.get(k, 0) + 1
    rng = random.Random(seed)
    sums = {k: [0.0, 0.0] for k in count}
    for _ in range(max(1, orders)):
        order = list(games)
        rng.shuffle(order)
        cur = {k: Rating() for k in count}
        for g in order:
            ranks = places(g.scores, g.winners)
            new = rate([Entrant(cur[k]) for k in g.kinds], ranks, tau=0.0)
            for k, r in zip(g.kinds, new, strict=True):
                cur[k] = r
        for k, r in cur.items():
            sums[k][0] += r.mu
            sums[k][1] += r.sigma
    n = max(1, orders)
    return {k: (Rating(sums[k][0] / n, sums[k][1] / n), count[k]) for k in count}


def fit_all(games: Sequence[Played], *,
            orders: int = 20) -> dict[tuple[str, int], dict[str, tuple[Rating, int]]]:
    """:func:`fit` for every board × player count present in ``games``."""
    by: dict[tuple[str, int], list[Played]] = {}
    for g in games:
        by.setdefault((g.board, g.players), []).append(g)
    return {key: fit(gs, orders=orders) for key, gs in sorted(by.items())}


CARRY_MIN = 10
"""Fewer measured games than this in a three- or four-player count: a searching level's
rating there is carried over from two players (:func:`document`)."""


def carried(two: dict[str, tuple[Rating, int]], here: dict[str, tuple[Rating, int]],
            level: str, anchor: str = "normal") -> Rating:
    """``level``'s rating in another player count from its two-player margin over ``anchor``:
    μ = μ_anchor + (μ₂ − μ₂_anchor); σ adds the three uncertainties in quadrature."""
    (lv2, _), (an2, _), (an, _) = two[level], two[anchor], here[anchor]
    return Rating(an.mu + lv2.mu - an2.mu, math.sqrt(lv2.sigma ** 2 + an2.sigma ** 2 + an.sigma ** 2))


def document(games: Sequence[Played], *, orders: int = 20, note: str = "") -> dict[str, Any]:
    """The ``data/ratings/bots.json`` document of a calibration (validated by
    :func:`rebirth.app.ratings.validate_bot_ratings`). Every level's entry says its
    ``source``: ``measured`` (fitted from its own games there) or ``from 2p`` (carried over,
    :func:`carried`)."""
    fitted = fit_all(games, orders=orders)
    table: dict[str, dict[str, dict[str, Any]]] = {}
    cost: dict[str, dict[str, float]] = {}
    for (board, n), per in fitted.items():
        two = fitted.get((board, 2))
        entries: dict[str, Any] = {}
        for lv in LEVELS:
            r, c = per.get(lv, (Rating(), 0))
            source = "measured"
            if n > 2 and lv in EXPENSIVE and c < CARRY_MIN and two is not None \
                    and lv in two and "normal" in two and "normal" in per:
                r, source = carried(two, per, lv), "from 2p"
            entries[lv] = {"mu": round(r.mu, 3), "sigma": round(r.sigma, 3), "games": c,
                           "rating": r.display, "source": source}
        table.setdefault(board, {})[str(n)] = entries
        cost.setdefault(board, {})[str(n)] = round(
            sum(g.cpu for g in games if g.board == board and g.players == n), 1)
    return {"version": 1,
            "model": {"name": "PlackettLuce", "mu": MU, "sigma": SIGMA, "beta": BETA,
                      "tau_fit": 0.0, "orders": orders},
            "note": note, "games": len(games), "cpu_seconds": cost, "ratings": table}
