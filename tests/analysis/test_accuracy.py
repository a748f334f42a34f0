"""Accuracy that means what players think (issue 27 item 0): over arena games the mean accuracy
orders the levels, and it is a property of the moves, not of the analysis's random draws.

What these tests prove: over the arena games in ``tests/data/accuracy`` (played by
``benchmarks/analysis_accuracy.py``, which wrote them: every level at its own budget, 2, 3
and 4 players in turn) the analysis at its default budget orders the six levels by mean
accuracy on each board, expert > hard > normal > greedy > easy > random — which win chance
alone did not (a hopeless seat scored 100 on every move) and greedy playouts alone did not
(hard came out above expert). The games are records, so the test judges the analysis, not
the bots' luck; playing them again would take the suite half an hour. A few cheap games are
also played here live. Per player count the order is measured, not asserted: docs/analysis.md.
"""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path
from typing import Any

import pytest

from rebirth.analysis import analyse
from rebirth.analysis.estimate import NET_WEIGHT, Judge, Worlds
from rebirth.app.match import Match
from rebirth.bots.registry import make_bot
from rebirth.engine import native
from rebirth.engine.game import Game

LEVELS = ("random", "easy", "greedy", "normal", "hard", "expert")
"""Weakest first: the order the mean accuracy must have."""
DATA = Path(__file__).resolve().parents[1] / "data" / "accuracy"
CHEAP = ("random", "greedy", "normal")
"""Weakest first; each game seats all three, rotated."""
WORLDS = 16
"""A third of the default budget: the order must hold with this noise already."""


def _record(board: str, kinds: tuple[str, ...], seed: int) -> dict[str, object]:
    match = Match.start(Game.create(board, len(kinds)), list(kinds), seed=seed)
    match.run_bots()
    return match.record()


def _games(board: str) -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = []
    for path in sorted(DATA.glob(f"*.{board}.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["format"] == "rebirth-accuracy-games/1" and data["board"] == board
        games += data["games"]
    return games


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_mean_accuracy_orders_the_six_levels_over_arena_games(board: str) -> None:
    if native.core_kind() != "native":
        pytest.skip("96 records take the pure core about an hour (the native core: minutes)")
    games = _games(board)
    assert len(games) >= 30
    acc: dict[str, list[float]] = {lv: [] for lv in LEVELS}
    for g in games:
        assert g["record"]["board"] == board and len(g["kinds"]) == g["players"]
        a = analyse(g["record"], seed=g["game"])
        for s in a.summaries:
            acc[g["kinds"][s.seat]].append(s.accuracy)
    assert all(len(v) >= 20 for v in acc.values()), {k: len(v) for k, v in acc.items()}
    means = {lv: round(statistics.fmean(v), 1) for lv, v in acc.items()}
    assert [means[lv] for lv in LEVELS] == sorted(means.values()), means
    assert len(set(means.values())) == len(LEVELS), means  # strictly, not tied


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
(48 worlds): over seeds 1, 2 and 3 of this record the spread per seat was 0.9 (random), 4.5
(greedy: many equally good moves, so the best found varies) and 3.1 points (normal); with
greedy playouts alone and the plain mean of the moves it was 1.7, 5.8 and 2.9."""


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_a_seats_accuracy_survives_a_reseed_of_the_other_seats_bots(board: str) -> None:
    # Issue 27: the analysis of a seat's games does not change, beyond its noise, when only
    # the other seats' bots are seeded anew (their moves change, so the games do too). The
    # normal seat's mean accuracy over the same deals moves by no more than the games' own
    # noise, and its lead over the greedy and easy seats holds under every reseed.
    kinds = ("normal", "greedy", "easy")
    means: list[dict[str, float]] = []
    for reseed in range(3):
        acc: dict[str, list[float]] = {k: [] for k in kinds}
        for deal in range(4):
            game = Game.create(board, 3)
            match = Match.start(game, list(kinds), seed=70 + deal)
            for q in (1, 2):
                match.bots[q] = make_bot(kinds[q], game, q, 1000 * reseed + q)
            match.run_bots()
            a = analyse(match.record(), worlds=WORLDS, top_k=3, seed=1)
            for s in a.summaries:
                acc[kinds[s.seat]].append(s.accuracy)
        means.append({k: statistics.fmean(v) for k, v in acc.items()})
    normal = [m["normal"] for m in means]
    assert max(normal) - min(normal) <= RESEED_BAND, means
    for m in means:
        assert m["normal"] - max(m["greedy"], m["easy"]) > LEAD_MIN, means


RESEED_BAND = 20.0
"""Accuracy points the normal seat's mean over four deals may move when the other seats'
bots are seeded anew, from the noise of the games themselves: a normal seat's accuracy has a
standard deviation of 9.2 (Ireland) to 12.3 points (Scotland) over the 3-player games of
``benchmarks/analysis_accuracy.py --levels random,easy,greedy,normal --seed 1``, so about 5
for a mean of four, and three such means lie within 20 (4 of those) all but about once in a
hundred. Measured at WORLDS worlds over reseeds 0, 1 and 2: 6.8 (Scotland) and 6.3 points
(Ireland)."""
LEAD_MIN = 10.0
"""The normal seat's lead over the better of greedy and easy under every reseed: measured at
least 15.5 (Scotland) and 14.8 (Ireland)."""


def test_a_worlds_outcome_blends_the_playout_with_the_network() -> None:
    # The judge (docs/analysis.md, "The estimate"): each world's outcome is half the greedy
    # playout's result and half the expert network's value of the position after the move;
    # with no model for the game (a rule variant) it is the playout alone.
    game = Game.create("scotland", 3)
    match = Match.start(game, ["greedy"] * 3, seed=8)
    for _ in range(12):
        match.step_bot()
    view = match.state.view(match.state.current_player)
    aid = sorted(view.legal_action_ids)[0]
    ws = Worlds(game, view, 6, random.Random(3))
    assert ws.judge is not None
    blended = ws.outcomes(aid)
    judge, ws.judge = ws.judge, None
    playouts = ws.outcomes(aid)
    if ws.native is not None:
        cs = [c.clone() for c in ws.native]
        for c in cs:
            c.apply(aid)
        values = judge.native_values(cs, ws.seat)
    else:
        states = [st.clone() for st in ws.states]
        for st in states:
            st.apply_id(aid)
        values = judge.values(states, ws.seat)
    for b, p, v in zip(blended, playouts, values, strict=True):
        assert v is not None and 0.0 <= v[0] <= 1.0
        assert b.win == pytest.approx((p.win + v[0]) / 2) and b.score == p.score
        assert b.margin == pytest.approx((p.margin + v[1]) / 2)
    assert blended != playouts
    variant = Game.create("scotland", 3, ["set_aside_public"])
    assert Judge.of(variant) is None and NET_WEIGHT == 0.5
