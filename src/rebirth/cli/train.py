"""``rebirth train``: fit the value network to a self-play folder and export it for numpy."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import numpy as np

from rebirth.app.fileio import check_writable_file, write_atomic
from rebirth.engine.messages import UserError
from rebirth.learn.selfplay import SelfPlayError, load_dataset


def _hidden(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(t) for t in text.split(","))
    except ValueError:
        raise UserError("error.train.hidden_numbers", text=repr(text[:50])) from None
    if not sizes or any(not 1 <= s <= 4096 for s in sizes):
        raise UserError("error.train.hidden_range", text=repr(text[:50]))
    return sizes


def run(args: argparse.Namespace) -> int:
    """Train and write FILE (.npz) and FILE's manifest (.json); 2 on bad input, 1 on a write error."""
    from rebirth.learn.train import TrainError, train

    out = Path(args.out)
    try:
        hidden = _hidden(args.hidden)
        if out.suffix != ".npz":
            raise UserError("error.train.out_npz", path=str(out))
        why = check_writable_file(out)
        if why is not None:
            raise UserError("error.train.out", path=str(out), why=why)
        data = load_dataset(args.data)
        if not (0 < args.lr < 1 and 0 <= args.weight_decay < 1):
            raise UserError("error.train.lr", lr=str(args.lr), weight_decay=str(args.weight_decay))
        result = train(data, epochs=args.epochs, seed=args.seed, hidden=hidden, dropout=args.dropout,
                       lr=args.lr, weight_decay=args.weight_decay,
                       log=lambda line: print(line, file=sys.stderr))
    except (ValueError, SelfPlayError, TrainError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    buf = io.BytesIO()
    np.savez_compressed(buf, **result.net.arrays())  # type: ignore[arg-type]
    manifest = {k: v for k, v in result.net.manifest.items()}
    try:
        write_atomic(out, buf.getvalue())
        write_atomic(out.with_suffix(".json"), json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    except OSError as exc:
        print(f"error: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    f = result.figures
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and {out.with_suffix('.json')}: "
          f"{f['train_positions']} train / {f['val_positions']} validation positions, best epoch "
          f"{f['best_epoch']} of {f['epochs']}, val loss {f['val_loss']} (mean baseline "
          f"{f['baseline_val_loss']}), winner accuracy {f['val_winner_accuracy']} (heuristic "
          f"{f['heuristic_winner_accuracy']}), {f['wall_seconds']} s")
    return 0
