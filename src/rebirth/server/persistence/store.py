"""Persistence: games, seats, hashed tokens and the append-only action log (SQLAlchemy 2 Core).

The SQL is portable (no SQLite-only statements outside the connection set-up), so PostgreSQL
is a ``REBIRTH_DATABASE_URL`` away. On SQLite every connection is set up as follows:

* ``journal_mode=WAL``: readers never block the one writer, and a commit is one append to
  the write-ahead log.
* ``synchronous=FULL`` — the conscious choice. In WAL mode ``NORMAL`` already survives a
  crash of the *process* (``kill -9``), but a power loss or OS crash may roll back the last
  transactions. The server broadcasts an action only after its commit, so players may have
  seen it; with ``FULL`` every commit is fsynced and a seen action is never lost, even on
  power loss. The price is one fsync per accepted action (see ``benchmarks/load.py``).
* Every transaction starts with ``BEGIN IMMEDIATE``: it takes the write lock at once, so two
  writers never both read and then fail to upgrade (no ``SQLITE_BUSY`` mid-transaction);
  ``busy_timeout`` lets a second writer wait instead of failing.

Tokens are stored only as SHA-256 digests (docs/server.md, threat model).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import astuple, dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    func,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

from rebirth.server.persistence.migrate import pending, upgrade

if TYPE_CHECKING:  # PostgreSQL's driver is an optional extra (rebirth[postgres])
    import psycopg_pool

SQLITE_SYNCHRONOUS = "FULL"
"""See the module docstring for why."""

metadata = MetaData()

games = Table(
    "games", metadata,
    Column("id", String(32), primary_key=True),
    Column("board", String(64), nullable=False),
    Column("players", Integer, nullable=False),
    Column("variants", Text, nullable=False),  # JSON list
    Column("lang", String(8), nullable=False),
    Column("hotseat", Boolean, nullable=False),
    Column("seed", Text, nullable=False),  # decimal: 128 bits do not fit a BIGINT
    Column("setup", Text, nullable=False),  # the complete dealt setup (secret) as JSON
    Column("engine_version", String(32), nullable=False),
    Column("created", Float, nullable=False),
    Column("status", String(16), nullable=False),  # playing / over
    Column("version", Integer, nullable=False),  # steps in the log
)

seats = Table(
    "seats", metadata,
    Column("game", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(64), nullable=False),
    Column("kind", String(32), nullable=False),
)

tokens = Table(
    "tokens", metadata,
    Column("hash", String(64), primary_key=True),  # SHA-256 hex of the secret token
    Column("game", String(32), ForeignKey("games.id"), nullable=False, index=True),
    Column("role", String(16), nullable=False),  # seat / table / spectator / admin
    Column("seat", Integer, nullable=True),
    Column("revoked", Boolean, nullable=False, default=False),
)

# Seat invitations (server/play/invites.py; migration 0002_invite): a seat's token is made when the
# first browser claims its invitation.
invites = Table(
    "invites", metadata,
    Column("hash", String(64), primary_key=True),  # SHA-256 hex of the invitation code
    Column("game", String(32), ForeignKey("games.id"), nullable=False, index=True),
    Column("role", String(16), nullable=False),  # seat / table (a hot-seat device)
    Column("seat", Integer, nullable=True),
    Column("claimed", Boolean, nullable=False),
    Column("revoked", Boolean, nullable=False),
    Column("created", Float, nullable=False),
)

actions = Table(
    "actions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game", String(32), ForeignKey("games.id"), nullable=False),
    Column("seq", Integer, nullable=False),  # the version this step produced (1, 2, ...)
    Column("seat", Integer, nullable=True),  # None: a chance outcome
    Column("text", String(64), nullable=False),
    Column("created", Float, nullable=False),
    UniqueConstraint("game", "seq", name="uq_actions_game_seq"),
)

# The table companion (docs/table.md): a physical game recorded entry by entry. An undo deletes
# the last entries, so the log holds exactly the entries that count.
table_games = Table(
    "table_games", metadata,
    Column("id", String(32), primary_key=True),
    Column("token_hash", String(64), nullable=False, unique=True),  # SHA-256 of the secret token
    Column("board", String(64), nullable=False),
    Column("players", Integer, nullable=False),
    Column("variants", Text, nullable=False),  # JSON list
    Column("names", Text, nullable=False),  # JSON list
    Column("colours", Text, nullable=False),  # JSON list of #rrggbb
    Column("setup", Text, nullable=False),  # JSON: start_player, display, tower_tokens
    Column("lang", String(8), nullable=False),
    Column("created", Float, nullable=False),
)

table_entries = Table(
    "table_entries", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game", String(32), ForeignKey("table_games.id"), nullable=False),
    Column("seq", Integer, nullable=False),  # 1, 2, ... (the version this entry produced)
    Column("seat", Integer, nullable=True),  # None: an entered outcome
    Column("text", String(64), nullable=False),
    Column("created", Float, nullable=False),
    UniqueConstraint("game", "seq", name="uq_table_entries_game_seq"),
)


# Who created a game (server/operations/caps.py): a keyed hash of the client address, never the address
# itself, so that the cap on unfinished games per client holds across restarts and workers.
game_creators = Table(
    "game_creators", metadata,
    Column("game", String(32), ForeignKey("games.id"), primary_key=True),
    Column("client", String(64), nullable=False, index=True),
)

# Chat and rematch (issue 16; migration 0005_chat; functions in server/persistence/chat.py).
chat_messages = Table(
    "chat_messages", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game", String(32), ForeignKey("games.id"), nullable=False),
    Column("seq", Integer, nullable=False),  # 1, 2, ... per game: what a catch-up reads after
    Column("seat", Integer, nullable=True),  # None: a spectator
    Column("role", String(16), nullable=False),  # player / spectator
    Column("name", String(64), nullable=False),
    Column("text", Text, nullable=False),  # as typed: escaped where shown, never here
    Column("created", Float, nullable=False),
    UniqueConstraint("game", "seq", name="uq_chat_messages_game_seq"),
)

chat_options = Table(
    "chat_options", metadata,
    Column("game", String(32), ForeignKey("games.id"), primary_key=True),
    Column("in_record", Boolean, nullable=False),  # the creator's choice: chat exported with the record
)

rematches = Table(
    "rematches", metadata,
    # The primary key is the "exactly one rematch per game": a second claim fails to insert.
    Column("game", String(32), ForeignKey("games.id"), primary_key=True),
    Column("new_game", String(32), ForeignKey("games.id"), nullable=False, unique=True),
    Column("created", Float, nullable=False),
)


class StaleWrite(Exception):
    """Another writer (another worker) stored this game's next step first: nothing was written."""


