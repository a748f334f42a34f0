"""A game's chat and its rematch on the server (issue 16 items 3 and 4; docs/protocol.md).

Chat: every connection of a game may write (players under their seat's name, spectators marked
as such); a message is checked (length, rate per connection), stored, and only then sent to
every local connection and announced to the other workers as "the chat of game G is at n" —
each worker reads the new messages from the database. The text travels as JSON data and the
page inserts it as text (web/chat.js), never as markup.

Rematch: once the game is over a player (or the hot-seat table, or the admin) starts it: the
same board, variants, seats, kinds and names, the start player moved on. Exactly one per game
(the ``rematches`` row, see :mod:`.chat_store`). Its links are derived from each holder's own
old token (:func:`derive_token`), so a worker can give a seat its new link only when that seat
presents its old one — nobody learns another seat's link, and no token is stored in clear.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import logging
import math
import secrets
import time
import unicodedata
from collections import deque
from typing import TYPE_CHECKING, Any

from rebirth import __version__
from rebirth.app.match import HUMAN, Match
from rebirth.server.errors import ApiError, texts
from rebirth.server.persistence import chat as chat_store
from rebirth.server.persistence.store import GameRow, Store, TokenRow, hash_token
from rebirth.server.realtime.protocol import (
    ChatFrame,
    ChatHistory,
    ChatHistoryAsk,
    ChatSay,
    RematchFrame,
    error_frame,
)
from rebirth.server.realtime.room import Conn

if TYPE_CHECKING:
    from rebirth.server.authority.ports import GamePort

log = logging.getLogger("rebirth.server.social.social")

MAX_CHARS = 500
"""The longest chat message (characters)."""
MAX_NAME = 40
"""The longest name a spectator may give."""
RATE_COUNT = 5
RATE_SECONDS = 10.0
"""At most ``RATE_COUNT`` messages per connection in any ``RATE_SECONDS``."""
HISTORY = 200
"""The latest messages a connection gets when it joins."""
HANDOVER_KIND = "greedy"
"""The kind a leaver's seat was handed to (hub.HANDOVER_BOT): a human's seat in the rematch."""


def derive_token(old_token: str, new_game: str) -> str:
    """The rematch link's token of whoever holds ``old_token``: an HMAC keyed by that secret, so
    only its holder (presenting it) can have the server compute it."""
    mac = hmac.new(old_token.encode(), f"rebirth-rematch/{new_game}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Embedding, override and isolate controls: they could turn the rest of a line around."""


def printable(raw: str) -> str:
    """``raw`` without control characters (NUL, which PostgreSQL's text refuses, included) and
    bidirectional overrides; new lines and tabs stay."""
    return "".join(ch for ch in raw if ch in "\n\t" or not (
        unicodedata.category(ch) == "Cc" or ch in BIDI_CONTROLS))


def clean_text(raw: Any) -> str:
    """A message as it will be stored: printable, trimmed; refused when empty or too long."""
    if not isinstance(raw, str):
        raise ApiError(400, "bad_message")
    out = printable(raw).strip()
    if not out:
        raise ApiError(400, "chat_empty", texts("server.chat_empty"))
    if len(out) > MAX_CHARS:
        raise ApiError(400, "chat_too_long", texts("server.chat_too_long", max=MAX_CHARS, n=len(out)),
                       {"max": MAX_CHARS})
    return out


