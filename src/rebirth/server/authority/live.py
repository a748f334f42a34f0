"""The value the authority of an online game holds (:class:`LiveGame`): the match, its stored row
and its clock, changed only as a whole by a committed change (server/authority/kernel.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rebirth.app.clock import ClockState
from rebirth.app.match import Match, restore
from rebirth.engine.game import Game, Setup
from rebirth.engine.records import Seat
from rebirth.engine.replay import LogEntry, ReplayError, logged
from rebirth.server.persistence.store import GameRow, Step


@dataclass(frozen=True)
class LiveGame:
    """One game as this worker holds it: never edited, replaced by the next committed value."""

    match: Match
    row: GameRow
    clock: ClockState | None = None
    clock_rev: int = 0
    """The stored clock's revision (its conditional write)."""

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def version(self) -> int:
        return self.match.version

    @property
    def lang(self) -> str:
        return self.row.lang

    @property
    def kinds(self) -> list[str]:
        return [s.kind for s in self.match.seats]

    @property
    def over(self) -> bool:
        return self.match.state.is_terminal()

    def clock_frame(self, now: float) -> dict[str, Any] | None:
        """The clock as every frame carries it (None: the game has no clock)."""
        return None if self.clock is None else self.clock.frame(now)

    def with_match(self, match: Match) -> LiveGame:
        """This game with another match (its row's seat kinds and names following the match's)."""
        row = self.row
        kinds = [s.kind for s in match.seats]
        if kinds != row.kinds:
            row = replace(row, kinds=kinds)
        names = [s.name for s in match.seats]
        if names != row.names:  # an open seat taken
            row = replace(row, names=names)
        # The constructor, not dataclasses.replace: this runs once per step.
        return LiveGame(match, row, self.clock, self.clock_rev)

    def with_clock(self, clock: ClockState | None, rev: int) -> LiveGame:
        return replace(self, clock=clock, clock_rev=rev)


def rebuild(game: Game, row: GameRow, log_steps: list[Step]) -> Match:
    """The match of a stored game: its setup and seed, every logged step re-entered by the
    engine's one replay (the chance stream advanced as the live game advanced it)."""
    entries = log_entries(row.id, 0, log_steps)
    seats = [Seat(n, k) for n, k in zip(row.names, row.kinds, strict=True)]
    try:
        return restore(game, Setup.from_json(row.setup), row.seed, entries, seats)
    except ReplayError as exc:
        raise ValueError(f"game {row.id}: {exc}") from exc


def log_entries(game_id: str, version: int, log_steps: list[Step]) -> list[LogEntry]:
    """The stored steps after ``version`` as log entries; raises ValueError on a gap."""
    out: list[LogEntry] = []
    for s in log_steps:
        if s.seq != version + len(out) + 1:
            raise ValueError(f"game {game_id}: the log jumps from version {version + len(out)} to {s.seq}")
        out.append(logged(s.seat, s.text))
    return out
