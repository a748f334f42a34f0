"""What a delivery channel (push, reminders) needs of the notifier that owns the outbox: a
narrow protocol, so the channels sit below the notifier and never import it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol

from rebirth.engine.i18n import same_text
from rebirth.server.persistence.outbox import Job, Outbox
from rebirth.server.persistence.store import GameRow, Store

if TYPE_CHECKING:
    from rebirth.server.play.registry import Registry


class Owner(Protocol):
    """The notifier as its channels see it."""

    store: Store
    outbox: Outbox
    registry: Registry | None
    pool: ThreadPoolExecutor
    delivered: int

    def wake(self) -> None:
        """Look at the outbox now."""

    async def failed(self, job: Job, exc: Exception) -> None:
        """Retry ``job`` with the backoff, or give it up."""

    async def stale(self, job: Job, row: GameRow) -> bool:
        """Whether ``job`` no longer describes the game (marked so when it does not)."""


def board_name(board: str) -> dict[str, str]:
    """The board's name in every language (the map file's), or its id."""
    from rebirth.server.pages.data import data_json  # the shipped maps

    try:
        name = data_json("maps", board).get("name")
    except Exception:
        name = None
    return name if isinstance(name, dict) else same_text(board)
