"""Clock changes through the one commit path (server/authority/kernel.py): the clock turned with
a step, a seat timed out (BGA's "zombie": handed to a bot through a conditional write that
exactly one worker wins), taken back by its player, time added or the clock turned off; and the
clock of ``POST /api/games`` as the REST body gives it. The pure bookkeeping is
:mod:`rebirth.app.clock`; the rows :mod:`rebirth.server.persistence.clocks`; the rules (what a
restart does, what a take-back gives) are in docs/protocol.md, "Clocks".
"""

from __future__ import annotations

import asyncio
import copy
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection

from rebirth.app.clock import MAX_ADD_S, ClockSpec, ClockState, TimeSource
from rebirth.app.match import HUMAN, OUTSIDE, Match, bot_seed
from rebirth.bots.registry import make_bot
from rebirth.server.authority.kernel import Unchanged
from rebirth.server.authority.live import LiveGame
from rebirth.server.errors import ApiError, texts
from rebirth.server.persistence import clocks as clockstore
from rebirth.server.persistence import vacation as vacstore
from rebirth.server.persistence.seatnotify import forfeit_in, unforfeit_in
from rebirth.server.persistence.store import Store

wall_time: TimeSource = time.time
"""The server's wall clock (a module attribute, so a test can replace it)."""


def now() -> float:
    return wall_time()


HANDOVER_BOT = "greedy"
"""The level a leaver's seat is handed to: by hand or when its time ran out."""


class RealtimeClock(BaseModel):
    """``{"kind": "realtime", "initial_s": 300, "increment_s": 10}``: a bank plus an increment."""

    model_config = ConfigDict(extra="forbid", strict=True)
    kind: Literal["realtime"]
    initial_s: int
    increment_s: int = 0


class TurnClock(BaseModel):
    """``{"kind": "turn", "per_move_s": 86400}``: a deadline per move."""

    model_config = ConfigDict(extra="forbid", strict=True)
    kind: Literal["turn"]
    per_move_s: int


ClockBody = RealtimeClock | TurnClock
"""The ``clock`` of ``POST /api/games`` (absent or null: no clock)."""


class ClockChange(BaseModel):
    """``POST /api/games/{id}/clock``: add time for everyone, or turn the clock off."""

    model_config = ConfigDict(extra="forbid", strict=True)
    add_s: int | None = Field(default=None, ge=1, le=MAX_ADD_S)
    off: bool = False


def spec_of(body: ClockBody | None, min_s: float) -> ClockSpec | None:
    """The checked clock of a new game (``ApiError`` 400 ``bad_clock`` when out of range)."""
    if body is None:
        return None
    spec = (ClockSpec("realtime", body.initial_s, body.increment_s) if isinstance(body, RealtimeClock)
            else ClockSpec("turn", per_move_s=body.per_move_s))
    bad = spec.problems(min_s)
    if bad:
        name, lo, hi = bad[0]
        raise ApiError(400, "bad_clock", texts("server.bad_clock", field=name, low=_num(lo), high=_num(hi)),
                       {"field": f"clock.{name}", "low": lo, "high": hi})
    return spec


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def turned(clock: ClockState | None, match: Match) -> ClockState | None:
    """The clock after the steps that led to ``match``: the seat to move runs (none at the end)."""
    if clock is None:
        return None
    st = copy.deepcopy(clock)
    if match.state.is_terminal():
        st.turn(None, False, now())
    else:
        p = match.state.current_player
        st.turn(p, match.seats[p].kind in OUTSIDE, now())
    return st


def with_kind(match: Match, seat: int, kind: str) -> Match:
    """``match`` with ``seat`` played by ``kind`` from now on (a bot: a fresh one)."""
    bot = None if kind in OUTSIDE else make_bot(kind, match.game, seat, bot_seed(None, seat))
    return match.with_seat(seat, kind, bot)


