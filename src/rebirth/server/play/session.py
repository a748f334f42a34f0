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
import logging
import random
import secrets
import time
from typing import TYPE_CHECKING, Any, Protocol

from rebirth.app.match import HUMAN, Match, NotYourTurnError, StaleVersionError
from rebirth.engine.actions import ActionError
from rebirth.engine.determinize import preview
from rebirth.engine.game import Game
from rebirth.server.authority.kernel import Authority, Change, Committed, Replace, Unchanged
from rebirth.server.authority.live import LiveGame
from rebirth.server.authority.ports import HostPort
from rebirth.server.clocks.changes import HANDOVER_BOT, ClockMove, TimeOut, now
from rebirth.server.clocks.timer import ClockTimer
from rebirth.server.errors import ApiError
from rebirth.server.persistence import clocks as clockstore
from rebirth.server.persistence.store import GameRow, StaleWrite, TokenRow, TurnNotice
from rebirth.server.play.bots import BotDriver
from rebirth.server.play.changes import Follow, SeatChange, StepChange
from rebirth.server.realtime.protocol import PreviewFrame, error_frame
from rebirth.server.realtime.room import Conn, Room, Seen
from rebirth.server.social.social import Social

if TYPE_CHECKING:
    pass

log = logging.getLogger("rebirth.server")


class ServerError(Exception):
    """A change could not be stored: nothing changed (the proposal was dropped)."""


