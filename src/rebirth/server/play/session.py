"""One online game on this worker: its authority (server/authority/kernel.py) over a
:class:`~rebirth.server.authority.live.LiveGame`, its sockets and the listeners of what it
commits.

Every change goes through :meth:`Session.commit`: a human's step and a bot's
(:class:`StepChange`), a seat handed to a bot (:class:`SeatChange`), the clock's moves
(server/clocks/changes.py) and what another worker stored (:class:`Follow`, read back). Each is
proposed on a copy, written, accepted and heard by the listeners in order: the sockets' room
(delivery by version), the broker, the clock's timer, the registry's hooks (the notifier),
metrics and the bots. A failed write changes nothing in memory; there is one recovery: the
proposal is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from rebirth.app.match import HUMAN, OUTSIDE, Match, NotYourTurnError, StaleVersionError
from rebirth.engine.actions import ActionError
from rebirth.engine.determinize import preview
from rebirth.engine.game import Game
from rebirth.server.authority.kernel import Authority, Change, Committed, Unchanged
from rebirth.server.authority.live import LiveGame
from rebirth.server.authority.ports import HostPort
from rebirth.server.clocks.changes import HANDOVER_BOT, ClockMove, TimeOut, now
from rebirth.server.clocks.timer import ClockTimer
from rebirth.server.errors import ApiError, texts
from rebirth.server.persistence.store import GameRow, StaleWrite, TokenRow, TurnNotice
from rebirth.server.play.bots import BotDriver
from rebirth.server.play.changes import Resign, SeatChange, SeatNamed, ServerError, StepChange, action_code
from rebirth.server.play.follow import Follower
from rebirth.server.play.stream import BotStreams, SeatStream
from rebirth.server.realtime.protocol import PreviewFrame, error_frame
from rebirth.server.realtime.room import Conn, Room, Seen
from rebirth.server.social.social import Social

if TYPE_CHECKING:
    pass

log = logging.getLogger("rebirth.server")


class Host(HostPort, Protocol):
    """What a session needs of the registry that holds it (a narrow view, not the registry)."""

    presence_ttl: float

    def committed(self, session: Session) -> None: ...
    def is_idle(self, session: Session) -> bool: ...
    def drop(self, game_id: str) -> None: ...
    def load_match(self, row: GameRow) -> Match: ...


# ---------------------------------------------------------------------------------- the session


class Session:
    """One game on this worker."""

    def __init__(self, host: Host, game: Game, value: LiveGame) -> None:
        self.host = host
        self.id = value.id
        self.game = game
        self.authority: Authority[LiveGame] = Authority(value, f"game {value.id}")
        self.lock = self.authority.lock
        self.room = Room(game.players, host.metrics.frames_serialised)
        self.offline_since = [time.monotonic()] * game.players
        self.notified: tuple[TurnNotice, int] | None = None
        """The turn notification the last step enqueued with it, and the outbox rows that were new."""
        self.clock = ClockTimer(self._time_out)
        self.bots = BotDriver(self)
        self.social = Social(self)
        self.follower = Follower(self)
        self.streams = BotStreams(game, self.room.streams)
        a = self.authority
        a.listen(self._deliver)
        a.listen(self.streams.committed)
        a.listen(self.follower.published)
        a.listen(self.clock.committed)
        a.listen(self._hooks)
        a.listen(lambda e: self.bots.kick())
        self.clock.arm(value)

    # ------------------------------------------------------------------ reading

    @property
    def value(self) -> LiveGame:
        return self.authority.value

    @property
    def match(self) -> Match:
        return self.authority.value.match

    @property
    def row(self) -> GameRow:
        return self.authority.value.row

    @property
    def committed(self) -> int:
        """The committed version (what error frames and summaries report)."""
        return self.authority.value.version

    @property
    def conns(self) -> list[Conn]:
        return self.room.conns

    @property
    def multi(self) -> bool:
        """Several workers: another one may have moved the game on."""
        return self.host.broker is not None

    def online(self) -> list[bool]:
        """Per seat: is a device of it connected here or (several workers) elsewhere."""
        return [on or s in self.remote_online for s, on in enumerate(self.room.local_online())]

    def handover_at(self) -> list[float | None]:
        """Per seat: the wall time from which another player may hand it to a bot (None: not a
        human's seat, or a device of it is connected) — the page counts down to it."""
        grace = self.host.settings.offline_grace
        online, mono, wall = self.online(), time.monotonic(), now()
        return [None if online[i] or s.kind not in OUTSIDE
                else round(wall + self.offline_since[i] + grace - mono, 3)
                for i, s in enumerate(self.match.seats)]

    def seen(self) -> Seen:
        return Seen(self.online(), self.handover_at, self.value.clock_frame(now()))

    def summary(self) -> dict[str, Any]:
        """The public summary (``GET /api/games/{id}``)."""
        v = self.value
        m = v.match
        return {"game": self.id, "board": v.row.board, "players": self.game.players, "names": m.names,
                "kinds": v.kinds, "variants": sorted(self.game.variants), "lang": v.row.lang,
                "hotseat": v.row.hotseat, "status": "over" if v.over else "playing", "version": m.version,
                "online": self.online(), "clock": v.clock_frame(now())}

    # ------------------------------------------------------------------ the commit path

    async def commit(self, change: Change[LiveGame]) -> Committed[LiveGame]:
        """The one way to change the game (hold :attr:`lock`). A failed write drops the
        proposal: :class:`StaleWrite` (another worker first: what won is read back), else
        :class:`ServerError`; memory, store and every view are as before."""
        try:
            return await self.authority.commit(change)
        except (ActionError, ApiError, Unchanged):
            raise
        except StaleWrite:
            log.info("game %s: another worker stored its next change first; reading it back", self.id)
            await self.read_back(strict=False)
            raise
        except Exception as exc:
            self.host.metrics.store_failures.inc()
            log.exception("game %s: storing a %s change failed; nothing changed", self.id, change.kind)
            raise ServerError from exc

    def _deliver(self, e: Committed[LiveGame]) -> Awaitable[None]:
        before, after = e.before, e.after
        seen = self.seen()
        # The row is replaced exactly when a seat's kind or name changes (LiveGame.with_match).
        kinds = after.row is not before.row and after.kinds != before.kinds
        if after.row is not before.row and after.row.names != before.row.names:
            return self._renamed(after, seen)
        if not kinds and (after.version != before.version or after.clock_rev == before.clock_rev):
            # A step: the room's delivery is the whole answer (returned, not awaited here: one
            # coroutine level less on every step's sends).
            return self.room.deliver(after, seen)
        return self._deliver_change(after, seen, kinds)

    async def _renamed(self, after: LiveGame, seen: Seen) -> None:
        """A seat's name changed (an open seat taken): every device gets a fresh sync, which
        carries the names (and any step it had not had yet)."""
        for c in list(self.room.conns):
            if c.role is not None and not await c.send(Room.sync(after, c, c.last, seen)):
                self.room.drop(c)

    async def seat_taken(self, seat: int, name: str) -> None:
        """An open seat was taken (stored already): its new name, here and on every worker."""
        async with self.lock:
            if self.multi:
                await self.catch_up(strict=False)
            with contextlib.suppress(Unchanged):
                await self.commit(SeatNamed(seat, name))
        await self.announce()

    async def refresh(self) -> None:
        """Several workers: read back what another worker stored (a seat taken there), here
        and for every connection of this worker."""
        if self.multi:
            async with self.lock:
                await self.catch_up(strict=False)

    async def _deliver_change(self, after: LiveGame, seen: Seen, kinds: bool) -> None:
        """A change besides a step: the steps (if any), then the clock and seats' kinds, then
        presence when a seat changed hands."""
        if kinds:
            self.room.retarget(tuple(i for i, k in enumerate(after.kinds) if k == HUMAN))
        await self.room.deliver(after, seen)
        await self.room.clock(after, seen)
        if kinds:
            await self.room.presence(seen)

    def _hooks(self, e: Committed[LiveGame]) -> None:
        if e.kind in ("human", "bot"):
            self.host.committed(self)
            self.host.metrics.actions.labels("accepted", e.kind).inc()

    # ------------------------------------------------------------------ connections

    async def join(self, c: Conn, tok: TokenRow, token_hash: str | None, since: int) -> None:
        """A device said hello with a valid token: it gets its sync (after what other workers
        stored is read back — which every other connection then gets too, by version)."""
        async with self.lock:
            if self.multi:
                await self.catch_up(strict=False)
                await self.refresh_remote()
            self.room.drop(c)
            c.role, c.token_hash = tok.role, token_hash
            if tok.role == "seat" and tok.seat is not None:
                c.seat, c.controls = tok.seat, (tok.seat,)
            elif tok.role == "table":
                c.seat, c.controls = None, tuple(i for i, s in enumerate(self.match.seats) if s.kind == HUMAN)
            else:
                c.seat, c.controls = None, ()
            before = self.room.local_online()
            self.room.conns.append(c)
            changed = self.room.local_online() != before
            if changed:
                # Marked before the sync: once a device has its sync, no worker hands its seat over.
                await self.presence_changed()
            await c.send(Room.sync(self.value, c, since, self.seen()))
            if changed:
                await self.room.presence(self.seen())
        await self.social.joined()

    async def leave(self, c: Conn) -> None:
        """A socket closed."""
        async with self.lock:
            if c not in self.room.conns:
                return
            self.social.forget(c)
            before, seen_before = self.room.local_online(), self.room.local_visible()
            self.room.drop(c)
            after = self.room.local_online()
            if after == before and self.room.local_visible() != seen_before:
                await self.follower.visibility_changed()
            for s in range(self.game.players):
                if before[s] and not after[s]:
                    self.offline_since[s] = time.monotonic()
            if after != before:
                await self.room.presence(self.seen())
                await self.presence_changed()

    async def set_visible(self, c: Conn, visible: bool) -> None:
        """The page said whether it is visible (issue 25 item 6): the marks other workers'
        notifiers read change with it."""
        async with self.lock:
            before = self.room.local_visible()
            c.visible = visible
            if self.room.local_visible() != before:
                await self.follower.visibility_changed()

    def attending(self, seat: int) -> bool:
        """Has ``seat`` a page here that is open and visible?"""
        return seat in self.room.local_visible()

    async def claim(self, c: Conn, seat: int) -> None:
        """Hot-seat: the player to move took the device; it gets that seat's sync only."""
        async with self.lock:
            m = self.match
            if seat not in c.controls or seat != m.state.current_player or m.seats[seat].kind != HUMAN:
                raise NotYourTurnError("error.you_can_take_device_only")
            c.seat = seat
            await c.send(Room.sync(self.value, c, -1, self.seen()))

    async def close_token(self, token_hash: str) -> None:
        """A revoked token: its sockets are told and closed."""
        for c in await self.room.close_tokens({token_hash}, error_frame("revoked", self.committed)):
            await self.leave(c)

    # ------------------------------------------------------------------ acting

    def acting_seat(self, c: Conn, seat: int | None) -> int:
        """The seat an ``act``/``preview`` of this connection is for (checked)."""
        if c.role not in ("seat", "table") or c.seat is None:
            raise NotYourTurnError("error.link_cannot_act_now")
        if seat is not None and seat != c.seat:
            raise NotYourTurnError("error.you_can_act_only_for")
        if self.match.seats[c.seat].kind not in OUTSIDE:
            raise NotYourTurnError("error.your_seat_now_played_by")
        return c.seat

    async def act(self, c: Conn, seat: int | None, action: str, version: int) -> None:
        """A human action: proposed, committed, then delivered to every connection."""
        await self._act(lambda: self.acting_seat(c, seat), action, version)

    def program_seat(self, seat: int) -> int:
        """The seat a bot-API move is for (its token's), checked as :meth:`acting_seat` checks
        a socket's."""
        if self.match.seats[seat].kind not in OUTSIDE:
            raise NotYourTurnError("error.your_seat_now_played_by")
        return seat

    async def act_remote(self, seat: int, action: str, version: int) -> int:
        """A program's move over the bot API (server/api/bot.py): the same step as a socket's
        ``act``; returns the version after it."""
        return await self._act(lambda: self.program_seat(seat), action, version)

    async def _act(self, who: Callable[[], int], action: str, version: int) -> int:
        start = time.perf_counter()
        async with self.lock:
            if self.follower.may_be_behind():
                await self.catch_up()  # another worker moved on: this connection learns it first
            try:
                await self.commit(StepChange(self, who(), action, version))
            except StaleWrite:
                raise StaleVersionError(version, self.committed) from None
            after = self.committed
        self.host.metrics.action_seconds.labels("human").observe(time.perf_counter() - start)
        return after

    # ------------------------------------------------------------------ bot-API streams

    async def open_stream(self, seat: int, token_hash: str, since: int) -> SeatStream:
        """A program opened its seat's stream: its first line is queued (after what other
        workers stored is read back), and the seat counts as online while it stays open."""
        st = SeatStream(seat, token_hash)
        async with self.lock:
            if self.multi:
                await self.catch_up(strict=False)
                await self.refresh_remote()
            self.streams.start(st, self.value, since)
            if st.closed:
                return st  # the game is over: nothing to follow
            before = self.room.local_online()
            self.room.streams.append(st)
            if self.room.local_online() != before:
                await self.presence_changed()
                await self.room.presence(self.seen())
        return st

    async def close_stream(self, st: SeatStream) -> None:
        """A stream ended (the program went away, or the game is over)."""
        st.close()
        async with self.lock:
            if st not in self.room.streams:
                return
            before = self.room.local_online()
            self.room.streams.remove(st)
            after = self.room.local_online()
            if before[st.seat] and not after[st.seat]:
                self.offline_since[st.seat] = time.monotonic()
            if after != before:
                await self.room.presence(self.seen())
                await self.presence_changed()

    async def preview(self, c: Conn, seat: int | None, action: str) -> PreviewFrame:
        """What ``action`` would score for the connection's seat, from its own view only."""
        async with self.lock:
            who = self.acting_seat(c, seat)
            if who != self.match.state.current_player:
                raise NotYourTurnError("error.not_seat_s_turn", n=who + 1)
            view = self.match.view(who)
        rng = random.Random(secrets.randbits(64))
        points, events = await asyncio.to_thread(preview, self.game, view, who, action, rng)
        # Public form: a preview's private part (the card a cathedral would draw) is a guess.
        return PreviewFrame(action, points, len(view.history), [e.to_json(None) for e in events])

    async def hand_to_bot(self, seat: int, grace: float) -> None:
        """A leaver's seat is played by a bot from now on."""
        async with self.lock:
            if self.match.seats[seat].kind not in OUTSIDE:
                raise ApiError(409, "not_human")
            if self.room.local_online()[seat] or time.monotonic() - self.offline_since[seat] < grace:
                raise ApiError(409, "still_online", details={"allowed_at": self.handover_at()[seat]})
            broker = self.host.broker
            if broker is not None:  # a device of that seat may be connected to another worker
                elsewhere = await broker.online_elsewhere(self.id)
                if elsewhere is None or seat in elsewhere:
                    raise ApiError(409, "still_online")
            await self.commit(SeatChange(self, seat, HANDOVER_BOT))

    async def resign(self, c: Conn, seat: int | None) -> None:
        """The connection's seat gives up (issue 25 item 4): a bot plays it out; another
        worker's change first: what won is read back and the resign is refused."""
        async with self.lock:
            if self.multi:
                await self.catch_up(strict=False)
            if self.value.over:
                raise ApiError(409, "cannot_resign", texts("server.cannot_resign"))
            who = self.acting_seat(c, seat if c.role == "table" else None)
            try:
                await self.commit(Resign(self, who, HANDOVER_BOT))
            except StaleWrite:
                raise ApiError(409, "conflict") from None
        log.info("game %s: seat %d resigned; a bot plays it", self.id, who)

    async def move_clock(self, move: ClockMove) -> None:
        """A take-back or an adjustment of the clock (REST); another worker's change first:
        409 ``conflict`` (what won is read back)."""
        async with self.lock:
            if self.multi:
                await self.catch_up(strict=False)
            try:
                await self.commit(move)
            except StaleWrite:
                raise ApiError(409, "conflict") from None

    async def _time_out(self) -> bool:
        """The clock's deadline passed (the timer's callback): the seat goes to a bot."""
        async with self.lock:
            if self.multi:
                await self.catch_up(strict=False)
            try:
                await self.commit(TimeOut(self.host.store))
            except (Unchanged, StaleWrite):
                self.clock.arm(self.value)  # time was added, or another worker was first
                return False
        log.info("game %s: a seat ran out of time; a bot plays it", self.id)
        return True

    # ------------------------------------------------------------------ several workers

    async def catch_up(self, strict: bool = True) -> bool:
        """Before a step or a sync: read back what other workers stored (server/play/follow.py)."""
        return await self.follower.read_back(strict)

    async def read_back(self, strict: bool = True) -> bool:
        return await self.follower.read_back(strict)

    def notice(self, version: int) -> None:
        self.follower.notice(version)

    async def announce(self) -> None:
        await self.follower.announce()

    async def presence_changed(self) -> None:
        await self.follower.presence_changed()

    async def refresh_remote(self, remote: set[int] | None = None) -> None:
        await self.follower.refresh_remote(remote)

    @property
    def remote_online(self) -> set[int]:
        return self.follower.remote_online


Hub = Session
"""The name the rest of the server knew it by."""

__all__ = ["Host", "Hub", "ServerError", "Session", "action_code"]
