"""``rebirth play``: a game in the terminal between humans and bots.

The :class:`~rebirth.app.match.Match` holds the state; this module only ever shows a
seat its own view. Point previews are computed on a determinization of that
view, so even the preview cannot peek at hidden tiles or cards. With several
humans at one terminal a hand-over screen hides everything private between
their turns. Ctrl-C or SIGTERM saves the game so far; ``--resume`` continues it.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from rebirth.app.fileio import check_writable_file, write_atomic
from rebirth.app.match import HUMAN, Match, Step
from rebirth.app.rulebook import rules_text
from rebirth.bots import BOT_KINDS
from rebirth.cli import render
from rebirth.cli.texts import COMMANDS, HUMAN_WORDS, MARK_WORDS, NO, YES, Texts
from rebirth.engine.actions import ActionError, Mark, Place, parse_action
from rebirth.engine.board import Board
from rebirth.engine.determinize import determinize, preview
from rebirth.engine.events import Event
from rebirth.engine.formats import printable
from rebirth.engine.game import Game
from rebirth.engine.hexgrid import LABEL_RE
from rebirth.engine.i18n import pick
from rebirth.engine.messages import render_message
from rebirth.engine.records import RecordError, Seat, load_record, replay
from rebirth.engine.replay import ReplayedStep
from rebirth.engine.state import State
from rebirth.engine.tiles import TILE_CODES
from rebirth.engine.views import View

_FINAL_KINDS = frozenset({"final_district", "castle_final", "mission", "game_end"})
# Exit codes of a game stopped by a signal, as a shell reports them (128 + signal).
EXIT_SIGINT = 130
EXIT_SIGTERM = 143


class _Quit(Exception):
    """The human left (``quit`` or end of input)."""


class _Terminated(Exception):
    """SIGTERM arrived: leave like Ctrl-C, but with the exit code of SIGTERM."""


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
    # Where each seat's "since your last turn" starts in the match log.
    since: dict[int, int] = field(default_factory=dict)
    last_human: int | None = None

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
    return f"{render_message(f'tile.name.{TILE_CODES[i]}', {}, lang, ())} ({code})"


def _err(msg: str) -> None:
    print(msg, file=sys.stderr)


def _seat_kinds(args: argparse.Namespace, tx: Texts) -> list[str] | None:
    players: int = args.players
    if args.seats is None:
        return [HUMAN] + ["greedy"] * (players - 1)
    kinds = [k.strip().lower() for k in str(args.seats).split(",")]
    kinds = [HUMAN if k in HUMAN_WORDS else k for k in kinds]
    valid = [HUMAN, *BOT_KINDS()]
    for k in kinds:
        if k not in valid:
            _err(tx("bad_seat_kind", kind=repr(k), kinds=", ".join(valid)))
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


def resume_match(record: Any, *, board: Board | None = None) -> Match:
    """The match a saved record describes, ready to continue where it stopped.

    The record is replayed (so a tampered one is refused); seats keep their names
    and kinds, and each bot gets a fresh random stream, independent of the deal.
    Raises RecordError for a bad record and ValueError (BotError) for an unknown
    seat kind.
    """
    steps: list[Step] = []

    def collect(step: ReplayedStep) -> None:
        steps.append(Step.replayed(step))

    # The one replay (records.replay → engine/replay.py) also advances the chance stream, so
    # the resumed game draws the reveals (I-7) the uninterrupted game would have drawn.
    state = replay(record, board=board, on_step=collect)
    players = record.get("players") if isinstance(record, dict) else None
    seats: list[Seat] = []
    for i, p in enumerate(players if isinstance(players, list) else []):
        if not (isinstance(p, dict) and isinstance(p.get("name"), str)
                and isinstance(p.get("kind"), str)):
            raise RecordError("error.record.player_fields", i=i)
        seats.append(Seat(p["name"], p["kind"].strip().lower()))
    seed = record.get("seed")
    # The replayed events become the log, so 'log' and "since your last turn" go on as before.
    return Match.resume(state.game, state, seats,
                        seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
                        [Step(0, None, list(state.initial_events)), *steps])


@contextmanager
def _sigterm_raises() -> Iterator[None]:
    """While the game runs, SIGTERM raises _Terminated so the game is saved like on Ctrl-C."""
    def handler(signum: int, frame: FrameType | None) -> None:
        raise _Terminated

    try:
        old = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread (an embedding program): leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _check_record_path(path: str | None, tx: Texts) -> bool:
    if not path:
        return True
    why = check_writable_file(path)
    if why is not None:
        _err(tx("bad_record_path", path=path, why=why))
        return False
    return True


def _load_resume(path: str, tx: Texts) -> Match | None:
    try:
        text = Path(path).read_text(encoding="utf-8")
        match = resume_match(load_record(text))
    except OSError as exc:
        _err(tx("bad_resume", path=path, msg=exc.strerror or exc))
        return None
    except UnicodeDecodeError:
        _err(tx("bad_resume", path=path, msg="not UTF-8 text"))
        return None
    except ValueError as exc:  # RecordError, BotError, SetupError
        _err(tx("bad_resume", path=path, msg=exc))
        return None
    if match.state.is_terminal():
        _err(tx("resume_over", path=path))
        return None
    return match


def run(args: argparse.Namespace) -> int:
    """Play one game as the arguments say.

    0 when it ends or is left, 2 on a bad setup (nothing played), 1 when the record
    cannot be written, 130/143 when Ctrl-C/SIGTERM stopped it (the game is saved).
    """
    tx = Texts(args.lang)
    resume_path: str | None = getattr(args, "resume", None)
    # A resumed game is saved back to its own file unless --record says otherwise.
    record_path: str | None = args.record or resume_path
    if not _check_record_path(record_path, tx):
        return 2
    if resume_path:
        loaded = _load_resume(resume_path, tx)
        if loaded is None:
            return 2
        match = loaded
        game = match.game
        kinds = [st.kind for st in match.seats]
    else:
        made = _new_match(args, tx)
        if made is None:
            return 2
        match, kinds = made
        game = match.game
    delay = float(args.delay or 0.0)
    if not 0 <= delay <= MAX_DELAY:  # also refuses nan; inf would overflow time.sleep
        _err(tx("bad_delay"))
        return 2
    console = _make_console()
    if not console.is_terminal:
        # Piped output has no width limit: keep the map's labelled layout.
        need = render.map_width(game.board, wide=True) + 2
        console.width = max(console.width, need, 120)
    humans = [i for i, k in enumerate(kinds) if k == HUMAN]
    # The preview's samples need no secrecy (they come from the seat's own view),
    # but they must not be tied to the deal either: a fresh stream unless --seed.
    rng = random.Random(args.seed ^ 0x5EED) if args.seed is not None and not resume_path \
        else random.Random()
    s = Session(match, tx, console, record_path, delay, humans, rng)
    board_name = pick(game.board.name, tx.lang)
    kind_names = [tx("kind_human") if k == HUMAN else k for k in kinds]
    console.print(tx("start_line", board=board_name, players=game.players,
                     seats=", ".join(f"{n} ({k})" for n, k in zip(match.names, kind_names,
                                                                   strict=True))),
                  markup=False)
    if game.variants:
        console.print(tx("variants_line", v=", ".join(sorted(game.variants))))
    if resume_path:
        console.print(tx("resumed_line", path=resume_path,
                         n=sum(1 for a, _ in match.state.history if a >= 0)), markup=False)
    try:
        with _sigterm_raises():
            try:
                if humans:
                    _play_with_humans(s)
                else:
                    match.run_bots()
            except _Quit:
                return 0 if _write_record(s) else 1
            _show_final(s)
            return 0 if _write_record(s) else 1
    except KeyboardInterrupt:
        return _save_interrupted(s, EXIT_SIGINT)
    except _Terminated:
        return _save_interrupted(s, EXIT_SIGTERM)


def _new_match(args: argparse.Namespace, tx: Texts) -> tuple[Match, list[str]] | None:
    kinds = _seat_kinds(args, tx)
    if kinds is None:
        return None
    players: int = args.players
    names: list[str] | None = None
    if args.names is not None:
        names = [n.strip() for n in str(args.names).split(",")]
        if len(names) != players:
            _err(tx("bad_names", players=players, n=len(names)))
            return None
        # Names are printed through rich markup all over the game: refuse markup
        # and control characters here instead of escaping at every print.
        for n in names:
            if not valid_name(n):
                _err(tx("bad_name", name=repr(n), most=MAX_NAME))
                return None
    else:
        names = [tx("human_name", n=i + 1) if k == HUMAN else f"{k.capitalize()} {i + 1}"
                 for i, k in enumerate(kinds)]
    start: int | None = None
    if args.start is not None:
        if not 1 <= args.start <= players:
            _err(tx("bad_start", players=players, start=args.start))
            return None
        start = args.start - 1
    try:
        game = Game.create(args.board, players, list(args.variant or []))
        # The seed goes straight through: None lets the match draw a secret one,
        # which is shown only in the record written at the end.
        match = Match.start(game, kinds, args.seed, names, start)
    except ValueError as exc:  # MapError, SetupError, BotError, DataError all are
        _err(tx("bad_setup", msg=exc))
        return None
    return match, kinds


def _save_interrupted(s: Session, code: int) -> int:
    """Save the whole game so far (setup included) and say where; no traceback."""
    # A second Ctrl-C must not cut the save short.
    old = signal.getsignal(signal.SIGINT)
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # pragma: no cover - not the main thread
        old = None
    try:
        print(file=sys.stdout)
        path = s.record_path or time.strftime("rebirth-saved-%Y%m%d-%H%M%S.json")
        try:
            write_atomic(path, json.dumps(s.match.snapshot(), indent=1) + "\n")
        except OSError as exc:
            _err(s.tx("record_failed", path=path, msg=exc.strerror or exc))
            return code
        s.console.print(s.tx("saved_interrupted", path=path), markup=False, soft_wrap=True)
        s.console.file.flush()
        return code
    finally:
        if old is not None:
            signal.signal(signal.SIGINT, old)


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


def _last(s: Session, view: View) -> set[int]:
    return set(render.last_tiles(s.game.board, view))


def _show_map(s: Session, view: View, legal: set[int]) -> None:
    b = s.game.board
    s.console.print(render.render_map(b, view, legal=legal, wide=_wide(s), plain=s.plain,
                                      lang=s.tx.lang, last=_last(s, view)), soft_wrap=True)
    s.console.print(render.legend(s.tx, s.names, view.players, b), soft_wrap=True)


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
        _print_events(s, [e for e in s.match.log_for(None) if e.kind in _FINAL_KINDS], None)
    _show_tables(s, view)
    win = ", ".join(s.names[q] for q in view.winners)
    key = "winner" if len(view.winners) == 1 else "winners"
    s.console.print(Text(s.tx(key, names=win), style="bold"))


def _write_record(s: Session) -> bool:
    """Write the full record to --record (atomically); False when that fails."""
    if not s.record_path:
        if not s.match.state.is_terminal():
            s.console.print(s.tx("game_over_partial", n=len(s.match.state.history)))
        return True
    try:
        write_atomic(s.record_path, json.dumps(s.match.snapshot(), indent=1) + "\n")
    except OSError as exc:
        _err(s.tx("record_failed", path=s.record_path, msg=exc.strerror or exc))
        return False
    s.console.print(s.tx("record_written", path=s.record_path), markup=False)
    return True


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
            seat = m.to_move()
            if len(s.humans) > 1 and seat != s.last_human:
                _hand_over(s, seat)
            s.last_human = seat
            _human_turn(s, seat)
            continue
        events = m.step_bot()
        _print_events(s, events, s.viewer())
        if s.delay and not m.state.is_terminal():
            time.sleep(s.delay)


def _hand_over(s: Session, seat: int) -> None:
    """Hot-seat: clear the screen and wait for ``seat``'s player before showing anything private."""
    _clear_all(s)
    name = s.names[seat]
    s.console.print(Rule(Text(s.tx("hand_over_title"))))
    s.console.print(s.tx("hand_over_hint", name=name), markup=False)
    line = _read(s, s.tx("hand_over", name=name))
    if COMMANDS.get(line.lower()) == "quit":
        s.console.print(s.tx("quit_msg"))
        raise _Quit
    _clear_all(s)


