"""Game clocks (issue 16 item 1): the pure bookkeeping, with the time passed in.

Two kinds, chosen when a game is created:

* ``realtime``: each seat has a bank (``initial_s``); the seat to move is charged from the moment
  its turn starts, and gets ``increment_s`` added when its turn ends.
* ``turn``: each turn has a deadline, ``per_move_s`` after it started; nothing carries over.

Only human seats run a clock: a bot's turn (a timed-out seat included) stops every clock. A seat
keeps its turn over several steps (a placement and its mark): the clock goes on running and the
increment is added once, when the turn passes to another seat.

Rules the server relies on (docs/protocol.md, "Clocks"):

* ``remaining`` is stored as it was when the running seat's turn (re)started, with ``since``, the
  wall time it started. What is left now is ``remaining[running] - (now - since)``.
* After a restart :meth:`ClockState.resume` sets ``since`` to the restart: the running seat's turn
  restarts counting, so nobody is charged for the server's downtime (nor for the part of the
  turn before it; the other seats' banks are exactly as stored).
* A seat whose time runs out is marked ``timed_out`` (a bot plays it); taking it back gives it at
  least :meth:`ClockSpec.comeback_s`, so it does not run out again at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

TimeSource = Callable[[], float]
"""Wall-clock seconds (``time.time``); tests pass a fake."""

Kind = Literal["realtime", "turn"]

MAX_REALTIME_S = 6 * 3600
"""The largest bank of a real-time clock (6 h)."""
MAX_INCREMENT_S = 3600
"""The largest increment per move (1 h)."""
MAX_PER_MOVE_S = 14 * 86400
"""The longest turn of a turn-based clock (14 days)."""
MAX_ADD_S = 7 * 86400
"""The most time one adjustment may add (7 days)."""
MAX_NOTICES = 64
"""Clock notices kept per game (time-outs, take-backs, adjustments); older ones are dropped."""


@dataclass(frozen=True)
class ClockSpec:
    """The clock chosen for a game."""

    kind: Kind
    initial_s: int = 0
    increment_s: int = 0
    per_move_s: int = 0

    def to_json(self) -> dict[str, Any]:
        if self.kind == "realtime":
            return {"kind": "realtime", "initial_s": self.initial_s, "increment_s": self.increment_s}
        return {"kind": "turn", "per_move_s": self.per_move_s}

    @staticmethod
    def from_json(d: dict[str, Any]) -> ClockSpec:
        if d["kind"] == "realtime":
            return ClockSpec("realtime", int(d["initial_s"]), int(d.get("increment_s", 0)))
        if d["kind"] == "turn":
            return ClockSpec("turn", per_move_s=int(d["per_move_s"]))
        raise ValueError(f"unknown clock kind {d['kind']!r}")

    def problems(self, min_s: float) -> list[tuple[str, float, float]]:
        """The fields out of range as ``(field, lowest, highest)`` (empty: a valid clock)."""
        out: list[tuple[str, float, float]] = []
        if self.kind == "realtime":
            if not min_s <= self.initial_s <= MAX_REALTIME_S:
                out.append(("initial_s", min_s, MAX_REALTIME_S))
            if not 0 <= self.increment_s <= MAX_INCREMENT_S:
                out.append(("increment_s", 0, MAX_INCREMENT_S))
        elif not min_s <= self.per_move_s <= MAX_PER_MOVE_S:
            out.append(("per_move_s", min_s, MAX_PER_MOVE_S))
        return out

    def fresh(self) -> float:
        """A seat's time at the start of the game (realtime) or of each turn (turn-based)."""
        return float(self.initial_s if self.kind == "realtime" else self.per_move_s)

    def comeback_s(self) -> float:
        """The least a seat taken back from the bot gets on a real-time clock: an increment, and at
        least a minute (or the whole bank, if that is shorter)."""
        return float(max(self.increment_s, min(self.initial_s, 60)))


