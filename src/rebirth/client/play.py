"""A whole game at a remote seat: read the stream, move when the seat is to move, return the
result (docs/bot-api.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rebirth.client.policy import Policy
from rebirth.client.remote import LineHandler, MoveRefused, RemoteSeat

RETRYABLE = ("stale", "stale_version", "not_your_turn")
"""Refusals that only mean the game moved on meanwhile: the next line tells what to do."""


@dataclass
class Result:
    """How the game ended for the seat."""

    game: str
    seat: int
    scores: list[int]
    winners: list[int]
    moves: int
    reconnects: int
    lines: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def won(self) -> bool:
        return self.seat in self.winners

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "seat": self.seat, "scores": self.scores, "winners": self.winners,
                "won": self.won, "moves": self.moves, "reconnects": self.reconnects}


def play(seat: RemoteSeat, policy: Policy, on_line: LineHandler | None = None) -> Result:
    """Play the seat to the end of the game with ``policy``."""
    me = -1
    moves = lines = 0
    acted: set[int] = set()
    for line in seat.lines():
        lines += 1
        if on_line is not None:
            on_line(line)
        if line["type"] == "over":
            return Result(seat.game, me, list(line["scores"]), list(line["winners"]), moves, seat.reconnects,
                          lines)
        me = int(line["seat"])
        version = int(line["version"])
        if not line["legal"] or version in acted:
            continue
        action = policy.choose(line)
        try:
            seat.move(action, version)
            moves += 1
            acted.add(version)
        except MoveRefused as exc:
            if exc.code not in RETRYABLE:
                raise
    raise AssertionError("the stream ended without an over line")  # pragma: no cover
