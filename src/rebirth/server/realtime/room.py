"""A game's sockets on this worker (:class:`Room`) and delivery by version.

Every connection remembers the last version it was sent; :meth:`Room.deliver` sends each one
every committed version after that, whatever path brought the game up to date here (a step
taken here, another worker's steps read back by a join, a notice or the periodic check). There
is no "the game is current, so nobody needs anything": the question is asked per connection.
Connections that see the same thing share one serialised text (:class:`FrameCache`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from fastapi import WebSocket
from prometheus_client import Counter

from rebirth.app.match import Match
from rebirth.server.realtime import protocol
from rebirth.server.realtime.protocol import ClockFrame, ErrorFrame, Outbound, Presence, Sync

SEND_TIMEOUT = 10.0
"""Seconds a send may take before the client counts as gone."""


@dataclass(eq=False)
class Conn:
    """One WebSocket of one device."""

    ws: WebSocket
    role: str | None = None
    """None until ``hello``; then seat / table / spectator / admin."""
    token_hash: str | None = None
    seat: int | None = None
    """The seat whose view this connection gets (a table: the claimed seat, None between players)."""
    controls: tuple[int, ...] = ()
    """The seats it may act for (a seat link: its seat; a table: the table's human seats)."""
    last: int = -1
    """The last version sent."""
    visible: bool = False
    """The page said it is open and visible (a ``visibility`` frame; issue 25 item 6). A
    client that never says is not counted as looking."""
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    closed: bool = False

    async def send(self, frame: Outbound) -> bool:
        """Send one frame; False when the socket is gone."""
        return await self.send_text(protocol.encode(frame))

    async def send_text(self, text: str) -> bool:
        """Send one frame already serialised (a broadcast shares it); False when gone."""
        if self.closed:
            return False
        try:
            # asyncio.timeout, not wait_for: no task per send (a broadcast makes a thousand).
            async with self.send_lock, asyncio.timeout(SEND_TIMEOUT):
                await self.ws.send_text(text)
            return True
        except Exception:  # a gone or stuck client must not stop the game
            self.closed = True
            return False


class FrameCache:
    """The texts of one broadcast, by what they depend on (the seat whose view it is and the
    version the connection saw last: sharing never hands one seat's view to another)."""

    def __init__(self, counter: Counter | None = None) -> None:
        self.counter = counter
        self._texts: dict[Hashable, str] = {}

    def text(self, key: Hashable, build: Callable[[], Outbound]) -> str:
        """The text for ``key``, built and serialised on its first use only."""
        out = self._texts.get(key)
        if out is None:
            out = self._texts[key] = protocol.encode(build())
            if self.counter is not None:
                self.counter.inc()
        return out


class Stream(Protocol):
    """A program's stream of one seat (server/play/stream.py ``SeatStream``)."""

    seat: int
    token_hash: str

    def close(self) -> None: ...


class Snapshot(Protocol):
    """What the room's frames are made of: a committed game (server/authority/live.py's
    ``Snapshot`` is one; the room does not import it, the authority lies above)."""

    @property
    def id(self) -> str: ...
    @property
    def match(self) -> Match: ...
    @property
    def kinds(self) -> list[str]: ...
    @property
    def lang(self) -> str: ...
    @property
    def forfeits(self) -> list[dict[str, Any]]: ...


class Seen:
    """What the frames of one moment carry besides the view: presence and the clock (the
    hand-over times worked out only when a frame carries them: a step's updates do not)."""

    __slots__ = ("_handover", "_handover_at", "clock", "online")

    def __init__(self, online: list[bool], handover: Callable[[], list[float | None]],
                 clock: dict[str, Any] | None) -> None:
        self.online = online
        self.clock = clock
        self._handover = handover
        self._handover_at: list[float | None] | None = None

    @property
    def handover_at(self) -> list[float | None]:
        if self._handover_at is None:
            self._handover_at = self._handover()
        return self._handover_at


class Room:
    """The connections of one game on this worker."""

    def __init__(self, players: int, counter: Counter | None = None) -> None:
        self.conns: list[Conn] = []
        self.players = players
        self.counter = counter
        self.streams: list[Stream] = []
        """The bot-API streams open here (server/play/stream.py): a program
        reading its seat's stream is online like a device."""

    def local_online(self) -> list[bool]:
        """Per seat: is a device of it connected here (a table counts for its seats; a
        program's stream for its seat)."""
        out = [False] * self.players
        for c in self.conns:
            if c.role in ("seat", "table"):
                for s in c.controls:
                    out[s] = True
        for st in self.streams:
            out[st.seat] = True
        return out

    def local_visible(self) -> list[int]:
        """The seats with a page here that said it is visible (a table: its seats)."""
        out: set[int] = set()
        for c in self.conns:
            if c.visible and c.role in ("seat", "table"):
                out.update(c.controls)
        return sorted(out)

    @staticmethod
    def sync(game: Snapshot, c: Conn, since: int, seen: Seen) -> Sync:
        """The ``sync`` for ``c`` (its seat's whole view and the steps after ``since``); the
        connection counts as having the current version."""
        m = game.match
        c.last = m.version
        if c.role == "table":
            seats = list(c.controls)
        else:
            seats = [c.seat] if c.role == "seat" and c.seat is not None else []
        view, events = protocol.seat_part(m, c.seat, since)
        return Sync(game.id, c.seat, seats, c.role, m.version, view, events, m.names, game.kinds,
                    seen.online, game.lang, seen.clock, seen.handover_at, game.forfeits)

    async def deliver(self, game: Snapshot, seen: Seen) -> None:
        """Every connection gets the versions after the last it was sent, as its seat may see
        them (nothing when it has them all)."""
        m = game.match
        over = m.state.is_terminal()
        frames = FrameCache(self.counter)
        for c in list(self.conns):
            if c.role is None or c.last >= m.version:
                continue
            if c.role == "table" and c.seat is not None and (over or m.state.current_player != c.seat):
                # Hand-over: the device drops to the public view until the next player claims it.
                c.seat = None
                ok = await c.send(self.sync(game, c, -1, seen))
            else:
                ok = await c.send_text(frames.text(
                    (c.seat, c.last), partial(protocol.update, m, c.seat, c.last, seen.online, seen.clock)))
                c.last = m.version
            if not ok:
                self.drop(c)

    async def to_all(self, frame: Outbound) -> None:
        """One frame to every connection that said hello (serialised once)."""
        text = protocol.encode(frame)
        for c in list(self.conns):
            if c.role is not None and not await c.send_text(text):
                self.drop(c)

    async def presence(self, seen: Seen) -> None:
        await self.to_all(Presence(seen.online, seen.handover_at))

    async def clock(self, game: Snapshot, seen: Seen) -> None:
        """The clock (and the seats' kinds) to every connection; a table's with its seats."""
        frame = ClockFrame(seen.clock, game.kinds, seen.handover_at, game.forfeits)
        text = protocol.encode(frame)
        for c in list(self.conns):
            if c.role == "table":
                # A hot-seat device acts for the seats back in human hands again.
                ok = await c.send(ClockFrame(seen.clock, game.kinds, seen.handover_at, game.forfeits,
                                             list(c.controls)))
            elif c.role is not None:
                ok = await c.send_text(text)
            else:
                continue
            if not ok:
                self.drop(c)

    def drop(self, c: Conn) -> None:
        if c in self.conns:
            self.conns.remove(c)

    async def close_tokens(self, hashes: set[str], frame: ErrorFrame) -> list[Conn]:
        """The sockets of revoked tokens are told and closed (and their streams ended); returns
        the sockets."""
        for st in self.streams:
            if st.token_hash in hashes:
                st.close()  # its response ends; the session then drops it (presence with it)
        gone = [c for c in self.conns if c.token_hash in hashes]
        for c in gone:
            await c.send(frame)
            with contextlib.suppress(Exception):
                await c.ws.close(code=4001)
        return gone

    def retarget(self, human_seats: tuple[int, ...]) -> None:
        """A table's seats follow who plays them (a seat handed to a bot leaves its controls)."""
        for c in self.conns:
            if c.role == "table":
                c.controls = human_seats
