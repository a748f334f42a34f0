"""The per-game authority on the server: one :class:`~rebirth.app.match.Match`, its connections and
a lock; plus the registry of all games.

Order of every accepted step: the engine checks and applies it, the store commits it (off the
event loop), and only then is it broadcast — a step a player has seen is never lost. Bots
think in a worker thread (``asyncio.to_thread``) after a short visible pause. A restarted
server rebuilds each game from its stored setup, seed and log.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from fastapi import WebSocket

from rebirth import __version__
from rebirth.app.clock import ClockSpec
from rebirth.app.match import HUMAN, Match, NotYourTurnError, StaleVersionError, bot_seed, restore
from rebirth.bots.base import make_bot
from rebirth.engine.actions import ActionError
from rebirth.engine.determinize import preview
from rebirth.engine.game import Game, Setup
from rebirth.engine.records import Seat
from rebirth.engine.replay import LogEntry, ReplayError, logged
from rebirth.server.clocks.keeper import HANDOVER_BOT, ClockKeeper, adopt_due, resume_all
from rebirth.server.errors import ApiError, error_frame
from rebirth.server.metrics import Metrics
from rebirth.server.persistence.store import GameRow, StaleWrite, Step, Store, TokenRow, TurnNotice
from rebirth.server.play.invites import insert_invites, invitations
from rebirth.server.play.lifecycle import retry_delay
from rebirth.server.realtime.frames import FrameCache, dumps
from rebirth.server.settings import Settings
from rebirth.server.social.social import Social, chat_notice
from rebirth.server.social.social import heal as heal_chat

if TYPE_CHECKING:
    from rebirth.server.realtime.broker import Broker

log = logging.getLogger("rebirth.server")

GameFactory = Callable[[str, int, list[str]], Game]
"""Builds the Game of a stored game from (board, players, variants)."""
SeedFactory = Callable[[], "int | None"]
"""The seed of a new game; None (the default): 128 secret bits drawn by the Match."""


SEND_TIMEOUT = 10.0


def default_game_factory(board: str, players: int, variants: list[str]) -> Game:
    """The shipped rules on a shipped board."""
    return Game.create(board, players, variants)


class ServerError(Exception):
    """A step could not be stored: it was undone (the game was rebuilt from the log)."""


def action_code(exc: ActionError) -> str:
    """The protocol's error code of a refused action."""
    if isinstance(exc, StaleVersionError):
        return "stale_version"
    if isinstance(exc, NotYourTurnError):
        return "not_your_turn"
    return "illegal"


def rebuild(game: Game, row: GameRow, log_steps: list[Step]) -> Match:
    """The match of a stored game: its setup and seed, every logged step re-entered by the
    engine's one replay (the chance stream advanced as the live game advanced it), then
    :meth:`Match.resume`."""
    log: list[LogEntry] = []
    for s in log_steps:
        if s.seq != len(log) + 1:
            raise ValueError(f"game {row.id}: the log jumps from version {len(log)} to {s.seq}")
        log.append(logged(s.seat, s.text))
    seats = [Seat(n, k) for n, k in zip(row.names, row.kinds, strict=True)]
    try:
        return restore(game, Setup.from_json(row.setup), row.seed, log, seats)
    except ReplayError as exc:
        raise ValueError(f"game {row.id}: {exc}") from exc


def apply_steps(m: Match, log_steps: list[Step], game_id: str) -> None:
    """Re-enter logged steps after the match's version (a worker that is behind catches up by
    version) through the engine's one replay, which advances the chance stream as the writer
    did."""
    log: list[LogEntry] = []
    for s in log_steps:
        if s.seq != m.version + len(log) + 1:
            raise ValueError(f"game {game_id}: the log jumps from version {m.version + len(log)} to {s.seq}")
        log.append(logged(s.seat, s.text))
    try:
        p = m.followed(log)
        m.state, m.steps = p.after.state, p.after.steps
    except ReplayError as exc:
        raise ValueError(f"game {game_id}: {exc}") from exc


def new_steps(m: Match, old_version: int) -> list[Step]:
    """The log entries of the steps after ``old_version``: the match's own steps, as taken."""
    return [Step(st.version, st.seat, st.text) for st in m.steps if st.version > old_version]


def steps_before(m: Match, version: int) -> list[Step]:
    """The match's own log up to ``version`` (undoing a step the store could not take, when the
    store cannot be read either)."""
    return [Step(st.version, st.seat, st.text) for st in m.steps if 0 < st.version <= version]


