"""``rebirth``: play, replay, bench and check maps."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence

from rebirth import __version__
from rebirth.app.distributed import BACKENDS
from rebirth.cli.texts import add_lang_option

SEED_LIMIT = 2**128
"""Seeds are stored in records, whose schema bounds them (formats.RecordModel)."""


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: an integer from ``lo`` to ``hi``, else a clear usage error (exit 2)."""

    def parse(text: str) -> int:
        try:
            if len(text) > 50:
                raise ValueError
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:50]!r} is not a whole number") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"must be from {lo} to {hi}, not {v}")
        return v

    parse.__name__ = "integer"
    return parse


def seconds_in(lo: float, hi: float, *, allow_lo: bool = True) -> Callable[[str], float]:
    """An argparse type: a finite number of seconds in ``lo..hi`` (``lo`` excluded unless
    ``allow_lo``); refuses nan and inf, which would overflow ``time.sleep`` or never end."""

    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:50]!r} is not a number") from None
        ok = math.isfinite(v) and (lo <= v if allow_lo else lo < v) and v <= hi
        if not ok:
            span = f"from {lo:g} to {hi:g}" if allow_lo else f"more than {lo:g} and at most {hi:g}"
            raise argparse.ArgumentTypeError(f"must be a number of seconds {span}, not {text[:50]}")
        return v

    parse.__name__ = "seconds"
    return parse


def _add_game_options(p: argparse.ArgumentParser, *, seats: bool = True) -> None:
    p.add_argument("--board", default="scotland",
                   help="shipped map name (scotland, ireland) or a map file")
    p.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    p.add_argument("--variant", action="append", default=[], metavar="NAME",
                   help="switch on a rule variant (repeatable); see 'rebirth variants'")
    if seats:
        p.add_argument("--seats", default=None,
                       help="comma-separated seat kinds: human or a bot name, e.g. human,greedy,random")
        p.add_argument("--seed", type=int_in(-SEED_LIMIT, SEED_LIMIT), default=None)


