"""The authority: one game between seats (humans and bots), applying actions and
handing each seat only its view. Terminal, arena and a future server all use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rebirth.bots.base import Bot, make_bot
from rebirth.engine.events import Event
from rebirth.engine.game import Game
from rebirth.engine.records import Seat, make_record
from rebirth.engine.state import State
from rebirth.engine.views import View

HUMAN = "human"


@dataclass
class Match:
    """A running game: the state stays here, seats get views."""

    game: Game
    seats: list[Seat]
    seed: int | None
    state: State
    bots: dict[int, Bot] = field(default_factory=dict)
    log: list[Event] = field(default_factory=list)

    @staticmethod
    def start(game: Game, kinds: list[str], seed: int | None = None,
              names: list[str] | None = None, start_player: int | None = None) -> Match:
        """Deal a game from ``seed``; ``kinds`` is one seat kind per player (``human`` or a bot)."""
        if len(kinds) != game.players:
            raise ValueError(f"{game.players} players need {game.players} seats, got {len(kinds)}")
        bots: dict[int, Bot] = {}
        for i, k in enumerate(kinds):
            if k.strip().lower() != HUMAN:
                # Each bot gets its own stream, derived from the game seed and its seat.
                bots[i] = make_bot(k, game, i, None if seed is None else seed * 1009 + i)
        names = names or [
            (f"Player {i + 1}" if k == HUMAN else f"{k.capitalize()} {i + 1}")
            for i, k in enumerate(kinds)
        ]
        state = game.new_state(seed, start_player=start_player)
        return Match(game, [Seat(n, k) for n, k in zip(names, kinds, strict=True)], seed, state,
                     bots)

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def view(self, seat: int | None) -> View:
        return self.state.view(seat)

    def to_move(self) -> int:
        return self.state.current_player

    def is_human_turn(self) -> bool:
        p = self.state.current_player
        return p >= 0 and p not in self.bots

    def submit(self, seat: int, action: str) -> list[Event]:
        """Apply ``seat``'s action (checked); raises ActionError and changes nothing if refused."""
        if seat != self.state.current_player:
            from rebirth.engine.actions import IllegalActionError

            raise IllegalActionError(f"it is not seat {seat + 1}'s turn",
                                     f"Platz {seat + 1} ist nicht am Zug")
        events = self.state.apply(action)
        self.log.extend(events)
        return events

    def step_bot(self) -> list[Event]:
        """Let the bot to move act once."""
        p = self.state.current_player
        bot = self.bots[p]
        return self.submit(p, bot.act(self.state.view(p)))

    def run_bots(self) -> list[Event]:
        """Let bots act until a human must act or the game ends."""
        out: list[Event] = []
        while not self.state.is_terminal() and not self.is_human_turn():
            out.extend(self.step_bot())
        return out

    def record(self) -> dict[str, Any]:
        return make_record(self.state, self.seats, self.seed)

    def snapshot(self) -> dict[str, Any]:
        """The authority's complete record (hidden setup and seed included): for saving, never for a seat."""
        return make_record(self.state, self.seats, self.seed)
