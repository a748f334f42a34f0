"""One commit path (issue 24 item 1): a change is *proposed* on the current value (a new value
worked out on a copy; the current one untouched), *written* to the store, then *accepted* (the
new value swapped in) and *published* to the listeners as one :class:`Committed` event.

A refused proposal or a failed write changes nothing in memory: the value is swapped only after
the write returned. Every mover (a human's step, a bot's, a clock's time-out, a seat handed to a
bot, another worker's steps read back, a table entry) is a :class:`Change` through
:meth:`Authority.commit`; there is no other way to change the value (:attr:`Authority.value` has
no setter, and tests/server/test_commit_path.py scans the server for a second one).

The listeners (the sockets' room, the broker, the clock's timer, the notifier, metrics, the
bots) hear every committed value in order, under the authority's lock, whatever path brought it:
they deliver by version, so nobody misses one because another path got there first.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

log = logging.getLogger("rebirth.server")

V = TypeVar("V")


class Unchanged(Exception):
    """A change found nothing to do (proposed the value it was given); nothing is written."""


class WriteFailed(Exception):
    """The store could not take a change (full, read-only, unreachable): nothing changed."""


class Change(Protocol[V]):
    """One proposed change: its kind (``human``, ``bot``, ``follow``, ``seat``, ``clock``,
    ``entry``…), the value it leads to and how it is written."""

    @property
    def kind(self) -> str: ...

    def propose(self, current: V) -> V:
        """The value after the change, worked out on a copy (``current`` untouched); raises a
        refusal (or :class:`Unchanged`) and then nothing happens."""
        ...

    async def write(self, before: V, after: V) -> None:
        """Store the change (conditionally on ``before``); raises when the store refuses it."""
        ...


@dataclass(frozen=True)
class Committed(Generic[V]):
    """A change that is stored and now holds: what every listener hears."""

    kind: str
    before: V
    after: V


Listener = Callable[[Committed[V]], Awaitable[None] | None]
"""Hears each committed value, in order, under the authority's lock (a coroutine is awaited)."""


class Authority(Generic[V]):
    """The single writer of one value (a game on this worker, a table): its lock, the current
    value and the listeners of what is committed."""

    def __init__(self, value: V, name: str = "") -> None:
        self._value = value
        self.name = name
        self.lock = asyncio.Lock()
        """Held around every read-then-commit; :meth:`commit` refuses to run without it."""
        self._listeners: list[Listener[V]] = []

    @property
    def value(self) -> V:
        """The committed value (read only: it changes through :meth:`commit` alone)."""
        return self._value

    def listen(self, listener: Listener[V]) -> None:
        """Add a listener of committed values (called in the order they were added)."""
        self._listeners.append(listener)

    async def commit(self, change: Change[V]) -> Committed[V]:
        """Propose, write, accept, publish. Raises the proposal's refusal, :class:`Unchanged`,
        or what the write raised; in every such case the value is the one before."""
        if not self.lock.locked():
            raise RuntimeError(f"{self.name}: commit outside the authority's lock")
        before = self._value
        after = change.propose(before)
        if after is before:
            raise Unchanged(change.kind)
        await change.write(before, after)
        # Accepted: from here on the change holds, whatever a listener does.
        self._value = after
        event = Committed(change.kind, before, after)
        # Every listener in order; one failing must not undo the change or silence the others.
        for listener in self._listeners:
            try:
                out = listener(event)
                if out is not None:
                    await out
            except Exception:
                log.exception("%s: a listener of a %s change failed", self.name, event.kind)
        return event


@dataclass(frozen=True)
class Replace(Generic[V]):
    """A value read whole from the store (a rebuild, another worker's change read back): it is
    stored already, so writing it is nothing."""

    value: V
    kind: str = "follow"

    def propose(self, current: V) -> V:
        return self.value

    async def write(self, before: V, after: V) -> None:
        return None