@dataclass
class ClockMove(ABC):
    """A change of the clock between steps, with the seats that change hands with it
    (``{seat: (from, to)}``), stored conditionally on the clock's revision and the game's
    version (:func:`rebirth.server.persistence.clocks.change`)."""

    store: Store
    kind: str = "clock"

    @abstractmethod
    def clock_after(self, game: LiveGame) -> tuple[ClockState, dict[int, tuple[str, str]]]:
        """The clock after this move and the seats that change hands; raises a refusal."""

    def propose(self, current: LiveGame) -> LiveGame:
        st, kinds = self.clock_after(current)
        m = current.match
        for seat, (_, to) in kinds.items():
            m = with_kind(m, seat, to)
        after = current.with_match(m).with_clock(st, current.clock_rev + 1)
        lost = self.forfeits(after)
        if lost != after.row.forfeits:
            after = replace(after, row=replace(after.row, forfeits=lost))
        return after

    def forfeits(self, game: LiveGame) -> tuple[tuple[int, str], ...]:
        """The game's forfeits after this move (most moves change none)."""
        return game.row.forfeits

    def also(self, before: LiveGame, after: LiveGame) -> Callable[[Connection], None] | None:
        """More writes in the clock's transaction (a forfeit); None: none."""
        return None

    async def write(self, before: LiveGame, after: LiveGame) -> None:
        assert after.clock is not None
        kinds = {s: (before.kinds[s], after.kinds[s]) for s in range(len(after.kinds))
                 if before.kinds[s] != after.kinds[s]}
        await asyncio.to_thread(clockstore.change, self.store, before.id, after.clock, before.clock_rev,
                                before.version, kinds, self.also(before, after))


@dataclass
class TimeOut(ClockMove):
    """The running seat's deadline passed: its seat goes to a bot (:data:`HANDOVER_BOT`)."""

    kind: str = "timeout"

    def clock_after(self, game: LiveGame) -> tuple[ClockState, dict[int, tuple[str, str]]]:
        st = game.clock
        if st is None or game.over:
            raise Unchanged("no clock runs")
        run = st.running
        if run is None or game.match.seats[run].kind not in OUTSIDE or not st.expired(now()):
            # Handed to a bot by hand meanwhile (its step stops the clock), or time was added.
            raise Unchanged("not expired")
        new = copy.deepcopy(st)
        seat = new.time_out(game.version)
        return new, {seat: (game.match.seats[seat].kind, HANDOVER_BOT)}

    def forfeits(self, game: LiveGame) -> tuple[tuple[int, str], ...]:
        # A timed-out seat has forfeited (issue 25 item 4: it finishes last for ratings) until
        # its player takes it back; a seat that forfeited before keeps its first reason.
        assert game.clock is not None
        had = dict(game.row.forfeits)
        for seat, out in enumerate(game.clock.timed_out):
            if out and seat not in had:
                had[seat] = "timeout"
        return tuple(sorted(had.items()))

    def also(self, before: LiveGame, after: LiveGame) -> Callable[[Connection], None] | None:
        new = [s for s, r in after.row.forfeits if s not in dict(before.row.forfeits)]
        if not new:
            return None
        writes = [forfeit_in(before.id, s, "timeout") for s in new]

        def write(c: Connection) -> None:
            for w in writes:
                w(c)
        return write


@dataclass
class TakeBack(ClockMove):
    """The timed-out seat's own player is back: the seat is theirs again."""

    seat: int = 0
    kind: str = "take_back"

    def clock_after(self, game: LiveGame) -> tuple[ClockState, dict[int, tuple[str, str]]]:
        st = game.clock
        if st is None or not st.timed_out[self.seat]:
            raise ApiError(409, "not_timed_out", texts("server.not_timed_out"))
        new = copy.deepcopy(st)
        new.take_back(self.seat, game.version)
        m = game.match
        if not m.state.is_terminal() and m.state.current_player == self.seat:
            new.turn(self.seat, True, now())  # its turn now: its time runs from here
        return new, {self.seat: (m.seats[self.seat].kind, HUMAN)}

    def forfeits(self, game: LiveGame) -> tuple[tuple[int, str], ...]:
        # Taken back: its time did not run out for good.
        return tuple((s, r) for s, r in game.row.forfeits if not (s == self.seat and r == "timeout"))

    def also(self, before: LiveGame, after: LiveGame) -> Callable[[Connection], None] | None:
        return unforfeit_in(before.id, self.seat, "timeout")