def _clear_all(s: Session) -> None:
    """Clear the screen and, where the terminal keeps one, its scrollback (xterm's ESC[3J):
    the next player must not scroll back to the previous one's tiles."""
    s.console.clear()
    if s.console.is_terminal:
        s.console.file.write("\x1b[3J")
        s.console.file.flush()


def _legal_spaces(s: Session, view: View) -> set[int]:
    by_label = s.game.board.by_label
    return {by_label[a] for a in view.legal_actions if a in by_label}


def _mission_status(s: Session, det: State, seat: int, view: View) -> dict[str, bool]:
    ix = {c.id: c.index for c in s.game.cards}
    return {mid: det.secret_fulfilled(ix[mid], seat) for mid in view.missions}


def _layout(s: Session) -> str:
    """How to draw a turn: ``full`` (piped output, no height limit), ``side`` (map with a
    panel beside it) or ``stack`` (dense map above a short panel) to fit the terminal."""
    c = s.console
    if not c.is_terminal:
        return "full"
    w, h = c.size
    b = s.game.board
    for map_layout in ("wide", "compact"):
        if (render.layout_width(b, map_layout) + _PANEL_MIN <= w
                and render.map_lines(b, map_layout) + 4 <= h):
            return f"side-{map_layout}"
    if render.map_lines(b, "compact") + 10 <= h and render.layout_width(b, "compact") <= w:
        return "stack-compact"
    return "stack-dense"


