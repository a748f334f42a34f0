"""Accuracy that means what players think (issue 27 item 0): over arena games the mean accuracy
orders the levels, and it is a property of the moves, not of the analysis's random draws.

What these tests prove, and what they do not: with fixed seeds, a few cheap arena-style games
(random, greedy and normal seated in every rotation) on each board give mean accuracies in
the order random < greedy < normal — which win chance alone did not (a hopeless seat scored
100 on every move). The full order of all six levels over many games (easy and the slow
search levels included) is measured by ``benchmarks/analysis_accuracy.py``; its table is in
docs/analysis.md, not re-checked here.
"""

from __future__ import annotations

import statistics

import pytest

from rebirth.analysis import analyse
from rebirth.app.match import Match
from rebirth.engine.game import Game

CHEAP = ("random", "greedy", "normal")
"""Weakest first; each game seats all three, rotated."""
WORLDS = 16
"""A third of the default budget: the order must hold with this noise already."""


def _record(board: str, kinds: tuple[str, ...], seed: int) -> dict[str, object]:
    match = Match.start(Game.create(board, len(kinds)), list(kinds), seed=seed)
    match.run_bots()
    return match.record()


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_mean_accuracy_orders_the_cheap_levels(board: str) -> None:
    acc: dict[str, list[float]] = {lv: [] for lv in CHEAP}
    for g in range(3):
        kinds = tuple(CHEAP[(k - g) % 3] for k in range(3))
        a = analyse(_record(board, kinds, 40 + g), worlds=WORLDS, top_k=3, seed=g)
        for s in a.summaries:
            acc[kinds[s.seat]].append(s.accuracy)
    means = [statistics.fmean(acc[lv]) for lv in CHEAP]
    assert means == sorted(means), dict(zip(CHEAP, means, strict=True))
    # Far apart, not a coin toss: normal is clearly ahead of random.
    assert means[2] - means[0] >= 15, dict(zip(CHEAP, means, strict=True))


def test_accuracy_does_not_depend_on_the_analysis_seed_beyond_its_noise() -> None:
    # The same record analysed with two seeds (other worlds, other playouts): each seat's
    # accuracy moves by a few points at most, far less than the gap between the levels.
    rec = _record("scotland", CHEAP, 44)
    a1 = analyse(rec, top_k=3, seed=1)
    a2 = analyse(rec, top_k=3, seed=2)
    assert a1.to_json() != a2.to_json()  # the seed did change the draws
    first = [s.accuracy for s in a1.summaries]
    second = [s.accuracy for s in a2.summaries]
    for x, y in zip(first, second, strict=True):
        assert abs(x - y) <= NOISE_BAND, (first, second)
    # The levels stay apart under either seed: random's seat below normal's by far more.
    assert min(first[2], second[2]) - max(first[0], second[0]) > 2 * NOISE_BAND, (first, second)


NOISE_BAND = 8.0
"""Accuracy points a seat's figure may move between two analysis seeds at the default budget
(48 worlds): over seeds 1, 2 and 3 of this record the spread per seat was 1.7 (random), 5.8
(greedy: many equally good moves, so the best found varies) and 2.9 points (normal)."""
