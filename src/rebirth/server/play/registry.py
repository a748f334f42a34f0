"""All online games of this worker (:class:`Registry`): loaded from the store on start and on
demand, created, dropped from memory; in multi-worker mode the Redis notices fanned out to the
games and the periodic version check that heals lost notices and adopts bot games nobody drives.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection

from rebirth import __version__
from rebirth.app.clock import ClockSpec, ClockState
from rebirth.app.match import OUTSIDE, Match
from rebirth.engine.game import Game
from rebirth.server.authority.live import LiveGame, rebuild
from rebirth.server.clocks.changes import AGREEMENT, Agreement, now
from rebirth.server.clocks.timer import adopt_due
from rebirth.server.metrics import Metrics
from rebirth.server.persistence import clocks as clockstore
from rebirth.server.persistence.store import GameRow, Store, TurnNotice
from rebirth.server.play.invites import insert_invites, invitations
from rebirth.server.play.session import Session
from rebirth.server.settings import Settings
from rebirth.server.social.social import heal as heal_chat

if TYPE_CHECKING:
    from rebirth.server.realtime.broker import Broker

log = logging.getLogger("rebirth.server")

GameFactory = Callable[[str, int, list[str]], Game]
"""Builds the Game of a stored game from (board, players, variants)."""
SeedFactory = Callable[[], "int | None"]
"""The seed of a new game; None (the default): 128 secret bits drawn by the Match."""


def default_game_factory(board: str, players: int, variants: list[str]) -> Game:
    """The shipped rules on a shipped board."""
    return Game.create(board, players, variants)


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
        self.hubs: dict[str, Session] = {}
        self._load_lock = asyncio.Lock()
        self.broker: Broker | None = None
        """Set in multi-worker mode (``REBIRTH_REDIS_URL``); None: this process is the only one."""
        self._heal_task: asyncio.Task[None] | None = None
        self._heal_now = asyncio.Event()
        self.presence_ttl = max(5.0, 3 * settings.heal_interval)
        """Seconds a worker's presence marks last unless the version check refreshes them."""
        self.worker = secrets.token_hex(8)
        """This worker's id: the holder of the games it loads (their clocks pause only for its
        downtime: server/persistence/clocks.py, ``hold``)."""
        self._beat_task: asyncio.Task[None] | None = None
        self._beating = False
        """Whether this worker held a clock at its last heartbeat."""
        self.bot_thinks = 0
        """Bot decisions made in this process (a test checks each bot step is thought once)."""
        self.bot_steps = 0
        """Bot decisions of this process that were committed."""
        self._releases: set[asyncio.Task[None]] = set()
        self.parked: dict[str, int] = {}
        """Games dropped from memory while a human was to move, with their version then: the
        version check adopts them again only once their stored version moved (lifecycle.py)."""
        self.on_commit: list[Callable[[Session], None]] = []
        """Called after each committed step and when a game is loaded (server/notifications)."""
        self.notice_of_turn: Callable[[str, LiveGame], TurnNotice | None] = lambda gid, after: None
        """The turn notification to write with a game's next step (set by server/notifications)."""
        self.on_chat: list[Callable[[str, int, int], None]] = []
        """Called with (game, seat, seq) after a player's chat message is stored (server/notifications)."""
        self.idle: Callable[[Session], bool] = lambda s: False
        """Whether nothing holds a game in memory (set by server/play/lifecycle.py, which knows the
        sockets not yet joined)."""

    # ------------------------------------------------------------------ what a session asks

    def committed(self, session: Session) -> None:
        """Run the :attr:`on_commit` hooks; one failing must not undo or delay the step."""
        for hook in self.on_commit:
            try:
                hook(session)
            except Exception:
                log.exception("game %s: a hook after version %d failed", session.id, session.committed)

    def turn_notice(self, game_id: str, after: LiveGame) -> TurnNotice | None:
        return self.notice_of_turn(game_id, after)

    def chatted(self, game_id: str, seat: int, seq: int) -> None:
        """Run the :attr:`on_chat` hooks; one failing must not fail the message."""
        for hook in self.on_chat:
            try:
                hook(game_id, seat, seq)
            except Exception:
                log.exception("game %s: a hook after chat message %d failed", game_id, seq)

    def is_idle(self, session: Session) -> bool:
        return self.idle(session)

    def new_seed(self) -> int | None:
        return self.seed_factory()

    def load_match(self, row: GameRow) -> Match:
        """Rebuild a stored game (synchronous: run it off the loop)."""
        game = self.game_factory(row.board, row.players, row.variants)
        return rebuild(game, row, self.store.steps(row.id))

    def _hold(self, value: LiveGame) -> Session:
        s = Session(self, value.match.game, value)
        self.hubs[value.id] = s
        if self.broker is not None:
            self.broker.watch(value.id)
        return s

    async def spawn(self, row: GameRow, match: Match, clock: ClockSpec | None,
                    agree: Agreement = AGREEMENT) -> None:
        """A game just stored by a feature (a rematch): its clock started and stored, then it is
        in memory here with its bots going."""
        st = await self._start_clock(row.id, match, clock, agree)
        s = self._hold(LiveGame(match, row, st, 0))
        if st is not None:
            self.committed(s)
        s.bots.kick()

    async def _start_clock(self, gid: str, match: Match, spec: ClockSpec | None,
                           agree: Agreement = AGREEMENT) -> ClockState | None:
        if spec is None:
            return None
        st = ClockState.start(spec, match.game.players, self.settings.vacation_days * 86400, *agree)
        p = match.state.current_player
        st.turn(p if p >= 0 else None, p >= 0 and match.seats[p].kind in OUTSIDE, now())
        await asyncio.to_thread(clockstore.create, self.store, gid, st)
        return st

    # ------------------------------------------------------------------ several workers

    async def start_workers(self) -> None:
        """Multi-worker mode: subscribe to the other workers' versions and start the version
        check that heals lost messages and adopts bot games nobody drives."""
        from rebirth.server.realtime.broker import Broker  # only a multi-worker server needs redis

        self.broker = Broker(self.settings.redis_url, self.settings.redis_prefix, self._notice,
                             self._heal_now.set, on_chat=self._chat_notice)
        self.metrics.track_redis_reconnects(lambda: self.broker.reconnects if self.broker else 0)
        await self.broker.start()
        self._heal_task = asyncio.get_running_loop().create_task(self._heal_loop())

    def _notice(self, game: str, version: int) -> None:
        """Fan-out of one Redis message to the game it names (if this worker holds it)."""
        s = self.hubs.get(game)
        if s is not None:
            s.notice(version)

    def _chat_notice(self, game: str, seq: int) -> None:
        s = self.hubs.get(game)
        if s is not None:
            with contextlib.suppress(RuntimeError):
                s.social.notice(seq)

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
        live = {gid: s for gid, s in self.hubs.items() if not s.value.over}
        await self._refresh_presence([s for s in live.values() if s.conns])
        stored = await asyncio.to_thread(self.store.versions, list(live))
        for gid, s in live.items():
            if stored.get(gid, -1) > s.committed:
                s.notice(stored[gid])
            else:
                s.bots.kick()
        await heal_chat(self.store, {g: s.social for g, s in self.hubs.items() if s.conns})
        await self.adopt()
        # Games whose time ran out that no worker holds.
        await adopt_due(self.store, lambda gid: gid in self.hubs, self.get)

    async def _refresh_presence(self, sessions: list[Session]) -> None:
        """Mark this worker's devices and read the others' for ``sessions``, all in one Redis
        round trip; the games whose remote presence changed tell their local devices."""
        if self.broker is None or not sessions:
            return
        marks = {s.id: [i for i, on in enumerate(s.room.local_online()) if on] for s in sessions}
        visible = {s.id: s.room.local_visible() for s in sessions}
        remote = await self.broker.presence_of_all(marks, self.presence_ttl, visible)
        if remote is None:
            return
        for s in sessions:
            seen = remote.get(s.id)
            if seen is not None and seen != s.remote_online:
                async with s.lock:
                    await s.refresh_remote(seen)

    async def adopt(self) -> None:
        """Load the unfinished bot games nobody drives (their bot lock is free: a killed
        worker's, or after a restart) and let their bots carry on. A game whose lock another
        worker holds stays there."""
        ids = await asyncio.to_thread(self.store.bot_games)
        if self.parked:
            moved = await asyncio.to_thread(self.store.versions, [g for g in ids if g in self.parked])
            ids = [g for g in ids if g not in self.parked or moved.get(g) != self.parked[g]]
        for gid in ids:
            if gid in self.hubs or not await asyncio.to_thread(self.store.try_bot_lock, gid):
                continue
            adopted: Session | None = None
            try:
                adopted = await self.get(gid)
                if adopted is not None:
                    adopted.bots.kick()  # its bot task holds the lock on (already ours)
            except Exception:
                log.exception("game %s could not be rebuilt", gid)
            finally:
                task = None if adopted is None else adopted.bots.task
                if task is None or task.done():
                    await asyncio.to_thread(self.store.release_bot_lock, gid)

    # ------------------------------------------------------------------ memory

    def drop(self, game_id: str) -> None:
        """The game leaves memory (the store has all of it; :meth:`get` loads it again)."""
        s = self.hubs.pop(game_id, None)
        if s is None:
            return
        if self.broker is not None:
            self.broker.unwatch(game_id)
        s.clock.close()  # its time-out comes from the due check
        if s.value.clock is not None:
            # Nobody holds it now: no downtime is counted while nobody plays it.
            self._spawn_release(game_id)
        m = s.match
        if not m.state.is_terminal() and m.is_human_turn():
            # Waiting for a human who left: not adopted again until the game moves.
            self.parked[game_id] = s.committed
        self.metrics.hubs_dropped.inc()

    async def get(self, game_id: str) -> Session | None:
        """The game's session (None: no such game)."""
        s = self.hubs.get(game_id)
        if s is not None:
            return s
        async with self._load_lock:
            s = self.hubs.get(game_id)
            if s is not None:
                return s
            # Listen before reading: a step stored meanwhile is then either read or announced.
            if self.broker is not None:
                self.broker.watch(game_id)
            try:
                row = await asyncio.to_thread(self.store.game, game_id)
                if row is not None:
                    match = await asyncio.to_thread(self.load_match, row)
                    clock = await asyncio.to_thread(clockstore.load, self.store, game_id)
                    if clock is not None:
                        if not self._beating:
                            # Alive before it holds: a holder's beat is what the others judge by.
                            await asyncio.to_thread(clockstore.beat, self.store, self.worker, now())
                            self._beating = True
                        # This worker holds it now: a dead holder's downtime is credited.
                        held = await asyncio.to_thread(clockstore.hold, self.store, game_id, self.worker,
                                                       now(), self.stale_after)
                        clock = held or clock
                    s = self._hold(LiveGame(match, row, *(clock or (None, 0))))
                    self.parked.pop(game_id, None)
            finally:
                if self.broker is not None and game_id not in self.hubs:
                    self.broker.unwatch(game_id)  # no such game, or it could not be loaded
            if s is None:
                return None
        # A restart re-checks whose turn it is (what a killed writer may not have enqueued).
        self.committed(s)
        return s

    async def load_all(self) -> None:
        """On start: rebuild every unfinished game and let its bots carry on (several workers:
        only the bot games nobody drives — the others are loaded when a device connects)."""
        self._beat_task = asyncio.get_running_loop().create_task(self._beat_loop())
        # Workers of long ago that hold nothing are forgotten.
        with contextlib.suppress(Exception):
            await asyncio.to_thread(clockstore.prune, self.store, now() - 30 * 86400)
        if self.broker is not None:
            await self.adopt()
            return
        # Only games with a bot seat: a game of humans is loaded when a device connects.
        for gid in await asyncio.to_thread(self.store.bot_games):
            try:
                s = await self.get(gid)
            except Exception:  # one broken game must not keep the server from starting
                log.exception("game %s could not be rebuilt", gid)
                continue
            if s is not None:
                s.bots.kick()

    async def create(self, board: str, kinds: list[str], names: list[str], variants: list[str],
                     lang: str, hotseat: bool,
                     clock: ClockSpec | None = None, uninvited: frozenset[int] = frozenset(),
                     also: Callable[[Connection, str], None] | None = None,
                     agree: Agreement = AGREEMENT) -> tuple[Session, dict[str, Any]]:
        """Deal and store a new game; returns its session and its secrets (shown once): the
        seats' (or the hot-seat device's) invitation codes, the spectator and admin tokens.
        ``uninvited`` seats get no invitation (open seats, paired players' seats); ``also``
        stores more of the game (``(connection, game id)``) in the creating transaction;
        ``agree``: who agrees to the clock's changes (server/clocks/changes.py)."""
        game = self.game_factory(board, len(kinds), variants)
        match = await asyncio.to_thread(Match.start, game, kinds, self.seed_factory(), names)
        gid = secrets.token_urlsafe(9)
        row = GameRow(gid, game.board.id, game.players, sorted(game.variants), lang, hotseat, match.seed,
                      match.state.setup.to_json(), __version__, "playing", 0, match.names, kinds)
        # Seats get invitations, not tokens: whoever claims one gets its token (server/play/invites.py).
        toks, rows, invs = invitations(kinds, hotseat, uninvited)

        def more(c: Connection) -> None:
            insert_invites(c, gid, invs)
            if also is not None:
                also(c, gid)

        await asyncio.to_thread(self.store.create_game, row, rows, more)
        st = await self._start_clock(gid, match, clock, agree)
        s = self._hold(LiveGame(match, row, st, 0))
        if st is not None:
            # The first turn's clock runs now: the hooks that read it (a deadline's reminder)
            # hear of it as of a step.
            self.committed(s)
        s.bots.kick()
        return s, toks

    @property
    def stale_after(self) -> float:
        """Seconds without a heartbeat after which a holder counts as down."""
        return 3 * self.settings.heartbeat_s

    def _spawn_release(self, game_id: str) -> None:
        async def release() -> None:
            try:
                await asyncio.to_thread(clockstore.release, self.store, game_id, self.worker)
            except Exception:  # the next loader then credits nothing it should not: it is alive
                log.exception("game %s: its clock's holder could not be released", game_id)

        with contextlib.suppress(RuntimeError):  # no loop: shutting down
            task = asyncio.get_running_loop().create_task(release())
            self._releases.add(task)
            task.add_done_callback(self._releases.discard)

    async def _beat_loop(self) -> None:
        """The heartbeat; and the clocks of games held here whose holder died are taken over
        without a credit (this worker served them all along)."""
        while True:
            try:
                timed = [gid for gid, s in self.hubs.items()
                         if s.value.clock is not None and not s.value.over]
                # Only a worker that holds (or held) a clock beats: a heartbeat is for the
                # clocks' downtime, and a worker without one costs its database nothing.
                if timed or self._beating:
                    self._beating = bool(timed)
                    await asyncio.to_thread(clockstore.beat, self.store, self.worker, now())
                    await asyncio.to_thread(clockstore.take_over, self.store, self.worker, timed, now(),
                                            self.stale_after)
            except Exception:  # the database is away: the next beat tries again
                log.warning("the heartbeat could not be stored")
            await asyncio.sleep(self.settings.heartbeat_s)

    async def close(self) -> None:
        """Stop the version check, the Redis connections and the bot loops (shutdown)."""
        if self._beat_task is not None:
            self._beat_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._beat_task
            # A last beat: the games held here are credited the downtime from now on by
            # whoever loads them next.
            if self._beating:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(clockstore.beat, self.store, self.worker, now(), False)
        if self._heal_task is not None:
            self._heal_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._heal_task
        if self.broker is not None:
            await self.broker.close()
        for s in self.hubs.values():
            s.clock.close()
            task = s.bots.task
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
