"""A game's bots on the server: they think in a worker thread (``asyncio.to_thread``) after a
short visible pause, outside the game's lock, and their steps go through the one commit path
like a human's (server/play/changes.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time

from rebirth.server.authority.kernel import Unchanged
from rebirth.server.authority.ports import GamePort
from rebirth.server.persistence.store import StaleWrite
from rebirth.server.play.changes import StepChange

log = logging.getLogger("rebirth.server")

RETRY_MIN = 0.5
"""Seconds before the first retry of a step that could not be stored."""


def retry_delay(failures: int, cap: float) -> float:
    """The pause before retry number ``failures`` (1-based): doubling from :data:`RETRY_MIN` up to
    ``cap``, with jitter so that many games do not hit a recovering store at once."""
    base = min(cap, RETRY_MIN * 2.0 ** min(failures - 1, 30))
    return base * (0.75 + random.random() / 2)


class BotDriver:
    """Lets a game's bots move while a bot is to move (one loop per game)."""

    def __init__(self, game: GamePort) -> None:
        self.game = game
        self.task: asyncio.Task[None] | None = None

    def kick(self) -> None:
        """Start the bot loop if a bot is to move."""
        m = self.game.value.match
        if m.state.is_terminal() or m.is_human_turn():
            return
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        # Several workers: only the one holding the game's bot lock lets its bots think, so
        # each bot step is thought once (the conditional write would refuse a second anyway).
        # The lock goes with a killed worker's connection; the others' version check then kicks
        # the bots again.
        g = self.game
        store = g.host.store
        held = False
        if g.multi:
            try:
                held = await asyncio.to_thread(store.try_bot_lock, g.id)
            except Exception:
                log.exception("game %s: the bot lock could not be taken", g.id)
                return
            if not held:
                return
        try:
            await self._loop()
        finally:
            if held:
                with contextlib.suppress(Exception):
                    await asyncio.shield(asyncio.to_thread(store.release_bot_lock, g.id))

    async def _loop(self) -> None:
        g = self.game
        host = g.host
        metrics = host.metrics
        failures = 0
        while True:
            m = g.value.match
            if m.state.is_terminal() or m.is_human_turn():
                return
            await asyncio.sleep(host.settings.bot_delay)
            if g.multi:
                async with g.lock:
                    await g.catch_up(strict=False)
            m = g.value.match
            if m.state.is_terminal() or m.is_human_turn():
                return
            p, version = m.state.current_player, m.version
            start = time.perf_counter()
            # Thought outside the lock, on the committed match (a value: nothing changes it).
            with metrics.timed(metrics.bot_think_seconds):
                action = await asyncio.to_thread(m.bots[p].act, m.view(p))
            host.bot_thinks += 1
            try:
                async with g.lock:
                    if g.committed != version:
                        continue  # something else moved the game meanwhile: think again
                    await g.commit(StepChange(g, p, action, version, "bot"))
            except (StaleWrite, Unchanged):
                continue
            except Exception:
                # Storage is away (full, read-only, unreachable): try again with backoff, for
                # as long as it takes — the game resumes by itself once storage works again.
                failures += 1
                wait = retry_delay(failures, host.settings.bot_retry_max)
                log.warning("game %s: storing a bot step failed (%d in a row); retrying in %.1f s",
                            g.id, failures, wait)
                await asyncio.sleep(wait)
                continue
            host.bot_steps += 1
            metrics.action_seconds.labels("bot").observe(time.perf_counter() - start)
            failures = 0
