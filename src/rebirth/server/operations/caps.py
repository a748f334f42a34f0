"""Caps (issue 15 item 6): unfinished games per client address, running all-bot games on the
whole server, open sockets per game (with room reserved for the seats that spectators cannot
take) — each refused with a clear error.

The first two are counted in the database (they must hold across restarts and workers); the
creator is stored as a keyed hash of the address, never the address. Sockets are counted per
process (a worker's own connections); the same counts tell the lifecycle sweeper
(:mod:`rebirth.server.play.lifecycle`) which games nobody is attached to.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from dataclasses import dataclass

from sqlalchemy import func, insert, select

from rebirth.server.errors import ApiError, texts
from rebirth.server.persistence.store import Store, game_creators, games, seats

HUMAN = "human"
OUTSIDE = (HUMAN, "remote")
"""Seats played from outside the server (app/match.py ``OUTSIDE``): a game with one is no bot game."""

ROOM_PER_SEAT = 2
"""Socket places per seat of a game that spectators cannot take (a player's phone and laptop)."""


@dataclass
class Room:
    """The sockets of one game in this process: waiting for their hello, spectators, seats."""

    pending: int = 0
    spectators: int = 0
    seated: int = 0


def client_key(address: str, salt: bytes) -> str:
    """The stored form of a client address (an HMAC-SHA-256, hex)."""
    return hmac.new(salt, address.encode("utf-8", "replace"), hashlib.sha256).hexdigest()


class Caps:
    """The caps of one app (``app.state.caps``)."""

    # A fixed salt: every worker and every restart must hash one address alike. It only keeps
    # the raw address out of the database (the address space is small enough to brute-force,
    # so the hash is no secret; it names nothing a player could not see anyway).
    SALT = b"rebirth-game-creators-v1"

    def __init__(self, store: Store, max_games_per_client: int, max_bot_games: int,
                 max_sockets_per_game: int) -> None:
        self.store = store
        self.max_games_per_client = max_games_per_client
        self.max_bot_games = max_bot_games
        self.max_sockets_per_game = max_sockets_per_game
        self.create_lock = asyncio.Lock()
        """Held from the cap check of a new game until its creator is stored."""
        self.rooms: dict[str, Room] = {}
        """Open sockets per game in this process."""

    # ------------------------------------------------------------------ games (synchronous)

    def open_games_of(self, client: str) -> int:
        """Unfinished games created by ``client``."""
        q = (select(func.count()).select_from(game_creators.join(games, games.c.id == game_creators.c.game))
             .where(game_creators.c.client == client_key(client, self.SALT), games.c.status == "playing"))
        with self.store.engine.connect() as c:
            return int(c.execute(q).scalar_one())

    def running_bot_games(self) -> int:
        """Unfinished games without a human seat, on the whole server."""
        humans = select(seats.c.game).where(seats.c.kind.in_(OUTSIDE))
        q = select(func.count()).select_from(games).where(games.c.status == "playing",
                                                          games.c.id.not_in(humans))
        with self.store.engine.connect() as c:
            return int(c.execute(q).scalar_one())

    def check_create(self, client: str, kinds: list[str]) -> None:
        """Raise :class:`ApiError` 429 when a new game of ``client`` with these seats would pass a
        cap (run it off the event loop)."""
        if self.max_games_per_client and self.open_games_of(client) >= self.max_games_per_client:
            raise ApiError(429, "too_many_games",
                           texts("server.too_many_games", n=self.max_games_per_client),
                           {"cap": self.max_games_per_client})
        if self.max_bot_games and not set(OUTSIDE) & set(kinds) \
                and self.running_bot_games() >= self.max_bot_games:
            raise ApiError(429, "too_many_bot_games",
                           texts("server.too_many_bot_games", n=self.max_bot_games),
                           {"cap": self.max_bot_games})

    def created(self, game: str, client: str) -> None:
        """Remember who created ``game`` (run it off the event loop)."""
        with self.store.tx() as c:
            c.execute(insert(game_creators).values(game=game, client=client_key(client, self.SALT)))

    # ------------------------------------------------------------------ sockets (event loop)

    def room(self, game: str) -> Room:
        return self.rooms.setdefault(game, Room())

    def attach(self, game: str) -> bool:
        """A socket opened on ``game`` (not yet said hello: its role is unknown); False (nothing
        counted) when as many are waiting for their hello as the game takes sockets."""
        r = self.room(game)
        if self.max_sockets_per_game and r.pending >= self.max_sockets_per_game:
            return False
        r.pending += 1
        return True

    def place(self, game: str, role: str, players: int) -> bool:
        """The socket said hello as ``role``: it takes a place (False: none left for it; it
        stays counted as waiting until :meth:`detach`). The seats (a seat link, a hot-seat
        table, the admin) have :data:`ROOM_PER_SEAT` places each that spectators cannot take."""
        r = self.room(game)
        cap = self.max_sockets_per_game
        if cap:
            if role == "spectator" and r.spectators >= max(0, cap - ROOM_PER_SEAT * players):
                return False
            if r.spectators + r.seated >= cap:
                return False
        r.pending -= 1
        if role == "spectator":
            r.spectators += 1
        else:
            r.seated += 1
        return True

    def detach(self, game: str, role: str | None = None) -> None:
        """A socket of ``game`` closed (``role``: the place it took; None: it never took one)."""
        r = self.room(game)
        if role is None:
            r.pending -= 1
        elif role == "spectator":
            r.spectators -= 1
        else:
            r.seated -= 1
        if not (r.pending or r.spectators or r.seated):
            self.rooms.pop(game, None)

    def attached(self, game: str) -> int:
        """Open sockets on ``game`` in this process (waiting for their hello or placed)."""
        r = self.rooms.get(game)
        return 0 if r is None else r.pending + r.spectators + r.seated
