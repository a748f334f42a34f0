"""A million playouts in the native core with the resident size before and after (issue 28:
"memory stays flat over a million playouts"). Run: ``nice -n 10 python benchmarks/core_memory.py``.

Three runs of a million each: random games dealt and played in C (app/bench.py's loop),
greedy playouts from resampled worlds through the Python entry points, and mcts iterations
(each one a playout) through the bot."""

from __future__ import annotations

import random
import sys
import time

from rebirth.bots.mcts import MCTSBot
from rebirth.engine import native
from rebirth.engine.game import Game


def rss_kb() -> int:
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * 4


def main(total: int = 1_000_000) -> int:
    game = Game.builtin("scotland", 3)
    bridge = native.for_game(game)
    if bridge is None:
        print("the native core is not built (or REBIRTH_CORE=pure)")
        return 1
    bridge.random_games(0, 0.0, 1000)
    r0 = rss_kb()
    t = time.process_time()
    bridge.random_games(1, 0.0, total)
    print(f"random games: {total} played, RSS {r0} -> {rss_kb()} kB, {time.process_time() - t:.0f} s CPU")
    base = bridge.deal(2)
    rng = random.Random(2)
    r0 = rss_kb()
    t = time.process_time()
    for _ in range(total):
        c = base.resample(base.cur, rng)
        c.playout(rng, 1, 0.1, -1)
    print(f"greedy playouts from resampled worlds: {total}, RSS {r0} -> {rss_kb()} kB, "
          f"{time.process_time() - t:.0f} s CPU")
    st = game.new_state(3)
    seat = st.current_player
    r0 = rss_kb()
    t = time.process_time()
    done = 0
    while done < total:
        bot = MCTSBot(game, seat, done, iterations=50_000)
        bot.analyse(st.view(seat))
        done += 50_000
    print(f"mcts iterations: {done}, RSS {r0} -> {rss_kb()} kB, {time.process_time() - t:.0f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000))
