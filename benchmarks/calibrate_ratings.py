"""Calibrate the bot levels' fixed ratings (writes src/rebirth/data/ratings/bots.json).

    nice -n 10 .venv/bin/python benchmarks/calibrate_ratings.py --cpu 2400 --jobs 2 \
        --log /tmp/calib.jsonl --out src/rebirth/data/ratings/bots.json

Also: ``rebirth ratings calibrate`` (the same, from the CLI). ``--refit`` only refits a log.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rebirth.app import calibrate
from rebirth.app.ratings import validate_bot_ratings


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cpu", type=float, default=600.0, help="CPU seconds to spend (summed over games)")
    ap.add_argument("--games", type=int, default=None, help="stop after this many games")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--log", type=Path, required=True, help="JSON-lines log of every game (appended)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--refit", action="store_true", help="only fit the games already in --log")
    ap.add_argument("--cheap-only", action="store_true",
                    help="play only the cheap levels' games (random, easy, greedy, normal)")
    ap.add_argument("--fit", type=Path, action="append", default=[],
                    help="further logs whose games the fit also reads (repeatable)")
    a = ap.parse_args(argv)
    if not a.refit:
        t0 = time.monotonic()

        def show(p: calibrate.Played, spent: float) -> None:
            print(f"{time.monotonic() - t0:7.0f}s cpu {spent:7.0f}s {p.board} {p.players}p "
                  f"{','.join(p.kinds)} {p.scores} {p.cpu:.1f}s", flush=True)

        sets = () if a.cheap_only else calibrate.EXPENSIVE_SETS
        calibrate.run(calibrate.schedule(sets, seed=a.seed), cpu_budget=a.cpu, jobs=a.jobs, log=a.log,
                      max_games=a.games, progress=show)
    games = [g for log in [a.log, *a.fit] for g in calibrate.read_log(log)]
    doc = calibrate.document(games, note=f"seed {a.seed}; {len(games)} games")
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    if a.out is not None:
        validate_bot_ratings(json.loads(text))
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(text, encoding="utf-8")
    for board, per in doc["ratings"].items():
        for n, levels in per.items():
            for lv, r in sorted(levels.items(), key=lambda kv: kv[1]["mu"]):
                print(f"{board} {n}p {lv:7s} mu {r['mu']:7.3f} sigma {r['sigma']:6.3f} "
                      f"ordinal {r['mu'] - 3 * r['sigma']:7.3f} rating {r['rating']:5d} games {r['games']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
