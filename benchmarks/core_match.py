"""Level against level across the two cores (issue 28, "Must show"): ``hard`` with the native
core against ``hard`` with the pure core (each with its own budget: the same time per move),
or ``expert`` against two ``hard``, both native. Seats rotate from game to game; one JSON line
per game (seed, the seat of each side, the returns, the scores, CPU seconds per side), then
the win share of the first side with its 95% Wilson interval.

    nice -n 10 python benchmarks/core_match.py hard-vs-hard --games 200 --out FILE
    nice -n 10 python benchmarks/core_match.py expert-vs-hard --games 200 --out FILE

``--summary FILE`` prints the share and interval of the games in FILE so far.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rebirth.bots.base import Bot
from rebirth.bots.registry import make_bot
from rebirth.engine.game import Game


@contextmanager
def core(kind: str) -> Iterator[None]:
    old = os.environ.get("REBIRTH_CORE")
    os.environ["REBIRTH_CORE"] = kind
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("REBIRTH_CORE", None)
        else:
            os.environ["REBIRTH_CORE"] = old


Side = tuple[str, str]  # (level, core)


def play(game: Game, seed: int, sides: list[Side]) -> dict[str, Any]:
    """One game, seat q played by ``sides[q]``; the bots are built and act under their core."""
    bots: list[Bot] = []
    for q, (level, kind) in enumerate(sides):
        with core(kind):
            bots.append(make_bot(level, game, q, seed * 10 + q))
    st = game.new_state(seed)
    cpu = [0.0] * game.players
    while not st.done:
        if st.is_chance_node():
            st.apply_id(st.sample_chance(st.rng))
            continue
        q = st.current_player
        with core(sides[q][1]):
            t = time.process_time()
            action = bots[q].act(st.view(q))
            cpu[q] += time.process_time() - t
        st.apply(action)
    return {"seed": seed, "sides": sides, "returns": st.returns(), "scores": st.score, "cpu": cpu}


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


def summary(lines: list[dict[str, Any]], first: Side) -> str:
    share = 0.0
    cpu_first, cpu_other = 0.0, 0.0
    for g in lines:
        for q, side in enumerate(g["sides"]):
            if tuple(side) == first:
                share += g["returns"][q]
                cpu_first += g["cpu"][q]
            else:
                cpu_other += g["cpu"][q]
    n = len(lines)
    lo, hi = wilson(share, n)
    per = max(n, 1)
    return (f"{first[0]} ({first[1]} core): win share {share / per:.3f} over {n} games "
            f"(95% Wilson interval {lo:.3f}-{hi:.3f}); CPU s per game: this side "
            f"{cpu_first / per:.1f}, the others {cpu_other / per:.1f}")


MATCHES: dict[str, tuple[str, int, Callable[[int], list[Side]]]] = {
    # Seats alternate: native hard first in even games.
    "hard-vs-hard": ("scotland", 2, lambda i: [("hard", "native"), ("hard", "pure")] if i % 2 == 0
                     else [("hard", "pure"), ("hard", "native")]),
    "expert-vs-hard": ("scotland", 3, lambda i: [
        [("expert", "native"), ("hard", "native"), ("hard", "native")][(q - i) % 3] for q in range(3)]),
}
FIRST: dict[str, Side] = {"hard-vs-hard": ("hard", "native"), "expert-vs-hard": ("expert", "native")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("match", choices=sorted(MATCHES))
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--summary", action="store_true", help="only summarise --out")
    args = ap.parse_args()
    if not args.summary:
        board, n, sides = MATCHES[args.match]
        game = Game.builtin(board, n)
        for i in range(args.start, args.start + args.games):
            res = play(game, 1000 + i, sides(i))
            with open(args.out, "a", encoding="utf-8") as f:
                f.write(json.dumps(res) + "\n")
    with open(args.out, encoding="utf-8") as f:
        lines = [json.loads(ln) for ln in f if ln.strip()]
    print(summary(lines, FIRST[args.match]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
