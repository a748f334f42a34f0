"""CPU time per move of a bot level over whole games (issue 17: "per-move time of expert").

Plays seeded games of ``--bot`` against ``--against`` bots (the bot's seat rotates with the
game index) and times each of the bot's decisions with ``time.process_time`` — CPU seconds of
this process, so a busy machine slows the wall clock but hardly the figure — and with the
wall clock. Prints median, 90th percentile and max per configuration, as text or JSON.

    python benchmarks/move_times.py --boards scotland,ireland --players 2,3 --games 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from rebirth.bots.registry import make_bot
from rebirth.engine.game import Game
from rebirth.engine.replay import draw_chance


def times_of(board: str, players: int, bot: str, against: str, games: int, seed: int) -> dict[str, Any]:
    """Per-decision CPU and wall seconds of ``bot`` over ``games`` games."""
    game = Game.create(board, players)
    cpu: list[float] = []
    wall: list[float] = []
    for i in range(games):
        me = i % players
        bots = {s: make_bot(bot if s == me else against, game, s, seed * 1000 + i * 10 + s)
                for s in range(players)}
        st = game.new_state(seed * 1000 + i)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_chance(draw_chance(st))
                continue
            p = st.current_player
            view = st.view(p)
            c0, w0 = time.process_time(), time.perf_counter()
            action = bots[p].act(view)
            if p == me and len(view.legal_action_ids) > 1:
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
            st.apply(action)
    cpu.sort()
    return {"board": board, "players": players, "bot": bot, "against": against, "games": games,
            "moves": len(cpu), "cpu_median_s": round(statistics.median(cpu), 4),
            "cpu_p90_s": round(cpu[int(0.9 * (len(cpu) - 1))], 4), "cpu_max_s": round(cpu[-1], 4),
            "wall_median_s": round(statistics.median(wall), 4), "wall_max_s": round(max(wall), 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", default="scotland,ireland")
    ap.add_argument("--players", default="2,3")
    ap.add_argument("--bot", default="expert")
    ap.add_argument("--against", default="hard")
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = [times_of(b, int(n), a.bot, a.against, a.games, a.seed)
            for b in a.boards.split(",") for n in a.players.split(",")]
    if a.json:
        print(json.dumps(rows, indent=1))
        return
    for r in rows:
        print(f"{r['board']} {r['players']}p {r['bot']} vs {r['against']}: {r['moves']} moves, CPU median "
              f"{r['cpu_median_s']} s, p90 {r['cpu_p90_s']} s, max {r['cpu_max_s']} s "
              f"(wall median {r['wall_median_s']} s, max {r['wall_max_s']} s)")


if __name__ == "__main__":
    main()