ClockChanges = Literal["agreement", "creator"]
"""``POST /api/games``'s ``clock_changes``: who must agree to add time or turn the clock off."""

Agreement = tuple[str, int | None]
"""A clock's agreement rule: its :data:`ClockChanges` and the creator's own seat (or None)."""

AGREEMENT: Agreement = ("agreement", None)
"""The default: every human seat agrees."""


def asked(game: LiveGame, st: ClockState) -> list[int]:
    """The seats whose word a clock change waits for: every human seat (a bot's, a program's
    and a timed-out seat's are never asked, so they never block); in ``creator`` mode only the
    creator's own seat (none when the creator plays no seat: then their admin link answers)."""
    humans = [s for s, seat in enumerate(game.match.seats)
              if seat.kind == HUMAN and not (s < len(st.timed_out) and st.timed_out[s])]
    if st.changes == "creator":
        return [st.creator] if st.creator in humans else []
    return humans


def decides(st: ClockState, role: str, seat: int | None) -> bool:
    """The caller's word alone settles a clock change: the hot-seat table (every human player
    sits at it), or in ``creator`` mode the creator (their admin link or their own seat)."""
    if role == "table":
        return True
    return st.changes == "creator" and (role == "admin" or (role == "seat" and seat == st.creator))


def _apply(new: ClockState, what: dict[str, object], game: LiveGame) -> None:
    """The agreed change itself (its notice in the log): time added or the clock off."""
    new.proposal = None
    if what.get("off"):
        new.turn_off(now(), game.version)
    else:
        add = what.get("add_s")
        assert isinstance(add, int)
        new.add(add, now(), game.version)


@dataclass
class Adjust(ClockMove):
    """Time added for everyone, or the clock turned off (WCAG 2.2.1), asked for by ``role``
    (``seat``: the caller's seat). It applies at once only when nobody else must agree (issue 26
    item 6); otherwise it becomes the clock's public proposal until every asked seat accepted
    (:class:`ClockAnswer`), one declined, or a player moved."""

    change: ClockChange | None = None
    role: str = "admin"
    seat: int | None = None
    kind: str = "adjust"

    def clock_after(self, game: LiveGame) -> tuple[ClockState, dict[int, tuple[str, str]]]:
        st = game.clock
        if st is None or not st.enabled or self.change is None:
            raise ApiError(409, "no_clock", texts("server.no_clock"))
        what: dict[str, object]
        if self.change.off:
            what = {"off": True}
        elif self.change.add_s is not None:
            what = {"add_s": self.change.add_s}
        else:
            raise ApiError(400, "bad_message")
        if st.proposal is not None:
            raise ApiError(409, "clock_proposed", texts("server.clock_proposed"))
        new = copy.deepcopy(st)
        if decides(st, self.role, self.seat):
            _apply(new, what, game)
            return new, {}
        waiting = [s for s in asked(game, st) if not (self.role == "seat" and s == self.seat)]
        if not waiting and st.changes == "agreement":
            _apply(new, what, game)  # nobody else to ask (the others are bots)
            return new, {}
        new.proposal = {"by": self.seat if self.role == "seat" else None, **what, "waiting": waiting}
        return new, {}


class ClockAnswerBody(BaseModel):
    """``POST /api/games/{id}/clock/answer``: accept (``true``) or decline the proposed change."""

    model_config = ConfigDict(extra="forbid", strict=True)
    accept: bool


