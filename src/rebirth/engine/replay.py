"""The one replay of a logged game: records, the server's restart, the table companion and
the terminal's resume all re-enter a log through :func:`replay_log`.

A log is a list of typed entries: a seat's action (:class:`ActionEntry`) or a chance
outcome (:class:`ChanceEntry`, e.g. ``reveal S2`` after the action that caused it, I-7).
Every entry is checked by the engine as it is applied. The RNG is part of the replay:
the authority draws each chance outcome with one call of the state's chance stream
(:func:`draw_chance`); the replay applies the logged outcome and advances that stream by
the same one call, so a resumed or restarted game goes on with exactly the chance the
uninterrupted game would have drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from rebirth.engine.actions import ActionError
from rebirth.engine.codec import ActionCodec
from rebirth.engine.events import Event
from rebirth.engine.state import State


class Replayable(Protocol):
    """What a log replays into: an engine :class:`~rebirth.engine.state.State`, or a table
    game (:class:`~rebirth.engine.table.TableGame`, which holds one)."""

    @property
    def current_player(self) -> int: ...

    def is_chance_node(self) -> bool: ...

    def is_terminal(self) -> bool: ...

    def apply(self, action: Any) -> list[Event]: ...

    def history_json(self) -> list[dict[str, Any]]: ...


S = TypeVar("S", bound=Replayable)


@dataclass(frozen=True)
class ActionEntry:
    """A seat's logged action, in the game's text form (``H12``, ``mark I03``, ``S3@H7``)."""

    seat: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "action": self.text}


@dataclass(frozen=True)
class ChanceEntry:
    """A logged chance outcome (``reveal S2``; at the table also ``token ID`` / ``card ID``)."""

    text: str

    def to_json(self) -> dict[str, Any]:
        return {"chance": self.text}


LogEntry = ActionEntry | ChanceEntry


def logged(seat: int | None, text: str) -> LogEntry:
    """The entry of a stored step: a seat's action, or (seat None) a chance outcome."""
    return ChanceEntry(text) if seat is None else ActionEntry(seat, text)


def entry_from_json(data: dict[str, Any]) -> LogEntry:
    """The entry of a record's ``actions`` item (already checked by the record schema)."""
    if "chance" in data:
        return ChanceEntry(str(data["chance"]))
    return ActionEntry(int(data["seat"]), str(data["action"]))


def log_of(state: Replayable) -> list[LogEntry]:
    """The log of a state so far (its ``history_json``) as entries."""
    return [entry_from_json(e) for e in state.history_json()]


@dataclass(frozen=True)
class ReplayedStep:
    """One re-entered entry: its place in the log (0-based), the entry and its events."""

    index: int
    entry: LogEntry
    events: list[Event]


NO_CHANCE = "no_chance"
"""A chance entry where no outcome is pending."""
CHANCE_MISSING = "chance_missing"
"""An action entry while a chance outcome is pending."""
GAME_OVER = "game_over"
"""An entry after the end of the game."""
WRONG_SEAT = "wrong_seat"
"""An action logged for a seat that is not to act."""
REFUSED = "refused"
"""The engine refused the entry (``cause`` says why)."""


class ReplayError(ValueError):
    """A log entry that does not replay; nothing after it was applied.

    ``reason`` is one of the constants above, ``index`` the entry's place in the log (0-based),
    ``to_act`` the seat to act then, ``cause`` the engine's refusal (for REFUSED). Callers turn
    it into their own message (records, table records, the server's log).
    """

    def __init__(self, reason: str, index: int, entry: LogEntry, to_act: int,
                 cause: ActionError | None = None) -> None:
        what = {NO_CHANCE: "no chance outcome is pending here",
                CHANCE_MISSING: "a chance outcome is missing before it",
                GAME_OVER: "the game is already over",
                WRONG_SEAT: f"logged for seat {getattr(entry, 'seat', None)}, "
                            f"but seat {to_act} is to act",
                REFUSED: str(cause)}[reason]
        super().__init__(f"log entry #{index + 1} ({entry.text}): {what}")
        self.reason = reason
        self.index = index
        self.entry = entry
        self.to_act = to_act
        self.cause = cause


def draw_chance(state: State) -> int:
    """The authority's draw of the pending chance outcome: one call of the state's chance
    stream (``State.sample_chance`` draws with one ``rng.random()``)."""
    return state.sample_chance(state.rng)


def skip_chance(state: State) -> None:
    """Advance the chance stream past one logged outcome, as :func:`draw_chance` did."""
    state.rng.random()


def apply_reveal(state: State, text: str) -> list[Event]:
    """Apply a logged chance text of a normal game (``reveal S2``) and advance the chance
    stream past it, as the authority's draw did."""
    events = state.apply_chance(ActionCodec.parse_chance(text))
    skip_chance(state)
    return events


def replay_log(state: S, log: Iterable[LogEntry], *,
               before_step: Callable[[int, LogEntry], None] | None = None,
               on_step: Callable[[ReplayedStep], None] | None = None,
               apply_chance: Callable[[S, str], list[Event]] | None = None) -> S:
    """Re-enter ``log`` into ``state`` (a fresh state from the game's setup and seed),
    checking every entry; returns the state. Raises :class:`ReplayError` at the first
    entry that does not replay.

    ``before_step`` is told each entry (with its index) just before it is applied, while
    ``state`` is still the position it was made in (the analysis looks there); ``on_step``
    is told each entry with its events once it is applied. ``apply_chance``
    applies a chance text; it is required unless ``state`` is an engine State (then a
    normal game's ``reveal T``, advancing the chance stream); the table mode passes its own,
    which also takes entered tokens and cards (a table has no chance stream).
    """
    if apply_chance is not None:
        chance: Callable[[Any, str], list[Event]] = apply_chance
    elif isinstance(state, State):
        chance = apply_reveal
    else:
        raise TypeError("replay_log: apply_chance is required for a state that is not a State")
    for i, entry in enumerate(log):
        if before_step is not None:
            before_step(i, entry)
        if isinstance(entry, ChanceEntry):
            if not state.is_chance_node():
                raise ReplayError(NO_CHANCE, i, entry, state.current_player)
            try:
                events = chance(state, entry.text)
            except ActionError as exc:
                raise ReplayError(REFUSED, i, entry, state.current_player, exc) from exc
        else:
            if state.is_terminal():
                raise ReplayError(GAME_OVER, i, entry, state.current_player)
            if state.is_chance_node():
                raise ReplayError(CHANCE_MISSING, i, entry, state.current_player)
            if entry.seat != state.current_player:
                raise ReplayError(WRONG_SEAT, i, entry, state.current_player)
            try:
                events = state.apply(entry.text)
            except ActionError as exc:
                raise ReplayError(REFUSED, i, entry, state.current_player, exc) from exc
        if on_step is not None:
            on_step(ReplayedStep(i, entry, events))
    return state


__all__ = [
    "CHANCE_MISSING",
    "GAME_OVER",
    "NO_CHANCE",
    "REFUSED",
    "WRONG_SEAT",
    "ActionEntry",
    "ChanceEntry",
    "LogEntry",
    "ReplayError",
    "Replayable",
    "ReplayedStep",
    "apply_reveal",
    "draw_chance",
    "entry_from_json",
    "log_of",
    "logged",
    "replay_log",
    "skip_chance",
]
