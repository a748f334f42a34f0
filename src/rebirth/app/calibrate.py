"""Calibrating the bot levels' fixed ratings with arena games (docs/ratings.md).

For each board × player count the schedule cycles through every set of distinct levels of
that size (so each level meets each other level equally often), each set's seats rotated
from game to game, plus games among the cheap levels only (random, easy, greedy, normal),
which cost a fraction of a second. Games are played round by round across all board ×
player counts, so a run stopped by its CPU budget leaves every configuration with a share.

The fit: openskill's Plackett–Luce update with ``tau = 0`` (strengths held still), one pass
over the games from the default prior, in several random orders whose μ and σ are averaged
(a single pass depends a little on the order of the games). Every outcome is appended to a
JSON-lines log first, so a run can be refit (:func:`fit_log`) or continued.
"""

from __future__ import annotations

import itertools
import json
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


def schedule(levels: Sequence[str] = LEVELS, cheap: Sequence[str] = CHEAP, *,
             boards: Sequence[str] = BOARDS, players: Sequence[int] = PLAYERS,
             cheap_per_round: int = 2, seed: int = 0) -> Iterator[Task]:
    """The endless round-robin of calibration games (see the module's docstring)."""
    mixed = {n: list(itertools.combinations(levels, n)) for n in players}
    light = {n: list(itertools.combinations(cheap, n)) if len(cheap) >= n else [] for n in players}
    index = 0
    for r in itertools.count():
        for board in boards:
            for n in players:
                sets = mixed[n]
                picks = [_rotate(sets[r % len(sets)], r // len(sets))]
                if light[n]:
                    for k in range(cheap_per_round):
                        j = r * cheap_per_round + k
                        picks.append(_rotate(light[n][j % len(light[n])], j // len(light[n])))
                for seats in picks:
                    index += 1
                    yield Task(board, n, seats, seed, index)


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


def document(games: Sequence[Played], *, orders: int = 20, note: str = "") -> dict[str, Any]:
    """The ``data/ratings/bots.json`` document of a calibration (validated by
    :func:`rebirth.app.ratings.validate_bot_ratings`)."""
    fitted = fit_all(games, orders=orders)
    table: dict[str, dict[str, dict[str, Any]]] = {}
    cost: dict[str, dict[str, float]] = {}
    for (board, n), per in fitted.items():
        table.setdefault(board, {})[str(n)] = {
            lv: {"mu": round(r.mu, 3), "sigma": round(r.sigma, 3), "games": c,
                 "rating": r.display}
            for lv, (r, c) in per.items()
        }
        cost.setdefault(board, {})[str(n)] = round(
            sum(g.cpu for g in games if g.board == board and g.players == n), 1)
    return {"version": 1,
            "model": {"name": "PlackettLuce", "mu": MU, "sigma": SIGMA, "beta": BETA,
                      "tau_fit": 0.0, "orders": orders},
            "note": note, "games": len(games), "cpu_seconds": cost, "ratings": table}