@dataclass(eq=False)
class Conn:
    """One WebSocket of one device."""

    ws: WebSocket
    role: str | None = None
    """None until ``hello``; then seat / table / spectator / admin."""
    token_hash: str | None = None
    seat: int | None = None
    """The seat whose view this connection gets (a table: the claimed seat, None between players)."""
    controls: tuple[int, ...] = ()
    """The seats it may act for (a seat link: its seat; a table: the table's human seats)."""
    last: int = -1
    """The last version sent."""
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    closed: bool = False

    async def send(self, msg: dict[str, Any]) -> bool:
        """Send one message; False when the socket is gone."""
        if self.closed:
            return False
        try:
            text = dumps(msg)
            async with self.send_lock, asyncio.timeout(SEND_TIMEOUT):
                await self.ws.send_text(text)
            return True
        except Exception:  # a gone or stuck client must not stop the game
            self.closed = True
            return False

    async def send_text(self, text: str) -> bool:
        """Send one message already serialised (a broadcast shares it); False when gone."""
        if self.closed:
            return False
        try:
            # asyncio.timeout, not wait_for: no task per send (a broadcast makes a thousand).
            async with self.send_lock, asyncio.timeout(SEND_TIMEOUT):
                await self.ws.send_text(text)
            return True
        except Exception:  # a gone or stuck client must not stop the game
            self.closed = True
            return False


