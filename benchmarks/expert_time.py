"""CPU seconds per move of the ``expert`` search at a given budget (issue 28 item 4: each level
keeps its time per move and gets the iterations the core affords). Four positions of one
3-player Scotland game after 6, 30, 60 and 90 random plies; prints the median and each move.

    python benchmarks/expert_time.py --iterations 2000
    REBIRTH_CORE=pure python benchmarks/expert_time.py --iterations 600
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from rebirth.bots.expert import ExpertBot
from rebirth.engine import native
from rebirth.engine.game import Game


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, required=True)
    ap.add_argument("--board", default="scotland")
    ap.add_argument("--players", type=int, default=3)
    args = ap.parse_args()
    game = Game.create(args.board, args.players)
    times = []
    for k, plies in enumerate((6, 30, 60, 90)):
        st = game.new_state(100 + k)
        rng = random.Random(k)
        for _ in range(plies):
            if st.done:
                break
            st.apply_id(st.random_action_id(rng))
        while st.is_chance_node():
            st.apply_id(st.sample_chance(rng))
        bot = ExpertBot(game, st.current_player, 1, iterations=args.iterations)
        view = st.view(st.current_player)
        t = time.process_time()
        bot.choose(view)
        times.append(time.process_time() - t)
    print(f"expert {args.iterations} iterations ({native.core_kind()} core): median "
          f"{statistics.median(times):.3f} s CPU per move; moves {[round(x, 3) for x in times]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