def _behind(game: str, old: int, actor: tuple[int, str] | None) -> StaleWrite:
    """The refusal of a step whose game is no longer at ``old`` (or whose seat changed kind)."""
    return StaleWrite(f"game {game} is no longer at version {old}"
                      + ("" if actor is None else f" with seat {actor[0]} {actor[1]}"))


def _raced(game: str, steps: list[Step]) -> StaleWrite:
    """The refusal of a step another writer stored first (``UNIQUE(game, seq)``)."""
    return StaleWrite(f"game {game}: step {steps[0].seq} was stored by another writer")


@dataclass(frozen=True)
class TurnNotice:
    """The turn notification a step starts (server/notifications/notifier.py), enqueued in the
    step's own write: one outbox row per channel the seat chose, of ``channels`` (a transactional outbox)."""

    version: int
    """The version the seat's turn began at (the notification's key)."""
    seat: int
    channels: tuple[str, ...]


def game_lock_key(game: str) -> int:
    """The game's 64-bit PostgreSQL advisory-lock key (signed, as ``bigint`` wants it)."""
    return int.from_bytes(hashlib.sha256(f"rebirth-game/{game}".encode()).digest()[:8], "big", signed=True)


def bot_lock_key(game: str) -> int:
    """The key of the lock a worker holds while it lets the game's bots think (not the write lock:
    a human's write must not wait for a bot's thinking)."""
    return int.from_bytes(hashlib.sha256(f"rebirth-bots/{game}".encode()).digest()[:8], "big", signed=True)


def hash_token(token: str) -> str:
    """The stored form of a secret token."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class GameRow:
    """One game as stored."""

    id: str
    board: str
    players: int
    variants: list[str]
    lang: str
    hotseat: bool
    seed: int
    setup: dict[str, Any]
    engine_version: str
    status: str
    version: int
    names: list[str]
    kinds: list[str]
    forfeits: tuple[tuple[int, str], ...] = ()
    """The seats that resigned or timed out for good, and why (server/persistence/seatnotify.py)."""


@dataclass(frozen=True)
class TokenRow:
    """What a token grants."""

    game: str
    role: str
    seat: int | None
    revoked: bool


@dataclass(frozen=True)
class Step:
    """One logged step: a seat's action, or a chance outcome (seat None)."""

    seq: int
    seat: int | None
    text: str


@dataclass(frozen=True)
class TableRow:
    """One table-companion game as stored (its header; the entries are read separately)."""

    id: str
    board: str
    players: int
    variants: list[str]
    names: list[str]
    colours: list[str]
    setup: dict[str, Any]
    lang: str