def _add_backend_options(p: argparse.ArgumentParser) -> None:
    """--jobs, --backend and --address: where the seeded games of a batch command run."""
    p.add_argument("--jobs", type=int_in(1, 256), default=1,
                   help="parallel worker processes (with --backend ray: CPUs of the local Ray instance)")
    p.add_argument("--backend", choices=BACKENDS, default="local",
                   help="local: worker processes of this machine (default); ray: Ray tasks "
                        "(pip install 'rebirth[scale]')")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="with --backend ray: join the Ray cluster at ADDR instead of starting one")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rebirth",
        description="Reiner Knizia's Rebirth: play, replay and analyse games.",
    )
    parser.add_argument("--version", action="version", version=f"rebirth {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play in the terminal (humans and bots)")
    _add_game_options(play)
    play.add_argument("--record", metavar="FILE", help="write the game record (JSON) here")
    play.add_argument("--resume", metavar="FILE", default=None,
                      help="continue a saved game (its board, seats and names come from the file)")
    add_lang_option(play)
    play.add_argument("--names", default=None, help="comma-separated player names")
    play.add_argument("--start", type=int_in(1, 4), default=None, metavar="SEAT",
                      help="start player (1..N); random by default (S-7)")
    play.add_argument("--delay", type=seconds_in(0, 60), default=0.0,
                      help="seconds (0..60) to pause after each bot move when a human watches")

    rep = sub.add_parser("replay", help="replay and verify a game record")
    rep.add_argument("file")
    rep.add_argument("--json", action="store_true", help="print one JSON object")
    rep.add_argument("--map", default=None, help="map file for records of a custom map")
    add_lang_option(rep)
    rep.add_argument("--events", action="store_true", help="print every event with its rule")

    score = sub.add_parser(
        "score", help="score a record's last position or a Position JSON as if the game ended now")
    score.add_argument("file", help="a game record (normal or table game) or a Position JSON")
    score.add_argument("--json", action="store_true", help="print one JSON object")
    add_lang_option(score)
    score.add_argument("--map", default=None, help="map file for records of a custom map")

    bench = sub.add_parser(
        "bench", help="measure engine speed on one core (default: Scotland 3p and Ireland 4p)")
    bench.add_argument("--board", default=None,
                       help="shipped map name or map file (default: both reference configurations)")
    bench.add_argument("--players", type=int, default=None, choices=(2, 3, 4))
    bench.add_argument("--variant", action="append", default=[], metavar="NAME")
    bench.add_argument("--runs", type=int_in(1, 1000), default=5)
    bench.add_argument("--seconds", type=seconds_in(0, 600, allow_lo=False), default=1.0,
                       help="length of each run (more than 0, at most 600)")
    bench.add_argument("--json", action="store_true")
    bench.add_argument("--no-mcts", action="store_true", help="skip the mcts measurement")

    maps = sub.add_parser("maps", help="list shipped maps or check a map file")
    msub = maps.add_subparsers(dest="maps_command", required=True)
    chk = msub.add_parser("check", help="validate a map file and print the S-9 figures")
    chk.add_argument("file")
    msub.add_parser("list", help="list the shipped maps")

    arena = sub.add_parser("arena", help="let bots play many games and compare them")
    _add_game_options(arena, seats=False)
    arena.add_argument("--seats", required=True,
                       help="comma-separated bot or level names, one per seat, e.g. hard,greedy,greedy")
    arena.add_argument("--games", type=int_in(1, 1_000_000), default=60)
    _add_backend_options(arena)
    arena.add_argument("--seed", type=int_in(-SEED_LIMIT, SEED_LIMIT), default=0)
    arena.add_argument("--out", default=None, metavar="DIR",
                       help="write results.json and a score plot (PNG) here")
    arena.add_argument("--json", action="store_true", help="print one JSON object")

    sp = sub.add_parser("selfplay", help="seeded bot games as training data for the value network")
    _add_game_options(sp, seats=False)
    sp.add_argument("--seats", default=None,
                    help="comma-separated bot names, one per seat (default: heuristic at every seat)")
    sp.add_argument("--games", type=int_in(1, 1_000_000), required=True)
    sp.add_argument("--out", required=True, metavar="DIR", help="a new folder for the data")
    sp.add_argument("--seed", type=int_in(-SEED_LIMIT, SEED_LIMIT), default=0)
    _add_backend_options(sp)
    sp.add_argument("--epsilon", type=float, default=0.05,
                    help="share of moves played at random for variety (0..1, default 0.05)")

    tr = sub.add_parser("train", help="train the value network on self-play data (needs the train extra)")
    tr.add_argument("data", metavar="DATA_DIR", help="a folder written by rebirth selfplay")
    tr.add_argument("--out", required=True, metavar="FILE", help="the model file to write (.npz)")
    tr.add_argument("--epochs", type=int_in(1, 10_000), default=6,
                    help="passes over the training games; the best validation epoch is kept")
    tr.add_argument("--seed", type=int_in(0, 2**32 - 1), default=0)
    tr.add_argument("--hidden", default="64,32", help="hidden layer sizes, comma-separated")
    tr.add_argument("--dropout", type=float, default=0.5, help="dropout after each hidden layer")
    tr.add_argument("--lr", type=float, default=2e-4, help="learning rate (AdamW)")
    tr.add_argument("--weight-decay", type=float, default=0.05, help="AdamW weight decay")

    hint = sub.add_parser("hint", help="the best action for a seat in a record's last position")
    hint.add_argument("file")
    hint.add_argument("--seat", type=int_in(1, 4), required=True, help="seat number, 1..N")
    hint.add_argument("--level", default="hard", help="bot or level doing the analysis")
    hint.add_argument("--iterations", type=int_in(1, 10_000_000), default=None)
    hint.add_argument("--seed", type=int_in(-SEED_LIMIT, SEED_LIMIT), default=0)
    hint.add_argument("--json", action="store_true")
    hint.add_argument("--map", default=None, help="map file for records of a custom map")

    from rebirth.cli.analyse import add_arguments as _analyse_arguments

    _analyse_arguments(sub.add_parser(
        "analyse", help="judge every move of a finished game: skill, luck, better moves"),
        int_in, SEED_LIMIT)
    from rebirth.cli.puzzles import add_arguments as _puzzle_arguments

    _puzzle_arguments(sub.add_parser("puzzles", help="make puzzles from game records"),
                      int_in, SEED_LIMIT)
    sub.add_parser("variants", help="list the rule variants")
    sub.add_parser("bots", help="list the bots and levels a seat can take")
    rules = sub.add_parser("rules", help="the rules in brief and the rulings most often played wrong")
    add_lang_option(rules)
    from rebirth.cli import bot as bot_cli

    bot_cli.add_parser(sub)
    serve = sub.add_parser("serve", help="run the browser game's server (prints its URL)")
    serve.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int_in(1, 65535), default=None, help="port, 1..65535 (default 8000)")
    serve.add_argument("--db", default=None, help="SQLite file (default: in the user data folder)")
    serve.add_argument("--public-url", default=None, metavar="URL",
                       help="the address players reach the server at (links are built from it), "
                            "e.g. https://rebirth.example.org behind a proxy")
    serve.add_argument("--forwarded-allow-ips", default=None, metavar="IPS",
                       help="proxies whose X-Forwarded-* headers are trusted (default 127.0.0.1)")
    serve.add_argument("--workers", type=int_in(1, 64), default=1,
                       help="worker processes, 1..64 (more than 1 needs REBIRTH_REDIS_URL)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit code (2 for a usage error, with argparse's message)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # usage errors, --help and --version: return their code
        return exc.code if isinstance(exc.code, int) else 2
    cmd = args.command
    if cmd == "play":
        from rebirth.cli import play

        return play.run(args)
    if cmd == "replay":
        from rebirth.cli import replay

        return replay.run(args)
    if cmd == "score":
        from rebirth.cli import score

        return score.run(args)
    if cmd == "bench":
        from rebirth.cli import bench

        return bench.run(args)
    if cmd == "arena":
        from rebirth.cli import arena

        return arena.run(args)
    if cmd == "selfplay":
        from rebirth.cli import selfplay

        return selfplay.run(args)
    if cmd == "train":
        from rebirth.cli import train

        return train.run(args)
    if cmd == "hint":
        from rebirth.cli import hint

        return hint.run(args)
    if cmd == "analyse":
        from rebirth.cli import analyse

        return analyse.run(args)
    if cmd == "puzzles":
        from rebirth.cli import puzzles

        return puzzles.run(args)
    if cmd == "maps":
        from rebirth.cli import maps

        return maps.run(args)
    if cmd == "bot":
        from rebirth.cli import bot as bot_cli

        return bot_cli.run(args)
    if cmd == "serve":
        from rebirth.server import cli as serve_cli

        return serve_cli.run(args)
    if cmd == "bots":
        from rebirth.bots.registry import bot_descriptions

        print(f"{'human':10} a person at this terminal")
        for name, text in bot_descriptions().items():
            print(f"{name:10} {text}")
        return 0
    if cmd == "rules":
        from rebirth.app.rulebook import rules_text

        print(rules_text(args.lang))
        return 0
    if cmd == "variants":
        from rebirth.engine.game import IRELAND_VARIANTS, SCOTLAND_VARIANTS, VARIANTS

        for name, txt in VARIANTS.items():
            boards = [b for b, vs in (("scotland", SCOTLAND_VARIANTS),
                                      ("ireland", IRELAND_VARIANTS)) if name in vs]
            print(f"{name:24} [{', '.join(boards)}] {txt['en']}")
        return 0
    return 2  # pragma: no cover


def entry() -> None:
    """The ``rebirth`` command. Ctrl-C outside a game's own handling (while loading, dealing
    or in a tool) ends quietly with 130, never with a traceback; a running game saves
    itself first (``rebirth play``)."""
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        # The language is not known here (the arguments may not be parsed yet): say it in all.
        from rebirth.engine.messages import languages, text

        said = dict.fromkeys(text("cli.interrupted", lang) for lang in languages())
        print("\n" + " / ".join(said), file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    entry()
