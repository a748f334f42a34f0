"""Caps (issue 15 item 6): unfinished games per client address, running all-bot games on the
whole server, open sockets per game — each refused with a clear error.

The first two are counted in the database (they must hold across restarts and workers); the
creator is stored as a keyed hash of the address, never the address. Sockets are counted per
process (a worker's own connections); the same counts tell the lifecycle sweeper
(:mod:`rebirth.server.play.lifecycle`) which games nobody is attached to.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac

from sqlalchemy import func, insert, select

from rebirth.server.errors import ApiError, texts
from rebirth.server.persistence.store import Store, game_creators, games, seats

HUMAN = "human"


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
        self.sockets: dict[str, int] = {}
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
        humans = select(seats.c.game).where(seats.c.kind == HUMAN)
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
        if self.max_bot_games and HUMAN not in kinds and self.running_bot_games() >= self.max_bot_games:
            raise ApiError(429, "too_many_bot_games",
                           texts("server.too_many_bot_games", n=self.max_bot_games),
                           {"cap": self.max_bot_games})

    def created(self, game: str, client: str) -> None:
        """Remember who created ``game`` (run it off the event loop)."""
        with self.store.tx() as c:
            c.execute(insert(game_creators).values(game=game, client=client_key(client, self.SALT)))

    # ------------------------------------------------------------------ sockets (event loop)

    def attach(self, game: str) -> bool:
        """One more socket on ``game``; False (nothing counted) when the game is full."""
        n = self.sockets.get(game, 0)
        if self.max_sockets_per_game and n >= self.max_sockets_per_game:
            return False
        self.sockets[game] = n + 1
        return True

    def detach(self, game: str) -> None:
        """A socket of ``game`` closed."""
        n = self.sockets.get(game, 0) - 1
        if n > 0:
            self.sockets[game] = n
        else:
            self.sockets.pop(game, None)

    def attached(self, game: str) -> int:
        """Open sockets on ``game`` in this process."""
        return self.sockets.get(game, 0)

