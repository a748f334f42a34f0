"""A game's clock timer: a listener of committed values (server/authority/kernel.py) that arms
a timer for the running seat's deadline and, when it passes, asks for the time-out through a
callback — it holds no game object, only what it is given."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from rebirth.server.authority.kernel import Committed
from rebirth.server.authority.live import LiveGame
from rebirth.server.clocks.changes import now
from rebirth.server.persistence import clocks as clockstore
from rebirth.server.persistence.store import Store

log = logging.getLogger("rebirth.server")

SLACK = 0.05
"""Seconds the timer fires after the deadline, so the deadline has surely passed."""

RETRY_S = 1.0
"""Seconds before a time-out that failed (the database away) is tried again."""


class ClockTimer:
    """Arms one timer per game for its running deadline; ``expire`` is the game's time-out
    (a commit of :class:`~rebirth.server.clocks.changes.TimeOut`), called on the loop."""

    def __init__(self, expire: Callable[[], Awaitable[bool]]) -> None:
        self._expire = expire
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self.timeouts = 0
        """Time-outs this worker stored (a test checks that of several workers one does each)."""

    def committed(self, event: Committed[LiveGame]) -> None:
        """A listener: every committed value re-arms the timer for its deadline."""
        self.arm(event.after)

    def arm(self, game: LiveGame) -> None:
        """(Re)arm the timer for ``game``'s running deadline (none: no timer)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        d = None if game.clock is None or game.over else game.clock.deadline()
        if d is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # built off the loop: armed again on the loop
            return
        self._timer = loop.call_later(max(0.0, d - now()) + SLACK, self._fire)

    def _fire(self) -> None:
        self._timer = None
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.expire())

    async def expire(self) -> None:
        """The deadline passed: the game's time-out (once, whichever worker gets there first)."""
        try:
            if await self._expire():
                self.timeouts += 1
        except Exception:  # the database is away: try again shortly
            log.exception("a clock's time-out failed")
            self._timer = asyncio.get_running_loop().call_later(RETRY_S, self._fire)

    def close(self) -> None:
        """The game leaves memory or the server stops: no timer fires any more."""
        if self._timer is not None:
            self._timer.cancel()
        if self._task is not None:
            self._task.cancel()


async def resume_all(store: Store) -> None:
    """On start: running clocks restart counting now (no one pays for the downtime)."""
    n = await asyncio.to_thread(clockstore.resume_all, store, now())
    if n:
        log.info("%d running clocks resumed from the restart", n)


async def adopt_due(store: Store, held: Callable[[str], bool],
                    load: Callable[[str], Awaitable[object]]) -> None:
    """Several workers: load the games whose running seat has run out and that no worker holds
    in memory (``held``: this one does), so their time-out happens (the conditional write
    keeps it to one)."""
    for gid in await asyncio.to_thread(clockstore.due, store, now()):
        if held(gid):
            continue
        with contextlib.suppress(Exception):
            await load(gid)