@dataclass(frozen=True)
class HotSql:
    """The statements of every step (append, catch-up), written for the driver itself.

    They run on the driver's own cursor inside SQLAlchemy's transaction: building and
    compiling them with SQLAlchemy cost about four times their execution's CPU (measured:
    an append 2.7 ms → 0.67 ms, a catch-up 1.0 ms → 0.19 ms of worker CPU on PostgreSQL)."""

    move: str
    """SQLite: the conditional move (PostgreSQL's is part of :func:`_append_pg_sql`)."""
    move_as: str
    add_step: str
    head: str
    steps_after: str

    @staticmethod
    def for_driver(qmark: bool) -> HotSql:
        """sqlite3 takes ``?`` placeholders, psycopg ``%s``."""
        move = "UPDATE games SET version = ?, status = ? WHERE id = ? AND version = ?"
        stmts = HotSql(
            move=move,
            # The acting seat still has the kind it acted as (Store.append's ``actor``).
            move_as=move + (" AND NOT EXISTS (SELECT 1 FROM seats WHERE seats.game = ?"
                            " AND seats.seat = ? AND seats.kind <> ?)"),
            add_step="INSERT INTO actions (game, seq, seat, text, created) VALUES (?, ?, ?, ?, ?)",
            head=("SELECT games.version, seats.kind, seats.name FROM games"
                  " JOIN seats ON seats.game = games.id WHERE games.id = ? ORDER BY seats.seat"),
            steps_after="SELECT seq, seat, text FROM actions WHERE game = ? AND seq > ? ORDER BY seq",
        )
        if qmark:
            return stmts
        return HotSql(*(q.replace("?", "%s") for q in astuple(stmts)))


_CHOSEN = ("((c.channel = 'webhook' AND s.webhook <> '') OR (c.channel = 'email' AND s.email <> '')"
           " OR (c.channel = 'push' AND EXISTS (SELECT 1 FROM push_subs AS p"
           " WHERE p.game = s.game AND p.seat = s.seat)))")
"""The seat chose the channel (an empty or NULL address: not chosen; push: a subscription is
stored, server/persistence/push.py)."""

CHANNELS = ("webhook", "email", "push")
"""The server's notification channels (the page's own title, badge, sound and browser
notification are the page's: web/notify.js)."""


def _channel_rows(channels: tuple[str, ...]) -> str:
    """``SELECT 'webhook' AS channel UNION ALL ...``: the channels as rows (known names only)."""
    assert channels and all(ch in CHANNELS for ch in channels), channels
    return " UNION ALL ".join(f"SELECT '{ch}' AS channel" for ch in channels)


@functools.lru_cache(maxsize=16)
def _notify_sql(qmark: bool, channels: tuple[str, ...]) -> str:
    """One outbox row per channel of ``channels`` the seat chose; params (version, kind,
    created, due, game, seat). A key already there is kept as it is."""
    sql = ("INSERT INTO notify_outbox (game, version, seat, channel, kind, created, due, attempts)"
           " SELECT s.game, ?, s.seat, c.channel, ?, ?, ?, 0 FROM notify_subs AS s"
           f" JOIN ({_channel_rows(channels)}) AS c ON 1 = 1 WHERE s.game = ? AND s.seat = ?"
           f" AND {_CHOSEN} ON CONFLICT DO NOTHING")
    return sql if qmark else sql.replace("?", "%s")


@functools.lru_cache(maxsize=64)
def _append_pg_sql(steps: int, actor: bool, channels: tuple[str, ...]) -> str:
    """PostgreSQL: a step's whole write as one statement, so that it is one round trip and
    needs no transaction around it (autocommit): the game's lock, the conditional move, the
    steps — inserted only if the move happened — and the turn notification's outbox rows. It
    answers (steps inserted, notifications inserted); fewer steps than given: stale."""
    # The lock CTE calls a volatile function: PostgreSQL materialises it, and the move's
    # EXISTS reads it, so the lock is taken before the game's row is checked. (The row lock of
    # the UPDATE alone would serialise two writers too; the advisory lock also orders the step
    # with the clock's own writes, server/persistence/clocks.py.)
    kind = (" AND NOT EXISTS (SELECT 1 FROM seats WHERE seats.game = %(game)s"
            " AND seats.seat = %(seat)s AND seats.kind <> %(kind)s)") if actor else ""
    values = ", ".join(f"(%(q{i})s::integer, %(s{i})s::integer, %(t{i})s::text)" for i in range(steps))
    sql = ("WITH lk AS (SELECT pg_advisory_xact_lock(%(lock)s)),"
           " mv AS (UPDATE games SET version = %(version)s, status = %(status)s"
           " WHERE id = %(game)s AND version = %(old)s AND EXISTS (SELECT 1 FROM lk)" + kind
           + " RETURNING id),"
           " st AS (INSERT INTO actions (game, seq, seat, text, created)"
           " SELECT mv.id, v.seq, v.seat, v.text, %(now)s FROM mv CROSS JOIN"
           f" (VALUES {values}) AS v(seq, seat, text) RETURNING 1)")
    if not channels:
        return sql + " SELECT (SELECT count(*) FROM st), 0"
    return (sql + ", nt AS (INSERT INTO notify_outbox (game, version, seat, channel, kind, created, due,"
            " attempts) SELECT mv.id, %(nversion)s, s.seat, c.channel, 'turn', %(now)s, %(now)s, 0"
            " FROM mv JOIN notify_subs AS s ON s.game = mv.id AND s.seat = %(nseat)s"
            f" CROSS JOIN ({_channel_rows(channels)}) AS c WHERE {_CHOSEN}"
            " ON CONFLICT DO NOTHING RETURNING 1)"
            " SELECT (SELECT count(*) FROM st), (SELECT count(*) FROM nt)")