@dataclass
class ClockAnswer(ClockMove):
    """An asked seat (or the creator) answers the clock's proposal: the last acceptance applies
    the change, a decline drops it (a notice in the log)."""

    accept: bool = True
    role: str = "admin"
    seat: int | None = None
    kind: str = "clock_answer"

    def clock_after(self, game: LiveGame) -> tuple[ClockState, dict[int, tuple[str, str]]]:
        st = game.clock
        if st is None or not st.enabled or st.proposal is None:
            raise ApiError(409, "no_proposal", texts("server.no_proposal"))
        p = st.proposal
        alone = decides(st, self.role, self.seat)
        mine = self.role == "seat" and self.seat in p["waiting"]
        new = copy.deepcopy(st)
        if not self.accept:
            # Whoever is asked may say no, and the proposer (or the admin link) may withdraw it.
            if not (alone or mine or self.role == "admin" or (self.role == "seat" and self.seat == p["by"])):
                raise ApiError(403, "forbidden")
            new.decline(self.seat if self.role == "seat" else None, game.version)
            return new, {}
        what = {k: v for k, v in p.items() if k in ("add_s", "off")}
        if alone:
            _apply(new, what, game)
            return new, {}
        if not mine or st.changes != "agreement":
            raise ApiError(403, "forbidden")
        # Seats handed to a bot since the proposal are no longer asked.
        still = asked(game, st)
        waiting = [s for s in p["waiting"] if s != self.seat and s in still]
        if waiting:
            new.proposal = {**p, "waiting": waiting}
        else:
            _apply(new, what, game)
        return new, {}


class VacationChange(BaseModel):
    """``POST /api/games/{id}/vacation``: the seat's player goes on vacation (``on``: true) or is
    back (false)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    on: bool


@dataclass
class Vacation(ClockMove):
    """A seat's player goes on vacation or comes back (issue 26 item 3): while away, the seat's
    own turn clock stands still until its vacation allowance is used up (then it runs again and
    the time-out stays the final guarantee that the game moves on). Only turn clocks.

    A seat held by an account (``account``) is one game of the account's vacation period
    (server/persistence/vacation.py): the first game away opens it, reserving all the account has
    left in calendar year ``year`` (``left_s`` of ``cap_s``), a later one joins ``joined`` with
    what is left of it (``left_s`` again: the caller reads it), all in the clock's own
    transaction; the last game back charges the period's calendar time once and gives the rest
    back. ``left_s`` coming back: what the account will have left, shown until the next start. A
    guest seat uses its allowance per game."""

    seat: int = 0
    on: bool = True
    account: str | None = None
    year: int = 0
    left_s: float = 0.0
    cap_s: float = 0.0
    joined: vacstore.Away | None = None
    kind: str = "vacation"
    _t: float = 0.0
    _back: bool = False

    def clock_after(self, game: LiveGame) -> tuple[ClockState, dict[int, tuple[str, str]]]:
        st = game.clock
        if st is None or not st.enabled or st.spec.kind != "turn" or game.over:
            raise ApiError(409, "no_vacation", texts("server.no_vacation"))
        if st.is_away(self.seat) == self.on:
            raise Unchanged("already so")
        new = copy.deepcopy(st)
        years = list(new.vacation_year) or [0] * len(new.vacation)
        t = self._t = now()
        if self.on:
            if self.account is not None:
                if self.left_s <= 0:
                    raise ApiError(409, "no_vacation_left", texts("server.no_vacation_year"))
                new.vacation[self.seat] = self.left_s
                years[self.seat] = self.joined.year if self.joined is not None else self.year
            elif new.vacation_left(self.seat, t) <= 0:
                raise ApiError(409, "no_vacation_left", texts("server.no_vacation_left"))
            new.vacation_year = years
            new.go_away(self.seat, t, game.version)
        else:
            new.come_back(self.seat, t, game.version)
            if years[self.seat]:
                self._back = True
                new.vacation[self.seat] = self.left_s
                years[self.seat] = 0
                new.vacation_year = years
        return new, {}

    def also(self, before: LiveGame, after: LiveGame) -> Callable[[Connection], None] | None:
        if self.account is None:
            return None
        if self.on:
            return vacstore.go_away_in(self.account, self.year, self.left_s, self.cap_s, self.joined,
                                       after.id, self.seat, self._t)
        if self._back:
            return vacstore.come_back_in(self.account, after.id, self.seat, self._t)
        return None
        if self.on:
            return vacstore.reserve_in(self.account, self.year, self.left_s, self.cap_s)
        if self._refund is not None:
            return vacstore.refund_in(self.account, *self._refund)
        return None
