"""``rebirth``: play, replay, bench and check maps."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rebirth import __version__


def _add_game_options(p: argparse.ArgumentParser, *, seats: bool = True) -> None:
    p.add_argument("--board", default="scotland",
                   help="shipped map name (scotland, ireland) or a map file")
    p.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    p.add_argument("--variant", action="append", default=[], metavar="NAME",
                   help="switch on a rule variant (repeatable); see 'rebirth variants'")
    if seats:
        p.add_argument("--seats", default=None,
                       help="comma-separated seat kinds: human or a bot name, e.g. human,greedy,random")
        p.add_argument("--seed", type=int, default=None)


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
    play.add_argument("--lang", choices=("en", "de"), default="en")
    play.add_argument("--names", default=None, help="comma-separated player names")
    play.add_argument("--start", type=int, default=None, metavar="SEAT",
                      help="start player (1..N); random by default (S-7)")
    play.add_argument("--delay", type=float, default=0.0,
                      help="seconds to pause after each bot move when a human watches")

    rep = sub.add_parser("replay", help="replay and verify a game record")
    rep.add_argument("file")
    rep.add_argument("--json", action="store_true", help="print one JSON object")
    rep.add_argument("--map", default=None, help="map file for records of a custom map")
    rep.add_argument("--lang", choices=("en", "de"), default="en")
    rep.add_argument("--events", action="store_true", help="print every event with its rule")

    bench = sub.add_parser(
        "bench", help="measure engine speed on one core (default: Scotland 3p and Ireland 4p)")
    bench.add_argument("--board", default=None,
                       help="shipped map name or map file (default: both reference configurations)")
    bench.add_argument("--players", type=int, default=None, choices=(2, 3, 4))
    bench.add_argument("--variant", action="append", default=[], metavar="NAME")
    bench.add_argument("--runs", type=int, default=5)
    bench.add_argument("--seconds", type=float, default=1.0, help="length of each run")
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
    arena.add_argument("--games", type=int, default=60)
    arena.add_argument("--jobs", type=int, default=1, help="parallel worker processes")
    arena.add_argument("--seed", type=int, default=0)
    arena.add_argument("--out", default=None, metavar="DIR",
                       help="write results.json and a score plot (PNG) here")
    arena.add_argument("--json", action="store_true", help="print one JSON object")

    hint = sub.add_parser("hint", help="the best action for a seat in a record's last position")
    hint.add_argument("file")
    hint.add_argument("--seat", type=int, required=True, help="seat number, 1..N")
    hint.add_argument("--level", default="hard", help="bot or level doing the analysis")
    hint.add_argument("--iterations", type=int, default=None)
    hint.add_argument("--seed", type=int, default=0)
    hint.add_argument("--json", action="store_true")
    hint.add_argument("--map", default=None, help="map file for records of a custom map")

    sub.add_parser("variants", help="list the rule variants")
    sub.add_parser("bots", help="list the bots and levels a seat can take")
    rules = sub.add_parser("rules", help="the rules in brief and the rulings most often played wrong")
    rules.add_argument("--lang", choices=("en", "de"), default="en")
    serve = sub.add_parser("serve", help="run the browser game's server (prints its URL)")
    serve.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 8000)")
    serve.add_argument("--db", default=None, help="SQLite file (default: in the user data folder)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    cmd = args.command
    if cmd == "play":
        from rebirth.cli import play

        return play.run(args)
    if cmd == "replay":
        from rebirth.cli import replay

        return replay.run(args)
    if cmd == "bench":
        from rebirth.cli import bench

        return bench.run(args)
    if cmd == "arena":
        from rebirth.cli import arena

        return arena.run(args)
    if cmd == "hint":
        from rebirth.cli import hint

        return hint.run(args)
    if cmd == "maps":
        from rebirth.cli import maps

        return maps.run(args)
    if cmd == "serve":
        from rebirth.server import cli as serve_cli

        return serve_cli.run(args)
    if cmd == "bots":
        from rebirth.bots.base import bot_descriptions

        print(f"{'human':10} a person at this terminal")
        for name, text in bot_descriptions().items():
            print(f"{name:10} {text}")
        return 0
    if cmd == "rules":
        from rebirth.rulebook import rules_text

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
    sys.exit(main())


if __name__ == "__main__":
    entry()