ASYNC_POOL_SIZE = 4
"""Connections of a worker's step writes on PostgreSQL (each write is one short statement)."""

GROUP_MAX = 16
"""Steps in one group commit at most: the steps of a batch resume in one turn of the event loop,
each broadcasting. Measured, 1 worker, N = 500: with no cap a batch took every waiting step
(hundreds), the loop's turns grew long, the worker read new connections' opening requests
late, and a third of 1,000 sockets opened at once timed out in their handshake (the code of
session 4, one statement per step, lost none)."""


def _append_pg_call(game: str, steps: list[Step], version: int, status: str, old: int, now: float,
                    actor: tuple[int, str] | None, notice: TurnNotice | None) -> tuple[str, dict[str, Any]]:
    """The one-statement write of :meth:`Store.append` on PostgreSQL and its parameters."""
    args: dict[str, Any] = {"lock": game_lock_key(game), "version": version, "status": status,
                            "game": game, "old": old, "now": now}
    if actor is not None:
        args["seat"], args["kind"] = actor
    for i, st in enumerate(steps):
        args[f"q{i}"], args[f"s{i}"], args[f"t{i}"] = st.seq, st.seat, st.text
    channels: tuple[str, ...] = ()
    if notice is not None and notice.channels:
        channels = notice.channels
        args["nversion"], args["nseat"] = notice.version, notice.seat
    return _append_pg_sql(len(steps), actor is not None, channels), args


class ServerClosing(RuntimeError):
    """A step's write that was not made because the server is shutting down."""

    def __init__(self) -> None:
        super().__init__("the server is shutting down: the step was not stored")


@dataclass
class _Write:
    """One step's write waiting for a group commit (:meth:`Store.append_soon`)."""

    game: str
    steps: list[Step]
    call: tuple[str, dict[str, Any]]
    done: asyncio.Future[tuple[int, int]]

    def answer(self, row: Any = None, exc: BaseException | None = None) -> None:
        """The statement's (steps inserted, notifications inserted), or its error."""
        if self.done.done():
            return
        if exc is not None:
            self.done.set_exception(exc)
        elif row is None:
            self.done.set_exception(RuntimeError("the step's statement answered nothing"))
        else:
            self.done.set_result((int(row[0]), int(row[1])))


@contextmanager
def _cursor(c: Connection) -> Iterator[Any]:
    """The driver's cursor on ``c``'s connection, inside ``c``'s transaction (closed after)."""
    dbapi = c.connection.dbapi_connection
    assert dbapi is not None
    cur = dbapi.cursor()
    try:
        yield cur
    finally:
        cur.close()


