"""The rating math (rebirth.app.ratings; docs/ratings.md): places by the final result (E-3/E-4
decide the winners; forfeited seats last), openskill's Plackett–Luce update, bots held fixed,
and the shipped bot ratings file validated."""

from __future__ import annotations

import copy
import json
from importlib.resources import files
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rebirth.app import ratings as r

SHIPPED = json.loads(files("rebirth").joinpath("data", "ratings", "bots.json").read_text("utf-8"))


def test_places_winners_first_then_scores_ties_share() -> None:
    # E-3: seat 1 lost the tiebreak at 100 points: seat 0 alone wins, seat 1 is second.
    assert r.places([100, 100, 80, 80], [0]) == [1, 2, 3, 3]
    # A shared win (E-3/E-4 "else they share the win"): both first.
    assert r.places([100, 100, 80], [0, 1]) == [1, 1, 3]


def test_forfeited_seats_finish_last_whatever_they_scored() -> None:
    assert r.places([150, 100, 80], [0], forfeited=[0]) == [3, 1, 2]
    assert r.places([150, 100, 80, 10], [0], forfeited=[0, 1]) == [3, 3, 1, 2]


def test_places_refuse_seats_out_of_range() -> None:
    with pytest.raises(ValueError):
        r.places([1, 2], [2])
    with pytest.raises(ValueError):
        r.places([1, 2], [0], forfeited=[5])


@given(st.lists(st.integers(0, 300), min_size=2, max_size=4), st.data())
def test_places_are_a_competition_ranking(scores: list[int], data: st.DataObject) -> None:
    n = len(scores)
    out = data.draw(st.sets(st.integers(0, n - 1), max_size=n))
    best = max(scores)
    winners = data.draw(st.sets(st.sampled_from([s for s in range(n) if scores[s] == best]), min_size=1))
    p = r.places(scores, sorted(winners), out)
    assert min(p) == 1 and max(p) <= n
    for s in range(n):
        # A seat's place is 1 + the number of seats strictly ahead of it.
        assert p[s] == 1 + sum(1 for q in range(n) if p[q] < p[s])
        if s in out:
            assert all(p[s] >= p[q] for q in range(n))


def test_the_winner_gains_the_loser_loses_a_bot_stays() -> None:
    bot = r.Rating(30.0, 1.5)
    a, b, c = r.rate([r.Entrant(r.Rating()), r.Entrant(r.Rating()), r.Entrant(bot, fixed=True)], [1, 3, 2])
    assert a.mu > r.MU > b.mu
    assert a.sigma < r.SIGMA and b.sigma < r.SIGMA
    assert c == bot


def test_beating_a_strong_bot_counts_more_than_a_weak_one() -> None:
    strong, weak = r.Rating(35.0, 1.0), r.Rating(15.0, 1.0)
    vs_strong = r.rate([r.Entrant(r.Rating()), r.Entrant(strong, fixed=True)], [1, 2])[0]
    vs_weak = r.rate([r.Entrant(r.Rating()), r.Entrant(weak, fixed=True)], [1, 2])[0]
    assert vs_strong.mu > vs_weak.mu


def test_a_tie_between_equals_changes_no_mean() -> None:
    a, b = r.rate([r.Entrant(r.Rating()), r.Entrant(r.Rating())], [1, 1])
    assert a.mu == pytest.approx(r.MU) and b.mu == pytest.approx(r.MU)


def test_the_displayed_rating_is_the_scaled_ordinal() -> None:
    assert r.Rating().display == 1000
    assert r.display(30.0, 2.0) == round(1000 + 40 * (30.0 - 6.0))
    assert r.Rating(30.0, 2.0).ordinal == pytest.approx(24.0)


def test_the_shipped_bot_ratings_are_complete_and_valid() -> None:
    table = r.bot_ratings()
    assert len(table) == len(r.BOARDS) * len(r.PLAYERS) * len(r.LEVELS)
    for (board, n, level), rating in table.items():
        assert rating.sigma > 0, (board, n, level)
    assert r.bot_rating("easy", "scotland", 2) == table[("scotland", 2, "easy")]
    with pytest.raises(KeyError):
        r.bot_rating("mcts", "scotland", 2)


def _broken(path: list[str], value: Any) -> dict[str, Any]:
    doc: dict[str, Any] = copy.deepcopy(SHIPPED)
    cur = doc
    for k in path[:-1]:
        cur = cur[k]
    if value is KeyError:
        del cur[path[-1]]
    else:
        cur[path[-1]] = value
    return doc


@pytest.mark.parametrize("path,value", [
    (["version"], 2),
    (["model", "beta"], 1.0),
    (["model", "name"], "BradleyTerryFull"),
    (["ratings", "ireland"], KeyError),
    (["ratings", "scotland", "3"], KeyError),
    (["ratings", "scotland", "2", "hard"], KeyError),
    (["ratings", "scotland", "2", "hard", "sigma"], 0),
    (["ratings", "scotland", "2", "hard", "sigma"], -1.0),
    (["ratings", "scotland", "2", "hard", "mu"], float("nan")),
    (["ratings", "scotland", "2", "hard", "mu"], "25"),
    (["ratings", "scotland", "2", "hard", "games"], -1),
    (["ratings", "scotland", "2", "hard", "games"], True),
    (["ratings", "scotland", "2", "grandmaster"], {"mu": 1, "sigma": 1, "games": 1}),
])
def test_a_broken_bot_ratings_file_is_refused(path: list[str], value: Any) -> None:
    r.validate_bot_ratings(SHIPPED)
    with pytest.raises(r.BotRatingsError):
        r.validate_bot_ratings(_broken(path, value))