_PANEL_MIN = 40


def _show_turn(s: Session, seat: int, view: View) -> None:
    layout = _layout(s)
    if layout == "full":
        _show_turn_full(s, seat, view)
        return
    s.console.clear()
    for part in turn_screen(s, seat, view, layout):
        s.console.print(part, soft_wrap=False, overflow="ellipsis", no_wrap=True)


def _show_turn_full(s: Session, seat: int, view: View) -> None:
    tx = s.tx
    s.console.print(Rule(Text(tx("map_title", board=pick(s.game.board.name, tx.lang),
                                 turn=view.turn + 1))))
    _show_map(s, view, _legal_spaces(s, view))
    _show_tables(s, view)
    _show_missions(s, seat, view)
    _show_hand(s, view)


def _since_lines(s: Session, seat: int, limit: int) -> list[Text]:
    """The moves since ``seat``'s last turn (its own last move included), as this seat may see
    them: one line per action, with the points it paid; at most ``limit`` lines."""
    full = s.match.log_for(seat)
    log = full[s.since.get(seat, _last_own_move(full, seat)):]
    lines: list[Text] = []
    cur: Text | None = None
    for e in log:
        e = e.for_seat(seat)
        if e.kind in ("place", "double_marker") or cur is None:
            cur = Text()
            lines.append(cur)
            if e.seat is not None and 0 <= e.seat < len(s.names):
                cur.append(f"{e.seat + 1} ", style=render.OWNER_CELL[e.seat % 4])
                cur.append(" ")
            cur.append(e.render(s.tx.lang, s.names, seat=seat).rstrip("."))
        elif e.points:
            cur.append(f"; [{e.rule}]")
        if e.points and e.seat is not None and e.seat >= 0:
            cur.append(f" +{e.points} {s.names[e.seat]}", style=render.owner_style(e.seat))
    if not lines:
        return [Text(s.tx("since_none"), style="dim")]
    if len(lines) > limit:
        more = len(lines) - (limit - 1)
        lines = [Text(s.tx("since_more", n=more), style="dim"), *lines[-(limit - 1):]] \
            if limit > 1 else lines[-1:]
    return lines


