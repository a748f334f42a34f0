"""A running game's clock on the server (issue 16 item 1): kept here, never trusted from a page.

One :class:`ClockKeeper` per hub. It moves the clock with every committed step (in the step's
transaction), arms a timer for the running seat's deadline and, when it passes, hands the seat to
a bot (BGA's "zombie") through a conditional write that exactly one worker wins; the player takes
the seat back with their own link. The pure bookkeeping is :mod:`rebirth.app.clock`; the rows
:mod:`rebirth.server.clockstore`. The rules (what a restart does, what a take-back gives) are in
docs/protocol.md, "Clocks".
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection

from rebirth.app.clock import MAX_ADD_S, ClockSpec, ClockState, TimeSource
from rebirth.app.match import HUMAN
from rebirth.server import clockstore
from rebirth.server.errors import ApiError, texts
from rebirth.server.store import StaleWrite

if TYPE_CHECKING:
    from rebirth.server.hub import Hub, Registry

log = logging.getLogger("rebirth.server")

wall_time: TimeSource = time.time
"""The server's wall clock (a module attribute, so a test can replace it)."""

HANDOVER_BOT = "greedy"
"""The level a leaver's seat is handed to: by hand (``Hub.hand_to_bot``) or when its time ran out."""

SLACK = 0.05
"""Seconds the timer fires after the deadline, so the deadline has surely passed."""


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


