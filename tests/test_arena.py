"""The bot arena: determinism across job counts, seat rotation, aggregation, Elo, CLI."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from rebirth.app.arena import (
    ArenaConfig,
    ArenaError,
    GameOutcome,
    aggregate,
    deal_seed,
    elo_ratings,
    mean_ci95,
    normalize_seats,
    pairwise,
    run_arena,
    seat_kinds,
)
from rebirth.cli.main import main

BOARD = "ireland"


def outcome(index: int, kinds: tuple[str, ...], scores: tuple[int, ...],
            winners: tuple[int, ...]) -> GameOutcome:
    cats = tuple((("farms", s),) for s in scores)
    return GameOutcome(index, kinds, scores, winners, cats)


# ------------------------------------------------------------------ playing


def test_results_do_not_depend_on_jobs() -> None:
    cfg = ArenaConfig(BOARD, 3, ("greedy", "random", "random"), games=6, seed=11)
    one = run_arena(cfg, jobs=1)
    two = run_arena(cfg, jobs=2)
    assert one == two
    assert one.to_json() == two.to_json()
    assert [o.index for o in one.outcomes] == list(range(6))


def test_seed_changes_the_games() -> None:
    a = run_arena(ArenaConfig(BOARD, 2, ("random", "random"), games=2, seed=1))
    b = run_arena(ArenaConfig(BOARD, 2, ("random", "random"), games=2, seed=2))
    assert a.outcomes != b.outcomes


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rotation_is_balanced(players: int) -> None:
    entries = tuple(f"bot{k}" for k in range(players))
    games = 3 * players
    seen = Counter((kind, seat) for i in range(games)
                   for seat, kind in enumerate(seat_kinds(entries, i)))
    assert set(seen.values()) == {3}
    assert len(seen) == players * players


def test_group_shares_one_deal() -> None:
    seeds = [deal_seed(5, i, 3) for i in range(9)]
    assert seeds[0] == seeds[1] == seeds[2]
    assert seeds[3] == seeds[4] == seeds[5]
    assert len(set(seeds)) == 3


def test_games_round_up_and_seats_play_equally() -> None:
    res = run_arena(ArenaConfig(BOARD, 3, ("greedy", "random", "random"), games=4, seed=0))
    assert res.games == 6
    assert res.to_json()["games"] == 6
    assert res.bots["greedy"].games == 6
    assert res.bots["random"].games == 12
    # Every entry of the seat list sat at every seat equally often.
    per_seat = Counter((o.kinds[s], s) for o in res.outcomes for s in range(3))
    assert per_seat == {("greedy", s): 2 for s in range(3)} | {("random", s): 4 for s in range(3)}


@pytest.mark.parametrize(("seed", "games"), [(4, 6), (0, 3)])
def test_win_shares_sum_to_games(seed: int, games: int) -> None:
    # Seed 4: every bot wins a game. Seed 0 (3 games): random never wins and greedy wins
    # every game, the edges where the interval must still contain the share (0 and 1).
    res = run_arena(ArenaConfig(BOARD, 3, ("greedy", "random", "random"), games=games, seed=seed))
    assert math.isclose(sum(b.wins for b in res.bots.values()), res.games)
    assert math.isclose(sum(b.win_share * b.games for b in res.bots.values()), res.games)
    if seed == 0:
        assert res.bots["random"].wins == 0 and res.bots["greedy"].win_share == 1.0
    for b in res.bots.values():
        assert 0.0 <= b.ci95[0] <= b.win_share <= b.ci95[1] <= 1.0
        assert math.isfinite(b.elo)


# ------------------------------------------------------------------ aggregation


def test_shared_win_counts_one_over_k() -> None:
    games = [
        outcome(0, ("a", "b", "c"), (10, 10, 5), (0, 1)),  # a and b share
        outcome(1, ("b", "c", "a"), (7, 7, 7), (0, 1, 2)),  # everybody shares
        outcome(2, ("c", "a", "b"), (9, 3, 1), (0,)),
    ]
    st = aggregate(games)
    assert st["a"].wins == pytest.approx(0.5 + 1 / 3)
    assert st["b"].wins == pytest.approx(0.5 + 1 / 3)
    assert st["c"].wins == pytest.approx(1 / 3 + 1)
    assert sum(s.wins for s in st.values()) == pytest.approx(3)
    assert st["a"].win_share == pytest.approx((0.5 + 1 / 3) / 3)
    assert st["a"].games == 3


def test_margin_score_and_categories() -> None:
    games = [
        outcome(0, ("a", "b"), (10, 4), (0,)),
        outcome(1, ("b", "a"), (8, 8), (0,)),  # a loses the tiebreak: margin 0
    ]
    st = aggregate(games)
    assert st["a"].mean_score == 9
    assert st["a"].mean_margin == 0
    assert st["b"].mean_margin == pytest.approx(-3)
    assert st["b"].categories == {"farms": 6}


def test_pooled_seats_make_one_observation_per_game() -> None:
    # Two "g" seats: a game where one of them wins counts 1/2 for g, as does a shared g win.
    games = [
        outcome(0, ("g", "g", "r"), (9, 1, 2), (0,)),
        outcome(1, ("g", "r", "g"), (5, 1, 5), (0, 2)),
        outcome(2, ("r", "g", "g"), (9, 1, 2), (0,)),
    ]
    st = aggregate(games)
    assert st["g"].games == 6
    assert st["g"].win_share == pytest.approx(1 / 3)
    # Observations 1/2, 1/2, 0 → their mean and a Wilson interval around it.
    assert st["g"].ci95 == pytest.approx(mean_ci95([0.5, 0.5, 0.0]))
    assert st["r"].ci95 == pytest.approx(mean_ci95([0.0, 0.0, 1.0]))


@pytest.mark.parametrize("n", [1, 2, 3, 6, 7, 10, 49, 200, 1001])
def test_ci_contains_the_share_with_no_wins_and_with_all_wins(n: int) -> None:
    lo, hi = mean_ci95([0.0] * n)
    assert lo == 0.0 < hi <= 1.0  # exactly 0: a bound of 2.8e-17 would exclude the share 0
    lo, hi = mean_ci95([1.0] * n)
    assert 0.0 <= lo < hi == 1.0
    st = aggregate([outcome(i, ("a", "b"), (9, 1), (0,)) for i in range(n)])
    assert st["b"].win_share == 0.0 and st["b"].ci95[0] == 0.0 < st["b"].ci95[1]
    assert st["a"].win_share == 1.0 and st["a"].ci95[1] == 1.0 > st["a"].ci95[0]


def test_ci_is_wilson_and_honest_at_the_edges() -> None:
    lo, hi = mean_ci95([1.0] * 200)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(0.98116, abs=1e-4)
    lo, hi = mean_ci95([0.0] * 200)
    assert lo == 0.0 and hi == pytest.approx(0.01884, abs=1e-4)
    lo, hi = mean_ci95([0.0, 1.0, 1.0, 1.0])
    assert 0.0 <= lo < 0.75 < hi <= 1.0
    # 60 wins in 100 games: the textbook Wilson interval (0.502, 0.691).
    lo, hi = mean_ci95([1.0] * 60 + [0.0] * 40)
    assert lo == pytest.approx(0.502, abs=1e-3) and hi == pytest.approx(0.691, abs=1e-3)
    assert mean_ci95([]) == (0.0, 1.0)


# ------------------------------------------------------------------ Elo


def test_elo_orders_bots() -> None:
    games = [outcome(i, ("a", "b", "c"), (30, 20, 10), (0,)) for i in range(20)]
    elo = aggregate(games)
    assert elo["a"].elo > elo["b"].elo > elo["c"].elo
    assert all(math.isfinite(s.elo) for s in elo.values())
    assert sum(s.elo for s in elo.values()) / 3 == pytest.approx(1500)


def test_elo_finite_when_one_bot_always_wins() -> None:
    games = [outcome(i, ("a", "b"), (10, 0), (0,)) for i in range(200)]
    st = aggregate(games)
    assert math.isfinite(st["a"].elo) and math.isfinite(st["b"].elo)
    assert st["a"].elo > st["b"].elo
    assert st["a"].elo + st["b"].elo == pytest.approx(3000)


def test_elo_draws_and_rank_by_winner_first() -> None:
    # Equal scores and neither a winner: a draw. The tiebreak winner beats an equal score.
    pts = pairwise([
        outcome(0, ("a", "b", "c"), (5, 5, 9), (2,)),
        outcome(1, ("a", "b"), (5, 5), (1,)),
    ])
    assert pts[("a", "b")] == 0.5
    assert pts[("b", "a")] == 1.5
    assert pts[("c", "a")] == 1.0
    even = elo_ratings({("a", "b"): 3.0, ("b", "a"): 3.0}, ["a", "b"])
    assert even["a"] == pytest.approx(1500) and even["b"] == pytest.approx(1500)


def test_elo_known_strengths() -> None:
    # a beats b 3 of 4: the fitted odds come out near 3:1 (the prior pulls them a little).
    r = elo_ratings({("a", "b"): 300.0, ("b", "a"): 100.0}, ["a", "b"])
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(3), abs=2)


def test_same_bot_everywhere() -> None:
    st = aggregate([outcome(0, ("g", "g"), (3, 1), (0,))])
    assert st["g"].elo == 1500
    assert st["g"].win_share == 0.5


# ------------------------------------------------------------------ input and CLI


def test_normalize_seats() -> None:
    assert normalize_seats(" Greedy,random ", 2) == ("greedy", "random")
    with pytest.raises(ArenaError, match="human"):
        normalize_seats("human,random", 2)
    with pytest.raises(ArenaError, match="unknown bot"):
        normalize_seats("nobody,random", 2)
    with pytest.raises(ArenaError, match="3 players need 3 seats"):
        normalize_seats("random,random", 3)


@pytest.mark.parametrize("seats", ["random,nobody,random", "human,random,random",
                                   "random,random", "random,random,random,random"])
def test_cli_bad_seats_exit_2(seats: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["arena", "--board", BOARD, "--players", "3", "--seats", seats, "--games", "3"])
    assert rc == 2
    cap = capsys.readouterr()
    assert cap.err.startswith("error:")
    assert cap.out == ""


def test_cli_bad_games_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["arena", "--board", BOARD, "--players", "2", "--seats", "random,random",
               "--games", "0"])
    assert rc == 2
    assert "--games" in capsys.readouterr().err


def test_cli_json_and_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    rc = main(["arena", "--board", BOARD, "--players", "2", "--seats", "greedy,random",
               "--games", "3", "--seed", "7", "--json", "--out", str(out)])
    assert rc == 0
    cap = capsys.readouterr()
    data = json.loads(cap.out)
    assert data["games"] == 4 and data["games_requested"] == 3
    assert "rounded up" in cap.err
    assert data["board"] == BOARD and data["players"] == 2 and data["seed"] == 7
    assert data["seats"] == ["greedy", "random"]
    assert set(data["bots"]) == {"greedy", "random"}
    for b in data["bots"].values():
        assert set(b) >= {"win_share", "ci95", "mean_score", "mean_margin", "elo", "games",
                          "categories"}
        assert len(b["ci95"]) == 2
    assert json.loads((out / "results.json").read_text(encoding="utf-8")) == data
    png = (out / "scores.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_cli_table(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["arena", "--board", BOARD, "--players", "2", "--seats", "random,random",
               "--games", "2"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "random" in out and "win share" in out and "Elo" in out
