"""A game's life in memory and the server's own (issue 15 item 6).

- Start: the games with bots are loaded in the background, so the server listens at once and
  the start does not grow with history; every other game is loaded when a device asks for it.
- Idle and finished games leave memory: a game with no socket attached, no running bot loop
  and nobody holding its lock for ``hub_idle`` seconds is dropped from the registry (the store
  has all of it; :meth:`~rebirth.server.play.session.Registry.get` loads it again on demand).
- Shutdown (``SIGTERM``: uvicorn stops accepting and closes the sockets with 1012, "service
  restart", so pages reconnect): each game's step in flight is finished — its lock is taken —
  and only then are the bot loops stopped, all within ``shutdown_grace`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from rebirth.server.clocks.timer import adopt_due

if TYPE_CHECKING:
    from rebirth.server.operations.caps import Caps
    from rebirth.server.play.registry import Registry
    from rebirth.server.play.session import Session as Hub

log = logging.getLogger("rebirth.server.play.lifecycle")



class Lifecycle:
    """The background tasks of one app: the start-up load and the idle sweep."""

    def __init__(self, registry: Registry, caps: Caps) -> None:
        self.registry = registry
        self.caps = caps
        self.idle_since: dict[str, float] = {}
        self._tasks: list[asyncio.Task[None]] = []
        registry.idle = self.idle

    def start(self) -> None:
        """Load the bot games in the background; start the sweep."""
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._load()), loop.create_task(self._sweep_loop())]

    async def _load(self) -> None:
        try:
            await self.registry.load_all()
        except Exception:  # the store is away at start: the next device or version check loads
            log.exception("loading the bot games at start failed")

    def idle(self, hub: Hub) -> bool:
        """Nothing holds the game in memory: no socket attached, no bot stream, no bot loop, its
        lock free."""
        return (not hub.conns and not hub.room.streams and self.caps.attached(hub.id) == 0
                and not hub.lock.locked()
                and (hub.bots.task is None or hub.bots.task.done()))

    def sweep(self, now: float | None = None) -> list[str]:
        """Drop the games idle for ``hub_idle`` seconds; returns their ids."""
        now = time.monotonic() if now is None else now
        limit = self.registry.settings.hub_idle
        hubs = self.registry.hubs
        dropped = []
        for gid, hub in list(hubs.items()):
            if not self.idle(hub):
                self.idle_since.pop(gid, None)
                continue
            since = self.idle_since.setdefault(gid, now)
            if now - since >= limit:
                self.registry.drop(gid)
                self.idle_since.pop(gid, None)
                dropped.append(gid)
        for gid in [g for g in self.idle_since if g not in hubs]:
            del self.idle_since[gid]
        return dropped

    async def _sweep_loop(self) -> None:
        every = max(0.05, min(self.registry.settings.hub_idle / 2, 30.0))
        while True:
            await asyncio.sleep(every)
            try:
                self.sweep()
                # Games out of memory whose running seat ran out of time: load them to act.
                await adopt_due(self.registry.store, self.registry.hubs.__contains__, self.registry.get)
            except Exception:  # a bug here must not stop the server
                log.exception("the idle sweep failed")

    async def drain(self, grace: float) -> None:
        """Shutdown: stop the background tasks, let each game finish its step in flight (take its
        lock), then stop its bot loop; bounded by ``grace`` seconds overall."""
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        deadline = time.monotonic() + grace
        for hub in list(self.registry.hubs.values()):
            left = deadline - time.monotonic()
            try:
                await asyncio.wait_for(self._stop_hub(hub), max(0.01, left))
            except TimeoutError:
                log.warning("game %s: its step in flight did not finish in time", hub.id)

    @staticmethod
    async def _stop_hub(hub: Hub) -> None:
        async with hub.lock:
            # Holding the lock: no step is half-done, and the bot loop cannot start another.
            task = hub.bots.task
            if task is not None and not task.done():
                task.cancel()
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
