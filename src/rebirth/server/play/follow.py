"""Several workers (docs/server.md, "Several workers"): what other workers stored is read back
into a game through its one commit path (a :class:`~rebirth.server.play.changes.Follow`, heard
by every listener like a step taken here); Redis notices are coalesced into one follower task;
presence on other workers and announcements of changes besides the version."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Protocol

from rebirth.server.authority.kernel import Authority, Committed, Replace, Unchanged
from rebirth.server.authority.live import LiveGame
from rebirth.server.persistence import clocks as clockstore
from rebirth.server.persistence import seatnotify
from rebirth.server.persistence.store import GameRow, Store
from rebirth.server.play.bots import BotDriver
from rebirth.server.play.changes import Follow, ServerError
from rebirth.server.realtime.protocol import error_frame
from rebirth.server.realtime.room import Room

if TYPE_CHECKING:
    from rebirth.app.match import Match
    from rebirth.server.realtime.broker import Broker

log = logging.getLogger("rebirth.server")


class FollowHost(Protocol):
    """What the follower needs of the registry."""

    store: Store
    broker: Broker | None
    presence_ttl: float

    def is_idle(self, session: Any) -> bool: ...
    def drop(self, game_id: str) -> None: ...
    def load_match(self, row: GameRow) -> Match: ...


class Followed(Protocol):
    """The game a follower follows (a session)."""

    id: str
    lock: asyncio.Lock
    room: Room
    authority: Authority[LiveGame]
    bots: BotDriver

    @property
    def host(self) -> FollowHost: ...
    @property
    def value(self) -> LiveGame: ...
    @property
    def committed(self) -> int: ...
    @property
    def row(self) -> GameRow: ...

    def seen(self) -> Any: ...


class Follower:
    """One game's link to the other workers."""

    def __init__(self, game: Followed) -> None:
        self.game = game
        self.remote_online: set[int] = set()
        """Seats with a device on another worker."""
        self._own: set[int] = set()
        """Versions this worker published itself (their echo needs no catch-up)."""
        self._follow_task: asyncio.Task[None] | None = None
        self._again = self._recheck = False
        broker = game.host.broker
        self._reconnects_seen = broker.reconnects if broker is not None and broker.connected else -1

    def published(self, e: Committed[LiveGame]) -> None:
        """A listener: this worker's own changes are announced (not awaited: the change is
        stored; the notice goes out with this turn's others)."""
        broker = self.game.host.broker
        if broker is None or e.kind == "follow":
            return
        self._own.add(e.after.version)
        broker.publish_soon(self.game.id, e.after.version)

    def may_be_behind(self) -> bool:
        """Several workers: must the game be read back before a human step? Not while the
        Redis subscription has been up since this game last caught up and no notice waits:
        every other worker's step would have been announced. A notice in flight costs at most
        a stale answer: the step's write is conditional (:meth:`Store.append`)."""
        broker = self.game.host.broker
        if broker is None:
            return False
        if not broker.connected or broker.reconnects != self._reconnects_seen:
            return True
        task = self._follow_task
        return task is not None and not task.done()

    async def read_back(self, strict: bool = True) -> bool:
        """Read what other workers stored after our version and commit it as a :class:`Follow`
        (every connection then gets it, by version); True when something changed. The database
        away: ``strict`` raises :class:`ServerError` (no step on a state that may be old), else
        the local state is kept. Hold :attr:`lock`."""
        broker = self.game.host.broker
        reconnects = broker.reconnects if broker is not None else 0
        store = self.game.host.store
        try:
            version, kinds, steps, names = await asyncio.to_thread(store.catch_up, self.game.id,
                                                                   self.game.committed)
            clock = await asyncio.to_thread(clockstore.load_with_kinds, store, self.game.id) \
                if self.game.value.clock is not None else None
            if clock is not None:
                # The kinds read with the clock, after it: a time-out or take-back stored between
                # the two reads is then in both (else a frame showed the seat timed out and still
                # human; tests/server/test_clocks_workers.py saw it under load).
                kinds = clock[2]
            # A seat changed hands elsewhere: a resign or a time-out may have come with it.
            lost = None
            if kinds != self.game.value.kinds:
                got = await asyncio.to_thread(seatnotify.forfeits_of, store, self.game.id)
                lost = tuple(sorted(got.items()))
        except Exception as exc:
            log.warning("game %s: catching up failed: %s", self.game.id, exc)
            if strict:
                raise ServerError from exc
            return False
        self._reconnects_seen = reconnects
        try:
            if version > self.game.committed + len(steps):
                raise ValueError(f"game {self.game.id}: the log ends at {self.game.committed + len(steps)}, "
                                 f"the game is at {version}")
            await self.game.authority.commit(Follow(steps, kinds, clock, names, forfeits=lost))
        except Unchanged:
            return False
        except ValueError:
            log.exception("game %s: the log does not continue this match; rebuilding", self.game.id)
            await self.game.authority.commit(Replace(await self.reload()))
        return True

    async def reload(self) -> LiveGame:
        """The game read whole from the store (its row, clock and log)."""
        store = self.game.host.store
        row = await asyncio.to_thread(store.game, self.game.id) or self.game.row
        match = await asyncio.to_thread(self.game.host.load_match, row)
        clock = await asyncio.to_thread(clockstore.load, store, self.game.id)
        return LiveGame(match, row, *(clock or (None, 0)))

    def notice(self, version: int) -> None:
        """Redis said the game is at ``version``: catch up (coalesced: one follower task, run
        again while notices keep coming)."""
        if version in self._own:
            self._own = {v for v in self._own if v > version}
            return
        if version < self.game.committed:
            return
        if self.game.host.is_idle(self.game):
            # Nobody here follows the game: it leaves memory instead of reading every step back.
            self.game.host.drop(self.game.id)
            return
        if version == self.game.committed:
            self._recheck = True  # no new step: an announcement (a seat handed over, a revoked link)
        if self._follow_task is not None and not self._follow_task.done():
            self._again = True
            return
        self._follow_task = asyncio.get_running_loop().create_task(self._follow())

    async def _follow(self) -> None:
        while True:
            self._again = False
            try:
                async with self.game.lock:
                    await self.read_back()
                    if self._recheck:
                        self._recheck = False
                        await self._drop_revoked()
                        await self.refresh_remote()
            except Exception:  # the database is down: the next notice or version check retries
                log.exception("game %s: catching up failed", self.game.id)
                return
            self.game.bots.kick()
            if not self._again:
                return

    async def _drop_revoked(self) -> None:
        """Close the local sockets whose token another worker revoked."""
        hashes = [c.token_hash for c in self.game.room.conns if c.token_hash is not None]
        hashes += [st.token_hash for st in self.game.room.streams]
        if hashes:
            gone = await asyncio.to_thread(self.game.host.store.revoked, hashes)
            for c in await self.game.room.close_tokens(gone, error_frame("revoked", self.game.committed)):
                self.game.room.drop(c)

    async def presence_changed(self) -> None:
        """A device came or went here: the marks, then a word to the other workers."""
        broker = self.game.host.broker
        if broker is not None:
            seats = [s for s, on in enumerate(self.game.room.local_online()) if on]
            await broker.mark_online(self.game.id, seats, self.game.host.presence_ttl,
                                     self.game.room.local_visible())
            await self.announce()

    async def visibility_changed(self) -> None:
        """A page here became visible or hidden: the visible marks only (no announcement: the
        other workers' pages show nothing of it; their notifiers read the marks)."""
        broker = self.game.host.broker
        if broker is not None:
            seats = [s for s, on in enumerate(self.game.room.local_online()) if on]
            await broker.mark_online(self.game.id, seats, self.game.host.presence_ttl,
                                     self.game.room.local_visible())

    async def refresh_remote(self, remote: set[int] | None = None) -> None:
        """Re-read (or take) which seats have a device on other workers; tell the local ones if
        it changed."""
        broker = self.game.host.broker
        if broker is None:
            return
        if remote is None:
            remote = await broker.online_elsewhere(self.game.id)
        if remote is not None and remote != self.remote_online:
            self.remote_online = remote
            await self.game.room.presence(self.game.seen())

    async def announce(self) -> None:
        """Tell the other workers that something besides the version changed: they re-read the
        game (the message itself names only the version)."""
        broker = self.game.host.broker
        if broker is not None:
            await broker.publish(self.game.id, self.game.committed)


