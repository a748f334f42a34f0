"""``rebirth hint RECORD --seat K``: the best action for seat K in the record's last position."""

from __future__ import annotations

import argparse
import json
import sys

from rebirth.app.hint import hint
from rebirth.bots.base import BotError
from rebirth.engine.board import MapError, load_board
from rebirth.engine.records import RecordError, read_record


def run(args: argparse.Namespace) -> int:
    try:
        record = read_record(args.file)
        board = load_board(args.map) if args.map else None
        h = hint(record, args.seat - 1, level=args.level, iterations=args.iterations,
                 seed=args.seed, board=board)
    except (RecordError, MapError) as exc:
        print(f"error: {args.file}: {exc}", file=sys.stderr)
        return 1
    except (BotError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(h.to_json()))
        return 0
    print(f"Seat {args.seat}: play {h.action}: the search's choice, the candidate it visited "
          f"most (it aims at winning, not at the highest score).")
    print(f"  Expected final score after {h.action}: about {h.expected_score:.0f} "
          f"(now {h.current_score}).")
    print("  Candidates, ranked by visits:")
    for c in h.candidates[:3]:
        mark = "→" if c.action == h.action else " "
        print(f"  {mark} {c.action:>8}  visits {c.visits:4}  win chance (proxy) {c.reward:5.3f}"
              f"  expected final score {c.expected_score:6.1f}")
    return 0