class Social:
    """The chat and rematch state of one game in this worker."""

    def __init__(self, hub: GamePort) -> None:
        self.hub = hub
        self.delivered = 0
        """The last chat number sent to this worker's connections."""
        self.rematch: str | None = None
        self._told: str | None = None
        """The rematch this worker's connections were sent (each learns it once, whichever way
        this worker learnt it: its own click, a lost race, another worker's notice)."""
        self._loaded = False
        self.lock = asyncio.Lock()
        """Orders storing, reading and sending (two local messages never arrive swapped)."""
        self._sent: dict[Conn, deque[float]] = {}
        self._follow: asyncio.Task[None] | None = None
        self._again = False

    @property
    def store(self) -> Any:
        return self.hub.host.store

    async def _load(self) -> None:
        if not self._loaded:
            got = await asyncio.to_thread(chat_store.heads, self.store, [self.hub.id])
            self.delivered, self.rematch = got[self.hub.id]
            self._loaded = True

    # ------------------------------------------------------------------ connections

    async def joined(self) -> None:
        """A connection joined: from now on this worker delivers the chat here, so it knows
        from which number on (the messages before come by :meth:`history`)."""
        if not self._loaded:
            async with self.lock:
                await self._load()

    async def history(self, c: Conn, obj: ChatHistoryAsk) -> None:
        """A ``chat_history`` request (a page sends it after each sync): the messages after
        ``after`` (at most the latest :data:`HISTORY`) and the rematch, if there is one. Asked
        for, not pushed: a client that does not chat receives no chat frame."""
        after = obj.after
        if not isinstance(after, int) or isinstance(after, bool) or not 0 <= after < 1 << 31:
            await c.send(error_frame("bad_message", self.hub.committed))
            return
        async with self.lock:
            await self._load()
            # ``delivered`` stays: it is what every local connection was sent, and a message
            # from another worker whose notice is still on its way is not yet that.
            msgs = await asyncio.to_thread(chat_store.messages, self.store, self.hub.id, after, HISTORY)
            await c.send(ChatHistory([m.to_json() for m in msgs], True, self.rematch))

    def forget(self, c: Conn) -> None:
        """A connection left."""
        self._sent.pop(c, None)

    # ------------------------------------------------------------------ chat

    def _sender(self, c: Conn, obj: ChatSay) -> tuple[int | None, str, str]:
        """(seat, role, name) of a message from ``c``."""
        if c.role in ("seat", "table"):
            if c.seat is None:
                # Hot-seat hand-over: nothing is shown or written until the next player claims.
                raise ApiError(409, "chat_hidden", texts("server.chat_hidden"))
            return c.seat, "player", self.hub.value.match.names[c.seat]
        name = obj.name
        if not isinstance(name, str):
            raise ApiError(400, "bad_message")
        name = printable(name).replace("\n", " ").replace("\t", " ").strip()
        if len(name) > MAX_NAME:
            raise ApiError(400, "chat_bad_name", texts("server.chat_bad_name", max=MAX_NAME))
        return None, "spectator", name

    def _check_rate(self, c: Conn) -> None:
        now = time.monotonic()
        sent = self._sent.setdefault(c, deque())
        while sent and now - sent[0] >= RATE_SECONDS:
            sent.popleft()
        if len(sent) >= RATE_COUNT:
            wait = max(1, math.ceil(RATE_SECONDS - (now - sent[0])))
            raise ApiError(429, "chat_rate",
                           texts("server.chat_rate", n=RATE_COUNT, s=int(RATE_SECONDS), wait=wait),
                           {"retry_after": wait})
        sent.append(now)

    async def chat(self, c: Conn, obj: ChatSay) -> None:
        """A ``chat`` frame: checked, stored, then delivered here and announced to the others.
        A refusal is an ``error`` frame to the sender only; nothing is stored."""
        hub = self.hub
        try:
            text = clean_text(obj.text)
            seat, role, name = self._sender(c, obj)
            self._check_rate(c)
        except ApiError as exc:
            await c.send(error_frame(exc.code, hub.committed, exc.text, exc.details))
            return
        try:
            async with self.lock:
                await self._load()
                msg = await asyncio.to_thread(chat_store.add_message, self.store, hub.id, seat, role,
                                              name, text)
                await self._deliver_after(self.delivered)
        except Exception:
            log.exception("game %s: a chat message could not be stored", hub.id)
            await c.send(error_frame("server_error", hub.committed))
            return
        await self._announce(msg.seq)
        if seat is not None:  # a player's message: the other players are told (web push)
            hub.host.chatted(hub.id, seat, msg.seq)

    async def _deliver_after(self, after: int) -> None:
        """Send the stored messages after ``after`` to every local connection (holding the lock)."""
        msgs = await asyncio.to_thread(chat_store.messages, self.store, self.hub.id, after)
        msgs = [m for m in msgs if m.seq > self.delivered]
        if not msgs:
            return
        self.delivered = msgs[-1].seq
        await self.hub.room.to_all(ChatFrame([m.to_json() for m in msgs]))

    async def _announce(self, seq: int) -> None:
        broker = self.hub.host.broker
        if broker is not None:
            await broker.publish_chat(self.hub.id, seq)

    # ------------------------------------------------------------------ other workers

    def notice(self, seq: int) -> None:
        """Another worker (or the version check) says the chat of this game is at ``seq``, or
        that it has a rematch: read what is new (coalesced: one task per game, run again while
        notices keep coming)."""
        if self._follow is not None and not self._follow.done():
            self._again = True
            return
        self._follow = asyncio.get_running_loop().create_task(self._catch_up())

    async def _catch_up(self) -> None:
        while True:
            self._again = False
            try:
                async with self.lock:
                    if not self._loaded:
                        # No connection joined here yet (a join loads): nobody to deliver to.
                        await self._load()
                    await self._deliver_after(self.delivered)
                    if self.rematch is None:
                        self.rematch = await asyncio.to_thread(chat_store.rematch_of, self.store, self.hub.id)
                    await self._send_rematch()
            except Exception:  # the database is away: the next notice or version check retries
                log.exception("game %s: reading the chat failed", self.hub.id)
                return
            if not self._again:
                return

    async def _send_rematch(self) -> None:
        """Tell every local connection of the rematch, unless they were told already."""
        if self.rematch is None or self._told == self.rematch:
            return
        self._told = self.rematch
        await self.hub.room.to_all(RematchFrame(self.rematch))

    # ------------------------------------------------------------------ rematch

    async def start_rematch(self, tok: TokenRow) -> tuple[str, bool]:
        """The game's one rematch, made now if there is none; (its id, made by this call)."""
        hub = self.hub
        if tok.role not in ("seat", "table", "admin"):
            raise ApiError(403, "forbidden")
        if not hub.value.over and hub.multi:
            # The last step may have been taken on another worker a moment ago.
            async with hub.lock:
                with contextlib.suppress(Exception):
                    await hub.catch_up()
        if not hub.value.over:
            raise ApiError(409, "not_over", texts("server.not_over"))
        async with self.lock:
            await self._load()
            if self.rematch is None:
                self.rematch = await asyncio.to_thread(chat_store.rematch_of, self.store, hub.id)
            if self.rematch is not None:
                await self._send_rematch()
                return self.rematch, False
            row, match = await asyncio.to_thread(self._deal)
            in_record = await asyncio.to_thread(chat_store.in_record, self.store, hub.id)
            won = await asyncio.to_thread(chat_store.create_rematch, self.store, hub.id, row, in_record)
            self.rematch = won
            if won == row.id:
                clock = hub.value.clock
                # Same settings: the old game's clock as it was chosen (time added during the
                # game or a clock turned off there does not carry over).
                await hub.host.spawn(row, match, None if clock is None else clock.spec,
                                     ("agreement", None) if clock is None else (clock.changes, clock.creator))
            await self._send_rematch()
        await self._announce(self.delivered)
        return won, won == row.id

    def _deal(self) -> tuple[GameRow, Match]:
        """The rematch's game: the old one's settings and seats, the next start player."""
        hub = self.hub
        old = hub.value.match
        row0 = hub.value.row
        kinds = [HUMAN if s.kind == HANDOVER_KIND else s.kind for s in old.seats]
        start = (old.state.setup.start_player + 1) % hub.game.players
        match = Match.start(hub.game, kinds, hub.host.new_seed(), old.names, start_player=start)
        gid = secrets.token_urlsafe(9)
        row = GameRow(gid, row0.board, hub.game.players, sorted(hub.game.variants), row0.lang,
                      row0.hotseat, match.seed, match.state.setup.to_json(), __version__, "playing", 0,
                      match.names, kinds)
        return row, match

    async def link_token(self, tok: TokenRow, token: str) -> str | None:
        """The rematch token of the holder of ``token`` (None: no rematch yet, or no place in it
        for this link). Issued on first request, the same ever after."""
        await self._load()
        if self.rematch is None:
            self.rematch = await asyncio.to_thread(chat_store.rematch_of, self.store, self.hub.id)
            await self._send_rematch()
        new = self.rematch
        if new is None:
            return None
        row = await asyncio.to_thread(self.store.game, new)
        if row is None:  # pragma: no cover - stored with the claim
            return None
        if tok.role == "seat" and (tok.seat is None or row.kinds[tok.seat] != HUMAN):
            return None
        if tok.role == "table" and not row.hotseat:
            return None
        derived = derive_token(token, new)
        await asyncio.to_thread(chat_store.issue_token, self.store, new, tok.role,
                                tok.seat if tok.role == "seat" else None, hash_token(derived))
        return derived


async def record_chat(store: Store, game_id: str, record: dict[str, Any]) -> dict[str, Any]:
    """The record with the game's chat when its creator chose so (``chat_in_record``)."""
    if await asyncio.to_thread(chat_store.in_record, store, game_id):
        msgs = await asyncio.to_thread(chat_store.messages, store, game_id)
        record = {**record, "chat": [m.to_json() for m in msgs]}
    return record


async def heal(store: Store, socials: dict[str, Social]) -> None:
    """The version check's part for the chat (the games with sockets here): a lost chat
    notice is healed by the heads."""
    if not socials:
        return
    got = await asyncio.to_thread(chat_store.heads, store, list(socials))
    for gid, (seq, rematch) in got.items():
        s = socials[gid]
        if s._loaded and (seq > s.delivered or (rematch is not None and s.rematch is None)):
            s.notice(seq)