class Hub:
    """One game on the server."""

    def __init__(self, registry: Registry, row: GameRow, game: Game, match: Match) -> None:
        self.registry = registry
        self.id = row.id
        self.row = row
        self.game = game
        self.match = match
        self.lock = asyncio.Lock()
        self.conns: list[Conn] = []
        now = time.monotonic()
        self.offline_since: list[float] = [now] * game.players
        self.bot_task: asyncio.Task[None] | None = None
        self.committed = match.version
        """The last version stored: what error messages and summaries report (the match may
        be one step ahead while that step is being committed)."""
        self._own: set[int] = set()
        """Versions this worker published itself (their echo needs no catch-up)."""
        self._follow_task: asyncio.Task[None] | None = None
        self.notified: tuple[TurnNotice, int] | None = None
        """The turn notification the last committed step enqueued with it, and the outbox rows
        that were new (read by the notifier's hook after the commit)."""
        broker = registry.broker
        self._reconnects_seen = broker.reconnects if broker is not None and broker.connected else -1
        """The broker's reconnect count when this game was last read whole or caught up (-1:
        not since Redis was up)."""
        self._again = False
        self._recheck = False
        self.remote_online: set[int] = set()
        """Seats with a device on another worker (several workers; refreshed on announcements
        and by the version check)."""
        self.social = Social(self)
        """The game's chat and rematch (server/social/social.py)."""
        self.clock = ClockKeeper(self)
        """The game's clock (server/clocks/keeper.py; its state None: no clock)."""

    @property
    def multi(self) -> bool:
        """Several workers: another one may have moved the game on."""
        return self.registry.broker is not None

    @property
    def store(self) -> Store:
        return self.registry.store

    # ------------------------------------------------------------------ reading

    def local_online(self) -> list[bool]:
        """Per seat: is a device of that seat connected to this worker (a table counts for its
        seats)."""
        out = [False] * self.game.players
        for c in self.conns:
            if c.role in ("seat", "table"):
                for s in c.controls:
                    out[s] = True
        return out

    def online(self) -> list[bool]:
        """Per seat: is a device of that seat connected here or (several workers) elsewhere."""
        return [on or s in self.remote_online for s, on in enumerate(self.local_online())]

    def summary(self) -> dict[str, Any]:
        """The public summary (``GET /api/games/{id}``)."""
        m = self.match
        return {
            "game": self.id, "board": self.row.board, "players": self.game.players,
            "names": m.names, "kinds": [s.kind for s in m.seats], "variants": sorted(self.game.variants),
            "lang": self.row.lang, "hotseat": self.row.hotseat,
            "status": "over" if m.state.is_terminal() else "playing",
            "version": m.version, "online": self.online(), "clock": self.clock.frame(),
        }

    def _sync_frame(self, c: Conn, since: int) -> dict[str, Any]:
        m = self.match
        c.last = m.version
        return {"type": "sync", "game": self.id, "seat": c.seat,
                "seats": list(c.controls) if c.role == "table" else ([c.seat] if c.role == "seat" else []),
                "role": c.role, "version": m.version, "view": m.view(c.seat),
                "events": m.events_for(c.seat, since), "names": m.names,
                "kinds": [s.kind for s in m.seats], "online": self.online(), "lang": self.row.lang,
                "clock": self.clock.frame(), "handover_at": self.clock.handover_at()}

    # ------------------------------------------------------------------ connections

    async def join(self, c: Conn, tok: TokenRow, token_hash: str, since: int) -> None:
        """A device said hello with a valid token: it gets its sync."""
        async with self.lock:
            if self.multi:
                await self._catch_up_or_rebuild(strict=False)
                await self.refresh_remote()
            if c in self.conns:
                self.conns.remove(c)
            c.role, c.token_hash = tok.role, token_hash
            if tok.role == "seat" and tok.seat is not None:
                c.seat, c.controls = tok.seat, (tok.seat,)
            elif tok.role == "table":
                c.seat = None
                c.controls = tuple(i for i, s in enumerate(self.match.seats) if s.kind == HUMAN)
            else:
                c.seat, c.controls = None, ()
            before = self.local_online()
            self.conns.append(c)
            changed = self.local_online() != before
            if changed:
                # Marked before the sync: once a device has its sync, no worker hands its seat over.
                await self.presence_changed()
            await c.send(self._sync_frame(c, since))
            if changed:
                await self._presence()
        await self.social.joined()

    async def leave(self, c: Conn) -> None:
        """A socket closed."""
        async with self.lock:
            if c not in self.conns:
                return
            self.social.forget(c)
            before = self.local_online()
            self.conns.remove(c)
            after = self.local_online()
            now = time.monotonic()
            for s in range(self.game.players):
                if before[s] and not after[s]:
                    self.offline_since[s] = now
            if after != before:
                await self._presence()
                await self.presence_changed()

    async def claim(self, c: Conn, seat: int) -> None:
        """Hot-seat: the player to move took the device; it gets that seat's sync only."""
        async with self.lock:
            if seat not in c.controls or seat != self.match.state.current_player \
                    or self.match.seats[seat].kind != HUMAN:
                raise NotYourTurnError("error.you_can_take_device_only")
            c.seat = seat
            await c.send(self._sync_frame(c, -1))

    async def _presence(self) -> None:
        text = dumps({"type": "presence", "online": self.online(), "handover_at": self.clock.handover_at()})
        for c in list(self.conns):
            await c.send_text(text)

    async def close_token(self, token_hash_: str) -> None:
        """A revoked token: its sockets are told and closed."""
        for c in list(self.conns):
            if c.token_hash == token_hash_:
                await c.send(error_frame("revoked", self.committed))
                with contextlib.suppress(Exception):
                    await c.ws.close(code=4001)
                await self.leave(c)

    # ------------------------------------------------------------------ acting

    def acting_seat(self, c: Conn, seat: Any) -> int:
        """The seat an ``act``/``preview`` of this connection is for (checked)."""
        if c.role not in ("seat", "table") or c.seat is None:
            raise NotYourTurnError("error.link_cannot_act_now")
        if seat is not None and seat != c.seat:
            raise NotYourTurnError("error.you_can_act_only_for")
        if self.match.seats[c.seat].kind != HUMAN:
            raise NotYourTurnError("error.your_seat_now_played_by")
        return c.seat

    async def act(self, c: Conn, seat: Any, action: str, version: int) -> None:
        """A human action: checked by the engine, committed, then broadcast."""
        metrics = self.registry.metrics
        start = time.perf_counter()
        async with self.lock:
            if self._may_be_behind() and await self._catch_up_or_rebuild():
                # Another worker moved the game on: this connection learns it first.
                await self._broadcast()
            who = self.acting_seat(c, seat)
            old = self.match.version
            self.match.submit(who, action, version)  # raises and changes nothing when refused
            try:
                await self._commit(old)
            except StaleWrite:
                # Lost the race to another worker: the game was rebuilt from the log; every
                # local connection gets the steps that won, the sender a stale answer.
                await self._broadcast()
                raise StaleVersionError(version, self.match.version) from None
            await self._broadcast()
        metrics.actions.labels("accepted", "human").inc()
        metrics.action_seconds.labels("human").observe(time.perf_counter() - start)
        self.kick_bots()

    async def preview(self, c: Conn, seat: Any, action: str) -> dict[str, Any]:
        """What ``action`` would score for the connection's seat, from its own view only."""
        async with self.lock:
            who = self.acting_seat(c, seat)
            if who != self.match.state.current_player:
                raise NotYourTurnError("error.not_seat_s_turn", n=who + 1)
            view = self.match.view(who)
        rng = random.Random(secrets.randbits(64))
        points, events = await asyncio.to_thread(preview, self.game, view, who, action, rng)
        return {"type": "preview", "action": action, "points": points, "version": view_version(view),
                # Public form: the private part of a preview event (the mission card a
                # cathedral would draw) comes from a determinization — a guess that would name
                # cards the seat cannot know.
                "events": [e.to_json(None) for e in events]}

    def _may_be_behind(self) -> bool:
        """Several workers: must the game be read from the database before a human step?

        Not while the Redis subscription has been up since this game last caught up and no
        notice waits to be read: every other worker's step would have been announced. Even
        then a notice can be in flight — the step's conditional write (the version, the acting
        seat's kind, the clock's revision: :meth:`Store.append`) refuses a step taken on an old
        state, so skipping the read costs at most a stale answer, never a wrong step."""
        broker = self.registry.broker
        if broker is None:
            return False
        if not broker.connected or broker.reconnects != self._reconnects_seen:
            return True
        task = self._follow_task
        return task is not None and not task.done()

    async def _commit(self, old: int) -> None:
        """Store the steps after ``old``; if that fails, undo them by rebuilding from the log.

        Raises :class:`StaleWrite` when another worker stored this game's next step first (the
        match is then rebuilt from the log, which holds the winner's steps), :class:`ServerError`
        when the store failed."""
        m = self.match
        steps = new_steps(m, old)
        metrics = self.registry.metrics
        also = self.clock.prepare()  # the clock moves in the steps' transaction
        notice = self.registry.turn_notice(self)  # and the turn's notification with them
        self.notified = None
        try:
            with metrics.timed(metrics.store_commit_seconds):
                made = await self.store.append_soon(self.id, steps, m.version, m.state.is_terminal(), also,
                                                    self._actor(steps), notice)
        except StaleWrite:
            self.clock.failed()
            log.info("game %s: another worker stored version %d first; catching up", self.id, old + 1)
            await self._rebuild()
            raise
        except Exception as exc:
            self.clock.failed()
            metrics.store_failures.inc()
            log.exception("game %s: storing version %d failed; rebuilding from the log", self.id, m.version)
            try:
                await self._rebuild()
            except Exception:  # the store cannot even be read: undo from the match's own steps
                log.warning("game %s: the log cannot be read either; undoing from memory", self.id)
                self.match = await asyncio.to_thread(rebuild, self.game, self.row, steps_before(m, old))
                self.committed = self.match.version
            raise ServerError from exc
        self.committed = m.version
        if notice is not None:
            self.notified = (notice, made)
        self.clock.committed()
        self.registry.committed(self)
        broker = self.registry.broker
        if broker is not None:
            self._own.add(m.version)
            # Not awaited: the step is stored; the notice goes out with this turn's others.
            broker.publish_soon(self.id, m.version)

    def _actor(self, steps: list[Step]) -> tuple[int, str] | None:
        """The seat that took the first of ``steps`` and the kind it acted as (chance: None)."""
        seat = steps[0].seat if steps else None
        if seat is None or not 0 <= seat < len(self.match.seats):
            return None
        return seat, self.match.seats[seat].kind

    async def _rebuild(self) -> None:
        """The match again from the stored game (its setup, seed, seat kinds and log)."""
        row = await asyncio.to_thread(self.store.game, self.id)
        if row is not None:
            self.row = row
        self.match = await asyncio.to_thread(self.registry.load_match, self.row)
        self.committed = self.match.version
        await self.clock.reload()

    # ------------------------------------------------------------------ several workers

    async def catch_up(self) -> bool:
        """Read what another worker stored after our version (steps, seats handed to bots) and
        re-enter it; True when something changed. Call it holding ``self.lock``."""
        m = self.match
        broker = self.registry.broker
        reconnects = broker.reconnects if broker is not None else 0
        version, kinds, steps = await asyncio.to_thread(self.store.catch_up, self.id, m.version)
        self._reconnects_seen = reconnects
        changed = self._take_kinds(kinds)
        if self.clock.state is not None and await self.clock.reload():
            changed = True
        if steps:
            apply_steps(m, steps, self.id)
            self.committed = m.version
            changed = True
        if version > m.version:
            raise ValueError(f"game {self.id}: the log ends at {m.version}, the game is at {version}")
        return changed

    async def _catch_up_or_rebuild(self, strict: bool = True) -> bool:
        """:meth:`catch_up`, rebuilding from the log when it does not continue the match. The
        database unreachable: ``strict`` (before a step) raises :class:`ServerError` — no step
        is taken on a state that may be old; otherwise the local state is kept (a sync)."""
        try:
            return await self.catch_up()
        except ValueError:
            log.exception("game %s: the log does not continue this match; rebuilding", self.id)
            await self._rebuild()
            return True
        except Exception as exc:
            log.warning("game %s: catching up failed: %s", self.id, exc)
            if strict:
                raise ServerError from exc
            return False

    async def refresh(self) -> bool:
        """Several workers: what the others stored, before a change between steps (the clock's);
        the local state is kept when the database is away. Call it holding ``self.lock``."""
        return await self._catch_up_or_rebuild(strict=False)

    def _take_kinds(self, kinds: list[str]) -> bool:
        """Seats another worker handed to a bot."""
        m = self.match
        changed = False
        for seat, kind in enumerate(kinds):
            if seat < len(m.seats) and m.seats[seat].kind != kind:
                # A seat handed to a bot, or (clocks) taken back by its player.
                if kind == HUMAN:
                    self.seat_to_human(seat)
                else:
                    self.seat_to_bot(seat, kind)
                changed = True
        return changed

    def seat_to_bot(self, seat: int, kind: str) -> None:
        """In memory: ``seat`` is played by a bot of ``kind`` from now on (stored already)."""
        m = self.match
        m.seats[seat] = Seat(m.seats[seat].name, kind)
        m.bots[seat] = make_bot(kind, self.game, seat, bot_seed(None, seat))
        self.row = GameRow(**{**self.row.__dict__, "kinds": [s.kind for s in m.seats]})
        for c in self.conns:
            if c.role == "table":
                c.controls = tuple(s for s in c.controls if s != seat)

    def seat_to_human(self, seat: int) -> None:
        """In memory: a seat a bot played (its time ran out) is its player's again (stored already)."""
        m = self.match
        m.seats[seat] = Seat(m.seats[seat].name, HUMAN)
        m.bots.pop(seat, None)
        self.row = GameRow(**{**self.row.__dict__, "kinds": [s.kind for s in m.seats]})
        for c in self.conns:
            if c.role == "table" and seat not in c.controls:
                c.controls = tuple(sorted((*c.controls, seat)))

    def notice(self, version: int) -> None:
        """Redis said the game is at ``version``: catch up from the database (coalesced: one
        follower task per hub, run again while notices keep coming)."""
        if version in self._own:
            self._own = {v for v in self._own if v > version}
            return
        if version < self.committed:
            return
        if self.registry.is_idle(self):
            # Nobody here follows the game (with per-game routing at the proxy its devices are
            # on another worker): it leaves memory instead of reading every step back, and
            # whoever needs it here again (a device, the bot adoption) loads it anew.
            self.registry.drop(self.id)
            return
        if version == self.committed:
            # No new step: an announcement (a seat handed to a bot, a revoked link).
            self._recheck = True
        if self._follow_task is not None and not self._follow_task.done():
            self._again = True
            return
        self._follow_task = asyncio.get_running_loop().create_task(self._follow())

    async def _follow(self) -> None:
        while True:
            self._again = False
            try:
                async with self.lock:
                    presence = [s.kind for s in self.match.seats]
                    if await self._catch_up_or_rebuild():
                        await self._broadcast()
                        if presence != [s.kind for s in self.match.seats]:
                            await self._presence()
                    if self._recheck:
                        self._recheck = False
                        await self._drop_revoked()
                        await self.refresh_remote()
            except Exception:  # the database is down: the next notice or version check retries
                log.exception("game %s: catching up failed", self.id)
                return
            self.kick_bots()
            if not self._again:
                return

    async def _drop_revoked(self) -> None:
        """Close the local sockets whose token another worker revoked."""
        hashes = [c.token_hash for c in self.conns if c.token_hash is not None]
        if not hashes:
            return
        gone = await asyncio.to_thread(self.store.revoked, hashes)
        for c in list(self.conns):
            if c.token_hash in gone:
                await c.send(error_frame("revoked", self.committed))
                with contextlib.suppress(Exception):
                    await c.ws.close(code=4001)
                self.conns.remove(c)

    async def _broadcast(self) -> None:
        """Each connection gets the new steps as its seat may see them."""
        m = self.match
        over = m.state.is_terminal()
        # Connections that see the same (every spectator; devices of one seat) share one text.
        frames = FrameCache(self.registry.metrics.frames_serialised)
        online = self.online()
        for c in list(self.conns):
            if c.role is None:
                continue
            if c.role == "table" and c.seat is not None and (over or m.state.current_player != c.seat):
                # Hand-over: the device drops to the public view until the next player claims it.
                c.seat = None
                ok = await c.send(self._sync_frame(c, -1))
            else:
                ok = await c.send_text(frames.text((c.seat, c.last),
                                                   functools.partial(self._update, c.seat, c.last, online)))
                c.last = m.version
            if not ok and c in self.conns:
                self.conns.remove(c)

    def _update(self, seat: int | None, last: int, online: list[bool]) -> dict[str, Any]:
        m = self.match
        # The view as it is: frames.dumps writes its dataclass and tuples directly.
        return {"type": "update", "version": m.version, "view": m.view(seat),
                "events": m.events_for(seat, last), "online": online, "clock": self.clock.frame()}

    # ------------------------------------------------------------------ bots

    def kick_bots(self) -> None:
        """Start the bot loop if a bot is to move."""
        m = self.match
        if m.state.is_terminal() or m.is_human_turn():
            return
        if self.bot_task is None or self.bot_task.done():
            self.bot_task = asyncio.get_running_loop().create_task(self._run_bots())

    async def _run_bots(self) -> None:
        # Several workers: only the one holding the game's bot lock lets its bots think, so
        # that each bot step is taken once (the conditional write would refuse a second one
        # anyway). The lock goes with a killed worker's connection; the others' version check
        # then kicks the bots again.
        held = False
        if self.multi:
            try:
                held = await asyncio.to_thread(self.store.try_bot_lock, self.id)
            except Exception:
                log.exception("game %s: the bot lock could not be taken", self.id)
                return
            if not held:
                return
        try:
            await self._bot_loop()
        finally:
            if held:
                with contextlib.suppress(Exception):
                    await asyncio.shield(asyncio.to_thread(self.store.release_bot_lock, self.id))

    async def _bot_loop(self) -> None:
        failures = 0
        while True:
            m = self.match
            if m.state.is_terminal() or m.is_human_turn():
                return
            await asyncio.sleep(self.registry.settings.bot_delay)
            try:
                async with self.lock:
                    if self.multi and await self._catch_up_or_rebuild():
                        await self._broadcast()
                    m = self.match
                    if m.state.is_terminal() or m.is_human_turn():
                        return
                    p = m.state.current_player
                    metrics = self.registry.metrics
                    start = time.perf_counter()
                    with metrics.timed(metrics.bot_think_seconds):
                        action = await asyncio.to_thread(m.bots[p].act, m.view(p))
                    self.registry.bot_thinks += 1
                    old = m.version
                    m.submit(p, action, old)
                    try:
                        await self._commit(old)
                    except StaleWrite:
                        await self._broadcast()
                        continue
                    self.registry.bot_steps += 1
                    await self._broadcast()
                metrics.actions.labels("accepted", "bot").inc()
                metrics.action_seconds.labels("bot").observe(time.perf_counter() - start)
                failures = 0
            except ServerError:
                # Storage is away (full, read-only, unreachable): try again with backoff, for as
                # long as it takes — the game resumes by itself once storage works again.
                failures += 1
                wait = retry_delay(failures, self.registry.settings.bot_retry_max)
                log.warning("game %s: storing a bot step failed (%d in a row); retrying in %.1f s",
                            self.id, failures, wait)
                await asyncio.sleep(wait)

    async def hand_to_bot(self, seat: int, grace: float) -> None:
        """A leaver's seat is played by a bot from now on."""
        async with self.lock:
            m = self.match
            if m.seats[seat].kind != HUMAN:
                raise ApiError(409, "not_human")
            if self.local_online()[seat] or time.monotonic() - self.offline_since[seat] < grace:
                # The page counts down to when it is allowed.
                raise ApiError(409, "still_online", details={"allowed_at": self.clock.handover_at()[seat]})
            if self.registry.broker is not None:
                # A device of that seat may be connected to another worker.
                elsewhere = await self.registry.broker.online_elsewhere(self.id)
                if elsewhere is None or seat in elsewhere:
                    raise ApiError(409, "still_online")
            await asyncio.to_thread(self.store.set_kind, self.id, seat, HANDOVER_BOT)
            self.seat_to_bot(seat, HANDOVER_BOT)
            await self._presence()
        await self.announce()
        self.kick_bots()

    async def mark_online(self) -> None:
        """Tell the other workers which seats have a device here (multi-worker mode)."""
        broker = self.registry.broker
        if broker is not None:
            seats = [s for s, on in enumerate(self.local_online()) if on]
            await broker.mark_online(self.id, seats, self.registry.presence_ttl)

    async def presence_changed(self) -> None:
        """A device came or went here: the marks, then a word to the other workers."""
        await self.mark_online()
        await self.announce()

    async def refresh_remote(self) -> None:
        """Re-read which seats have a device on other workers; tell the local ones if it changed."""
        broker = self.registry.broker
        if broker is None:
            return
        remote = await broker.online_elsewhere(self.id)
        if remote is not None and remote != self.remote_online:
            self.remote_online = remote
            await self._presence()

    async def announce(self) -> None:
        """Tell the other workers that something besides the version changed (a seat handed to a
        bot, a revoked token): they re-read the game (the message itself names only the version)."""
        broker = self.registry.broker
        if broker is not None:
            await broker.publish(self.id, self.committed)


