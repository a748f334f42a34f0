"""Run random games through the PettingZoo environment and print its speed.

Trains nothing: every agent picks a uniformly random legal action from its action
mask. Needs the ``rl`` extra (``pip install -e '.[rl]'``)::

    python examples/random_games.py --games 1000 --board scotland --players 3
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from rebirth.env import REWARDS, env


def run(games: int, board: str, players: int, seed: int, reward: str) -> dict[str, float]:
    """Play ``games`` random games; return counts and rates."""
    e = env(board=board, players=players, reward=reward)
    rng = random.Random(seed)
    steps = 0
    total_reward = dict.fromkeys(e.possible_agents, 0.0)
    start = time.perf_counter()
    cpu_start = time.process_time()
    for g in range(games):
        e.reset(seed=seed + g)
        for agent in e.agent_iter():
            obs, rew, terminated, truncated, _info = e.last()
            if terminated or truncated:
                total_reward[agent] += float(rew)
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    e.close()
    out = {"games": float(games), "steps": float(steps), "seconds": elapsed,
           "steps_per_s": steps / elapsed, "games_per_s": games / elapsed,
           "cpu_seconds": cpu, "steps_per_cpu_s": steps / cpu}
    for agent, r in total_reward.items():
        out[f"mean_reward_{agent}"] = r / games
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description="Random games through rebirth.env; prints steps/s.")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--board", default="scotland")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--reward", choices=REWARDS, default="margin")
    a = p.parse_args(argv)
    if a.games < 1:
        p.error("--games must be at least 1")
    r = run(a.games, a.board, a.players, a.seed, a.reward)
    print(f"{a.board} {a.players}p: {int(r['games'])} games, {int(r['steps'])} agent steps "
          f"in {r['seconds']:.1f} s")
    print(f"steps/s {r['steps_per_s']:.0f}  games/s {r['games_per_s']:.1f}")
    # On a shared machine wall time includes waiting; CPU time does not.
    print(f"cpu {r['cpu_seconds']:.1f} s  steps per cpu-second {r['steps_per_cpu_s']:.0f}")
    print("mean reward (" + a.reward + "): " + ", ".join(
        f"{k.removeprefix('mean_reward_')}={v:+.2f}" for k, v in r.items() if k.startswith("mean_reward_")))


if __name__ == "__main__":
    main()