def _last_own_move(log: list[Event], seat: int) -> int:
    """Where ``seat``'s last move starts in ``log`` (0 if it has not moved), e.g. after --resume."""
    for i in range(len(log) - 1, -1, -1):
        if log[i].seat == seat and log[i].kind in ("place", "double_marker"):
            return i
    return 0


def _hand_lines(s: Session, view: View, *, short: bool = False) -> list[Text]:
    tx = s.tx
    line = Text(tx("to_move", name=s.names[view.current_player]) + ".  ")
    if view.phase == "extra" and view.extra_tile:
        line.append(tx("extra", tile=_tile_name(view.extra_tile, tx.lang)), style="bold")
    elif view.hand:
        line.append(tx("hand", tile=_tile_name(view.hand, tx.lang)), style="bold")
    out = [line]
    if view.set_aside:
        out.append(Text(tx("set_aside_short" if short else "set_aside",
                           tiles=" ".join(view.set_aside)), style="dim"))
    elif s.game.board.is_ireland and view.set_aside_counts[view.current_player]:
        out.append(Text(tx("set_aside_hidden_short" if short else "set_aside_hidden",
                           n=view.set_aside_counts[view.current_player]), style="dim"))
    return out


def _missions_line(s: Session, view: View) -> Text:
    items = " ".join(view.missions) if view.missions else s.tx("none")
    return Text(s.tx("missions_line", items=items))


