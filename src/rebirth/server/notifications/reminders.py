"""Deadline reminders of turn clocks (issue 26 item 3): a seat whose turn runs is reminded
``REBIRTH_REMINDERS`` seconds before its deadline (by default 24 h, 4 h and 1 h), each once per
turn, on every channel it chose — through the outbox, whose key (game, version, seat, channel,
kind ``reminder-<seconds>``) makes each one a single row whoever enqueues it.

Only thresholds shorter than the turn are used (a 12-hour turn: 4 h and 1 h). A reminder is
enqueued with the deadline known at the turn's start; when it falls due the stored clock is
read again: a deadline that moved (a vacation, time added) postpones it, a turn that is over or
a clock that stopped drops it.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from rebirth.app.clock import ClockState
from rebirth.server.clocks.changes import now as wall_now
from rebirth.server.notifications.channel import Owner
from rebirth.server.persistence import clocks as clockstore
from rebirth.server.persistence.outbox import Job
from rebirth.server.settings import Settings

PREFIX = "reminder-"
"""A reminder row's kind: ``reminder-<seconds before the deadline>``."""

SLACK_S = 1.0
"""A reminder due within this much is sent now (the clocks of two workers differ a little)."""


def thresholds(settings: Settings) -> list[int]:
    """The configured thresholds in seconds, longest first (bad entries are ignored)."""
    out: set[int] = set()
    for part in settings.reminders.split(","):
        part = part.strip()
        if part.isdigit() and int(part) > 0:
            out.add(int(part))
    return sorted(out, reverse=True)


def reminder_times(clock: ClockState | None, settings: Settings) -> list[tuple[str, float]]:
    """``(kind, due)`` of each reminder of the running seat's turn (none: no turn clock runs)."""
    if clock is None or clock.spec.kind != "turn":
        return []
    deadline = clock.deadline()
    if deadline is None:
        return []
    return [(f"{PREFIX}{t}", deadline - t) for t in thresholds(settings) if t < clock.spec.per_move_s]


def before_s(kind: str) -> int | None:
    """The seconds before the deadline of a reminder row's kind (None: not a threshold reminder)."""
    if not kind.startswith(PREFIX):
        return None
    tail = kind[len(PREFIX):]
    return int(tail) if tail.isdigit() else None


async def _clock(notifier: Owner, game: str) -> ClockState | None:
    reg = notifier.registry
    held = None if reg is None else reg.hubs.get(game)
    if held is not None:
        return held.value.clock
    got = await asyncio.to_thread(clockstore.load, notifier.store, game)
    return None if got is None else got[0]


async def judge(notifier: Owner, job: Job) -> float | Literal["send", "drop"]:
    """A due reminder against the clock as it is now (the server's wall clock, the clocks'
    own): ``send``, ``drop`` (no clock runs for that seat any more), or the later time it is
    due at (the deadline moved)."""
    now = wall_now()
    s = before_s(job.kind)
    if s is None:
        return "send"
    clock = await _clock(notifier, job.game)
    if clock is None or clock.running != job.seat:
        return "drop"
    deadline = clock.deadline()
    if deadline is None:
        return "drop"
    due = deadline - s
    return due if due > now + SLACK_S else "send"
