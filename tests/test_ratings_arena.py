"""The bot levels' calibrated ratings (issue 25 item 4, must show; docs/ratings.md): the shipped
file puts the levels in the order their arena games measured, and a fresh small arena run
(cheap levels only: a searching level's game takes seconds of CPU per move) agrees with the
shipped values within their uncertainty. Deterministic: arena games are functions of their
seeds (rebirth.app.arena)."""

from __future__ import annotations

import math
import time
from itertools import islice

import pytest

from rebirth.app import calibrate
from rebirth.app.ratings import BOARDS, LEVELS, PLAYERS, bot_rating

ORDER = (("random", "easy"), ("easy", "normal"), ("random", "greedy"), ("greedy", "normal"),
         ("easy", "hard"), ("easy", "expert"))
"""The order of μ the arena measured in every board × player count (docs/ratings.md): random <
easy, greedy < normal < hard, expert. Easy against greedy, normal against hard and expert, and
hard against expert are not told apart by the games there were (their order differs between
board × player counts, and their μ lie within a σ of each other)."""


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("n", PLAYERS)
def test_the_shipped_ratings_are_in_the_measured_order(board: str, n: int) -> None:
    for weak, strong in ORDER:
        assert bot_rating(weak, board, n).mu < bot_rating(strong, board, n).mu, (board, n, weak, strong)
    assert min(LEVELS, key=lambda lv: bot_rating(lv, board, n).mu) == "random"


def test_a_fresh_small_arena_run_agrees_with_the_shipped_ratings() -> None:
    """24 games of the cheap levels on Scotland with two players and 12 on Ireland with three,
    seeds the calibration did not use: each level's margin over ``normal`` is the shipped one
    within three combined σ, and random is the weakest."""
    start = time.process_time()
    tasks = list(islice(calibrate.schedule((), seed=99, boards=("scotland",), players=(2,)), 24))
    tasks += islice(calibrate.schedule((), seed=98, boards=("ireland",), players=(3,)), 12)
    games = [calibrate.play(t) for t in tasks]
    for (board, n), fitted in calibrate.fit_all(games).items():
        assert min(fitted, key=lambda lv: fitted[lv][0].mu) == "random"
        fresh_normal = fitted["normal"][0]
        shipped_normal = bot_rating("normal", board, n)
        for lv, (fresh, played) in fitted.items():
            if played == 0:
                continue  # a level the small run has no game of (hard, expert)
            shipped = bot_rating(lv, board, n)
            d_fresh, d_shipped = fresh.mu - fresh_normal.mu, shipped.mu - shipped_normal.mu
            spread = math.sqrt(fresh.sigma ** 2 + fresh_normal.sigma ** 2
                               + shipped.sigma ** 2 + shipped_normal.sigma ** 2)
            assert abs(d_fresh - d_shipped) <= 3 * spread, (board, n, lv, d_fresh, d_shipped)
    assert time.process_time() - start < 60  # CPU seconds: the wall time grows with the load

