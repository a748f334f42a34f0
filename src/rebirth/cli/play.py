"""``rebirth play``: a game in the terminal between humans and bots.

The :class:`~rebirth.match.Match` holds the state; this module only ever shows a
seat its own view. Point previews are computed on a determinization of that
view, so even the preview cannot peek at hidden tiles or cards.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass, field

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from rebirth.bots import BOT_KINDS
from rebirth.cli import render
from rebirth.cli.texts import COMMANDS, YES, Texts
from rebirth.engine.actions import ActionError, Mark, Place, parse_action
from rebirth.engine.determinize import determinize
from rebirth.engine.events import Event
from rebirth.engine.formats import printable
from rebirth.engine.game import Game
from rebirth.engine.i18n import pick
from rebirth.engine.state import State
from rebirth.engine.tiles import TILE_CODES, TILE_NAMES_DE, TILE_NAMES_EN
from rebirth.engine.views import View
from rebirth.match import HUMAN, Match
from rebirth.rulebook import rules_text

# Events of a preview that come from sampled hidden information (a revealed
# set-aside tile, other players' missions, the winner) or merely restate the move.
_PREVIEW_SKIP = frozenset({"place", "extra_tile", "extra_lost", "discard", "game_end"})
_FINAL_KINDS = frozenset({"final_district", "castle_final", "mission", "game_end"})


class _Quit(Exception):
    """The human left (``quit`` or end of input)."""


@dataclass
class Session:
    """One terminal game: the match plus how to show it."""

    match: Match
    tx: Texts
    console: Console
    record_path: str | None
    delay: float
    humans: list[int]
    rng: random.Random = field(default_factory=random.Random)

    @property
    def game(self) -> Game:
        return self.match.game

    @property
    def names(self) -> list[str]:
        return self.match.names

    @property
    def plain(self) -> bool:
        return self.console.no_color or self.console.color_system is None

    def viewer(self) -> int | None:
        """Whose private details bot-move events may show: the only human, if just one."""
        return self.humans[0] if len(self.humans) == 1 else None


def _tile_name(code: str, lang: str) -> str:
    i = TILE_CODES.index(code)
    return f"{(TILE_NAMES_DE if lang == 'de' else TILE_NAMES_EN)[i]} ({code})"


def _err(msg: str) -> None:
    print(msg, file=sys.stderr)


def _seat_kinds(args: argparse.Namespace, tx: Texts) -> list[str] | None:
    players: int = args.players
    if args.seats is None:
        return [HUMAN] + ["greedy"] * (players - 1)
    kinds = [k.strip().lower() for k in str(args.seats).split(",")]
    valid = [HUMAN, *BOT_KINDS()]
    for k in kinds:
        if k not in valid:
            _err(tx("bad_seat_kind", kind=k, kinds=", ".join(valid)))
            return None
    if len(kinds) != players:
        _err(tx("bad_seat_count", players=players, n=len(kinds)))
        return None
    return kinds


MAX_NAME = 30
MAX_DELAY = 60.0


def valid_name(name: str) -> bool:
    """A player name that prints safely: 1..MAX_NAME characters, no rich markup
    brackets, no backslash, no control or format characters."""
    return 0 < len(name) <= MAX_NAME and printable(name)


def _make_console() -> Console:
    # Console() honours NO_COLOR and drops colour when the output is no terminal.
    return Console(highlight=False, emoji=False)


def run(args: argparse.Namespace) -> int:
    """Play one game as the arguments say; 0 when it ends or is left, 2 on a bad setup."""
    tx = Texts(args.lang)
    kinds = _seat_kinds(args, tx)
    if kinds is None:
        return 2
    players: int = args.players
    names: list[str] | None = None
    if args.names is not None:
        names = [n.strip() for n in str(args.names).split(",")]
        if len(names) != players:
            _err(tx("bad_names", players=players, n=len(names)))
            return 2
        # Names are printed through rich markup all over the game: refuse markup
        # and control characters here instead of escaping at every print.
        for n in names:
            if not valid_name(n):
                _err(tx("bad_name", name=n, most=MAX_NAME))
                return 2
    else:
        names = [tx("human_name", n=i + 1) if k == HUMAN else f"{k.capitalize()} {i + 1}"
                 for i, k in enumerate(kinds)]
    start: int | None = None
    if args.start is not None:
        if not 1 <= args.start <= players:
            _err(tx("bad_start", players=players, start=args.start))
            return 2
        start = args.start - 1
    delay = float(args.delay or 0.0)
    if not 0 <= delay <= MAX_DELAY:  # also refuses nan; inf would overflow time.sleep
        _err(tx("bad_delay"))
        return 2
    # A seed is always chosen, so the record and the start line name it.
    seed: int = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    try:
        game = Game.create(args.board, players, list(args.variant or []))
        match = Match.start(game, kinds, seed, names, start)
    except ValueError as exc:  # MapError, SetupError, BotError, DataError all are
        _err(tx("bad_setup", msg=exc))
        return 2
    console = _make_console()
    if not console.is_terminal:
        # Piped output has no width limit: keep the map's labelled layout.
        need = render.map_width(game.board, wide=True) + 2
        console.width = max(console.width, need, 120)
    humans = [i for i, k in enumerate(kinds) if k == HUMAN]
    s = Session(match, tx, console, args.record, delay, humans, random.Random(seed ^ 0x5EED))
    board_name = pick(game.board.name, tx.lang)
    console.print(tx("start_line", board=board_name, players=players, seed=seed,
                     seats=", ".join(f"{n} ({k})" for n, k in zip(names, kinds, strict=True))))
    if game.variants:
        console.print(tx("variants_line", v=", ".join(sorted(game.variants))))
    try:
        if humans:
            _play_with_humans(s)
        else:
            match.run_bots()
    except _Quit:
        _write_record(s)
        return 0
    _show_final(s)
    _write_record(s)
    return 0


# --------------------------------------------------------------------- output


def _event_line(e: Event, s: Session, viewer: int | None, number: int | None = None) -> Text:
    line = Text()
    if number is not None:
        line.append(f"{number:4} ", style="dim")
    line.append(f"[{e.rule}] ", style="dim")
    colour = render.owner_style(e.seat) if e.seat is not None and e.seat >= 0 else ""
    line.append(e.for_seat(viewer).render(s.tx.lang, s.names, seat=viewer), style="")
    if e.points:
        line.append(f"  (+{e.points})", style=colour or "bold")
    return line


def _print_events(s: Session, events: list[Event], viewer: int | None) -> None:
    for e in events:
        s.console.print(_event_line(e, s, viewer), soft_wrap=True)


def _wide(s: Session) -> bool:
    return render.map_width(s.game.board, wide=True) <= s.console.width


def _show_map(s: Session, view: View, legal: set[int]) -> None:
    b = s.game.board
    s.console.print(render.render_map(b, view, legal=legal, wide=_wide(s), plain=s.plain,
                                      lang=s.tx.lang), soft_wrap=True)
    s.console.print(render.legend(s.tx, s.names, view.players), soft_wrap=True)


def _show_tables(s: Session, view: View) -> None:
    s.console.print(render.structures_text(s.game, view, s.names, s.tx))
    s.console.print(render.scores_table(s.game, view, s.names, s.tx))


def _show_final(s: Session) -> None:
    view = s.match.view(None)
    s.console.print(Rule(s.tx("final_title")))
    _show_map(s, view, set())
    if not s.humans:
        # Humans saw these events as they happened; bots-only runs print only now.
        s.console.print(Text(s.tx("final_scoring"), style="bold"))
        _print_events(s, [e for e in s.match.log if e.kind in _FINAL_KINDS], None)
    _show_tables(s, view)
    win = ", ".join(s.names[q] for q in view.winners)
    key = "winner" if len(view.winners) == 1 else "winners"
    s.console.print(Text(s.tx(key, names=win), style="bold"))


def _write_record(s: Session) -> None:
    if not s.record_path:
        if not s.match.state.is_terminal():
            s.console.print(s.tx("game_over_partial", n=len(s.match.state.history)))
        return
    try:
        with open(s.record_path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(s.match.record(), indent=1))
    except OSError as exc:
        _err(s.tx("record_failed", path=s.record_path, msg=exc.strerror))
        return
    s.console.print(s.tx("record_written", path=s.record_path))


# ---------------------------------------------------------------------- input


def _read(s: Session, prompt: str) -> str:
    """One line from stdin; end of input leaves the game like ``quit``."""
    s.console.file.flush()
    try:
        line = input(prompt)
    except EOFError:
        print()
        s.console.print(s.tx("eof_msg"))
        raise _Quit from None
    if not sys.stdin.isatty():
        # Piped input is not echoed; show it so a transcript reads like a session.
        print(line)
    return line.strip()


def _play_with_humans(s: Session) -> None:
    m = s.match
    while not m.state.is_terminal():
        if m.is_human_turn():
            _human_turn(s, m.to_move())
            continue
        events = m.step_bot()
        _print_events(s, events, s.viewer())
        if s.delay and not m.state.is_terminal():
            time.sleep(s.delay)


def _legal_spaces(s: Session, view: View) -> set[int]:
    by_label = s.game.board.by_label
    return {by_label[a] for a in view.legal_actions if a in by_label}


def _mission_status(s: Session, det: State, seat: int, view: View) -> dict[str, bool]:
    ix = {c.id: c.index for c in s.game.cards}
    return {mid: det.secret_fulfilled(ix[mid], seat) for mid in view.missions}


def _show_turn(s: Session, seat: int, view: View) -> None:
    tx = s.tx
    s.console.print(Rule(Text(tx("map_title", board=pick(s.game.board.name, tx.lang),
                                 turn=view.turn + 1))))
    _show_map(s, view, _legal_spaces(s, view))
    _show_tables(s, view)
    _show_missions(s, seat, view)
    _show_hand(s, view)


def _show_hand(s: Session, view: View) -> None:
    tx = s.tx
    line = Text(tx("to_move", name=s.names[view.current_player]) + ".  ")
    if view.phase == "extra" and view.extra_tile:
        line.append(tx("extra", tile=_tile_name(view.extra_tile, tx.lang)), style="bold")
    elif view.hand:
        line.append(tx("hand", tile=_tile_name(view.hand, tx.lang)), style="bold")
    s.console.print(line)
    if view.set_aside:
        s.console.print(Text(tx("set_aside", tiles=" ".join(view.set_aside)), style="dim"))
    elif s.game.board.is_ireland and view.set_aside_counts[view.current_player]:
        s.console.print(Text(tx("set_aside_hidden",
                                n=view.set_aside_counts[view.current_player]), style="dim"))
    if view.phase == "mark":
        _show_mark_choices(s, view)


def _show_missions(s: Session, seat: int, view: View) -> None:
    now: dict[str, bool] | None = None
    if view.phase != "end":
        now = _mission_status(s, determinize(s.game, view, s.rng), seat, view)
    s.console.print(render.missions_panel(s.game, view, s.names, s.tx, now))


def _show_mark_choices(s: Session, view: View) -> None:
    cards = {c.id: c for c in s.game.cards}
    ids = [a.split()[-1] for a in view.legal_actions]
    s.console.print(Text(s.tx("mark_choices", ex=ids[0] if ids else "I03"), style="bold"))
    for mid in ids:
        cd = cards[mid]
        s.console.print(f"  mark {mid}  ({cd.values[0]}/{cd.values[1]})  "
                        f"{pick(cd.text, s.tx.lang)}", soft_wrap=True)


def _show_log(s: Session, seat: int) -> None:
    s.console.print(Rule(s.tx("log_title")))
    if not s.match.log:
        s.console.print(s.tx("log_empty"))
    for i, e in enumerate(s.match.log):
        s.console.print(_event_line(e, s, seat, i + 1), soft_wrap=True)


def preview(game: Game, view: View, seat: int, action: str,
            rng: random.Random) -> tuple[int, list[Event]]:
    """Points ``action`` would give ``seat`` now, and the events explaining them.

    Computed on a determinization of the seat's own view; raises ActionError with
    the engine's reason when the action is not legal.
    """
    det = determinize(game, view, rng)
    child = det.clone()
    events = child.apply(action)
    gain = child.score[seat] - det.score[seat]
    shown = [e for e in events
             if e.kind not in _PREVIEW_SKIP and not (e.kind == "mission" and e.seat != seat)]
    return gain, shown


def _space_desc(s: Session, label: str) -> str:
    b = s.game.board
    sp = b.space(label)
    extra = ""
    if sp.district >= 0:
        d = b.districts[sp.district]
        extra = s.tx("district_of", name=pick(d.name, s.tx.lang), size=d.size)
    return s.tx("preview_space", kind=s.tx(f"kind_{sp.kind_name}"), extra=extra)


def _human_turn(s: Session, seat: int) -> None:
    """Show the seat's view and read input until one action is applied."""
    tx = s.tx
    view = s.match.view(seat)
    _show_turn(s, seat, view)
    tile = view.extra_tile if view.phase == "extra" else view.hand
    while True:
        if view.phase == "mark":
            prompt = tx("prompt_mark", name=s.names[seat])
        else:
            prompt = tx("prompt_place", name=s.names[seat], tile=tile or "?")
        line = _read(s, prompt)
        if not line:
            continue
        cmd = COMMANDS.get(line.lower())
        if cmd == "help":
            s.console.print(tx("help"))
            continue
        if cmd == "legal":
            s.console.print(render.legal_text(s.game.board, view, tx), soft_wrap=True)
            if view.phase == "mark":
                _show_mark_choices(s, view)
            continue
        if cmd == "missions":
            _show_missions(s, seat, view)
            continue
        if cmd == "rules":
            s.console.print(rules_text(tx.lang), markup=False)
            continue
        if cmd == "log":
            _show_log(s, seat)
            continue
        if cmd == "board":
            _show_turn(s, seat, view)
            continue
        if cmd == "quit":
            s.console.print(tx("quit_msg"))
            raise _Quit
        if view.phase == "mark":
            if _try_mark(s, seat, view, line):
                return
            continue
        if _try_place(s, seat, view, line):
            return


