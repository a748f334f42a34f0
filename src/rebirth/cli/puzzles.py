"""``rebirth puzzles make RECORDS… --out FILE``: puzzles from complete game records."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any


def add_arguments(p: argparse.ArgumentParser, int_in: Callable[[int, int], Callable[[str], int]],
                  seed_limit: int) -> None:
    """The command's options (registered by :mod:`rebirth.cli.main`)."""
    sub = p.add_subparsers(dest="puzzles_cmd", required=True)
    mk = sub.add_parser("make", help="find puzzles in complete game records (docs/puzzles.md)")
    mk.add_argument("records", nargs="+", metavar="RECORD", help="complete game records (JSON)")
    mk.add_argument("--out", required=True, metavar="FILE", help="the puzzle file to write")
    mk.add_argument("--seed", type=int_in(-seed_limit, seed_limit), default=0)
    mk.add_argument("--jobs", type=int_in(1, 64), default=1, help="records judged at once")
    mk.add_argument("--min", type=int_in(0, 1_000_000), default=0, metavar="N",
                    help="fail (exit 1) when fewer puzzles are found")


def _one(job: tuple[str, int]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    from rebirth.app.puzzles import load_themes, make_puzzles

    name, seed = job
    record = json.loads(Path(name).read_text(encoding="utf-8"))
    found, counts = make_puzzles([(name, record)], load_themes(), seed=seed)
    # Progress on stderr: a long run says how far it is, record by record.
    print(f"{name}: scanned {counts['scanned']}, kept {counts['kept']}", file=sys.stderr, flush=True)
    return [p.to_json() for p in found], counts


def run(args: argparse.Namespace) -> int:
    """Make the puzzles and print what was scanned and kept."""
    from rebirth.app.puzzles import PuzzleError, load_themes, parse_puzzles, puzzles_json, write_puzzles
    from rebirth.engine.messages import UserError

    out = Path(args.out)
    if not out.parent.is_dir():
        print(f"error: {out}: its folder does not exist", file=sys.stderr)
        return 2
    for name in args.records:
        try:
            json.loads(Path(name).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"error: {name}: {exc}", file=sys.stderr)
            return 1
    jobs = [(name, args.seed) for name in args.records]
    puzzles: list[dict[str, Any]] = []
    total: Counter[str] = Counter()
    try:
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                results = list(pool.map(_one, jobs))
        else:
            results = [_one(j) for j in jobs]
    except UserError as exc:
        print(f"error: {exc.text('en')}", file=sys.stderr)
        return 1
    for found, counts in results:
        puzzles.extend(found)
        total.update(counts)
    themes = load_themes()
    data = puzzles_json([])
    data["puzzles"] = puzzles
    try:
        checked = parse_puzzles(data, themes)  # the loader's own checks, before writing
    except PuzzleError as exc:
        print(f"error: {exc.text('en')}", file=sys.stderr)
        return 1
    write_puzzles(out, data)
    by_theme = Counter(t for p in checked.puzzles for t in p.themes)
    by_board = Counter(f"{p.view.board}-{p.view.players}p" for p in checked.puzzles)
    by_diff = Counter(p.difficulty for p in checked.puzzles)
    print(f"records {total['records']}, positions scanned {total['scanned']}, "
          f"clear best move {total['clear']}, best in under 90 % of the deals "
          f"{total['below_ship_share']}, not confirmed by a second sample "
          f"{total['unconfirmed']}, without a theme {total['unthemed']}, "
          f"kept {len(checked.puzzles)}")
    print("themes: " + ", ".join(f"{t} {by_theme[t]}" for t in themes))
    print("boards: " + ", ".join(f"{b} {c}" for b, c in sorted(by_board.items())))
    print("difficulty: " + ", ".join(f"{d}: {by_diff[d]}" for d in sorted(by_diff)))
    print(f"wrote {out}")
    if len(checked.puzzles) < args.min:
        print(f"error: {len(checked.puzzles)} puzzles, fewer than --min {args.min}", file=sys.stderr)
        return 1
    return 0