def action_code(exc: ActionError) -> str:
    """The protocol's error code of a refused action."""
    if isinstance(exc, StaleVersionError):
        return "stale_version"
    if isinstance(exc, NotYourTurnError):
        return "not_your_turn"
    return "illegal"


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
        self.remote_online: set[int] = set()
        """Seats with a device on another worker (several workers)."""
        self.notified: tuple[TurnNotice, int] | None = None
        """The turn notification the last step enqueued with it, and the outbox rows that were new."""
        self.clock = ClockTimer(self._time_out)
        self.bots = BotDriver(self)
        self.social = Social(self)
        self._own: set[int] = set()
        """Versions this worker published itself (their echo needs no catch-up)."""
        self._follow_task: asyncio.Task[None] | None = None
        self._again = self._recheck = False
        broker = host.broker
        self._reconnects_seen = broker.reconnects if broker is not None and broker.connected else -1
        a = self.authority
        a.listen(self._deliver)
        a.listen(self._announce_own)
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
        return [None if online[i] or s.kind != HUMAN
                else round(wall + self.offline_since[i] + grace - mono, 3)
                for i, s in enumerate(self.match.seats)]

    def seen(self) -> Seen:
        return Seen(self.online(), self.handover_at(), self.value.clock_frame(now()))

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

    async def _deliver(self, e: Committed[LiveGame]) -> None:
        before, after = e.before, e.after
        self.room.retarget(tuple(i for i, k in enumerate(after.kinds) if k == HUMAN))
        seen = self.seen()
        await self.room.deliver(after, seen)
        between = after.version == before.version and after.clock_rev != before.clock_rev
        if after.kinds != before.kinds or between:
            await self.room.clock(after, seen)
        if after.kinds != before.kinds:
            await self.room.presence(seen)

    def _announce_own(self, e: Committed[LiveGame]) -> None:
        broker = self.host.broker
        if broker is None or e.kind == "follow":
            return
        self._own.add(e.after.version)
        # Not awaited: the change is stored; the notice goes out with this turn's others.
        broker.publish_soon(self.id, e.after.version)

    def _hooks(self, e: Committed[LiveGame]) -> None:
        if e.kind in ("human", "bot"):
            self.host.committed(self)
            self.host.metrics.actions.labels("accepted", e.kind).inc()

    # ------------------------------------------------------------------ connections

    async def join(self, c: Conn, tok: TokenRow, token_hash: str, since: int) -> None:
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
            before = self.room.local_online()
            self.room.drop(c)
            after = self.room.local_online()
            for s in range(self.game.players):
                if before[s] and not after[s]:
                    self.offline_since[s] = time.monotonic()
            if after != before:
                await self.room.presence(self.seen())
                await self.presence_changed()

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
        if self.match.seats[c.seat].kind != HUMAN:
            raise NotYourTurnError("error.your_seat_now_played_by")
        return c.seat

    async def act(self, c: Conn, seat: int | None, action: str, version: int) -> None:
        """A human action: proposed, committed, then delivered to every connection."""
        start = time.perf_counter()
        async with self.lock:
            if self._may_be_behind():
                await self.catch_up()  # another worker moved on: this connection learns it first
            try:
                await self.commit(StepChange(self, self.acting_seat(c, seat), action, version))
            except StaleWrite:
                raise StaleVersionError(version, self.committed) from None
        self.host.metrics.action_seconds.labels("human").observe(time.perf_counter() - start)

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
            if self.match.seats[seat].kind != HUMAN:
                raise ApiError(409, "not_human")
            if self.room.local_online()[seat] or time.monotonic() - self.offline_since[seat] < grace:
                raise ApiError(409, "still_online", details={"allowed_at": self.handover_at()[seat]})
            broker = self.host.broker
            if broker is not None:  # a device of that seat may be connected to another worker
                elsewhere = await broker.online_elsewhere(self.id)
                if elsewhere is None or seat in elsewhere:
                    raise ApiError(409, "still_online")
            await self.commit(SeatChange(self, seat, HANDOVER_BOT))

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

    def kick_bots(self) -> None:
        """Let the bots move if one is to."""
        self.bots.kick()

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

    def _may_be_behind(self) -> bool:
        """Several workers: must the game be read back before a human step? Not while the
        Redis subscription has been up since this game last caught up and no notice waits:
        every other worker's step would have been announced. A notice in flight costs at most
        a stale answer: the step's write is conditional (:meth:`Store.append`)."""
        broker = self.host.broker
        if broker is None:
            return False
        if not broker.connected or broker.reconnects != self._reconnects_seen:
            return True
        task = self._follow_task
        return task is not None and not task.done()

    async def catch_up(self, strict: bool = True) -> bool:
        """Before a step or a sync: :meth:`read_back`."""
        return await self.read_back(strict)

    async def read_back(self, strict: bool = True) -> bool:
        """Read what other workers stored after our version and commit it as a :class:`Follow`
        (every connection then gets it, by version); True when something changed. The database
        away: ``strict`` raises :class:`ServerError` (no step on a state that may be old), else
        the local state is kept. Hold :attr:`lock`."""
        broker = self.host.broker
        reconnects = broker.reconnects if broker is not None else 0
        store = self.host.store
        try:
            version, kinds, steps = await asyncio.to_thread(store.catch_up, self.id, self.committed)
            clock = await asyncio.to_thread(clockstore.load_with_kinds, store, self.id) \
                if self.value.clock is not None else None
        except Exception as exc:
            log.warning("game %s: catching up failed: %s", self.id, exc)
            if strict:
                raise ServerError from exc
            return False
        self._reconnects_seen = reconnects
        try:
            if version > self.committed + len(steps):
                raise ValueError(f"game {self.id}: the log ends at {self.committed + len(steps)}, "
                                 f"the game is at {version}")
            await self.authority.commit(Follow(steps, kinds, clock))
        except Unchanged:
            return False
        except ValueError:
            log.exception("game %s: the log does not continue this match; rebuilding", self.id)
            await self.authority.commit(Replace(await self.reload()))
        return True

    async def reload(self) -> LiveGame:
        """The game read whole from the store (its row, clock and log)."""
        store = self.host.store
        row = await asyncio.to_thread(store.game, self.id) or self.row
        match = await asyncio.to_thread(self.host.load_match, row)
        clock = await asyncio.to_thread(clockstore.load, store, self.id)
        return LiveGame(match, row, *(clock or (None, 0)))

    def notice(self, version: int) -> None:
        """Redis said the game is at ``version``: catch up (coalesced: one follower task, run
        again while notices keep coming)."""
        if version in self._own:
            self._own = {v for v in self._own if v > version}
            return
        if version < self.committed:
            return
        if self.host.is_idle(self):
            # Nobody here follows the game: it leaves memory instead of reading every step back.
            self.host.drop(self.id)
            return
        if version == self.committed:
            self._recheck = True  # no new step: an announcement (a seat handed over, a revoked link)
        if self._follow_task is not None and not self._follow_task.done():
            self._again = True
            return
        self._follow_task = asyncio.get_running_loop().create_task(self._follow())

    async def _follow(self) -> None:
        while True:
            self._again = False
            try:
                async with self.lock:
                    await self.catch_up()
                    if self._recheck:
                        self._recheck = False
                        await self._drop_revoked()
                        await self.refresh_remote()
            except Exception:  # the database is down: the next notice or version check retries
                log.exception("game %s: catching up failed", self.id)
                return
            self.bots.kick()
            if not self._again:
                return

    async def _drop_revoked(self) -> None:
        """Close the local sockets whose token another worker revoked."""
        hashes = [c.token_hash for c in self.room.conns if c.token_hash is not None]
        if hashes:
            gone = await asyncio.to_thread(self.host.store.revoked, hashes)
            for c in await self.room.close_tokens(gone, error_frame("revoked", self.committed)):
                self.room.drop(c)

    async def presence_changed(self) -> None:
        """A device came or went here: the marks, then a word to the other workers."""
        broker = self.host.broker
        if broker is not None:
            seats = [s for s, on in enumerate(self.room.local_online()) if on]
            await broker.mark_online(self.id, seats, self.host.presence_ttl)
            await self.announce()

    async def refresh_remote(self, remote: set[int] | None = None) -> None:
        """Re-read (or take) which seats have a device on other workers; tell the local ones if
        it changed."""
        broker = self.host.broker
        if broker is None:
            return
        if remote is None:
            remote = await broker.online_elsewhere(self.id)
        if remote is not None and remote != self.remote_online:
            self.remote_online = remote
            await self.room.presence(self.seen())

    async def announce(self) -> None:
        """Tell the other workers that something besides the version changed: they re-read the
        game (the message itself names only the version)."""
        broker = self.host.broker
        if broker is not None:
            await broker.publish(self.id, self.committed)


Hub = Session
"""The name the rest of the server knew it by."""
