"""Redis as a lossy notification path between workers (docs/server.md, "Several workers").

The database is the source of truth. After each commit a worker publishes only
``{"game": id, "version": v}`` — never a view, an event, a setup, a seed or a token — and every
worker that holds the game reads the new steps from the database and redacts them per seat at
its own edge. A lost message is harmless: the periodic version check and the full catch-up
after each reconnect heal it.

One pub/sub connection per process, fanned out locally by the
:class:`~rebirth.server.play.session.Registry`; a second connection publishes. A game's notices go to a
channel of its own (``<prefix>versions:<game>``), and a worker subscribes to the channels of
the games it holds in memory only: a worker hears the games it serves, not the whole site's
traffic (with per-game routing at the proxy, most games are on one worker). Notices are
written on a connection of their own with Redis' replies switched off, the notices of one turn
of the event loop in one write.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import time
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis

log = logging.getLogger("rebirth.server.realtime.broker")

BACKOFF_MIN = 0.1
BACKOFF_MAX = 5.0
SOCKET_TIMEOUT = 1.0
"""Seconds before a Redis call gives up: a stuck Redis must never hold a move."""

MAX_SEATS = 8
"""More seats than any board has (a worker clears all its marks of a game at once)."""

Notice = Callable[[str, int], None]
"""Called with (game id, version) for every message received."""


def parse(data: Any) -> tuple[str, int] | None:
    """The (game, version) of a message (None: not one of ours — ignored, never trusted further)."""
    try:
        obj = json.loads(data)
    except (TypeError, ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or set(obj) != {"game", "version"}:
        return None
    game, version = obj["game"], obj["version"]
    if not isinstance(game, str) or len(game) > 64 or not isinstance(version, int) \
            or isinstance(version, bool) or not 0 <= version < 1 << 31:
        return None
    return game, version


def parse_chat(data: Any) -> tuple[str, int] | None:
    """The (game, chat number) of a chat notice ``{"game": id, "chat": n}`` — "the chat (or the
    rematch) of game G is at n"; the messages themselves are read from the database."""
    try:
        obj = json.loads(data)
    except (TypeError, ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or set(obj) != {"game", "chat"}:
        return None
    game, seq = obj["game"], obj["chat"]
    if not isinstance(game, str) or len(game) > 64 or not isinstance(seq, int) \
            or isinstance(seq, bool) or not 0 <= seq < 1 << 31:
        return None
    return game, seq


def parse_bot(data: Any) -> tuple[str, int] | None:
    """The (account, event number) of a bot-event notice ``{"account": id, "event": n}`` —
    "bot account A has events up to n"; the events themselves are read from the database."""
    try:
        obj = json.loads(data)
    except (TypeError, ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or set(obj) != {"account", "event"}:
        return None
    account, seq = obj["account"], obj["event"]
    if not isinstance(account, str) or len(account) > 64 or not isinstance(seq, int) \
            or isinstance(seq, bool) or not 0 <= seq < 1 << 31:
        return None
    return account, seq


class Broker:
    """This process's Redis connections: publish versions, receive the others' versions."""

    def __init__(self, url: str, prefix: str, on_notice: Notice, on_reconnect: Callable[[], None],
                 on_chat: Notice | None = None) -> None:
        self.url = url
        self.prefix = prefix
        self.channel = f"{prefix}versions:"
        """The prefix of the games' channels (``channel + game id``)."""
        self._watched: set[str] = set()
        """The games whose channels this worker listens to (the games it holds)."""
        self._pubsub: Any = None
        """The subscription's PubSub while connected."""
        self._pending: set[asyncio.Task[None]] = set()
        self.chat_channel = f"{prefix}chat"
        """Chat notices (server/social/social.py): a game id and a number, never a message."""
        self.on_chat = on_chat
        self.bot_channel = f"{prefix}botevents"
        """Bot-event notices (server/play/botevents.py): an account id and a number, never an event."""
        self.on_bot: Notice | None = None
        self.worker = secrets.token_hex(6)
        """This process among the workers (random: names nothing but itself)."""
        self.on_notice = on_notice
        self.on_reconnect = on_reconnect
        self.connected = False
        self.reconnects = 0
        """How often the subscription was lost and made again (logged; no metrics object yet)."""
        self._pub = aioredis.from_url(url, socket_timeout=SOCKET_TIMEOUT,
                                      socket_connect_timeout=SOCKET_TIMEOUT, retry_on_timeout=False)
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._queued: dict[tuple[str, str], str] = {}
        """Messages waiting for the next write, by (channel, game): a game's later version
        replaces its earlier one (a notice only says "read the database from here")."""
        self._batch: asyncio.Future[None] | None = None
        """Resolved once the queued messages went out (or failed: they are lossy)."""
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._wpool = aioredis.ConnectionPool.from_url(url, socket_connect_timeout=SOCKET_TIMEOUT,
                                                       client_name=f"{prefix}notices")
        self._wconn: Any = None
        """The publishing connection, with replies switched off (``CLIENT REPLY OFF``): a notice
        is one write, never a round trip (measured: ~100 us of CPU per awaited PUBLISH, ~35 us
        per write)."""

    async def start(self, wait: float = 2.0) -> None:
        """Subscribe (in the background, reconnecting for ever); waits up to ``wait`` seconds for
        the first subscription so that a worker that starts with Redis up misses nothing."""
        self._task = asyncio.get_running_loop().create_task(self._listen())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), wait)

    def channel_of(self, game: str) -> str:
        """The channel of a game's notices."""
        return self.channel + game

    def watch(self, game: str) -> None:
        """Listen to ``game``'s notices from now on (it is in this worker's memory)."""
        if game not in self._watched:
            self._watched.add(game)
            self._send("subscribe", game)

    def unwatch(self, game: str) -> None:
        """Stop listening to ``game`` (it left this worker's memory)."""
        if game in self._watched:
            self._watched.discard(game)
            self._send("unsubscribe", game)

    def _send(self, command: str, game: str) -> None:
        """Send a (un)subscription on the current subscription, in call order; while Redis is
        away nothing is sent: the next subscription subscribes to every watched game."""
        pubsub = self._pubsub
        if pubsub is None:
            return

        async def send() -> None:
            try:
                await getattr(pubsub, command)(self.channel_of(game))
            except Exception as exc:  # the subscription is being lost: the reconnect resubscribes
                log.info("%s %s failed: %s", command, game, exc)

        task = asyncio.get_running_loop().create_task(send())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    def publish_soon(self, game: str, version: int) -> asyncio.Future[None]:
        """Say that ``game`` is at ``version``, without waiting (a step's commit calls it under
        the game's lock): the notices queued in one turn of the event loop go out together in
        one write. The future resolves once they were written."""
        return self._queue(self.channel_of(game), game, {"game": game, "version": version})

    async def publish(self, game: str, version: int) -> None:
        """:meth:`publish_soon`, waiting until it went out (lossy: a failure is logged and
        healed later by the version check)."""
        await asyncio.shield(self.publish_soon(game, version))

    async def publish_chat(self, game: str, seq: int) -> None:
        """Say that the chat (or the rematch) of ``game`` is at ``seq`` (lossy, like versions)."""
        await asyncio.shield(self._queue(self.chat_channel, game, {"game": game, "chat": seq}))

    async def publish_bot(self, account: str, seq: int) -> None:
        """Say that bot account ``account`` has events up to ``seq`` (lossy: the events stream's
        periodic look heals a lost one)."""
        await asyncio.shield(self._queue(self.bot_channel, account, {"account": account, "event": seq}))

    def _queue(self, channel: str, game: str, obj: dict[str, Any]) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        if not self.connected:
            done: asyncio.Future[None] = loop.create_future()
            done.set_result(None)
            return done
        self._queued[channel, game] = json.dumps(obj)
        if self._batch is None:
            self._batch = loop.create_future()
        if self._writer is None or self._writer.done():
            self._writer = loop.create_task(self._write_loop())
        # The writer runs at the event loop's next turn: whatever else is committed in this one
        # goes out in the same write.
        self._wake.set()
        return self._batch

    async def _write_loop(self) -> None:
        """One writer for the process: while a write is under way, the next notices gather."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, queued = self._batch, self._queued
            self._batch, self._queued = None, {}
            try:
                await asyncio.wait_for(self._write(queued), SOCKET_TIMEOUT)
            except Exception as exc:  # Redis away: lost; the version check heals it
                log.warning("publishing %d notices failed: %s", len(queued), exc)
                await self._drop_writer()
            finally:
                if batch is not None and not batch.done():
                    batch.set_result(None)

    async def _write(self, queued: dict[tuple[str, str], str]) -> None:
        conn = self._wconn
        if conn is None:
            conn = self._wpool.make_connection()  # type: ignore[no-untyped-call]
            await conn.connect()
            # No reply to this one either.
            await conn.send_command("CLIENT", "REPLY", "OFF", check_health=False)
            self._wconn = conn
        await conn.send_packed_command(
            conn.pack_commands([("PUBLISH", channel, msg) for (channel, _game), msg in queued.items()]),
            check_health=False)

    async def _drop_writer(self) -> None:
        conn, self._wconn = self._wconn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.disconnect(nowait=True)

    # ------------------------------------------------------------------ presence

    def _presence_key(self, game: str) -> str:
        return f"{self.prefix}online:{game}"

    def _visible_key(self, game: str) -> str:
        return f"{self.prefix}visible:{game}"

    async def mark_online(self, game: str, seats: list[int], ttl: float,
                          visible: list[int] | None = None) -> None:
        """The seats this worker has a device of, for ``ttl`` seconds (refreshed by the version
        check; a killed worker's marks expire). A sorted set per game: member ``worker:seat``,
        score its expiry. Public facts only (who is online is shown to every seat). ``visible``:
        the seats with a page here that is open and visible (issue 25 item 6: a turn notice is
        not sent to a seat that is looking at the game, whichever worker delivers it)."""
        if not self.connected:
            return  # Redis is away: the marks expire, the hand-over is refused meanwhile
        try:
            pipe = self._pub.pipeline(transaction=True)
            self._queue_marks(pipe, game, seats, time.time(), ttl)
            if visible is not None:
                self._queue_marks(pipe, game, visible, time.time(), ttl, self._visible_key(game))
            await pipe.execute()
        except Exception as exc:  # presence is advisory: a lost mark only weakens the hand-over check
            log.warning("presence of game %s not stored: %s", game, exc)

    async def presence_of_all(self, marks: dict[str, list[int]], ttl: float,
                              visible: dict[str, list[int]] | None = None) -> dict[str, set[int]] | None:
        """:meth:`mark_online` and then :meth:`online_elsewhere` for many games in one pipeline
        (the version check refreshes every game with a device here: one round trip, not two
        per game; ``visible``: the visible pages' marks, refreshed alike). None: Redis cannot
        say now."""
        if not self.connected or not marks:
            return None if not self.connected else {}
        now = time.time()
        at: dict[str, int] = {}
        try:
            pipe = self._pub.pipeline(transaction=False)
            for game, seats in marks.items():
                self._queue_marks(pipe, game, seats, now, ttl)
                if visible is not None and game in visible:
                    self._queue_marks(pipe, game, visible[game], now, ttl, self._visible_key(game))
                pipe.zrangebyscore(self._presence_key(game), now, "+inf")
                at[game] = len(pipe) - 1  # where this game's reading is among the replies
            replies = await pipe.execute()
        except Exception as exc:  # presence is advisory, as in mark_online
            log.warning("presence of %d games not refreshed: %s", len(marks), exc)
            return None
        return {game: self._others(replies[i]) for game, i in at.items()}

    def _queue_marks(self, pipe: Any, game: str, seats: list[int], now: float, ttl: float,
                     key: str | None = None) -> None:
        """Queue on ``pipe``: drop expired marks of ``game``, then this worker's, then mark
        ``seats`` until ``now + ttl`` (in ``key``: the presence set, or the visible pages')."""
        key = key or self._presence_key(game)
        pipe.zremrangebyscore(key, "-inf", now)
        pipe.zrem(key, *[f"{self.worker}:{s}" for s in range(MAX_SEATS)])
        if seats:
            pipe.zadd(key, {f"{self.worker}:{s}": now + ttl for s in seats})
        pipe.expire(key, max(1, int(ttl) + 1))

    def _others(self, members: Any) -> set[int]:
        """The seats in a presence set's members that another worker marked."""
        out = set()
        for m in members:
            text = m.decode() if isinstance(m, bytes) else str(m)
            worker, _, seat = text.partition(":")
            if worker != self.worker and seat.isdigit():
                out.add(int(seat))
        return out

    async def online_elsewhere(self, game: str) -> set[int] | None:
        """The seats other workers have a device of (None: Redis cannot say now)."""
        if not self.connected:
            return None
        try:
            members = await self._pub.zrangebyscore(self._presence_key(game), time.time(), "+inf")
        except Exception as exc:
            log.warning("presence of game %s not readable: %s", game, exc)
            return None
        return self._others(members)

    async def visible_elsewhere(self, game: str) -> set[int] | None:
        """The seats with an open, visible page on another worker (None: Redis cannot say)."""
        if not self.connected:
            return None
        try:
            members = await self._pub.zrangebyscore(self._visible_key(game), time.time(), "+inf")
        except Exception as exc:
            log.warning("visible pages of game %s not readable: %s", game, exc)
            return None
        return self._others(members)

    async def _listen(self) -> None:
        backoff = BACKOFF_MIN
        failed = False
        while True:
            client = aioredis.from_url(self.url, socket_connect_timeout=SOCKET_TIMEOUT)
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.chat_channel, self.bot_channel)
                # Set first: a game watched while the others are being subscribed sends its own.
                self._pubsub = pubsub
                watched = sorted(self._watched)
                for i in range(0, len(watched), 1000):
                    await pubsub.subscribe(*(self.channel_of(g) for g in watched[i:i + 1000]))
                self.connected = True
                self._ready.set()
                backoff = BACKOFF_MIN
                if failed:
                    failed = False
                    self.reconnects += 1
                    log.info("Redis subscription back (reconnect %d); catching up every game",
                             self.reconnects)
                    # The publisher's connections died with the old Redis.
                    with contextlib.suppress(Exception):
                        await self._pub.connection_pool.disconnect()
                    await self._drop_writer()
                    # Whatever was published while we were away is lost: read it from the database.
                    self.on_reconnect()
                # listen(): one blocking read per message (get_message with a timeout set up a
                # timer for each one).
                async for msg in pubsub.listen():
                    if msg.get("type") != "message":
                        continue
                    channel = msg.get("channel")
                    if isinstance(channel, bytes):
                        channel = channel.decode()
                    if channel == self.chat_channel:
                        chat = parse_chat(msg.get("data"))
                        if chat is not None and self.on_chat is not None:
                            self.on_chat(*chat)
                        continue
                    if channel == self.bot_channel:
                        bot = parse_bot(msg.get("data"))
                        if bot is not None and self.on_bot is not None:
                            self.on_bot(*bot)
                        continue
                    got = parse(msg.get("data"))
                    # A game's notice comes on that game's channel only.
                    if got is not None and channel == self.channel_of(got[0]):
                        self.on_notice(*got)
                # listen() ends only when nothing is subscribed: never ours (the chat channel).
                raise ConnectionError("the subscription ended")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not failed:
                    log.warning("Redis subscription lost (%s); reconnecting with backoff", exc)
                failed = True
            finally:
                self.connected = False
                self._pubsub = None
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # typed in redis 8
                with contextlib.suppress(Exception):
                    await client.aclose()
            await asyncio.sleep(backoff * (0.5 + random.random()))
            backoff = min(BACKOFF_MAX, backoff * 2)

    async def close(self) -> None:
        """Stop listening and close both connections."""
        for task in (self._task, self._writer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        await self._drop_writer()
        with contextlib.suppress(Exception):
            await self._pub.aclose()