def turn_screen(s: Session, seat: int, view: View, layout: str) -> list[RenderableType]:
    """One screen for a human turn that fits the terminal: map, the moves since the seat's
    last turn, scores, the seat's tile and missions (the prompt follows)."""
    tx = s.tx
    b = s.game.board
    h = s.console.size.height
    map_layout = layout.split("-", 1)[1]
    legal = _legal_spaces(s, view)
    last = _last(s, view)
    board_map = render.render_map(b, view, legal=legal, wide=map_layout == "wide",
                                  plain=s.plain, lang=tx.lang, last=last,
                                  dense=map_layout == "dense")
    title = Text(tx("map_title", board=pick(b.name, tx.lang), turn=view.turn + 1), style="bold")
    hand = _hand_lines(s, view, short=layout.startswith("stack"))
    marks = _mark_lines(s, view) if view.phase == "mark" else []
    scores = render.scores_line(view, s.names, tx)
    note = Text(tx("last_tile_note"), style="dim")
    if layout.startswith("side"):
        rows = render.map_lines(b, map_layout)
        fixed = 1 + 1 + 1 + 1 + 1  # title, scores, since title, missions, blank
        panel: list[RenderableType] = [title, scores, Text(""),
                                       Text(tx("since_title"), style="bold underline")]
        panel += _since_lines(s, seat, max(3, rows - fixed - len(hand) - len(marks)))
        panel += [Text(""), _missions_line(s, view), *hand, *marks]
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True)
        grid.add_column(overflow="fold")
        grid.add_row(board_map, Group(*panel))
        legend = render.legend(tx, s.names, view.players, b)
        out: list[RenderableType] = [grid]
        if rows + 4 + 3 <= h:
            out.append(legend)
        out.append(note)
        return out
    # Stacked: the map, then a short panel; everything else is one command away.
    rows = render.map_lines(b, map_layout)
    tile_line = hand[0]
    for more in hand[1:]:
        tile_line.append("  ")
        tile_line.append_text(more)
    # The map, the title with the scores, the panel's title, missions, tile line and prompt.
    room = h - rows - len(marks) - 5
    since = _since_lines(s, seat, max(1, room))
    head = title.copy()
    head.append("   ")
    head.append_text(scores)
    panel_title = Text(tx("since_title") + ":", style="bold")
    return [board_map, head, panel_title, *since, _missions_line(s, view), tile_line, *marks]


def _show_legend(s: Session, view: View) -> None:
    dense = _layout(s) == "stack-dense"
    s.console.print(render.legend(s.tx, s.names, view.players, s.game.board, dense=dense),
                    soft_wrap=True)
    if dense:
        s.console.print(s.tx("dense_note"), style="dim", soft_wrap=True)
    s.console.print(s.tx("last_tile_note"), style="dim", soft_wrap=True)


def _show_hand(s: Session, view: View) -> None:
    for line in _hand_lines(s, view):
        s.console.print(line)
    if view.phase == "mark":
        _show_mark_choices(s, view)


def _show_missions(s: Session, seat: int, view: View) -> None:
    now: dict[str, bool] | None = None
    if view.phase != "end":
        now = _mission_status(s, determinize(s.game, view, s.rng), seat, view)
    s.console.print(render.missions_panel(s.game, view, s.names, s.tx, now))


def _mark_lines(s: Session, view: View) -> list[Text]:
    """The x2 choices, each with its values and who already fulfilled it (I-8)."""
    cards = {c.id: c for c in s.game.cards}
    ids = [a.split()[-1] for a in view.legal_actions]
    word = s.tx("mark_word")
    out = [Text(s.tx("mark_choices", word=word, ex=ids[0] if ids else "?"), style="bold")]
    for mid in ids:
        cd = cards[mid]
        by = view.fulfilled.get(mid, ())
        who = (s.tx("x2_fulfilled_by", who=", ".join(s.names[q] for q in by)) if by
               else s.tx("x2_open"))
        out.append(Text(f"  {word} {mid}  ({cd.values[0]}/{cd.values[1]}; {who})  "
                        f"{pick(cd.text, s.tx.lang)}"))
    return out


def _show_mark_choices(s: Session, view: View) -> None:
    for line in _mark_lines(s, view):
        s.console.print(line, soft_wrap=True)


def _show_log(s: Session, seat: int) -> None:
    s.console.print(Rule(s.tx("log_title")))
    log = s.match.log_for(seat)
    if not log:
        s.console.print(s.tx("log_empty"))
    for i, e in enumerate(log):
        s.console.print(_event_line(e, s, seat, i + 1), soft_wrap=True)