class ClockKeeper:
    """The clock of one hub (its ``clock``); every method is called holding ``hub.lock`` unless
    it says otherwise."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.state: ClockState | None = None
        self.rev = 0
        self._pending: ClockState | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self.timeouts = 0
        """Time-outs this worker stored (a test checks that of several workers one does each)."""

    @staticmethod
    def now() -> float:
        return wall_time()

    # ------------------------------------------------------------------ reading

    def frame(self) -> dict[str, Any] | None:
        """The clock as every frame carries it (None: the game has no clock)."""
        return None if self.state is None else self.state.frame(self.now())

    def handover_at(self) -> list[float | None]:
        """Per seat: the wall time from which another player may hand it to a bot (None: not a
        human's seat, or a device of it is connected) — the page counts down to it."""
        hub = self.hub
        grace = hub.registry.settings.offline_grace
        online = hub.online()
        mono, wall = time.monotonic(), self.now()
        return [None if online[i] or s.kind != HUMAN else round(wall + hub.offline_since[i] + grace - mono, 3)
                for i, s in enumerate(hub.match.seats)]

    # ------------------------------------------------------------------ loading

    async def start(self, spec: ClockSpec) -> None:
        """A new game's clock (the game is stored already): the first seat's time starts now."""
        m = self.hub.match
        st = ClockState.start(spec, self.hub.game.players)
        p = m.state.current_player
        st.turn(p if p >= 0 else None, p >= 0 and m.seats[p].kind == HUMAN, self.now())
        await asyncio.to_thread(clockstore.create, self.hub.store, self.hub.id, st)
        self.state, self.rev = st, 0
        self.arm()
        # The first turn's clock runs now: the hooks that read it (a deadline's reminder,
        # server/notify.py) hear of it as of a step.
        self.hub.registry.committed(self.hub)

    async def reload(self) -> bool:
        """Read the stored clock (another worker may have changed it); True when it changed."""
        got = await asyncio.to_thread(clockstore.load_with_kinds, self.hub.store, self.hub.id)
        if got is None:
            return False
        st, rev, kinds = got
        if self.state is not None and rev == self.rev:
            return False
        old = self.state
        self.state, self.rev = st, rev
        seats = self.hub.match.seats
        for seat, kind in enumerate(kinds[:len(seats)]):
            # The seats that changed hands with this clock (another worker's time-out or take-back).
            if seats[seat].kind != kind:
                if kind == HUMAN:
                    self.hub.seat_to_human(seat)
                else:
                    self.hub.seat_to_bot(seat, kind)
        self.arm()
        if old is not None and (old.notices != st.notices or old.enabled != st.enabled):
            # Changed by another worker (a time-out, a take-back, an adjustment): the devices
            # here learn it as those of that worker did.
            await self.tell()
        return True

    # ------------------------------------------------------------------ steps

    def prepare(self) -> Callable[[Connection], None] | None:
        """The clock after the steps the match just took (not yet stored): its write, to run in
        the steps' transaction. Then :meth:`committed` or :meth:`failed`."""
        if self.state is None:
            return None
        m = self.hub.match
        st = copy.deepcopy(self.state)
        if m.state.is_terminal():
            st.turn(None, False, self.now())
        else:
            p = m.state.current_player
            st.turn(p, m.seats[p].kind == HUMAN, self.now())
        self._pending = st
        return clockstore.write_in(self.hub.id, st, self.rev)

    def committed(self) -> None:
        """The steps (and the clock with them) are stored."""
        if self._pending is not None:
            self.state, self.rev, self._pending = self._pending, self.rev + 1, None
            self.arm()

    def failed(self) -> None:
        self._pending = None

    # ------------------------------------------------------------------ the timer

    def arm(self) -> None:
        """(Re)arm the timer for the running seat's deadline (none: no timer)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        d = None if self.state is None or self.hub.match.state.is_terminal() else self.state.deadline()
        if d is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # rebuilt off the loop: armed again by the caller on the loop
            return
        self._timer = loop.call_later(max(0.0, d - self.now()) + SLACK, self._fire)

    def _fire(self) -> None:
        self._timer = None
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.expire())

    async def expire(self) -> None:
        """The running seat's deadline passed: hand the seat to a bot (once, whichever worker
        gets there first), tell everyone, let the bot play. Takes ``hub.lock`` itself."""
        hub = self.hub
        seat: int | None = None
        try:
            async with hub.lock:
                if hub.multi:
                    await hub.refresh()
                st = self.state
                if st is None or hub.match.state.is_terminal():
                    return
                run = st.running
                if run is None or hub.match.seats[run].kind != HUMAN:
                    # Handed to a bot by hand meanwhile: the bot's step stops this clock.
                    return
                if not st.expired(self.now()):
                    self.arm()  # the deadline moved (time was added)
                    return
                new = copy.deepcopy(st)
                seat = new.time_out(hub.match.version)
                bot = HANDOVER_BOT
                try:
                    await asyncio.to_thread(clockstore.change, hub.store, hub.id, new, self.rev,
                                            hub.committed, {seat: (HUMAN, bot)})
                except StaleWrite:
                    # Another worker timed the seat out first (or a step came in): read what won.
                    seat = None
                    await hub.refresh()
                    await self.reload()
                    return
                self.state, self.rev = new, self.rev + 1
                self.timeouts += 1
                hub.seat_to_bot(seat, bot)
                log.info("game %s: seat %d ran out of time; a bot plays it", hub.id, seat)
                await self.tell()
        except Exception:  # the database is away: try again shortly
            log.exception("game %s: the clock's time-out failed", hub.id)
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(1.0, self._fire)
            return
        await hub.announce()
        hub.kick_bots()

    # ------------------------------------------------------------------ players

    async def take_back(self, seat: int) -> None:
        """The timed-out seat's own player is back: the seat is theirs again (``hub.lock`` taken
        here)."""
        hub = self.hub
        async with hub.lock:
            if hub.multi:
                await hub.refresh()
            st = self.state
            if st is None or not st.timed_out[seat]:
                raise ApiError(409, "not_timed_out", texts("server.not_timed_out"))
            new = copy.deepcopy(st)
            new.take_back(seat, hub.match.version)
            m = hub.match
            if not m.state.is_terminal() and m.state.current_player == seat:
                new.turn(seat, True, self.now())  # its turn now: its time runs from here
            await self._store(new, {seat: (m.seats[seat].kind, HUMAN)})
            hub.seat_to_human(seat)
            await self.tell()
        await hub.announce()

    async def adjust(self, change: ClockChange) -> None:
        """Add time for everyone or turn the clock off (WCAG 2.2.1; ``hub.lock`` taken here)."""
        hub = self.hub
        async with hub.lock:
            if hub.multi:
                await hub.refresh()
            st = self.state
            if st is None or not st.enabled:
                raise ApiError(409, "no_clock", texts("server.no_clock"))
            new = copy.deepcopy(st)
            if change.off:
                new.turn_off(self.now(), hub.match.version)
            elif change.add_s is not None:
                new.add(change.add_s, self.now(), hub.match.version)
            else:
                raise ApiError(400, "bad_message")
            await self._store(new, None)
            await self.tell()
        await hub.announce()

    async def _store(self, new: ClockState, kinds: dict[int, tuple[str, str]] | None) -> None:
        try:
            await asyncio.to_thread(clockstore.change, self.hub.store, self.hub.id, new, self.rev,
                                    self.hub.committed, kinds)
        except StaleWrite:
            await self.reload()
            raise ApiError(409, "conflict") from None
        self.state, self.rev = new, self.rev + 1
        self.arm()

    async def tell(self) -> None:
        """Every connection gets the clock (and the seats' kinds) now."""
        hub = self.hub
        msg = {"type": "clock", "clock": self.frame(), "kinds": [s.kind for s in hub.match.seats],
               "handover_at": self.handover_at()}
        for c in list(hub.conns):
            if c.role == "table":
                # A hot-seat device acts for the seats back in human hands again.
                await c.send({**msg, "seats": list(c.controls)})
            elif c.role is not None:
                await c.send(msg)

    def close(self) -> None:
        """Shutdown: no timer fires any more."""
        if self._timer is not None:
            self._timer.cancel()
        if self._task is not None:
            self._task.cancel()


async def resume_all(registry: Registry) -> None:
    """On start: running clocks restart counting now (no one pays for the downtime)."""
    n = await asyncio.to_thread(clockstore.resume_all, registry.store, wall_time())
    if n:
        log.info("%d running clocks resumed from the restart", n)


async def adopt_due(registry: Registry) -> None:
    """Several workers: load the games whose running seat has run out and that no worker holds
    in memory, so their time-out happens (the conditional write keeps it to one)."""
    for gid in await asyncio.to_thread(clockstore.due, registry.store, wall_time()):
        if gid in registry.hubs:
            continue
        with contextlib.suppress(Exception):
            await registry.get(gid)
