"""Steps of the PettingZoo environment (issue 28 item 4): random legal actions, each agent's
observation built every step as a learner does. Prints steps/s, games/s and the core that
stepped (``native``: the environment steps and encodes in rebirth._core; ``REBIRTH_CORE=pure``
forces the reference engine).

    python benchmarks/env_steps.py --board scotland --players 3 --games 30
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from rebirth.env.rebirth_env import raw_env


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="scotland")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=30)
    args = ap.parse_args()
    env = raw_env(args.board, args.players)
    rng = random.Random(1)
    steps = 0
    t = time.perf_counter()
    for g in range(args.games):
        env.reset(seed=g)
        while not all(env.terminations.values()):
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(mask.nonzero()[0])))
            steps += 1
    dt = time.perf_counter() - t
    core = "native" if env.native else "pure"
    print(f"{args.board} {args.players}p: {steps / dt:.0f} steps/s, {args.games / dt:.1f} games/s"
          f" (core: {core})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
