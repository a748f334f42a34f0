"""``rebirth bot play URL --invite CODE --bot LEVEL|module:Class``: a program at a live game's
seat through the bot API; ``rebirth bot play SERVER --token TOKEN --bot LEVEL``: a bot account
that accepts challenges and plays them (docs/bot-api.md; the client is rebirth/client)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rebirth.cli.texts import add_lang_option


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``rebirth bot play``."""
    bot = sub.add_parser("bot", help="play a seat of a live game through the bot API")
    bsub = bot.add_subparsers(dest="bot_command", required=True)
    p = bsub.add_parser("play", help="claim a remote seat's invitation and play the game to its end; "
                                     "with --token, play a bot account's challenges")
    p.add_argument("url", help="the seat's invitation link (https://host/game/ID#i=CODE), or the "
                               "game's link with --invite; with --token, the server's address")
    p.add_argument("--token", default=None, metavar="TOKEN",
                   help="a bot account's API token (account page): listen to its events, accept "
                        "challenges and play them")
    p.add_argument("--concurrency", type=int, default=1, metavar="N",
                   help="with --token: games played at once (more challenges are declined)")
    p.add_argument("--games", type=int, default=None, metavar="N",
                   help="with --token: stop after N finished games (default: never)")
    p.add_argument("--invite", default=None, metavar="CODE", help="the invitation code (#i=… of the link)")
    p.add_argument("--bot", default="normal", metavar="LEVEL|module:Class",
                   help="a level or bot name (easy, normal, hard, expert, greedy…), a Bot subclass, "
                        "or a function of (observation, action_mask) as module:name")
    p.add_argument("--seed", type=int, default=None, help="the bot's random seed")
    p.add_argument("--token-file", default=None, metavar="FILE",
                   help="keep the seat's token here: a second run resumes the seat instead of claiming")
    p.add_argument("--server", action="append", default=[], metavar="URL",
                   help="another address of the same server to reconnect to (repeatable)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    add_lang_option(p)


def run(args: argparse.Namespace) -> int:
    """Claim (or resume), play to the end, print the result; 0 when the game finished."""
    from rebirth.client.play import play
    from rebirth.client.policy import load
    from rebirth.client.remote import ClientError, Invitation, RemoteSeat
    from rebirth.engine.messages import text

    lang = args.lang
    if args.token:
        return _account(args)
    try:
        invite = Invitation.parse(args.url, args.invite)
    except ValueError as exc:
        print(text("cli.bot.bad_link", lang, msg=str(exc)), file=sys.stderr)
        return 2
    try:
        policy = load(args.bot, args.seed)
    except Exception as exc:  # an unknown level, a module that does not import
        print(text("cli.bot.bad_bot", lang, spec=args.bot, msg=str(exc)), file=sys.stderr)
        return 2
    servers = [invite.base, *args.server]
    saved = Path(args.token_file) if args.token_file else None
    try:
        if saved is not None and saved.is_file():
            seat = RemoteSeat(servers, invite.game, saved.read_text(encoding="utf-8").strip())
        else:
            seat = RemoteSeat.claim(invite, servers=servers)
            if saved is not None:
                saved.write_text(seat.token, encoding="utf-8")
                saved.chmod(0o600)
        result = play(seat, policy)
    except ClientError as exc:
        print(text("cli.bot.refused", lang, status=exc.status, code=exc.code, message=str(exc)),
              file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(text("cli.bot.result", lang, game=result.game, seat=result.seat + 1,
                   scores=", ".join(map(str, result.scores)),
                   winners=", ".join(str(w + 1) for w in result.winners)))
    return 0


def _account(args: argparse.Namespace) -> int:
    """A bot account at work: one result line per finished game; 0 once ``--games`` finished."""
    from rebirth.client.account import BotAccount, Worker
    from rebirth.client.play import Result
    from rebirth.client.policy import load
    from rebirth.client.remote import ClientError
    from rebirth.engine.messages import text

    lang = args.lang
    try:
        load(args.bot, args.seed)
    except Exception as exc:  # an unknown level, a module that does not import
        print(text("cli.bot.bad_bot", lang, spec=args.bot, msg=str(exc)), file=sys.stderr)
        return 2

    def show(result: Result) -> None:
        if args.json:
            print(json.dumps(result.to_json()), flush=True)
        else:
            print(text("cli.bot.result", lang, game=result.game, seat=result.seat + 1,
                       scores=", ".join(map(str, result.scores)),
                       winners=", ".join(str(w + 1) for w in result.winners)), flush=True)

    servers = [args.url.rstrip("/"), *(s.rstrip("/") for s in args.server)]
    worker = Worker(BotAccount(servers, args.token), lambda: load(args.bot, args.seed),
                    concurrency=max(1, args.concurrency), games=args.games, on_result=show)
    try:
        worker.run()
    except ClientError as exc:
        print(text("cli.bot.refused", lang, status=exc.status, code=exc.code, message=str(exc)),
              file=sys.stderr)
        return 1
    return 0