def _try_mark(s: Session, seat: int, view: View, line: str) -> bool:
    tx = s.tx
    opts = [a.split()[-1] for a in view.legal_actions]
    text = line
    if line.upper() in opts:
        # A bare mission id is a natural shortcut for "mark ID".
        text = f"mark {line.upper()}"
    try:
        action = parse_action(text)
        if not isinstance(action, Mark) or action.mission not in opts:
            mid = action.mission if isinstance(action, Mark) else str(action)
            s.console.print(tx("unknown_mission", mid=mid, opts=", ".join(opts)), style="red")
            return False
        events = s.match.submit(seat, str(action))
    except ActionError as exc:
        s.console.print(tx("refused", msg=exc.message(tx.lang)), style="red")
        return False
    _print_events(s, events, seat)
    return True


def _try_place(s: Session, seat: int, view: View, line: str) -> bool:
    tx = s.tx
    try:
        action = parse_action(line)
        gain, why = preview(s.game, view, seat, str(action), s.rng)
    except ActionError as exc:
        s.console.print(tx("refused", msg=exc.message(tx.lang)), style="red")
        return False
    assert isinstance(action, Place)
    reasons = "; ".join(e.render(tx.lang, s.names) for e in why) or tx("preview_nothing")
    head = Text(f"{action.label}: ", style="bold")
    head.append(f"+{gain}" if gain >= 0 else str(gain), style="bold green")
    head.append(f"  — {_space_desc(s, action.label)}", style="dim")
    head.append(f"\n   {reasons}")
    s.console.print(head, soft_wrap=True)
    answer = _read(s, tx("confirm")).lower()
    if answer not in YES:
        s.console.print(tx("cancelled"))
        return False
    try:
        events = s.match.submit(seat, str(action))
    except ActionError as exc:  # pragma: no cover - the preview checked the same rules
        s.console.print(tx("refused", msg=exc.message(tx.lang)), style="red")
        return False
    _print_events(s, events, seat)
    return True