def _space_desc(s: Session, label: str) -> str:
    b = s.game.board
    sp = b.space(label)
    extra = ""
    if sp.district >= 0:
        d = b.districts[sp.district]
        extra = s.tx("district_of", name=pick(d.name, s.tx.lang), size=d.size)
    return s.tx("preview_space", kind=s.tx(f"kind_{sp.kind_name}"), extra=extra)


def _help_text(s: Session) -> str:
    ex = next((c.id for c in s.game.cards), "I03") if s.game.board.is_ireland else ""
    # Only Ireland has x2 markers (I-8): elsewhere the hint would only confuse.
    hint = s.tx("mark_hint", ex=ex) if s.game.board.is_ireland else ""
    return s.tx("help", mark_hint=hint)


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
            s.console.print(_help_text(s), markup=False)
            continue
        if cmd == "legal":
            s.console.print(render.legal_text(s.game.board, view, tx), soft_wrap=True)
            if view.phase == "mark":
                _show_mark_choices(s, view)
            continue
        if cmd == "missions":
            _show_missions(s, seat, view)
            continue
        if cmd == "legend":
            _show_legend(s, view)
            continue
        if cmd == "regions":
            s.console.print(render.regions_text(s.game.board, tx), soft_wrap=True)
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


def _submit(s: Session, seat: int, action: str) -> list[Event]:
    # The seat's next "since your last turn" starts with this move.
    start = len(s.match.log_for(None))
    events = s.match.submit(seat, action)
    s.since[seat] = start
    return events


def _try_mark(s: Session, seat: int, view: View, line: str) -> bool:
    tx = s.tx
    opts = [a.split()[-1] for a in view.legal_actions]
    words = line.split()
    text = line
    if line.upper() in opts:
        # A bare mission id is a natural shortcut for "mark ID".
        text = f"mark {line.upper()}"
    elif len(words) == 2 and words[0].lower() in MARK_WORDS:
        text = f"mark {words[1].upper()}"
    try:
        action = parse_action(text)
        if not isinstance(action, Mark) or action.mission not in opts:
            mid = action.mission if isinstance(action, Mark) else str(action)
            s.console.print(tx("unknown_mission", mid=mid, opts=", ".join(opts)), style="red",
                            markup=False)
            return False
        events = _submit(s, seat, str(action))
    except ActionError as exc:
        s.console.print(tx("refused", msg=exc.message(tx.lang)), style="red", markup=False)
        return False
    _print_events(s, events, seat)
    return True


def _confirm(s: Session) -> bool:
    """Yes or no; anything else (``maybe``) asks again instead of meaning no."""
    while True:
        answer = _read(s, s.tx("confirm")).lower()
        if answer in YES:
            return True
        if answer in NO:
            return False
        s.console.print(s.tx("confirm_again"))


def _try_place(s: Session, seat: int, view: View, line: str) -> bool:
    tx = s.tx
    first = line.split()[0].lower() if line.split() else ""
    if (not LABEL_RE.match(line.strip().upper()) and first not in MARK_WORDS
            and not s.game.board.is_ireland):
        # The engine's message suggests 'mark I03', which means nothing off Ireland.
        s.console.print(tx("refused", msg=tx("not_action", text=repr(line))), style="red", markup=False)
        return False
    try:
        action = parse_action(line)
        gain, why = preview(s.game, view, seat, str(action), s.rng)
    except ActionError as exc:
        s.console.print(tx("refused", msg=exc.message(tx.lang)), style="red", markup=False)
        return False
    assert isinstance(action, Place)
    # Each explanation is a sentence with its own full stop: join with spaces, not "; ".
    reasons = " ".join(e.render(tx.lang, s.names) for e in why) or tx("preview_nothing")
    head = Text(f"{action.label}: ", style="bold")
    head.append(f"+{gain}" if gain >= 0 else str(gain), style="bold green")
    head.append(f"  — {_space_desc(s, action.label)}", style="dim")
    head.append(f"\n   {reasons}")
    s.console.print(head, soft_wrap=True)
    if not _confirm(s):
        s.console.print(tx("cancelled"))
        return False
    try:
        events = _submit(s, seat, str(action))
    except ActionError as exc:  # pragma: no cover - the preview checked the same rules
        s.console.print(tx("refused", msg=exc.message(tx.lang)), style="red", markup=False)
        return False
    _print_events(s, events, seat)
    return True