@dataclass
class ClockState:
    """A game's clock between two steps (what the store keeps, what every frame shows)."""

    spec: ClockSpec
    remaining: list[float]
    """Per seat, seconds left when the running seat's turn (re)started (``since``)."""
    running: int | None = None
    """The seat whose time runs (None: a bot's turn, the end, or the clock is off)."""
    since: float = 0.0
    """Wall time the running seat's time started counting."""
    enabled: bool = True
    """False: turned off (WCAG 2.2.1); nobody runs out of time."""
    timed_out: list[bool] = field(default_factory=list)
    """Per seat: its time ran out and a bot plays for it until it takes the seat back."""
    notices: list[dict[str, Any]] = field(default_factory=list)
    """What happened to the clock, for the log: ``{"version", "key", "seat", "s"}`` (public)."""
    vacation: list[float] = field(default_factory=list)
    """Per seat, seconds of vacation left (turn clocks; issue 26 item 3). Used only while the
    seat is away *and* its own clock runs: its turn's time stands still until they are used up."""
    away: list[bool] = field(default_factory=list)
    """Per seat: its player is on vacation."""
    vacation_year: list[int] = field(default_factory=list)
    """Per seat away: the calendar year its account's vacation was reserved from (0: a guest
    seat's own allowance, or not away)."""
    changes: str = "agreement"
    """Who must agree to add time or turn the clock off (issue 26 item 6): ``agreement``:
    every human seat; ``creator``: the game's creator alone."""
    creator: int | None = None
    """The creator's own seat (None: the creator plays no seat, only the admin link speaks
    for them)."""
    proposal: dict[str, Any] | None = None
    """The change proposed and not yet agreed (public): ``{"by": seat-or-null, "add_s"?,
    "off"?, "waiting": [seats still to accept]}``."""

    @staticmethod
    def start(spec: ClockSpec, players: int, vacation_s: float = 0.0, changes: str = "agreement",
              creator: int | None = None) -> ClockState:
        """A new game's clock, not yet running (call :meth:`turn` with the first seat);
        ``vacation_s``: each seat's vacation allowance (turn clocks only); ``changes`` and
        ``creator``: who agrees to its changes."""
        v = float(vacation_s) if spec.kind == "turn" else 0.0
        return ClockState(spec, [spec.fresh()] * players, timed_out=[False] * players,
                          vacation=[v] * players, away=[False] * players, changes=changes,
                          creator=creator)

    # ------------------------------------------------------------------ reading

    def left(self, seat: int, now: float) -> float:
        """Seconds ``seat`` has left at ``now`` (never below 0)."""
        r = self.remaining[seat]
        if seat == self.running:
            r -= self._used(seat, now)[1]
        return max(0.0, r)

    def is_away(self, seat: int) -> bool:
        """The seat's player is on vacation."""
        return 0 <= seat < len(self.away) and self.away[seat]

    def vacation_left(self, seat: int, now: float) -> float:
        """Seconds of vacation ``seat`` has left at ``now``."""
        if not 0 <= seat < len(self.vacation):
            return 0.0
        if seat == self.running:
            return max(0.0, self.vacation[seat] - self._used(seat, now)[0])
        return self.vacation[seat]

    def _used(self, seat: int, now: float) -> tuple[float, float]:
        """``(vacation, clock)`` seconds the running ``seat`` used since ``since``: an away
        seat's vacation goes first."""
        used = max(0.0, now - self.since)
        if not self.is_away(seat):
            return 0.0, used
        v = min(used, self.vacation[seat])
        return v, used - v

    def _charge(self, now: float) -> None:
        """Charge the running seat up to ``now`` (its vacation first) and count on from ``now``."""
        r = self.running
        if r is not None:
            v, used = self._used(r, now)
            if v:
                self.vacation[r] = max(0.0, self.vacation[r] - v)
            self.remaining[r] = max(0.0, self.remaining[r] - used)
        self.since = now

    def deadline(self) -> float | None:
        """Wall time the running seat runs out (None: no clock runs); an away seat's vacation
        left comes first."""
        if self.running is None or not self.enabled:
            return None
        extra = self.vacation[self.running] if self.is_away(self.running) else 0.0
        return self.since + extra + self.remaining[self.running]

    def expired(self, now: float) -> bool:
        """The running seat's time has run out."""
        d = self.deadline()
        return d is not None and now >= d

    # ------------------------------------------------------------------ changing

    def turn(self, seat: int | None, human: bool, now: float) -> None:
        """A step was committed at ``now`` and ``seat`` is to move (None: nobody, the end).

        The running seat is charged up to ``now``; if the turn passes to another seat it gets its
        increment (realtime). The next seat's time runs only if it is a human's (``human``)."""
        r = self.running
        if r is not None:
            self._charge(now)
            if r != seat:
                # The turn passed on: a bank gets its increment, a turn-based clock is full again
                # for the next turn.
                self.remaining[r] = (self.remaining[r] + self.spec.increment_s
                                     if self.spec.kind == "realtime" else self.spec.fresh())
        out = seat is not None and 0 <= seat < len(self.timed_out) and self.timed_out[seat]
        if self.enabled and seat is not None and human and not out:
            if self.spec.kind == "turn" and seat != r:
                self.remaining[seat] = self.spec.fresh()
            self.running = seat
        else:
            self.running = None
        self.since = now

    def time_out(self, version: int) -> int:
        """The running seat ran out: it is marked and stops running; returns the seat."""
        seat = self.running
        if seat is None:
            raise ValueError("no clock is running")
        self.remaining[seat] = 0.0
        self.timed_out[seat] = True
        self.running = None
        self._notice(version, "clock.timeout", seat)
        return seat

    def take_back(self, seat: int, version: int) -> None:
        """A timed-out seat's player is back: the seat is theirs again, with some time."""
        self.timed_out[seat] = False
        if self.spec.kind == "realtime":
            self.remaining[seat] = max(self.remaining[seat], self.spec.comeback_s())
        else:
            self.remaining[seat] = self.spec.fresh()
        self._notice(version, "clock.back", seat)

    def add(self, seconds: float, now: float, version: int) -> None:
        """Every seat gets ``seconds`` more (the running one on the turn it is in)."""
        # Charge up to now first, so the addition is not lost to the time already used.
        self._charge(now)
        self.remaining = [r + seconds for r in self.remaining]
        self._notice(version, "clock.added", None, seconds)

    def turn_off(self, now: float, version: int) -> None:
        """No clock any more: nobody runs out of time (the times shown stop)."""
        self._charge(now)
        self.running = None
        self.enabled = False
        self._notice(version, "clock.off", None)

    def pause(self, seconds: float, now: float, version: int | None = None) -> bool:
        """The server that held the game was down for ``seconds``: the running seat is not
        charged for them (its turn's start moves on, never past ``now``); True when it moved.
        With ``version``, a pause of a second or more is a notice in the game's log."""
        if self.running is None or seconds <= 0:
            return False
        moved = min(now, self.since + seconds) - self.since
        self.since += moved
        if version is not None and moved >= 1.0:
            self._notice(version, "clock.paused", None, round(moved, 1))
        return True

    def go_away(self, seat: int, now: float, version: int) -> None:
        """``seat``'s player goes on vacation: while its own turn runs, its vacation is used
        before its time (a notice in the log, with the vacation left)."""
        if self.running == seat:
            self._charge(now)
        self.away[seat] = True
        self._notice(version, "clock.vacation", seat, round(self.vacation[seat], 1))

    def come_back(self, seat: int, now: float, version: int) -> None:
        """``seat``'s player is back from vacation: its time runs again (a notice in the log)."""
        if self.running == seat:
            self._charge(now)
        self.away[seat] = False
        self._notice(version, "clock.vacation_end", seat, round(self.vacation[seat], 1))

    def decline(self, seat: int | None, version: int) -> None:
        """The proposed change was declined by ``seat`` (None: the admin link): it is dropped,
        with a notice in the log."""
        self.proposal = None
        self._notice(version, "clock.declined", seat)

    def _notice(self, version: int, key: str, seat: int | None, s: float | None = None) -> None:
        n: dict[str, Any] = {"version": version, "key": key, "seat": seat}
        if s is not None:
            n["s"] = s
        self.notices = [*self.notices, n][-MAX_NOTICES:]

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        """The stored form."""
        return {"spec": self.spec.to_json(), "remaining": self.remaining, "running": self.running,
                "since": self.since, "enabled": self.enabled, "timed_out": self.timed_out,
                "notices": self.notices, "vacation": self.vacation, "away": self.away,
                "changes": self.changes, "creator": self.creator, "proposal": self.proposal,
                "vacation_year": self.vacation_year}

    @staticmethod
    def from_json(d: dict[str, Any]) -> ClockState:
        n = len(d["remaining"])
        # Clocks stored before vacations existed: none left, nobody away.
        return ClockState(ClockSpec.from_json(d["spec"]), [float(x) for x in d["remaining"]],
                          d["running"], float(d["since"]), bool(d["enabled"]),
                          [bool(x) for x in d["timed_out"]], list(d.get("notices", [])),
                          [float(x) for x in d.get("vacation", [0.0] * n)],
                          [bool(x) for x in d.get("away", [False] * n)],
                          # Clocks stored before agreements existed: every human agrees.
                          [int(x) for x in d.get("vacation_year", [0] * n)],
                          str(d.get("changes", "agreement")), d.get("creator"), d.get("proposal"))

    def frame(self, now: float) -> dict[str, Any]:
        """What every seat and spectator is shown: the times left now, who runs, the server's
        time (the page counts down from it but never decides). Public: no secret in it."""
        return {**self.spec.to_json(), "enabled": self.enabled, "running": self.running,
                "left": [round(self.left(i, now), 3) for i in range(len(self.remaining))],
                "deadline": self.deadline(), "server_time": now, "timed_out": list(self.timed_out),
                "notices": list(self.notices),
                "vacation": [round(self.vacation_left(i, now), 3) for i in range(len(self.vacation))],
                "away": list(self.away), "changes": self.changes, "creator": self.creator,
                "proposal": None if self.proposal is None else dict(self.proposal)}
