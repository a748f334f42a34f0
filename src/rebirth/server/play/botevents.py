"""What bot accounts are told, on this worker (issue 27 item 2; docs/bot-api.md "Events").

The events are rows of the database (server/persistence/botaccounts.py ``bot_events``); an
events stream reads those after the last one it sent. It is woken at once by an event written
on this worker, by a Redis notice of one written on another (lossy, as the games' notices:
server/realtime/broker.py) and, whatever was lost, by its periodic look every
``bot_events_poll_s`` seconds.

The end of a game with a bot account's seat is told once (``gameFinish``) from the registry's
commit hook, as the results are stored (server/play/results.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from rebirth.server.persistence import botaccounts as ba
from rebirth.server.persistence.store import Store

if TYPE_CHECKING:
    from rebirth.server.play.registry import Registry
    from rebirth.server.play.session import Session

log = logging.getLogger("rebirth.server.botevents")


class BotEvents:
    """The bot accounts' event streams of this worker: who waits, and the wake-ups."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.store: Store = registry.store
        self._waiting: dict[str, set[asyncio.Event]] = {}
        self._finishing: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.told: list[str] = []
        """Games whose end this worker told bots of (tests read it)."""
        if registry.broker is not None:
            registry.broker.on_bot = self._notice

    # ------------------------------------------------------------------ waking streams

    def listen(self, account: str) -> asyncio.Event:
        """An event set whenever ``account`` may have a new event (pass it to :meth:`leave`)."""
        ev = asyncio.Event()
        self._waiting.setdefault(account, set()).add(ev)
        return ev

    def leave(self, account: str, ev: asyncio.Event) -> None:
        waiters = self._waiting.get(account)
        if waiters is not None:
            waiters.discard(ev)
            if not waiters:
                del self._waiting[account]

    def _notice(self, account: str, _seq: int) -> None:
        for ev in self._waiting.get(account, ()):
            ev.set()

    async def wrote(self, account: str) -> None:
        """An event of ``account`` was committed here: wake its streams here and elsewhere."""
        self._notice(account, 0)
        broker = self.registry.broker
        if broker is not None:
            with contextlib.suppress(Exception):  # lossy: the periodic look heals it
                seq = await asyncio.to_thread(ba.last_event, self.store, account)
                await broker.publish_bot(account, seq)

    # ------------------------------------------------------------------ game ends

    def after_commit(self, session: Session) -> None:
        """The registry's hook: a game that is over tells its bot accounts (once, off the loop)."""
        value = session.value
        if not value.over or session.id in self._finishing:
            return
        self._finishing.add(session.id)
        st = value.match.state
        task = asyncio.get_running_loop().create_task(
            self._finish(session.id, [int(x) for x in st.score], [int(w) for w in st.winners]))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _finish(self, game: str, scores: list[int], winners: list[int]) -> None:
        try:
            told = await asyncio.to_thread(ba.game_finished, self.store, game, scores, winners)
            if told:
                self.told.append(game)
            for account in told:
                await self.wrote(account)
        except Exception:  # the game's next load tries again (the event's key keeps it once)
            self._finishing.discard(game)
            log.exception("game %s: telling its bots of its end failed", game)

    async def close(self) -> None:
        """Let the work under way finish (shutdown)."""
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


def attach(registry: Registry) -> BotEvents:
    """Hook the end of games of ``registry``'s games (after :meth:`Registry.start_workers`)."""
    events = BotEvents(registry)
    registry.on_commit.append(events.after_commit)
    return events
