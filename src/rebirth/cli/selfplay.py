"""``rebirth selfplay``: seeded bot games written as training data for the value network."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from rebirth.engine.board import MapError
from rebirth.engine.game import SetupError
from rebirth.engine.missions import DataError
from rebirth.learn.selfplay import (
    DEFAULT_SEATS,
    SelfPlayConfig,
    SelfPlayError,
    check_out_dir,
    run_selfplay,
    validate,
)


def run(args: argparse.Namespace) -> int:
    """Generate the data; 0 on success, 2 on bad input, 1 when writing fails."""
    seats = args.seats if args.seats is not None else ",".join([DEFAULT_SEATS] * args.players)
    out = Path(args.out)
    try:
        config = validate(SelfPlayConfig(args.board, args.players, tuple(seats.split(",")),
                                         args.games, args.seed, tuple(args.variant), args.epsilon),
                          args.jobs)
        # Checked before any game is played, so no run is wasted on a bad folder.
        check_out_dir(out)
        if args.address is not None and args.backend != "ray":
            raise SelfPlayError("error.arena.address")
    except (SelfPlayError, MapError, SetupError, DataError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    err = Console(stderr=True)
    try:
        if sys.stderr.isatty():
            with Progress(TextColumn("selfplay"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("{task.fields[positions]} positions"), TimeElapsedColumn(),
                          console=err, transient=True) as bar:
                task = bar.add_task("games", total=config.games, positions=0)
                manifest = run_selfplay(
                    config, out, args.jobs,
                    progress=lambda done, pos: bar.update(task, completed=done, positions=pos),
                    backend=args.backend, address=args.address)
        else:
            manifest = run_selfplay(config, out, args.jobs, backend=args.backend, address=args.address)
    except SelfPlayError as exc:  # the ray backend: Ray missing or no cluster at --address
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot write the data to {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {manifest['games']} games, {manifest['positions']} positions in "
          f"{len(manifest['batches'])} batch files and {out / 'manifest.json'}")
    return 0
