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
    Boolean,
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
    Column("holder", String(64), nullable=True),  # the worker holding the game (migration 0007)
)

workers = Table(
    "workers", metadata,
    Column("id", String(64), primary_key=True),
    Column("beat", Float, nullable=False),  # the worker's last heartbeat (wall time)
    Column("up", Boolean, nullable=False),  # False once it stopped cleanly (its last beat: the stop)
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
           kinds: dict[int, tuple[str, str]] | None = None,
           also: Callable[[Connection], None] | None = None) -> None:
    """Store a clock changed between steps — only if the clock is still at ``rev`` and the game
    at ``version`` — and, in the same transaction, seats that change hands (``{seat: (from,
    to)}``, each only if it still has kind ``from``; ``also``: more writes of the same change,
    such as a forfeit). Raises :class:`StaleWrite` and writes nothing when another worker got
    there first."""
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
        if also is not None:
            also(c)


def beat(store: Store, worker: str, now: float, up: bool = True) -> None:
    """The worker's heartbeat: it is alive at ``now`` (a row of its own, one per worker);
    ``up=False``: its last one, as it stops."""
    with store.tx() as c:
        if c.execute(update(workers).where(workers.c.id == worker).values(beat=now, up=up)).rowcount == 0:
            c.execute(insert(workers).values(id=worker, beat=now, up=up))


def prune(store: Store, before: float) -> int:
    """Forget the heartbeats of workers last seen before ``before`` that hold no clock."""
    held = select(clocks.c.holder).where(clocks.c.holder.is_not(None))
    with store.tx() as c:
        gone = workers.delete().where(workers.c.beat < before, workers.c.id.not_in(held))
        return int(c.execute(gone).rowcount)


def hold(store: Store, game: str, worker: str, now: float, stale_after: float,
         credit: bool = True) -> tuple[ClockState, int] | None:
    """``worker`` holds ``game`` from now on. If its holder so far stopped beating (dead for
    ``stale_after`` seconds, or gone), the running seat is credited the time since that holder's
    last beat — the clock pauses only for the downtime of the worker that held the game; a
    holder still alive keeps it and nothing moves. Returns the clock (and its revision) when it
    changed (None: unchanged, or no clock). ``credit=False``: the game was served here all along
    (only the holder changes)."""
    with store.tx() as c:
        r = c.execute(select(clocks.c.state, clocks.c.rev, clocks.c.holder)
                      .where(clocks.c.game == game)).first()
        if r is None or r.holder == worker:
            return None
        w = None if r.holder is None else c.execute(
            select(workers.c.beat, workers.c.up).where(workers.c.id == r.holder)).first()
        last = None if w is None else float(w.beat)
        if w is not None and w.up and now - w.beat <= stale_after:
            return None  # held by a live worker: it runs the clock
        st = ClockState.from_json(json.loads(r.state))
        changed = False
        if credit and r.holder is not None and st.running is not None and st.enabled:
            # The holder's downtime: from its last beat (its final one when it stopped cleanly;
            # no row: from the running turn's start), never from before the running turn began.
            alive_until = st.since if last is None else max(last, st.since)
            version = c.execute(select(games.c.version).where(games.c.id == game)).scalar_one_or_none()
            changed = st.pause(max(0.0, now - alive_until), now, version)
        values: dict[str, object] = {"holder": worker}
        if changed:
            values.update(state=json.dumps(st.to_json()), rev=r.rev + 1, deadline=st.deadline())
        c.execute(update(clocks).where(clocks.c.game == game, clocks.c.rev == r.rev).values(**values))
        return (st, r.rev + 1) if changed else None


def take_over(store: Store, worker: str, game_ids: list[str], now: float, stale_after: float) -> None:
    """The games ``worker`` has in memory whose holder is down (or none) are held by it from now
    on, without a credit: it served them all along (one statement per heartbeat)."""
    if not game_ids:
        return
    alive = select(workers.c.id).where(workers.c.beat >= now - stale_after, workers.c.up)
    with store.tx() as c:
        c.execute(update(clocks).where(clocks.c.game.in_(game_ids),
                                       (clocks.c.holder.is_(None)) | clocks.c.holder.not_in(alive))
                  .values(holder=worker))


def release(store: Store, game: str, worker: str) -> None:
    """``worker`` let the game go (it left memory): nobody holds it, so no downtime is counted
    for it while nobody plays."""
    with store.tx() as c:
        c.execute(update(clocks).where(clocks.c.game == game, clocks.c.holder == worker).values(holder=None))


def due(store: Store, now: float) -> list[str]:
    """The unfinished games whose running seat has run out (a worker loads them to act)."""
    with store.engine.connect() as c:
        return [r.game for r in c.execute(select(clocks.c.game).join(games, games.c.id == clocks.c.game)
                                          .where(games.c.status == "playing", clocks.c.deadline <= now))]
