"""The stored clocks (migration ``0006_clocks``): one row per game with a clock.

A clock moves with every committed step, in the step's own transaction (:func:`write_in`, passed
to :meth:`Store.append`), so a restarted server finds exactly the times of the last step a player
saw. Everything that changes a clock between steps (a time-out, a take-back, an adjustment) is a
conditional write on the clock's ``rev`` and the game's version (:func:`change`): of several
workers that try the same time-out, exactly one wins.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from sqlalchemy import (
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
    insert,
    select,
    text,
    update,
)

from rebirth.app.clock import ClockState
from rebirth.server.persistence.store import StaleWrite, Store, game_lock_key, games, metadata, seats

clocks = Table(
    "clocks", metadata,
    Column("game", String(32), ForeignKey("games.id"), primary_key=True),
    Column("state", Text, nullable=False),  # ClockState.to_json()
    Column("rev", Integer, nullable=False),  # the clock's writes so far
    Column("deadline", Float, nullable=True, index=True),  # when the running seat runs out (None: none runs)
)


def create(store: Store, game: str, state: ClockState) -> None:
    """A new game's clock (rev 0)."""
    with store.tx() as c:
        c.execute(insert(clocks).values(game=game, state=json.dumps(state.to_json()), rev=0,
                                        deadline=state.deadline()))


def load(store: Store, game: str) -> tuple[ClockState, int] | None:
    """A game's clock and its rev (None: the game has no clock)."""
    with store.engine.connect() as c:
        r = c.execute(select(clocks.c.state, clocks.c.rev).where(clocks.c.game == game)).first()
    if r is None:
        return None
    return ClockState.from_json(json.loads(r.state)), int(r.rev)


def load_with_kinds(store: Store, game: str) -> tuple[ClockState, int, list[str]] | None:
    """:func:`load` and then the seats' kinds: read after the clock, so a time-out or take-back
    the clock shows (stored in one transaction with the seat's kind) is in the kinds too."""
    with store.engine.connect() as c:
        r = c.execute(select(clocks.c.state, clocks.c.rev).where(clocks.c.game == game)).first()
        if r is None:
            return None
        kinds = [k.kind for k in c.execute(select(seats.c.kind).where(seats.c.game == game)
                                           .order_by(seats.c.seat))]
    return ClockState.from_json(json.loads(r.state)), int(r.rev), kinds


def write_in(game: str, state: ClockState, rev: int) -> Callable[[Connection], None]:
    """The clock's write inside a step's transaction: only if nobody changed the clock since
    ``rev`` (otherwise :class:`StaleWrite`, and the step is not stored either)."""

    def run(c: Connection) -> None:
        n = c.execute(update(clocks).where(clocks.c.game == game, clocks.c.rev == rev).values(
            state=json.dumps(state.to_json()), rev=rev + 1, deadline=state.deadline())).rowcount
        if n != 1:
            raise StaleWrite(f"game {game}: its clock changed since rev {rev}")

    return run


def change(store: Store, game: str, state: ClockState, rev: int, version: int,
           kinds: dict[int, tuple[str, str]] | None = None) -> None:
    """Store a clock changed between steps — only if the clock is still at ``rev`` and the game
    at ``version`` — and, in the same transaction, seats that change hands (``{seat: (from,
    to)}``, each only if it still has kind ``from``). Raises :class:`StaleWrite` and writes
    nothing when another worker got there first."""
    with store.tx() as c:
        if not store.is_sqlite:
            # The game's write lock: no step is appended while the clock changes.
            c.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": game_lock_key(game)})
        at = c.execute(select(games.c.version).where(games.c.id == game)).scalar_one_or_none()
        if at != version:
            raise StaleWrite(f"game {game} is no longer at version {version}")
        n = c.execute(update(clocks).where(clocks.c.game == game, clocks.c.rev == rev).values(
            state=json.dumps(state.to_json()), rev=rev + 1, deadline=state.deadline())).rowcount
        if n != 1:
            raise StaleWrite(f"game {game}: its clock changed since rev {rev}")
        for seat, (old, new) in (kinds or {}).items():
            n = c.execute(update(seats).where(seats.c.game == game, seats.c.seat == seat,
                                              seats.c.kind == old).values(kind=new)).rowcount
            if n != 1:
                raise StaleWrite(f"game {game}: seat {seat} is no longer {old}")


def resume_all(store: Store, now: float) -> int:
    """On start: every running clock of an unfinished game restarts counting from ``now``, so no
    one is charged for the time the server was down; returns how many."""
    n = 0
    with store.tx() as c:
        rows = c.execute(select(clocks.c.game, clocks.c.state, clocks.c.rev).join(
            games, games.c.id == clocks.c.game).where(games.c.status == "playing",
                                                      clocks.c.deadline.is_not(None))).all()
        for r in rows:
            st = ClockState.from_json(json.loads(r.state))
            st.resume(now)
            c.execute(update(clocks).where(clocks.c.game == r.game, clocks.c.rev == r.rev).values(
                state=json.dumps(st.to_json()), rev=r.rev + 1, deadline=st.deadline()))
            n += 1
    return n


def due(store: Store, now: float) -> list[str]:
    """The unfinished games whose running seat has run out (a worker loads them to act)."""
    with store.engine.connect() as c:
        return [r.game for r in c.execute(select(clocks.c.game).join(games, games.c.id == clocks.c.game)
                                          .where(games.c.status == "playing", clocks.c.deadline <= now))]