def view_version(view: Any) -> int:
    """The version a view belongs to: the length of its history."""
    return len(view.history)


class Registry:
    """All games of this server, loaded from the store on start and on demand."""

    def __init__(self, store: Store, settings: Settings, game_factory: GameFactory | None = None,
                 seed_factory: SeedFactory | None = None, metrics: Metrics | None = None) -> None:
        self.store = store
        self.settings = settings
        self.metrics = metrics or Metrics()
        self.metrics.track_games(lambda: len(self.hubs))
        self.game_factory = game_factory or default_game_factory
        self.seed_factory: SeedFactory = seed_factory or (lambda: None)
        self.hubs: dict[str, Hub] = {}
        self._load_lock = asyncio.Lock()
        self.broker: Broker | None = None
        """Set in multi-worker mode (``REBIRTH_REDIS_URL``); None: this process is the only one."""
        self._heal_task: asyncio.Task[None] | None = None
        self._heal_now = asyncio.Event()
        self.presence_ttl = max(5.0, 3 * settings.heal_interval)
        """Seconds a worker's presence marks last unless the version check refreshes them."""
        self.bot_thinks = 0
        """Bot decisions made in this process (a test checks each bot step is thought once)."""
        self.bot_steps = 0
        """Bot decisions of this process that were committed."""
        self.parked: dict[str, int] = {}
        """Games dropped from memory while a human was to move, with their version then: the
        version check adopts them again only once their stored version moved (lifecycle.py)."""
        self.on_commit: list[Callable[[Hub], None]] = []
        """Called after each committed step and when a game is loaded (server/notifications/notifier.py)."""
        self.turn_notice: Callable[[Hub], TurnNotice | None] = lambda hub: None
        """The turn notification to write with a game's next step (set by
        server/notifications/notifier.py)."""
        self.is_idle: Callable[[Hub], bool] = lambda hub: False
        """Whether nothing holds a game in memory (set by server/play/lifecycle.py, which knows the
        sockets not yet joined)."""

    def committed(self, hub: Hub) -> None:
        """Run the :attr:`on_commit` hooks; one failing must not undo or delay the step."""
        for hook in self.on_commit:
            try:
                hook(hub)
            except Exception:
                log.exception("game %s: a hook after version %d failed", hub.id, hub.committed)

    # ------------------------------------------------------------------ several workers

    async def start_workers(self) -> None:
        """Multi-worker mode: subscribe to the other workers' versions and start the version
        check that heals lost messages and adopts bot games nobody drives."""
        from rebirth.server.realtime.broker import Broker  # only a multi-worker server needs redis

        self.broker = Broker(self.settings.redis_url, self.settings.redis_prefix, self._notice,
                             self._heal_now.set, on_chat=lambda g, n: chat_notice(self, g, n))
        self.metrics.track_redis_reconnects(lambda: self.broker.reconnects if self.broker else 0)
        await self.broker.start()
        self._heal_task = asyncio.get_running_loop().create_task(self._heal_loop())

    def _notice(self, game: str, version: int) -> None:
        """Fan-out of one Redis message to the hub holding that game (if this worker holds it)."""
        hub = self.hubs.get(game)
        if hub is not None:
            hub.notice(version)

    async def _heal_loop(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._heal_now.wait(), self.settings.heal_interval)
            self._heal_now.clear()
            try:
                await self.heal()
            except Exception:  # the database is away: try again at the next tick
                log.exception("the version check failed")

    async def heal(self) -> None:
        """One version check of every unfinished game in memory (one query), a catch-up of
        those behind; then the bot games nobody drives (a killed worker's) are adopted."""
        live = {gid: h for gid, h in self.hubs.items() if not h.match.state.is_terminal()}
        await self._refresh_presence([h for h in live.values() if h.conns])
        stored = await asyncio.to_thread(self.store.versions, list(live))
        for gid, hub in live.items():
            if stored.get(gid, -1) > hub.committed:
                hub.notice(stored[gid])
            else:
                hub.kick_bots()
        await heal_chat(self, list(self.hubs))
        await self.adopt()
        await adopt_due(self)  # games whose time ran out that no worker holds

    async def _refresh_presence(self, hubs: list[Hub]) -> None:
        """Mark this worker's devices and read the others' for ``hubs``, all in one Redis round
        trip; the games whose remote presence changed tell their local devices."""
        if self.broker is None or not hubs:
            return
        marks = {h.id: [s for s, on in enumerate(h.local_online()) if on] for h in hubs}
        remote = await self.broker.presence_of_all(marks, self.presence_ttl)
        if remote is None:
            return
        for h in hubs:
            seen = remote.get(h.id)
            if seen is not None and seen != h.remote_online:
                async with h.lock:
                    h.remote_online = seen
                    await h._presence()

    async def adopt(self) -> None:
        """Load the unfinished bot games nobody drives (their bot lock is free: a killed
        worker's, or after a restart) and let their bots carry on. A game whose lock another
        worker holds stays there: each bot game is in the memory of one worker (plus those of
        workers with a connection to it)."""
        ids = await asyncio.to_thread(self.store.bot_games)
        if self.parked:
            moved = await asyncio.to_thread(self.store.versions, [g for g in ids if g in self.parked])
            ids = [g for g in ids if g not in self.parked or moved.get(g) != self.parked[g]]
        for gid in ids:
            if gid in self.hubs or not await asyncio.to_thread(self.store.try_bot_lock, gid):
                continue
            adopted: Hub | None = None
            try:
                adopted = await self.get(gid)
                if adopted is not None:
                    adopted.kick_bots()  # its bot task holds the lock on (already ours)
            except Exception:
                log.exception("game %s could not be rebuilt", gid)
            finally:
                if adopted is None or adopted.bot_task is None or adopted.bot_task.done():
                    await asyncio.to_thread(self.store.release_bot_lock, gid)

    def drop(self, game_id: str) -> None:
        """The game leaves memory (the store has all of it; :meth:`get` loads it again)."""
        hub = self.hubs.pop(game_id, None)
        if hub is None:
            return
        if self.broker is not None:
            self.broker.unwatch(game_id)
        hub.clock.close()  # its time-out comes from the due check (server/clocks/keeper.py)
        m = hub.match
        if not m.state.is_terminal() and m.is_human_turn():
            # Waiting for a human who left: not adopted again until the game moves.
            self.parked[game_id] = hub.committed
        self.metrics.hubs_dropped.inc()

    def load_match(self, row: GameRow) -> Match:
        """Rebuild a stored game (synchronous: run it off the loop)."""
        game = self.game_factory(row.board, row.players, row.variants)
        return rebuild(game, row, self.store.steps(row.id))

    async def get(self, game_id: str) -> Hub | None:
        """The game's hub (None: no such game)."""
        hub = self.hubs.get(game_id)
        if hub is not None:
            return hub
        async with self._load_lock:
            hub = self.hubs.get(game_id)
            if hub is not None:
                return hub
            # Listen before reading: a step stored meanwhile is then either read or announced.
            if self.broker is not None:
                self.broker.watch(game_id)
            try:
                row = await asyncio.to_thread(self.store.game, game_id)
                if row is not None:
                    match = await asyncio.to_thread(self.load_match, row)
                    hub = Hub(self, row, match.game, match)
                    await hub.clock.reload()
                    self.hubs[game_id] = hub
                    self.parked.pop(game_id, None)
            finally:
                if self.broker is not None and game_id not in self.hubs:
                    self.broker.unwatch(game_id)  # no such game, or it could not be loaded
            if hub is None:
                return None
        # A restart re-checks whose turn it is (what a killed writer may not have enqueued).
        self.committed(hub)
        return hub

    async def load_all(self) -> None:
        """On start: rebuild every unfinished game and let its bots carry on (several workers:
        only the bot games nobody drives — the others are loaded when a device connects)."""
        await resume_all(self)  # a restart charges no one for its downtime (server/clocks/keeper.py)
        if self.broker is not None:
            await self.adopt()
            return
        # Only games with a bot seat: a game of humans is loaded when a device connects, so the
        # start does not grow with the number of unfinished games.
        for gid in await asyncio.to_thread(self.store.bot_games):
            try:
                hub = await self.get(gid)
            except Exception:  # one broken game must not keep the server from starting
                log.exception("game %s could not be rebuilt", gid)
                continue
            if hub is not None:
                hub.kick_bots()

    async def create(self, board: str, kinds: list[str], names: list[str], variants: list[str],
                     lang: str, hotseat: bool, clock: ClockSpec | None = None) -> tuple[Hub, dict[str, Any]]:
        """Deal and store a new game; returns its hub and its secrets (shown once): the seats'
        (or the hot-seat device's) invitation codes, the spectator and admin tokens."""
        game = self.game_factory(board, len(kinds), variants)
        match = await asyncio.to_thread(Match.start, game, kinds, self.seed_factory(), names)
        gid = secrets.token_urlsafe(9)
        row = GameRow(gid, game.board.id, game.players, sorted(game.variants), lang, hotseat, match.seed,
                      match.state.setup.to_json(), __version__, "playing", 0, match.names, kinds)
        # Seats get invitations, not tokens: whoever claims one gets its token (server/play/invites.py).
        toks, rows, invs = invitations(kinds, hotseat)
        await asyncio.to_thread(self.store.create_game, row, rows,
                                partial(insert_invites, game=gid, rows=invs))
        hub = Hub(self, row, game, match)
        if clock is not None:
            await hub.clock.start(clock)
        self.hubs[gid] = hub
        if self.broker is not None:
            self.broker.watch(gid)
        hub.kick_bots()
        return hub, toks

    def add_hub(self, row: GameRow, match: Match) -> Hub:
        """A game just stored by another module (a rematch): in memory here, its bots started."""
        hub = Hub(self, row, match.game, match)
        self.hubs[row.id] = hub
        if self.broker is not None:
            self.broker.watch(row.id)
        hub.kick_bots()
        return hub

    async def close(self) -> None:
        """Stop the version check, the Redis connections and the bot loops (shutdown)."""
        if self._heal_task is not None:
            self._heal_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._heal_task
        if self.broker is not None:
            await self.broker.close()
        for hub in self.hubs.values():
            hub.clock.close()
            if hub.bot_task is not None:
                hub.bot_task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await hub.bot_task
