"""The authority: one game between seats (humans and bots). It holds the state and the
secrets (the seed, every hidden item), applies actions, resolves chance, numbers every
step (the version) and hands each seat only what that seat may see: its view, its
events and, mid-game, a record redacted for it. Terminal, arena and server all use it.

Seeds (docs/security.md): without a seed, a game is dealt from 128 secret bits drawn
from :mod:`secrets`. Bots get random streams that are independent of the deal: fresh
secret bits, or, for a reproducible game with an explicit seed, a keyed hash of
(seed, seat) that cannot be turned back into the seed. Chance outcomes after the deal come
from the state's chance stream, a keyed hash of (seed, "chance"): independent of the deal
(engine/streams.py).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rebirth.bots.base import Bot
from rebirth.bots.registry import make_bot
from rebirth.engine import infoset
from rebirth.engine.actions import ActionError, IllegalActionError
from rebirth.engine.events import Event
from rebirth.engine.game import Game, Setup, SetupError
from rebirth.engine.records import Seat, make_record, redacted_record
from rebirth.engine.replay import ActionEntry, LogEntry, ReplayedStep, draw_chance, logged, replay_log
from rebirth.engine.state import State
from rebirth.engine.streams import bot_seed_of
from rebirth.engine.views import View

HUMAN = "human"
REMOTE = "remote"
"""A seat played by a program over the network (the bot API, docs/bot-api.md): like a human's
seat, its moves come from outside the authority; no server bot plays it."""
OUTSIDE = frozenset({HUMAN, REMOTE})
"""The seat kinds whose moves come from outside (a person's page or a remote program)."""
SEED_BITS = 128


class NotYourTurnError(IllegalActionError):
    """An action from a seat that is not to act (or from no seat of this game)."""


class StaleVersionError(IllegalActionError):
    """An action sent for a version of the game that is no longer the current one."""

    def __init__(self, sent: int, current: int) -> None:
        super().__init__(
            "error.stale_action_was_sent_for", sent=sent, current=current)
        self.sent = sent
        self.current = current


def new_seed() -> int:
    """A fresh secret seed of 128 bits (never derived from anything a seat sees)."""
    return secrets.randbits(SEED_BITS)


def bot_seed(game_seed: int | None, seat: int) -> int:
    """The seed of seat ``seat``'s bot: independent of the deal.

    Without a game seed it is fresh secret bits. With one (reproducible bot games and
    tests), it is HMAC-SHA256 keyed by the game seed: the bot cannot compute the game
    seed from it, so it cannot deal the game again.
    """
    if game_seed is None:
        return secrets.randbits(64)
    return bot_seed_of(game_seed, seat)


@dataclass
class Step:
    """One accepted step of the game: who acted (``None`` for chance), what followed, and the
    step as logged (``text``: the action, e.g. ``H12``, or the outcome, e.g. ``reveal S2``;
    empty for the deal, version 0). The server stores exactly these."""

    version: int
    seat: int | None
    events: list[Event]
    text: str = ""

    @staticmethod
    def replayed(step: ReplayedStep) -> Step:
        """The step of an entry re-entered by the one replay (its version: its place + 1)."""
        e = step.entry
        return Step(step.index + 1, e.seat if isinstance(e, ActionEntry) else None, step.events,
                    e.text)

    def entry(self) -> LogEntry:
        """The step as a log entry (:mod:`rebirth.engine.replay`); not for the deal."""
        if not self.text:
            raise ValueError("the deal (version 0) is not a log entry")
        return logged(self.seat, self.text)


@dataclass(frozen=True)
class Proposal:
    """A change worked out on a copy of a match: ``before`` untouched, ``after`` the match once
    the change is accepted, ``steps`` the steps it took (to be written) and their events."""

    before: Match
    after: Match
    steps: tuple[Step, ...]
    events: list[Event]

    @property
    def version(self) -> int:
        """The version the change leads to."""
        return self.after.version


@dataclass
class Match:
    """A running game: the state and the seed stay here; seats get views and events."""

    game: Game
    seats: list[Seat]
    seed: int
    state: State
    bots: dict[int, Bot] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    _public: tuple[State, int, dict[str, Any]] | None = field(default=None, repr=False, compare=False)
    """The public part of the views of one position: (the state, its version, the part)."""

    @staticmethod
    def start(game: Game, kinds: list[str], seed: int | None = None,
              names: list[str] | None = None, start_player: int | None = None) -> Match:
        """Deal a game; ``kinds`` is one seat kind per player (``human`` or a bot).

        ``seed`` makes the deal and the chance reproducible (bot games and tests); leave it
        out for a game between people: the deal then comes from 128 secret bits.
        """
        if len(kinds) != game.players:
            raise SetupError("error.match.seats", players=game.players, n=len(kinds))
        secret = seed is None
        the_seed = new_seed() if seed is None else seed
        bots: dict[int, Bot] = {}
        for i, k in enumerate(kinds):
            if k.strip().lower() not in OUTSIDE:
                bots[i] = make_bot(k, game, i, bot_seed(None if secret else the_seed, i))
        names = names or [
            (f"Player {i + 1}" if k == HUMAN else f"{k.capitalize()} {i + 1}")
            for i, k in enumerate(kinds)
        ]
        state = game.new_state(the_seed, start_player=start_player)
        m = Match(game, [Seat(n, k) for n, k in zip(names, kinds, strict=True)], the_seed, state,
                  bots)
        m.steps.append(Step(0, None, list(state.initial_events)))
        return m

    @staticmethod
    def resume(game: Game, state: State, seats: list[Seat], seed: int | None,
               steps: list[Step] | None = None) -> Match:
        """A match around a state rebuilt by the one replay (:func:`restore`, or
        ``records.replay`` for a saved record; ``steps``: its replayed steps by version). Bots
        get fresh secret streams, independent of the deal."""
        bots = {i: make_bot(s.kind, game, i, bot_seed(None, i))
                for i, s in enumerate(seats) if s.kind.strip().lower() not in OUTSIDE}
        m = Match(game, seats, new_seed() if seed is None else seed, state, bots)
        m.steps = list(steps) if steps else [Step(0, None, list(state.initial_events))]
        return m

    # ------------------------------------------------------------------ reading

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def version(self) -> int:
        """The number of steps taken (actions and chance outcomes): names the position."""
        return len(self.state.history)

    def view(self, seat: int | None) -> View:
        """What ``seat`` may see now (None: a spectator). The public part is built once per
        position and shared by every seat's view of it (a broadcast asks for each seat)."""
        st, version = self.state, self.version
        if self._public is None or self._public[0] is not st or self._public[1] != version:
            self._public = (st, version, infoset.public_part(st))
        return infoset.view(st, seat, public=self._public[2])

    def to_move(self) -> int:
        return self.state.current_player

    def is_human_turn(self) -> bool:
        p = self.state.current_player
        return p >= 0 and p not in self.bots

    def log_for(self, seat: int | None, since_version: int = -1) -> list[Event]:
        """The events of the steps after ``since_version`` (-1: all, the deal's included) as
        ``seat`` may see them (None: a spectator)."""
        return [e.for_seat(seat) for st in self._steps_after(since_version) for e in st.events]

    def events_for(self, seat: int | None, since_version: int = -1, *,
                   copy: bool = True) -> list[dict[str, Any]]:
        """The steps after ``since_version`` as JSON for ``seat``: version, actor and events,
        each event serialised for that seat (redaction by construction). ``copy=False``: the
        events' own values shared (a caller that serialises at once: Event.to_json)."""
        return [{"version": st.version, "seat": st.seat,
                 "events": [e.to_json(seat, copy=copy) for e in st.events]}
                for st in self._steps_after(since_version)]

    def _steps_after(self, version: int) -> list[Step]:
        """The steps after ``version``, found from the end: a broadcast asks for the last one
        or two, and scanning every step of a long game each time made it quadratic."""
        steps = self.steps
        i = len(steps)
        while i > 0 and steps[i - 1].version > version:
            i -= 1
        return steps[i:]

    def record(self, for_seat: int | None = None) -> dict[str, Any]:
        """The record: complete once the game is over; before that redacted for ``for_seat``
        (None: a spectator) — no supply order, set-aside tile, deck, token order or seed."""
        if self.state.is_terminal():
            return make_record(self.state, self.seats, self.seed)
        return redacted_record(self.state, self.seats, for_seat)

    def snapshot(self) -> dict[str, Any]:
        """The authority's complete record (hidden setup and seed included): for saving,
        never for a seat."""
        return make_record(self.state, self.seats, self.seed)

    # ------------------------------------------------------------------ acting

    def submit(self, seat: int, action: str, version: int | None = None) -> list[Event]:
        """Apply ``seat``'s action, checked; then resolve any chance it caused.

        ``version`` (what the sender last saw) must be the current one when given. Raises
        :class:`NotYourTurnError`, :class:`StaleVersionError` or another
        :class:`~rebirth.engine.actions.ActionError`, and then changes nothing.
        """
        if version is not None and version != self.version:
            raise StaleVersionError(version, self.version)
        if seat != self.state.current_player:
            raise NotYourTurnError("error.not_seat_s_turn", n=seat + 1)
        events = self.state.apply(action)
        self.steps.append(Step(self.version, seat, events, self._logged()))
        out = list(events)
        out.extend(self._resolve_chance())
        return out

    def _logged(self) -> str:
        """The text of the step just taken, as the record logs it."""
        e = self.state.last_history_json()
        return str(e["chance"] if "chance" in e else e["action"])

    def _resolve_chance(self) -> list[Event]:
        """Chance outcomes are drawn by the authority from the game's secret chance stream
        (one draw per outcome: the replay advances the stream the same way)."""
        out: list[Event] = []
        st = self.state
        while st.is_chance_node():
            events = st.apply_chance(draw_chance(st))
            self.steps.append(Step(self.version, None, events, self._logged()))
            out.extend(events)
        return out

    # ------------------------------------------------------------------ proposing

    def copy(self) -> Match:
        """An independent match in the same position (the state cloned; seats and steps
        copied; the bots shared: they keep no state of the game)."""
        return Match(self.game, list(self.seats), self.seed, self.state.clone(), dict(self.bots),
                     list(self.steps))

    def propose(self, seat: int, action: str, version: int | None = None) -> Proposal:
        """:meth:`submit` on a copy: this match is untouched, the proposal holds the match
        after the step and the steps it took (an authority writes them, then takes the copy).
        Raises as :meth:`submit` does."""
        after = self.copy()
        events = after.submit(seat, action, version)
        return Proposal(self, after, tuple(after.steps[len(self.steps):]), events)

    def followed(self, log: Iterable[LogEntry]) -> Proposal:
        """Logged steps that follow the current version (what another writer stored) re-entered
        on a copy by the one replay, which advances the chance stream as the writer did;
        raises ReplayError and leaves this match untouched."""
        after = self.copy()

        def keep(step: ReplayedStep) -> None:
            e = step.entry
            after.steps.append(Step(after.version, e.seat if isinstance(e, ActionEntry) else None,
                                    step.events, e.text))

        replay_log(after.state, log, on_step=keep)
        steps = tuple(after.steps[len(self.steps):])
        return Proposal(self, after, steps, [e for st in steps for e in st.events])

    def with_seat(self, seat: int, kind: str, bot: Bot | None) -> Match:
        """A copy whose ``seat`` is played by ``kind`` (a bot: ``bot``; a human: None)."""
        after = self.copy()
        after.seats[seat] = Seat(after.seats[seat].name, kind)
        if bot is None:
            after.bots.pop(seat, None)
        else:
            after.bots[seat] = bot
        return after

    def with_name(self, seat: int, name: str) -> Match:
        """A copy whose ``seat`` is called ``name`` (an open seat taken by a player)."""
        after = self.copy()
        after.seats[seat] = Seat(name, after.seats[seat].kind)
        return after

    def step_bot(self) -> list[Event]:
        """Let the bot to move act once."""
        p = self.state.current_player
        bot = self.bots[p]
        return self.submit(p, bot.act(self.state.view(p)))

    def run_bots(self) -> list[Event]:
        """Let bots act until a human must act or the game ends."""
        out: list[Event] = []
        while not self.state.is_terminal() and not self.is_human_turn():
            out.extend(self.step_bot())
        return out


def restore(game: Game, setup: Setup, seed: int | None, log: Iterable[LogEntry],
           seats: list[Seat]) -> Match:
    """The match of a saved game: its setup and seed, every logged step re-entered by the one
    replay (:func:`~rebirth.engine.replay.replay_log`, which also advances the chance stream),
    then :meth:`Match.resume`. The steps keep their events and texts, so the log, "since your
    last turn" and what a server stores go on as before. Raises ReplayError (a ValueError)."""
    state = game.from_setup(setup, seed=seed)
    steps = [Step(0, None, list(state.initial_events))]
    replay_log(state, log, on_step=lambda step: steps.append(Step.replayed(step)))
    return Match.resume(game, state, seats, seed, steps)


__all__ = ["HUMAN", "OUTSIDE", "REMOTE", "ActionError", "Match", "NotYourTurnError", "Proposal",
           "StaleVersionError", "Step",
           "bot_seed", "new_seed", "restore"]
