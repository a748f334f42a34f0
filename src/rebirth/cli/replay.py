"""``rebirth replay FILE``: replay a record, verify it, print the result."""

from __future__ import annotations

import argparse
import json
import sys

from rebirth.cli.texts import Texts
from rebirth.engine.board import MapError, load_board
from rebirth.engine.events import Event
from rebirth.engine.records import RecordError, read_record, replay, summary_json


def run(args: argparse.Namespace) -> int:
    lines: list[str] = []
    names: list[str] = []

    def show(i: int, events: list[Event]) -> None:
        for e in events:
            lines.append(f"{i + 1:4} [{e.rule}] {e.render(args.lang, names, seat=e.seat)}")

    try:
        board = load_board(args.map) if args.map else None
        record = read_record(args.file)
        if isinstance(record, dict) and isinstance(record.get("players"), list):
            names = [str(p.get("name", f"Player {i + 1}")) if isinstance(p, dict)
                     else f"Player {i + 1}" for i, p in enumerate(record["players"])]
        state = replay(record, board=board, on_events=show if args.events else None)
    except (RecordError, MapError) as exc:
        print(f"error: {args.file}: {exc}", file=sys.stderr)
        return 1
    summary = summary_json(state)
    if args.json:
        print(json.dumps(summary))
        return 0
    tx = Texts(args.lang)
    for line in lines:
        print(line)
    print(tx("record_valid" if state.is_terminal() else "record_valid_unfinished", n=len(record["actions"])))
    cats = state.categories
    heads = [tx(f"cat_{c}") for c in cats]
    width = max(len(n) for n in names)
    total = tx("total")
    print(" " * width + "  " + " ".join(f"{h:>10}" for h in heads) + f" {total:>7}")
    for q in range(state.n):
        bd = state.breakdown(q)
        print(f"{names[q]:<{width}}  " + " ".join(f"{bd[c]:>10}" for c in cats)
              + f" {state.score[q]:>7}")
    if state.is_terminal():
        w = ", ".join(names[q] for q in state.winners)
        print(tx("winner_line", names=w))
    return 0
