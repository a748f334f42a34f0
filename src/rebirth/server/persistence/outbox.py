"""The durable notification outbox and each seat's chosen channels (migration 0004_notify).

A notification is a row keyed by (game, version, seat, channel, kind): whoever enqueues it twice
(the writer after its commit, a restarted server re-checking whose turn it is, a second worker)
inserts it once. Dispatchers — one per worker — claim due rows atomically: on PostgreSQL the
candidates are read ``FOR UPDATE SKIP LOCKED`` and marked claimed in the same transaction, on
SQLite the transaction holds the write lock (``BEGIN IMMEDIATE``). A claim lasts a lease; a
worker that died mid-delivery leaves its rows to be claimed again after the lease (so a crash
between a delivery and its mark may repeat that one notification: at least once, never lost).

A seat's link stored with its channels is its own page (``/game/<id>#s=<seat>``): no secret —
the browser that claimed the seat holds its token.
"""

from __future__ import annotations

import os
import secrets
import socket
import time
from dataclasses import dataclass

from sqlalchemy import (
    Column,
    Connection,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    delete,
    or_,
    select,
    update,
)

from rebirth.server.persistence.push import push_subs
from rebirth.server.persistence.store import CHANNELS, Store, games, metadata

notify_subs = Table(
    "notify_subs", metadata,
    Column("game", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("webhook", Text, nullable=True),
    Column("email", String(254), nullable=True),
    Column("link", Text, nullable=False),  # the seat's own page (no secret)
    Column("updated", Float, nullable=False),
)

notify_outbox = Table(
    "notify_outbox", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game", String(32), ForeignKey("games.id"), nullable=False),
    Column("version", Integer, nullable=False),  # the version at which the seat's turn began
    Column("seat", Integer, nullable=False),
    Column("channel", String(16), nullable=False),  # webhook / email
    Column("kind", String(16), nullable=False),  # turn / reminder
    Column("created", Float, nullable=False),
    Column("due", Float, nullable=False),  # not before (the backoff of a retry)
    Column("attempts", Integer, nullable=False),
    Column("claimed_by", String(64), nullable=True),
    Column("claimed_at", Float, nullable=True),
    Column("done", String(16), nullable=True),  # None: pending; sent / failed / dropped
    Column("last_error", Text, nullable=True),
    UniqueConstraint("game", "version", "seat", "channel", "kind", name="uq_notify_outbox_key"),
    Index("ix_notify_outbox_due", "done", "due"),
)


def _pushes(c: Connection, game: str, seat: int) -> bool:
    """The seat has a push subscription (then its row stays without a webhook or e-mail)."""
    t = push_subs
    return c.execute(select(t.c.seat).where(t.c.game == game, t.c.seat == seat)).first() is not None


@dataclass(frozen=True)
class Sub:
    """The channels one seat chose, and its link."""

    game: str
    seat: int
    webhook: str | None
    email: str | None
    link: str


@dataclass(frozen=True)
class Job:
    """One claimed notification."""

    id: int
    game: str
    version: int
    seat: int
    channel: str
    kind: str
    attempts: int


class Outbox:
    """The outbox on the server's store; all methods are synchronous (call them off the loop)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.worker = f"{socket.gethostname()[:30]}-{os.getpid()}-{secrets.token_hex(4)}"
        """This dispatcher's name in the rows it claims."""

    # ------------------------------------------------------------------ subscriptions

    def subscribe(self, game: str, seat: int, webhook: str | None, email: str | None, link: str) -> None:
        """Set a seat's channels (both None: no notifications, and its link is forgotten)."""
        t = notify_subs
        with self.store.tx() as c:
            c.execute(delete(t).where(t.c.game == game, t.c.seat == seat))
            if webhook or email or _pushes(c, game, seat):
                c.execute(t.insert().values(game=game, seat=seat, webhook=webhook, email=email, link=link,
                                            updated=time.time()))

    def forget(self, game: str, seat: int) -> None:
        """A revoked link: the seat's channels (its push subscription too) and stored link go."""
        t = notify_subs
        with self.store.tx() as c:
            c.execute(delete(t).where(t.c.game == game, t.c.seat == seat))
            c.execute(delete(push_subs).where(push_subs.c.game == game, push_subs.c.seat == seat))

    def sub(self, game: str, seat: int) -> Sub | None:
        """A seat's channels (None: it chose none)."""
        t = notify_subs
        with self.store.engine.connect() as c:
            r = c.execute(select(t).where(t.c.game == game, t.c.seat == seat)).first()
        return None if r is None else Sub(r.game, r.seat, r.webhook, r.email, r.link)

    def subscribed_games(self) -> list[str]:
        """The unfinished games with a seat that chose a channel."""
        t = notify_subs
        with self.store.engine.connect() as c:
            return [r.game for r in c.execute(
                select(t.c.game).distinct().join(games, games.c.id == t.c.game)
                .where(games.c.status == "playing"))]

    # ------------------------------------------------------------------ the outbox

    def enqueue(self, game: str, version: int, seat: int, kind: str = "turn",
                channels: tuple[str, ...] = CHANNELS, due: float | None = None) -> int:
        """One row per channel the seat chose (of ``channels``); a key already there is kept as
        it is. Returns how many rows were new."""
        if due is None:
            due = time.time()
        # Read first, outside a write transaction: most seats chose no channel, and on SQLite
        # a write transaction takes the database's one write lock.
        with self.store.engine.connect() as c:
            s = c.execute(select(notify_subs.c.seat).where(
                notify_subs.c.game == game, notify_subs.c.seat == seat)).first()
        if s is None:
            return 0
        return self.store.enqueue_notice(game, version, seat, kind, channels, due)

    def claim(self, limit: int, lease: float) -> list[Job]:
        """Take up to ``limit`` due rows nobody holds (or whose holder's lease ran out)."""
        o = notify_outbox
        now = time.time()
        with self.store.tx() as c:
            q = (select(o.c.id, o.c.game, o.c.version, o.c.seat, o.c.channel, o.c.kind, o.c.attempts)
                 .where(o.c.done.is_(None), o.c.due <= now,
                        or_(o.c.claimed_at.is_(None), o.c.claimed_at < now - lease))
                 .order_by(o.c.due, o.c.id).limit(limit))
            if not self.store.is_sqlite:
                q = q.with_for_update(skip_locked=True)
            rows = c.execute(q).all()
            if rows:
                c.execute(update(o).where(o.c.id.in_([r.id for r in rows]))
                          .values(claimed_by=self.worker, claimed_at=now))
        return [Job(r.id, r.game, r.version, r.seat, r.channel, r.kind, r.attempts) for r in rows]

    def finish(self, job: Job, done: str, error: str | None = None) -> None:
        """A delivered (``sent``), given-up (``failed``) or pointless (``dropped``) row."""
        o = notify_outbox
        with self.store.tx() as c:
            c.execute(update(o).where(o.c.id == job.id, o.c.claimed_by == self.worker)
                      .values(done=done, attempts=job.attempts + 1, last_error=error, claimed_at=time.time()))

    def retry(self, job: Job, due: float, error: str) -> None:
        """A failed delivery, tried again at ``due``."""
        o = notify_outbox
        with self.store.tx() as c:
            c.execute(update(o).where(o.c.id == job.id, o.c.claimed_by == self.worker)
                      .values(attempts=job.attempts + 1, due=due, last_error=error, claimed_by=None,
                              claimed_at=None))

    def postpone(self, job: Job, due: float) -> None:
        """A reminder whose deadline moved: due again at ``due`` (not counted as an attempt)."""
        o = notify_outbox
        with self.store.tx() as c:
            c.execute(update(o).where(o.c.id == job.id, o.c.claimed_by == self.worker)
                      .values(due=due, claimed_by=None, claimed_at=None))

    def recheck(self, game: str, seat: int) -> int:
        """A seat's deadline moved earlier (back from vacation): its pending reminders are due
        now, so the dispatcher judges them again against the clock (and postpones each to its
        time). Returns how many."""
        o = notify_outbox
        with self.store.tx() as c:
            return int(c.execute(update(o).where(o.c.game == game, o.c.seat == seat, o.c.done.is_(None),
                                                 o.c.claimed_by.is_(None), o.c.kind.like("reminder-%"))
                                 .values(due=time.time())).rowcount)

    def rows(self, game: str) -> list[dict[str, object]]:
        """Every outbox row of a game (tests, diagnostics)."""
        o = notify_outbox
        with self.store.engine.connect() as c:
            return [dict(r._mapping) for r in c.execute(select(o).where(o.c.game == game).order_by(o.c.id))]
