"""The narrow view of one online game that its features get (bots, chat and rematch, the
clock's REST): what they may read and the one way they may change it. They hold this, never the
session or the registry, so no import runs back up to them."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

from rebirth.app.clock import ClockSpec
from rebirth.app.match import Match
from rebirth.engine.game import Game
from rebirth.server.authority.kernel import Change, Committed
from rebirth.server.authority.live import LiveGame
from rebirth.server.metrics import Metrics
from rebirth.server.persistence.store import GameRow, Store, TurnNotice
from rebirth.server.realtime.room import Room
from rebirth.server.settings import Settings

if TYPE_CHECKING:
    from rebirth.server.realtime.broker import Broker


class HostPort(Protocol):
    """What the registry offers each game's features."""

    store: Store
    settings: Settings
    metrics: Metrics
    broker: Broker | None
    bot_thinks: int
    bot_steps: int

    def turn_notice(self, game_id: str, after: LiveGame) -> TurnNotice | None:
        """The turn notification a step leading to ``after`` starts (written with it)."""
        ...

    def chatted(self, game_id: str, seat: int, seq: int) -> None:
        """A player's chat message ``seq`` was stored (the other seats' pushes: notifications/push.py)."""
        ...

    def new_seed(self) -> int | None:
        """The seed of a new game (None: secret bits drawn by the match)."""
        ...

    async def spawn(self, row: GameRow, match: Match, clock: ClockSpec | None,
                    agree: tuple[str, int | None] = ("agreement", None)) -> None:
        """A game just stored by a feature (a rematch): in memory here, its clock and bots started."""
        ...


class GamePort(Protocol):
    """One game, as its features see it."""

    id: str
    game: Game
    notified: tuple[TurnNotice, int] | None
    """The turn notification the last step wrote with it, and the outbox rows that were new."""
    lock: asyncio.Lock
    room: Room

    @property
    def host(self) -> HostPort: ...

    @property
    def value(self) -> LiveGame: ...

    @property
    def committed(self) -> int: ...

    @property
    def multi(self) -> bool: ...

    async def commit(self, change: Change[LiveGame]) -> Committed[LiveGame]:
        """The one commit path (hold :attr:`lock`)."""
        ...

    async def catch_up(self, strict: bool = True) -> bool:
        """Read back what other workers stored (hold :attr:`lock`)."""
        ...

    async def announce(self) -> None:
        """Tell the other workers to re-read the game."""
        ...
