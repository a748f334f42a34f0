"""``rebirth arena``: bots play many games with rotated seats; a table, JSON or files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from rebirth.app.arena import (
    ArenaConfig,
    ArenaError,
    ArenaResult,
    normalize_seats,
    plot_scores,
    run_arena,
)
from rebirth.app.fileio import check_writable_dir, write_atomic
from rebirth.engine.board import MapError
from rebirth.engine.game import Game, SetupError
from rebirth.engine.missions import DataError


def run(args: argparse.Namespace) -> int:
    """Run the arena from parsed arguments; 0 on success, 2 on bad input, 1 when writing fails."""
    err = Console(stderr=True)
    try:
        seats = normalize_seats(args.seats, args.players)
        if args.games < 1:
            raise ArenaError("error.arena.games", games=args.games)
        if args.jobs < 1:
            raise ArenaError("error.arena.jobs", jobs=args.jobs)
        if args.address is not None and args.backend != "ray":
            raise ArenaError("error.arena.address")
        Game.create(args.board, args.players, args.variant)
        if args.out:
            # Checked before the games are played, so no run is wasted on a bad path.
            why = check_writable_dir(args.out)
            if why is not None:
                raise ArenaError("error.arena.out", path=args.out, why=why)
    except (ArenaError, MapError, SetupError, DataError) as exc:  # DataError: cards vs map
        print(f"error: {exc}", file=sys.stderr)
        return 2
    config = ArenaConfig(args.board, args.players, seats, args.games, args.seed,
                         tuple(args.variant))
    total = config.rounded_games
    if total != config.games:
        print(f"note: {config.games} games rounded up to {total}, a multiple of "
              f"{config.players} so every bot plays every seat equally", file=sys.stderr)

    show = not args.json and sys.stderr.isatty()
    try:
        if show:
            with Progress(TextColumn("arena"), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn(), console=err, transient=True) as bar:
                task = bar.add_task("games", total=total)
                result = run_arena(config, args.jobs,
                                   progress=lambda done: bar.update(task, completed=done),
                                   backend=args.backend, address=args.address)
        else:
            result = run_arena(config, args.jobs, backend=args.backend, address=args.address)
    except ArenaError as exc:  # the ray backend: Ray missing or no cluster at --address
        print(f"error: {exc}", file=sys.stderr)
        return 2

    data = result.to_json()
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            write_atomic(out / "results.json", json.dumps(data, indent=2) + "\n")
            plot_scores(result, out / "scores.png")
        except OSError as exc:
            print(f"error: cannot write the results to {out}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps(data))
    else:
        _print_table(result, Console())
        if args.out:
            print(f"wrote {Path(args.out) / 'results.json'} and {Path(args.out) / 'scores.png'}")
    return 0


def _print_table(result: ArenaResult, console: Console) -> None:
    c = result.config
    variants = f", variants {', '.join(sorted(c.variants))}" if c.variants else ""
    title = (f"{result.board}, {c.players} players, {result.games} games, seed {c.seed}"
             f"{variants}\nseats {','.join(c.seats)}")
    table = Table(title=title)
    table.add_column("bot")
    table.add_column("seats", justify="right")
    table.add_column("win share", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("Elo", justify="right")
    table.add_column("mean score", justify="right")
    table.add_column("mean margin", justify="right")
    ranked = sorted(result.bots.values(), key=lambda b: -b.elo)
    for b in ranked:
        table.add_row(b.name, str(b.games), f"{b.win_share:.3f}",
                      f"{b.ci95[0]:.3f}–{b.ci95[1]:.3f}", f"{b.elo:.0f}",
                      f"{b.mean_score:.1f}", _signed(b.mean_margin))
    console.print(table)

    # Categories as rows: there are up to seven of them, but only a few bots.
    cats = list(ranked[0].categories) if ranked else []
    if cats:
        ct = Table(title="mean points by category")
        ct.add_column("category")
        for b in ranked:
            ct.add_column(b.name, justify="right")
        for cat in cats:
            ct.add_row(cat.replace("_", " "),
                       *(f"{b.categories.get(cat, 0.0):.1f}" for b in ranked))
        console.print(ct)


def _signed(x: float) -> str:
    # A margin of -0.03 should not read as "-0.0".
    return "0.0" if round(x, 1) == 0 else f"{x:+.1f}"
