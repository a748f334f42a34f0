"""``rebirth analyse RECORD``: skill and luck of every move of a game, from each seat's view."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rebirth.analysis import DEFAULT_TOP_K, DEFAULT_WORLDS
from rebirth.cli.texts import add_lang_option

if TYPE_CHECKING:
    from rebirth.analysis.core import Analysis


def add_arguments(p: argparse.ArgumentParser, int_in: Callable[[int, int], Callable[[str], int]],
                  seed_limit: int) -> None:
    """The command's options (registered by :mod:`rebirth.cli.main`)."""
    p.add_argument("file", help="a complete game record (JSON)")
    p.add_argument("--seat", type=int_in(1, 4), default=None,
                   help="analyse only this seat (1..N; default: every seat)")
    p.add_argument("--budget", type=int_in(2, 100_000), default=DEFAULT_WORLDS, metavar="WORLDS",
                   help=f"worlds sampled per decision (default {DEFAULT_WORLDS}); more is slower "
                        "and less noisy")
    p.add_argument("--candidates", type=int_in(1, 60), default=DEFAULT_TOP_K, metavar="K",
                   help=f"moves compared with the one played (default {DEFAULT_TOP_K})")
    p.add_argument("--seed", type=int_in(-seed_limit, seed_limit), default=0)
    p.add_argument("--json", action="store_true", help="print the analysis as JSON")
    add_lang_option(p)
    p.add_argument("--plot", metavar="FILE.png", default=None,
                   help="write a chart of each seat's win chance over the game")
    p.add_argument("--map", default=None, help="map file for records of a custom map")


def _pct(x: float) -> str:
    return f"{100 * x:.0f}"


def text_report(a: Analysis) -> list[str]:
    """The analysis as lines of text in its language."""
    from rebirth.engine.messages import render_message

    lang, names = a.lang, a.names

    def msg(key: str, **args: object) -> str:
        return render_message(key, args, lang, names)

    def label(lab: str) -> str:
        return msg(f"analysis.label.{lab}")

    lines = [msg("analysis.header", board=a.board, players=a.players, worlds=a.worlds,
                 candidates=a.top_k, seed=a.seed),
             msg("analysis.noise", value_win=f"{100 * a.noise.value_win_se:.1f}",
                 loss_win=f"{100 * a.noise.loss_win_se:.1f}",
                 loss_margin=f"{a.noise.loss_margin_se:.1f}", z=f"{a.thresholds['z_min']:g}"), ""]
    for s in a.summaries:
        lines.append(msg("analysis.seat", player={"seat": s.seat}, accuracy=f"{s.accuracy:.1f}",
                         good=s.labels["good"], inaccuracies=s.labels["inaccuracy"],
                         mistakes=s.labels["mistake"], blunders=s.labels["blunder"],
                         forced=s.forced, luck_win=f"{100 * s.luck_win:+.0f}",
                         luck_win_se=f"{100 * s.luck_win_se:.0f}",
                         luck_margin=f"{s.luck_margin:+.1f}",
                         luck_margin_se=f"{s.luck_margin_se:.1f}", score=s.final_score))
        lines.append("  " + msg("analysis.costliest", player={"seat": s.seat}))
        if not s.costliest:
            lines.append("    " + msg("analysis.none"))
        for k in s.costliest:
            d = a.decisions[k]
            expl = d.explanation.text if d.explanation else ""
            lines.append(f"    #{d.index + 1} ({label(d.label)}) {expl}")
    lines.append("")
    events: list[tuple[int, int, str]] = []
    for d in a.decisions:
        events.append((d.index, 0, msg(
            "analysis.decision", index=d.index + 1, player={"seat": d.seat},
            played=d.played.action or "", win=_pct(d.played.win), win_se=_pct(d.played.win_se),
            margin=f"{d.played.margin:+.1f}", margin_se=f"{d.played.margin_se:.1f}",
            best=d.best.action or "", best_win=_pct(d.best.win), best_margin=f"{d.best.margin:+.1f}",
            loss_win=f"{100 * d.loss_win:.0f}", loss_win_se=f"{100 * d.loss_win_se:.0f}",
            loss_margin=f"{d.loss_margin:.1f}", loss_margin_se=f"{d.loss_margin_se:.1f}",
            label=label(d.label))))
    for x in a.luck:
        events.append((x.index, 1, msg(
            f"analysis.luck.{x.kind}", index=x.index + 1, player={"seat": x.seat},
            tile={"msg": f"tile.{x.tile}.a", "args": {}}, luck_win=f"{100 * x.luck_win:+.0f}",
            luck_win_se=f"{100 * x.luck_win_se:.0f}", luck_margin=f"{x.luck_margin:+.1f}",
            luck_margin_se=f"{x.luck_margin_se:.1f}")))
    lines += [t for _, _, t in sorted(events)]
    return lines


REDACTED = "error.analysis.redacted"
"""The refusal of a record redacted for one seat (catalog key)."""


def _redacted(path: str) -> bool:
    """True when the file is a record redacted mid-game (the schema refuses it first)."""
    from rebirth.engine.formats import MAX_RECORD_BYTES, decode_json, read_regular_file
    from rebirth.engine.records import RecordError

    try:
        data = decode_json(read_regular_file(path, MAX_RECORD_BYTES, RecordError, what="record"),
                           "record", RecordError, max_bytes=MAX_RECORD_BYTES)
    except RecordError:
        return False
    return isinstance(data, dict) and "redacted_for" in data


def run(args: argparse.Namespace) -> int:
    """Run the command; 0 on success, 1 for a bad record or file, 2 for bad options."""
    from rebirth.analysis.core import AnalysisError, analyse
    from rebirth.engine.board import MapError, load_board
    from rebirth.engine.records import RecordError, read_record

    plot = Path(args.plot) if args.plot else None
    if plot is not None:
        # Checked before the (long) analysis, so a typo costs nothing and writes nothing.
        if plot.suffix.lower() != ".png":
            print(f"error: --plot {args.plot}: the chart is a PNG file; name it *.png",
                  file=sys.stderr)
            return 2
        if not plot.parent.is_dir():
            print(f"error: --plot {args.plot}: folder {str(plot.parent)!r} does not exist",
                  file=sys.stderr)
            return 2
    try:
        try:
            record = read_record(args.file)
        except RecordError:
            if _redacted(args.file):
                raise RecordError(REDACTED) from None
            raise
        board = load_board(args.map) if args.map else None
        seat = args.seat - 1 if args.seat is not None else None
        a = analyse(record, seat, worlds=args.budget, top_k=args.candidates, seed=args.seed,
                    lang=args.lang, board=board)
    except (RecordError, MapError) as exc:
        print(f"error: {args.file}: {exc}", file=sys.stderr)
        return 1
    except AnalysisError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if plot is not None:
        from rebirth.analysis.plot import plot_win_chance

        try:
            plot_win_chance(a, plot)
        except OSError as exc:
            print(f"error: --plot {args.plot}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps(a.to_json(), ensure_ascii=False))
    else:
        print("\n".join(text_report(a)))
    return 0
