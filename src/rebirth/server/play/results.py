"""The end of a game: its seats leave the vacation periods they were away in (issue 26 item 3),
its final result is stored, then the game rated (issue 25 items 3 and 4).

The registry's commit hook (:attr:`Registry.on_commit`) runs after each committed step and
when a game is loaded. For a game that is over it starts, off the event loop, the store's
:func:`~rebirth.server.persistence.ratings.record_result` and
:func:`~rebirth.server.persistence.ratings.rate_game`; both are idempotent across workers
(primary keys decide), so a game loaded again later, or seen ending by two workers, changes
nothing the second time — and a worker that died between the last step and the rating leaves
it to the next load of the game.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from rebirth.server.persistence import ratings as store_ratings
from rebirth.server.persistence import vacation
from rebirth.server.persistence.store import Store

if TYPE_CHECKING:
    from rebirth.server.play.registry import Registry
    from rebirth.server.play.session import Session

log = logging.getLogger("rebirth.server.results")


class Results:
    """The end-of-game work of one worker."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.pending: dict[str, asyncio.Task[None]] = {}
        """Games whose end is being recorded here now (one task per game)."""
        self.rated: list[str] = []
        """Games this worker rated (tests read it)."""

    def after_commit(self, session: Session) -> None:
        """The hook: a game that is over gets its result stored and is rated (off the loop)."""
        value = session.value
        if not value.over or session.id in self.pending:
            return
        st = value.match.state
        res = store_ratings.FinalResult(session.id, value.row.board, st.n, tuple(st.score),
                                        tuple(st.winners))
        task = asyncio.get_running_loop().create_task(self._finish(res))
        self.pending[session.id] = task
        task.add_done_callback(lambda _t: self.pending.pop(res.game, None))

    async def _finish(self, res: store_ratings.FinalResult) -> None:
        try:
            # Seats away on vacation in it leave their account's period (the last closes it).
            await asyncio.to_thread(vacation.game_over, self.store, res.game, time.time())
            await asyncio.to_thread(store_ratings.record_result, self.store, res)
            rated = await asyncio.to_thread(store_ratings.rate_game, self.store, res.game)
            if rated:
                self.rated.append(res.game)
                log.info("game %s rated: %d accounts", res.game, len(rated))
        except Exception:  # the game stays over and unrated; its next load tries again
            log.exception("game %s: storing its result or its rating failed", res.game)

    async def close(self) -> None:
        """Let the end-of-game work under way finish (shutdown)."""
        tasks = list(self.pending.values())
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


def attach(registry: Registry) -> Results:
    """Hook the end of games of ``registry``'s games."""
    results = Results(registry.store)
    registry.on_commit.append(results.after_commit)
    return results