class Store:
    """The database behind the server; all methods are synchronous (call them off the loop)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        kw: dict[str, Any] = {}
        if self.is_sqlite:
            kw["connect_args"] = {"check_same_thread": False, "timeout": 30}
        self.engine: Engine = create_engine(url, **kw)
        if self.is_sqlite:
            _sqlite_setup(self.engine)
        # The schema comes from the migrations (server/migrations), applied once under a
        # lock however many workers start together.
        self.revision = upgrade(self.engine)
        self._sql = HotSql.for_driver(self.is_sqlite)
        self._apool: psycopg_pool.AsyncConnectionPool[Any] | None = None
        self._waiting: list[_Write] = []
        """Steps waiting for the next group commit (PostgreSQL, from the event loop)."""
        self._wake: asyncio.Event | None = None
        """Wakes the committer of the current event loop (made with it)."""
        self._committer: asyncio.Task[None] | None = None
        self.group_writes = 0
        """Group commits made (with :attr:`group_steps`: how many steps each carried)."""
        self.group_steps = 0
        self._integrity_error: type[Exception] = self.engine.dialect.dbapi.IntegrityError  # type: ignore[union-attr]
        self._lock_guard = threading.Lock()
        self._lock_conn: Connection | None = None
        self._held: set[str] = set()

    def close(self) -> None:
        with self._lock_guard:
            self._drop_lock_conn()
        self.engine.dispose()

    @contextmanager
    def tx(self) -> Iterator[Connection]:
        """One transaction (``BEGIN IMMEDIATE`` on SQLite), committed on success."""
        with self.engine.begin() as conn:
            yield conn

    # ------------------------------------------------------------------ writing

    def create_game(self, row: GameRow, token_rows: list[tuple[str, str, int | None]],
                    also: Callable[[Connection], None] | None = None) -> None:
        """Store a new game, its seats and its tokens ``(hash, role, seat)``; ``also`` writes
        more rows of it (its invitations, server/play/invites.py) in the same transaction."""
        with self.tx() as c:
            insert_game(c, row, token_rows)
            if also is not None:
                also(c)

    def append(self, game: str, steps: list[Step], version: int, over: bool,
               also: Callable[[Connection], None] | None = None,
               actor: tuple[int, str] | None = None, notice: TurnNotice | None = None) -> int:
        """Append accepted steps to the log and move the game's version, in one transaction —
        only if the game is still at the version before the first step (a conditional write).

        Exactly one writer per game however many workers: on PostgreSQL the write takes the
        game's advisory lock, the version check refuses a writer that is behind, and
        ``UNIQUE(game, seq)`` makes a second writer of the same step fail instead of forking the
        log. ``actor`` (seat, kind): the acting seat must still have that kind — a seat another
        worker handed to a bot (or gave back to its player) refuses the step, so a worker need
        not read the seats before every action. A lost race raises :class:`StaleWrite` and
        writes nothing. ``notice``: the turn notification the step starts, written with it
        (returns how many outbox rows were new). ``also`` writes more in the same transaction
        (the game's clock, server/persistence/clocks.py)."""
        if not steps:
            return 0
        old = steps[0].seq - 1
        now = time.time()
        status = "over" if over else "playing"
        try:
            if self.is_sqlite:
                done, made = self._append_sqlite(game, steps, version, status, old, now, also, actor, notice)
            else:
                with self.tx() as c, _cursor(c) as cur:
                    cur.execute(*_append_pg_call(game, steps, version, status, old, now, actor, notice))
                    done, made = map(int, cur.fetchone())
                    # A stale move wrote nothing: the clock must not move either.
                    if done == len(steps) and also is not None:
                        also(c)
        except (IntegrityError, self._integrity_error) as exc:
            raise _raced(game, steps) from exc
        if done != len(steps):
            raise _behind(game, old, actor)
        return made

    async def append_soon(self, game: str, steps: list[Step], version: int, over: bool,
                          also: Callable[[Connection], None] | None = None,
                          actor: tuple[int, str] | None = None, notice: TurnNotice | None = None) -> int:
        """:meth:`append` from the event loop. On PostgreSQL the one-statement write runs on
        the loop itself (psycopg's async pool, no thread hop), in a group commit with the other
        steps waiting (:meth:`_group_commit`); SQLite and a write with ``also`` go to a
        thread."""
        if self.is_sqlite or also is not None or not steps:
            return await asyncio.to_thread(self.append, game, steps, version, over, also, actor, notice)
        old = steps[0].seq - 1
        status = "over" if over else "playing"
        call = _append_pg_call(game, steps, version, status, old, time.time(), actor, notice)
        row = await self._group_commit(game, steps, call)
        if int(row[0]) != len(steps):
            raise _behind(game, old, actor)
        return int(row[1])

    async def _group_commit(self, game: str, steps: list[Step],
                            call: tuple[str, dict[str, Any]]) -> tuple[int, int]:
        """One step's statement, committed together with the other steps that came meanwhile
        (any game's): one transaction, one round trip and one flush of the log for all of them
        (a group commit, as the database itself does for concurrent commits; measured, the
        flush was half of PostgreSQL's CPU per step). Its answer, or its own refusal or error."""
        loop = asyncio.get_running_loop()
        wake = self._wake
        if wake is None or self._committer is None or self._committer.done() \
                or self._committer.get_loop() is not loop:
            self._waiting = []
            self._wake = wake = asyncio.Event()
            self._committer = loop.create_task(self._commit_loop(wake))
        w = _Write(game, steps, call, loop.create_future())
        self._waiting.append(w)
        wake.set()
        return await w.done

    async def _commit_loop(self, wake: asyncio.Event) -> None:
        """Writes what waits, a batch at a time: while one is being committed the next gathers."""
        while True:
            await wake.wait()
            wake.clear()
            # At most GROUP_MAX a time: the steps of a batch resume together (each broadcasts),
            # and one turn of the event loop with hundreds of them starved new connections.
            batch, self._waiting = self._waiting[:GROUP_MAX], self._waiting[GROUP_MAX:]
            if self._waiting:
                wake.set()
            if not batch:
                continue
            self.group_writes += 1
            self.group_steps += len(batch)
            try:
                await self._write_batch(batch)
            except BaseException as exc:  # cancelled (shutdown), or a bug: no step waits for ever
                for w in batch + self._waiting:
                    w.answer(exc=exc if isinstance(exc, Exception) else ServerClosing())
                self._waiting = []
                raise

    async def _write_batch(self, batch: list[_Write]) -> None:
        """Each write of ``batch`` answered: in one transaction; if that fails as a whole on a
        lost race (``UNIQUE(game, seq)``), each alone, so that each gets its own answer."""
        import psycopg  # only PostgreSQL comes here

        if len(batch) > 1:
            # The games' advisory locks in one order for every worker: two batches never wait
            # for each other in a cycle.
            batch.sort(key=lambda w: int(w.call[1]["lock"]))
            try:
                pool = await self._async_pool()
                async with pool.connection() as conn:
                    async with conn.pipeline(), conn.transaction():
                        curs = [await conn.execute(*w.call) for w in batch]
                    rows = [await cur.fetchone() for cur in curs]
            except psycopg.IntegrityError:
                pass  # one of them raced another writer: each alone says which
            except Exception as exc:
                for w in batch:
                    w.answer(exc=exc)
                return
            else:
                for w, row in zip(batch, rows, strict=True):
                    w.answer(row)
                return
        for w in batch:
            try:
                pool = await self._async_pool()
                async with pool.connection() as conn, conn.cursor() as cur:
                    await cur.execute(*w.call)
                    w.answer(await cur.fetchone())
            except psycopg.IntegrityError:
                w.answer(exc=_raced(w.game, w.steps))
            except Exception as exc:
                w.answer(exc=exc)

    async def _async_pool(self) -> psycopg_pool.AsyncConnectionPool[Any]:
        """The event loop's pool of autocommit connections (made on first use, on the loop)."""
        if self._apool is None:
            import psycopg_pool

            conninfo = make_url(self.url).set(drivername="postgresql").render_as_string(hide_password=False)
            # A short wait for a connection: a database that is away refuses the step soon, with
            # the same clear error as any storage failure, instead of holding the move.
            pool: psycopg_pool.AsyncConnectionPool[Any] = psycopg_pool.AsyncConnectionPool(
                conninfo, min_size=1, max_size=ASYNC_POOL_SIZE, kwargs={"autocommit": True},
                timeout=5.0, open=False, name="rebirth-steps")
            await pool.open(wait=False)
            self._apool = pool
        return self._apool

    async def aclose(self) -> None:
        """Close the event loop's pool (shutdown; before :meth:`close`)."""
        if self._committer is not None:
            self._committer.cancel()
            with suppress(asyncio.CancelledError, Exception):
                await self._committer
            self._committer = None
        for w in self._waiting:  # came after the committer's last turn
            w.answer(exc=ServerClosing())
        self._waiting = []
        if self._apool is not None:
            pool, self._apool = self._apool, None
            # Bounded: a connection attempt in flight (a database that is away) must not hold
            # the shutdown; the pool gives its workers a second, this waits at most three.
            with suppress(TimeoutError):
                await asyncio.wait_for(pool.close(timeout=1.0), 3.0)

    def _append_sqlite(self, game: str, steps: list[Step], version: int, status: str, old: int, now: float,
                       also: Callable[[Connection], None] | None, actor: tuple[int, str] | None,
                       notice: TurnNotice | None) -> tuple[int, int]:
        sql = self._sql
        with self.tx() as c, _cursor(c) as cur:
            if actor is None:
                cur.execute(sql.move, (version, status, game, old))
            else:
                cur.execute(sql.move_as, (version, status, game, old, game, actor[0], actor[1]))
            if cur.rowcount != 1:
                return 0, 0
            cur.executemany(sql.add_step, [(game, s.seq, s.seat, s.text, now) for s in steps])
            made = 0
            if notice is not None and notice.channels:
                cur.execute(_notify_sql(True, notice.channels),
                            (notice.version, "turn", now, now, game, notice.seat))
                made = max(0, cur.rowcount)
            if also is not None:
                also(c)
        return len(steps), made

    def enqueue_notice(self, game: str, version: int, seat: int, kind: str, channels: tuple[str, ...],
                       due: float) -> int:
        """Outbox rows of a notification outside a step (a game loaded, a seat subscribing, a
        deadline's reminder): one per channel of ``channels`` the seat chose; returns how
        many were new."""
        if not channels:
            return 0
        with self.tx() as c, _cursor(c) as cur:
            cur.execute(_notify_sql(self.is_sqlite, channels), (version, kind, time.time(), due, game, seat))
            return max(0, int(cur.rowcount))

    def set_kind(self, game: str, seat: int, kind: str) -> None:
        """A seat handed to a bot."""
        with self.tx() as c:
            c.execute(update(seats).where(seats.c.game == game, seats.c.seat == seat).values(kind=kind))

    def replace_seat_token(self, game: str, seat: int, new_hash: str) -> None:
        """Revoke every token of a seat and store its new one."""
        with self.tx() as c:
            c.execute(update(tokens).where(tokens.c.game == game, tokens.c.role == "seat",
                                           tokens.c.seat == seat).values(revoked=True))
            c.execute(insert(tokens).values(hash=new_hash, game=game, role="seat", seat=seat,
                                            revoked=False))

    # ------------------------------------------------------------------ reading

    def token(self, token: str) -> TokenRow | None:
        """What ``token`` grants (None: unknown)."""
        with self.engine.connect() as c:
            r = c.execute(select(tokens).where(tokens.c.hash == hash_token(token))).first()
        if r is None:
            return None
        return TokenRow(r.game, r.role, r.seat, bool(r.revoked))

    def game(self, game_id: str) -> GameRow | None:
        """One game (None: unknown)."""
        with self.engine.connect() as c:
            g = c.execute(select(games).where(games.c.id == game_id)).first()
            if g is None:
                return None
            ss = c.execute(select(seats).where(seats.c.game == game_id).order_by(seats.c.seat)).all()
            # The forfeits table is seatnotify.py's (migration 0009): named, not imported.
            ff = c.execute(text("SELECT seat, reason FROM forfeits WHERE game = :g ORDER BY seat"),
                           {"g": game_id}).all()
        return GameRow(g.id, g.board, g.players, json.loads(g.variants), g.lang, bool(g.hotseat),
                       int(g.seed), json.loads(g.setup), g.engine_version, g.status, g.version,
                       [s.name for s in ss], [s.kind for s in ss],
                       tuple((int(f.seat), str(f.reason)) for f in ff))

    def game_ids(self, status: str | None = None) -> list[str]:
        """The ids of all games (or of those with ``status``)."""
        q = select(games.c.id).order_by(games.c.created)
        if status is not None:
            q = q.where(games.c.status == status)
        with self.engine.connect() as c:
            return [r.id for r in c.execute(q)]

    def ready(self) -> str | None:
        """Why the database cannot serve now (None: it can): it answers, its schema is at this
        server's migration head, and every table the server needs is there."""
        try:
            with self.engine.connect() as c:
                c.execute(select(1)).scalar_one()
                have = set(inspect(c).get_table_names())
            behind = pending(self.engine)
        except Exception as exc:  # any driver error means "not ready"; say which kind
            return f"the database does not answer ({type(exc).__name__})"
        if behind is not None:
            return behind
        missing = sorted(set(metadata.tables) - have)
        return f"tables missing: {', '.join(missing)}" if missing else None

    def steps(self, game_id: str, after: int = 0) -> list[Step]:
        """The game's log in order (only the steps with ``seq > after``)."""
        with self.engine.connect() as c:
            return _steps(c, game_id, after)

    def catch_up(self, game_id: str, after: int) -> tuple[int, list[str], list[Step], list[str]]:
        """What another worker may have changed: the game's version, its seat kinds (a seat
        handed to a bot), the logged steps after ``after`` and the seats' names (an open seat
        taken) — read in one transaction."""
        sql = self._sql
        with self.engine.connect() as c, _cursor(c) as cur:
            # One round trip when nothing is new.
            cur.execute(sql.head, (game_id,))
            rows = cur.fetchall()
            if not rows:
                raise KeyError(game_id)
            version = int(rows[0][0])
            steps: list[Step] = []
            if version > after:
                cur.execute(sql.steps_after, (game_id, after))
                steps = [Step(int(seq), None if seat is None else int(seat), str(t))
                         for seq, seat, t in cur.fetchall()]
        return version, [str(r[1]) for r in rows], steps, [str(r[2]) for r in rows]

    def versions(self, game_ids: list[str]) -> dict[str, int]:
        """The stored version of each of ``game_ids`` (one query, whatever their number)."""
        if not game_ids:
            return {}
        with self.engine.connect() as c:
            rows = c.execute(select(games.c.id, games.c.version).where(games.c.id.in_(game_ids))).all()
        return {r.id: int(r.version) for r in rows}

    def bot_games(self) -> list[str]:
        """The unfinished games with at least one bot seat (a worker adopts those nobody drives)."""
        q = (select(games.c.id).where(games.c.status == "playing", games.c.id.in_(
            select(seats.c.game).where(seats.c.kind.not_in(("human", "remote"))))).order_by(games.c.created))
        with self.engine.connect() as c:
            return [r.id for r in c.execute(q)]

    def revoked(self, hashes: list[str]) -> set[str]:
        """Which of these token hashes are revoked (or unknown)."""
        if not hashes:
            return set()
        with self.engine.connect() as c:
            ok = {r.hash for r in c.execute(select(tokens.c.hash).where(
                tokens.c.hash.in_(hashes), tokens.c.revoked.is_(False)))}
        return set(hashes) - ok

    # ------------------------------------------------------------------ the bot lease

    def try_bot_lock(self, game: str) -> bool:
        """Take the game's bot lock (False: another worker holds it). On PostgreSQL a session
        advisory lock on one dedicated connection per process: a killed worker's connection
        closes and its locks go with it, so another worker takes its bot games over. SQLite is
        one process: the hub's single bot task is the lock."""
        if self.is_sqlite:
            return True
        with self._lock_guard:
            for attempt in (0, 1):
                try:
                    if self._lock_conn is None:
                        conn = self.engine.connect()
                        self._lock_conn = conn.execution_options(isolation_level="AUTOCOMMIT")
                        self._held.clear()
                    if game in self._held:
                        return True
                    got = bool(self._lock_conn.execute(text("SELECT pg_try_advisory_lock(:k)"),
                                                       {"k": bot_lock_key(game)}).scalar_one())
                    if got:
                        self._held.add(game)
                    return got
                except Exception:
                    # The connection broke (its locks went with it): one fresh try.
                    self._drop_lock_conn()
                    if attempt:
                        raise
            return False  # pragma: no cover - the loop returns or raises

    def release_bot_lock(self, game: str) -> None:
        """Let another worker drive the game's bots."""
        if self.is_sqlite:
            return
        with self._lock_guard:
            if self._lock_conn is None or game not in self._held:
                return
            self._held.discard(game)
            try:
                self._lock_conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": bot_lock_key(game)})
            except Exception:
                self._drop_lock_conn()

    def _drop_lock_conn(self) -> None:
        conn, self._lock_conn = self._lock_conn, None
        self._held.clear()
        if conn is not None:
            try:
                conn.invalidate()
                conn.close()
            except Exception:  # already gone: nothing to release
                pass

    # ------------------------------------------------------------------ the table companion

    def create_table(self, row: TableRow, token_hash: str) -> None:
        """Store a new table game with the hash of its secret token."""
        with self.tx() as c:
            c.execute(insert(table_games).values(
                id=row.id, token_hash=token_hash, board=row.board, players=row.players,
                variants=json.dumps(row.variants), names=json.dumps(row.names),
                colours=json.dumps(row.colours), setup=json.dumps(row.setup), lang=row.lang,
                created=time.time()))

    def table(self, table_id: str) -> tuple[TableRow, list[Step]] | None:
        """A table game and its entries in order (None: unknown)."""
        with self.engine.connect() as c:
            g = c.execute(select(table_games).where(table_games.c.id == table_id)).first()
            if g is None:
                return None
            entries = _table_entries(c, table_id)
        return TableRow(g.id, g.board, g.players, json.loads(g.variants), json.loads(g.names),
                        json.loads(g.colours), json.loads(g.setup), g.lang), entries

    def table_steps(self, table_id: str) -> list[Step]:
        """A table game's entries in order (empty for an unknown game)."""
        with self.engine.connect() as c:
            return _table_entries(c, table_id)

    def table_of_token(self, token: str) -> str | None:
        """The id of the table game ``token`` opens (None: unknown)."""
        with self.engine.connect() as c:
            row = c.execute(select(table_games.c.id).where(
                table_games.c.token_hash == hash_token(token))).first()
        return None if row is None else str(row.id)

    def append_table_entry(self, table_id: str, seq: int, seat: int | None, text: str) -> None:
        """One entry; ``UNIQUE(game, seq)`` makes a second writer of the same seq fail."""
        with self.tx() as c:
            c.execute(insert(table_entries).values(game=table_id, seq=seq, seat=seat, text=text,
                                                   created=time.time()))

    def drop_table_entries(self, table_id: str, keep: int) -> list[Step]:
        """Delete every entry after the first ``keep`` (one transaction); the entries left."""
        with self.tx() as c:
            c.execute(delete(table_entries).where(table_entries.c.game == table_id,
                                                  table_entries.c.seq > keep))
            left = c.execute(select(func.count()).select_from(table_entries).where(
                table_entries.c.game == table_id)).scalar_one()
            if left != keep:
                raise RuntimeError(f"table {table_id}: {left} entries left, expected {keep}")
            return _table_entries(c, table_id)


def insert_game(c: Connection, row: GameRow, token_rows: list[tuple[str, str, int | None]]) -> None:
    """The inserts of a new game, its seats and tokens, in the caller's transaction (a rematch
    stores its new game and its claim on the old one in one)."""
    c.execute(insert(games).values(
        id=row.id, board=row.board, players=row.players, variants=json.dumps(row.variants),
        lang=row.lang, hotseat=row.hotseat, seed=str(row.seed), setup=json.dumps(row.setup),
        engine_version=row.engine_version, created=time.time(), status=row.status,
        version=row.version))
    c.execute(insert(seats), [{"game": row.id, "seat": i, "name": n, "kind": k}
                              for i, (n, k) in enumerate(zip(row.names, row.kinds, strict=True))])
    if token_rows:
        c.execute(insert(tokens), [{"hash": h, "game": row.id, "role": r, "seat": s, "revoked": False}
                                   for h, r, s in token_rows])


def _table_entries(c: Connection, table_id: str) -> list[Step]:
    """A table game's entries in order (seat None: an entered outcome)."""
    return [Step(r.seq, r.seat, r.text) for r in c.execute(
        select(table_entries.c.seq, table_entries.c.seat, table_entries.c.text)
        .where(table_entries.c.game == table_id).order_by(table_entries.c.seq))]


def _steps(c: Connection, game_id: str, after: int) -> list[Step]:
    rows = c.execute(select(actions.c.seq, actions.c.seat, actions.c.text)
                     .where(actions.c.game == game_id, actions.c.seq > after).order_by(actions.c.seq)).all()
    return [Step(r.seq, r.seat, r.text) for r in rows]


def _sqlite_setup(engine: Engine) -> None:
    """WAL, the chosen ``synchronous``, and ``BEGIN IMMEDIATE`` (SQLAlchemy's documented recipe:
    the driver's own transaction handling is switched off and SQLAlchemy emits BEGIN)."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA synchronous={SQLITE_SYNCHRONOUS}")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
