"""Does the analysis's accuracy order the levels? (issue 27 item 0)

Plays arena-style games between the levels (``random``, ``easy``, ``greedy``, ``normal``,
``hard``, ``expert``; 2, 3 and 4 players in turn; each game takes the levels seated least so
far, so every level plays about as often, against a changing mix; the seats rotate with the
game index), analyses every seat of every game with ``rebirth.analysis.analyse`` at its
default budget, and prints per board (and per board and player count) the mean accuracy
per level and the labels per game (inaccuracies, mistakes, blunders per seat and game).

    nice -n 5 python benchmarks/analysis_accuracy.py --games 30 --jobs 2 --out acc.json

``--out`` keeps every seat's figures and every decision's loss (JSON), so another accuracy
curve can be tried on the same games without playing them again (``--reuse acc.json``).
``--hard-iterations`` / ``--expert-iterations`` lower those levels' search budget (the
default: the levels' own budgets, as the server plays them).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from itertools import pairwise
from multiprocessing import Pool
from typing import Any

from rebirth.analysis import DEFAULT_TOP_K, DEFAULT_WORLDS, analyse
from rebirth.analysis.core import LABELS, loss_accuracy, loss_label, seat_accuracy
from rebirth.app.arena import deal_seed
from rebirth.app.match import Match, bot_seed
from rebirth.bots.expert import ExpertBot
from rebirth.bots.mcts import MCTSBot
from rebirth.engine.game import Game

LEVELS = ("random", "easy", "greedy", "normal", "hard", "expert")
"""Weakest first: the order the mean accuracy should have."""


def schedule(board: str, games: int, seed: int, levels: tuple[str, ...] = LEVELS,
             players: tuple[int, ...] = (2, 3, 4)) -> list[tuple[str, int, int, tuple[str, ...]]]:
    """(board, game index, players, level per seat) of every game: the player counts in turn;
    the levels seated least so far (ties by a seeded draw); seats rotated by the index."""
    seated: Counter[str] = Counter()
    out = []
    for g in range(games):
        n = players[g % len(players)]
        rng = random.Random(f"analysis-accuracy/{seed}/{board}/{g}")
        pick = sorted(levels, key=lambda lv: (seated[lv], rng.random()))[:n]
        seated.update(pick)
        r = g % n
        out.append((board, g, n, tuple(pick[(k - r) % n] for k in range(n))))
    return out


def play_and_analyse(task: tuple[str, int, int, tuple[str, ...], int, int | None, int | None]
                     ) -> dict[str, Any]:
    """One game: play it, analyse every seat; the seats' figures and each decision's loss."""
    board, g, n, kinds, seed, hard_it, expert_it = task
    game = Game.create(board, n)
    dseed = deal_seed(seed, g, 1)  # one deal per game (no duplicate groups here)
    match = Match.start(game, list(kinds), seed=dseed)
    for q, k in enumerate(kinds):
        if k == "hard" and hard_it is not None:
            match.bots[q] = MCTSBot(game, q, bot_seed(dseed, q), iterations=hard_it)
        elif k == "expert" and expert_it is not None:
            match.bots[q] = ExpertBot(game, q, bot_seed(dseed, q), iterations=expert_it)
    t0 = time.perf_counter()
    match.run_bots()
    t1 = time.perf_counter()
    out = judge((board, g, n, kinds, match.record(), None, None))
    out["play_s"] = round(t1 - t0, 1)
    return out


def judge(task: tuple[str, int, int, tuple[str, ...], dict[str, Any], int | None, int | None]
          ) -> dict[str, Any]:
    """Analyse every seat of one played game (``worlds`` / ``top_k`` None: the defaults)."""
    board, g, n, kinds, record, worlds, top_k = task
    t1 = time.perf_counter()
    a = analyse(record, seed=g, worlds=worlds or DEFAULT_WORLDS, top_k=top_k or DEFAULT_TOP_K)
    t2 = time.perf_counter()
    seats = []
    for s in a.summaries:
        seats.append({"level": kinds[s.seat], "seat": s.seat, "accuracy": s.accuracy,
                      "labels": s.labels, "score": s.final_score, "won": s.won,
                      "losses": [[round(d.loss, 3), round(d.loss_se, 3),
                                  round(d.best.value - min(c.value for c in d.candidates), 3)]
                                 for d in a.decisions if d.seat == s.seat]})
    return {"board": board, "game": g, "players": n, "kinds": list(kinds), "seats": seats,
            "play_s": 0.0, "analyse_s": round(t2 - t1, 1), "record": record}


def seat_figures(seat: dict[str, Any]) -> tuple[float, Counter[str]]:
    """A seat's accuracy and labels recomputed from its decisions' losses (the current
    definitions; equal to the stored ones when the definitions have not changed)."""
    losses = seat["losses"]
    acc = seat_accuracy([loss_accuracy(x[0]) for x in losses])
    return acc, Counter(loss_label(x[0], x[1]) for x in losses)


def table(results: list[dict[str, Any]], by_players: bool) -> list[str]:
    """The table: per board (and player count), per level: seats, mean accuracy (its
    standard error over the seats) and labels per seat and game."""
    groups: dict[tuple[str, int], dict[str, list[tuple[float, Counter[str]]]]] = defaultdict(
        lambda: defaultdict(list))
    games: Counter[tuple[str, int]] = Counter()
    for r in results:
        key = (r["board"], r["players"] if by_players else 0)
        games[key] += 1
        for s in r["seats"]:
            groups[key][s["level"]].append(seat_figures(s))
    lines = []
    for key in sorted(groups):
        board, n = key
        head = f"{board}, {n} players" if n else f"{board}, 2-4 players"
        lines.append(f"{head}: {games[key]} games")
        lines.append(f"  {'level':8} {'seats':>5} {'accuracy':>14} {'inacc/g':>8} {'mist/g':>7} "
                     f"{'blund/g':>8}")
        means = []
        spread: list[tuple[str, float, float]] = []
        for lv in LEVELS:
            rows = groups[key].get(lv, [])
            if not rows:
                continue
            accs = [a for a, _ in rows]
            m = statistics.fmean(accs)
            se = statistics.stdev(accs) / len(accs) ** 0.5 if len(accs) > 1 else 0.0
            means.append((lv, m))
            spread.append((lv, m, se))
            per = {lab: statistics.fmean(c[lab] for _, c in rows) for lab in LABELS}
            lines.append(f"  {lv:8} {len(rows):5d} {m:8.1f} ± {se:4.1f} {per['inaccuracy']:8.1f} "
                         f"{per['mistake']:7.1f} {per['blunder']:8.1f}")
        # Each step up the ladder in standard errors (of the difference of the two means):
        # below 2 the step is inside the noise of this many seats.
        steps = []
        for (lo, mlo, slo), (hi, mhi, shi) in pairwise(spread):
            z = (mhi - mlo) / math.hypot(slo, shi) if slo or shi else float("inf")
            steps.append(f"{hi}-{lo} {z:+.1f}")
        if steps:
            lines.append(f"  steps (standard errors): {', '.join(steps)}")
        ordered = [lv for lv, _ in sorted(means, key=lambda x: x[1])]
        expected = [lv for lv in LEVELS if lv in ordered]
        lines.append(f"  order by accuracy: {' < '.join(ordered)}"
                     f"{'  (as expected)' if ordered == expected else '  (NOT the expected order)'}")
    return lines


def _write(path: str, args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"seed": args.seed, "hard_iterations": args.hard_iterations,
                   "expert_iterations": args.expert_iterations, "games": results}, fh)


def write_records(stem: str, args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    """The records of the games, one file per board (what the accuracy test analyses)."""
    for board in sorted({r["board"] for r in results}):
        games = [{"game": r["game"], "players": r["players"], "kinds": r["kinds"],
                  "record": r["record"]} for r in results if r["board"] == board]
        with open(f"{stem}.{board}.json", "w", encoding="utf-8") as fh:
            json.dump({"format": "rebirth-accuracy-games/1", "board": board, "seed": args.seed,
                       "levels": args.levels, "players": args.players, "games": games}, fh,
                      separators=(",", ":"))
            fh.write("\n")


def main(argv: list[str] | None = None) -> int:
    """Play, analyse and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", default="scotland,ireland")
    ap.add_argument("--games", type=int, default=30, help="games per board")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--levels", default=",".join(LEVELS), help="levels to seat (weakest first)")
    ap.add_argument("--players", default="2,3,4", help="player counts, in turn")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--hard-iterations", type=int, default=None)
    ap.add_argument("--expert-iterations", type=int, default=None)
    ap.add_argument("--out", help="write every game's figures (JSON) here")
    ap.add_argument("--records", help="also write the games' records alone (JSON, one file per "
                    "board: RECORDS.BOARD.json), as tests/data/accuracy holds them")
    ap.add_argument("--reuse", help="print the table of a file written by --out, play nothing")
    ap.add_argument("--rejudge", help="analyse again the games of a file written by --out "
                    "(with --worlds / --candidates), play nothing")
    ap.add_argument("--worlds", type=int, default=None, help="analysis budget (with --rejudge)")
    ap.add_argument("--candidates", type=int, default=None, help="analysis top_k (--rejudge)")
    args = ap.parse_args(argv)
    if args.reuse:
        with open(args.reuse, encoding="utf-8") as fh:
            results = json.load(fh)["games"]
    elif args.rejudge:
        with open(args.rejudge, encoding="utf-8") as fh:
            old = json.load(fh)["games"]
        jt = [(r["board"], r["game"], r["players"], tuple(r["kinds"]), r["record"], args.worlds,
               args.candidates) for b in args.boards.split(",")
              for r in [r for r in old if r["board"] == b][:args.games]]
        with Pool(args.jobs) as pool:
            results = sorted(pool.map(judge, jt), key=lambda r: (r["board"], r["game"]))
        if args.out:
            _write(args.out, args, results)
    else:
        tasks = [(*t, args.seed, args.hard_iterations, args.expert_iterations)
                 for b in args.boards.split(",")
                 for t in schedule(b, args.games, args.seed, tuple(args.levels.split(",")),
                                   tuple(int(x) for x in args.players.split(",")))]
        results = []
        t0 = time.perf_counter()
        with Pool(args.jobs) as pool:
            for r in pool.imap_unordered(play_and_analyse, tasks):
                results.append(r)
                print(f"[{len(results)}/{len(tasks)} {time.perf_counter() - t0:.0f}s] {r['board']} "
                      f"game {r['game']} ({r['players']}p: {','.join(r['kinds'])}): play "
                      f"{r['play_s']}s, analyse {r['analyse_s']}s", file=sys.stderr, flush=True)
                if args.out:  # after every game: a long run can be looked at while it runs
                    _write(args.out, args, results)
        results.sort(key=lambda r: (r["board"], r["game"]))
        if args.out:
            _write(args.out, args, results)
    if args.records:
        write_records(args.records, args, results)
    print("\n".join(table(results, by_players=False)))
    print()
    print("\n".join(table(results, by_players=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
