"""The changes of an online game that go through its one commit path
(server/authority/kernel.py): a seat's step, a seat handed to a bot, what another worker stored
read back. (The clock's are in server/clocks/changes.py.)"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any

from rebirth.app.match import NotYourTurnError, StaleVersionError
from rebirth.engine.actions import ActionError
from rebirth.engine.replay import ReplayError
from rebirth.server.authority.live import LiveGame, log_entries
from rebirth.server.authority.ports import GamePort
from rebirth.server.clocks.changes import turned, with_kind
from rebirth.server.persistence import clocks as clockstore
from rebirth.server.persistence import seatnotify
from rebirth.server.persistence.store import Step


class ServerError(Exception):
    """A change could not be stored: nothing changed (the proposal was dropped)."""


def action_code(exc: ActionError) -> str:
    """The protocol's error code of a refused action."""
    if isinstance(exc, StaleVersionError):
        return "stale_version"
    if isinstance(exc, NotYourTurnError):
        return "not_your_turn"
    return "illegal"



@dataclass
class StepChange:
    """A seat's action (a human's or a bot's) and the chance it causes; the clock turns and
    the turn's notification is enqueued in the same write."""

    session: GamePort
    seat: int
    action: str
    version: int | None
    kind: str = "human"

    def propose(self, current: LiveGame) -> LiveGame:
        p = current.match.propose(self.seat, self.action, self.version)  # raises and changes nothing
        # A step changes no seat's kind: the row stays (LiveGame's constructor, once per step).
        if current.clock is None:
            return LiveGame(p.after, current.row)
        clock = turned(current.clock, p.after)
        if self.kind == "human" and clock is not None and clock.proposal is not None:
            # A player's move answers a proposed clock change (issue 26 item 6): the moment it
            # was asked for has passed. A bot's move does not: bots are never asked.
            clock.proposal = None
        return LiveGame(p.after, current.row, clock, current.clock_rev + 1)

    async def write(self, before: LiveGame, after: LiveGame) -> None:
        s = self.session
        steps = [Step(st.version, st.seat, st.text) for st in after.match.steps[len(before.match.steps):]]
        also = None if after.clock is None else clockstore.write_in(s.id, after.clock, before.clock_rev)
        notice = s.host.turn_notice(s.id, after)
        first = steps[0].seat if steps else None
        actor = None if first is None else (first, before.match.seats[first].kind)
        metrics = s.host.metrics
        with metrics.timed(metrics.store_commit_seconds):
            made = await s.host.store.append_soon(s.id, steps, after.version, after.over, also, actor, notice)
        s.notified = None if notice is None else (notice, made)


@dataclass
class SeatChange:
    """A leaver's seat is played by a bot from now on."""

    session: GamePort
    seat: int
    to: str
    kind: str = "seat"

    def propose(self, current: LiveGame) -> LiveGame:
        return current.with_match(with_kind(current.match, self.seat, self.to))

    async def write(self, before: LiveGame, after: LiveGame) -> None:
        await asyncio.to_thread(self.session.host.store.set_kind, self.session.id, self.seat, self.to)


@dataclass
class SeatNamed:
    """An open seat was taken: it is called by its player's name from now on. The name was
    stored with the seat's taking (server/persistence/open_games.py, in the transaction that
    won the seat), so writing it is nothing."""

    seat: int
    name: str
    kind: str = "seat"

    def propose(self, current: LiveGame) -> LiveGame:
        m = current.match
        if m.seats[self.seat].name == self.name:
            return current
        return current.with_match(m.with_name(self.seat, self.name))

    async def write(self, before: LiveGame, after: LiveGame) -> None:
        return None


@dataclass
class Follow:
    """What another worker stored after our version (steps, seats handed over, the clock), read
    back: already stored, so its write is nothing."""

    steps: list[Step]
    kinds: list[str]
    clock: tuple[Any, int, list[str]] | None
    names: list[str] | None = None
    """The seats' stored names (an open seat taken on another worker); None: not read."""
    kind: str = "follow"
    forfeits: tuple[tuple[int, str], ...] | None = None
    """The game's forfeits as stored (read when a seat changed hands; None: not read)."""

    def propose(self, current: LiveGame) -> LiveGame:
        m = current.match
        if self.steps:
            try:
                m = m.followed(log_entries(current.id, m.version, self.steps)).after
            except ReplayError as exc:
                raise ValueError(f"game {current.id}: {exc}") from exc
        for seat, k in enumerate(self.kinds[:len(m.seats)]):
            if m.seats[seat].kind != k:
                m = with_kind(m, seat, k)
        for seat, name in enumerate((self.names or [])[:len(m.seats)]):
            if m.seats[seat].name != name:
                m = m.with_name(seat, name)
        after = current.with_match(m) if m is not current.match else current
        if self.forfeits is not None and self.forfeits != after.row.forfeits:
            after = replace(after, row=replace(after.row, forfeits=self.forfeits))
        if self.clock is not None and (current.clock is None or self.clock[1] != current.clock_rev):
            after = after.with_clock(self.clock[0], self.clock[1])
        return after

    async def write(self, before: LiveGame, after: LiveGame) -> None:
        return None


@dataclass
class Resign:
    """A seat gives the game up (issue 25 item 4): a bot plays its moves out, so the others can
    finish, and its forfeit (``resigned``: it finishes last for ratings) is stored with the
    hand-over in one transaction."""

    session: GamePort
    seat: int
    to: str
    kind: str = "resign"

    def propose(self, current: LiveGame) -> LiveGame:
        after = current.with_match(with_kind(current.match, self.seat, self.to))
        lost = dict(after.row.forfeits)
        lost.setdefault(self.seat, "resigned")
        return replace(after, row=replace(after.row, forfeits=tuple(sorted(lost.items()))))

    async def write(self, before: LiveGame, after: LiveGame) -> None:
        s = self.session
        await asyncio.to_thread(seatnotify.resign, s.host.store, s.id, self.seat, self.to)
