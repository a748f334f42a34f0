"""The protocol side of a remote seat (docs/protocol.md, "Bot API"), on ``httpx``: claim an
invitation, read the seat's NDJSON stream — reconnecting with backoff and resuming from the last
version after a dropped connection (a worker restart, a proxy's hiccup) — and post moves."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx

LineHandler = Callable[[dict[str, Any]], None]


class ClientError(Exception):
    """A refusal the client cannot get past (a bad invitation, a revoked token)."""

    def __init__(self, status: int, code: str, message: str = "") -> None:
        super().__init__(f"{status} {code}: {message}" if message else f"{status} {code}")
        self.status = status
        self.code = code


class MoveRefused(ClientError):
    """The server refused a move (``stale``, ``not_your_turn``, ``illegal``…)."""


def _refusal(r: httpx.Response, kind: type[ClientError] = ClientError) -> ClientError:
    try:
        err = r.json()["error"]
        return kind(r.status_code, str(err["code"]), str(err.get("message", {}).get("en", "")))
    except (ValueError, KeyError, TypeError):
        return kind(r.status_code, "http_error", r.text[:200])


@dataclass(frozen=True)
class Invitation:
    """An invitation link split up: the server's base address, the game and the code."""

    base: str
    game: str
    code: str | None

    @staticmethod
    def parse(url: str, code: str | None = None) -> Invitation:
        """``https://host/game/ID#i=CODE`` (or without the fragment, with ``code`` given)."""
        u = urlsplit(url)
        path = u.path.rstrip("/")
        if "/game/" not in path:
            raise ValueError(f"not a game link: {url!r} (expected …/game/ID#i=CODE)")
        prefix, game = path.rsplit("/game/", 1)
        fragment = dict(p.split("=", 1) for p in u.fragment.split("&") if "=" in p)
        return Invitation(f"{u.scheme}://{u.netloc}{prefix}", game, code or fragment.get("i"))


@dataclass
class Backoff:
    """Waits between reconnects: doubling from ``first`` to ``cap``, with jitter; reset by a
    line that arrived."""

    first: float = 0.2
    cap: float = 5.0
    tries: int = 0

    def wait(self) -> float:
        self.tries += 1
        base: float = min(self.cap, self.first * float(1 << min(self.tries - 1, 20)))
        return base * (0.75 + random.random() / 2)

    def reset(self) -> None:
        self.tries = 0


class Reconnecting(Protocol):
    """What :func:`follow` needs of a client: its servers and how it waits between tries."""

    servers: list[str]
    http: httpx.Client
    backoff: Backoff
    give_up_s: float
    reconnects: int
    _server: int


def follow(client: Reconnecting, path: str, headers: dict[str, str],
           params: Callable[[], dict[str, str]] | None = None) -> Iterator[dict[str, Any]]:
    """The lines of an NDJSON stream at ``path`` (keep-alives skipped), for ever: after a drop
    (a worker restarted, a proxy's hiccup) the next server, after a pause, with ``params()``
    read anew (a resumed stream says where it was). A refusal (401/403/404) raises
    :class:`ClientError`; so does a silence of ``give_up_s`` seconds. The caller stops reading."""
    last_line = time.monotonic()
    while True:
        base = client.servers[client._server % len(client.servers)]
        try:
            with client.http.stream("GET", f"{base}{path}", params=params() if params else None,
                                    headers=headers) as r:
                if r.status_code != 200:
                    r.read()
                    if r.status_code in (401, 403, 404):
                        raise _refusal(r)
                    raise httpx.TransportError(f"status {r.status_code}")
                for raw in r.iter_lines():
                    last_line = time.monotonic()
                    if not raw.strip():
                        continue  # keep-alive
                    line: dict[str, Any] = json.loads(raw)
                    client.backoff.reset()
                    yield line
        except (httpx.TransportError, httpx.DecodingError, json.JSONDecodeError):
            pass
        if time.monotonic() - last_line > client.give_up_s:
            raise ClientError(503, "unreachable", f"no line for {client.give_up_s:g} s")
        client.reconnects += 1
        client._server += 1
        time.sleep(client.backoff.wait())


@dataclass
class RemoteSeat:
    """One seat of one game, played over the bot API with the seat's token.

    ``servers``: the base addresses to try, in turn, when a connection fails (one address
    behind a proxy; several workers' own addresses without one)."""

    servers: list[str]
    game: str
    token: str
    http: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=httpx.Timeout(10.0, read=30.0)))
    backoff: Backoff = field(default_factory=Backoff)
    give_up_s: float = 120.0
    """Seconds without any line after which the client stops reconnecting."""
    version: int = -1
    """The version of the last position line read."""
    reconnects: int = 0
    """Streams reopened after a drop (tests and the report)."""
    _server: int = 0

    @property
    def base(self) -> str:
        return self.servers[self._server % len(self.servers)]

    def _next_server(self) -> None:
        self._server += 1

    @property
    def _auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    @staticmethod
    def claim(invite: Invitation, http: httpx.Client | None = None, servers: list[str] | None = None,
              **kw: Any) -> RemoteSeat:
        """Claim the invitation (``POST /api/games/{id}/claim``, as a browser does): the seat is
        this client's from now on, and only it ever gets the token."""
        client = http or httpx.Client(timeout=httpx.Timeout(10.0, read=30.0))
        if invite.code is None:
            raise ValueError("the invitation has no code (…#i=CODE, or --invite CODE)")
        r = client.post(f"{invite.base}/api/games/{invite.game}/claim", json={"invite": invite.code})
        if r.status_code != 200:
            raise _refusal(r)
        body = r.json()
        if body.get("role") != "seat":
            raise ClientError(400, "not_a_seat", "the invitation is not a seat's")
        return RemoteSeat(servers or [invite.base], invite.game, str(body["token"]), client, **kw)

    # ------------------------------------------------------------------ the stream

    def lines(self) -> Iterator[dict[str, Any]]:
        """Every line of the seat's stream (keep-alives skipped), reconnecting after a drop and
        resuming from :attr:`version`; ends after the ``over`` line."""
        for line in follow(self, f"/api/bot/games/{self.game}/stream", self._auth,
                           lambda: {"since": str(self.version)}):
            if line.get("type") in ("game", "state"):
                self.version = int(line["version"])
            yield line
            if line.get("type") == "over":
                return

    # ------------------------------------------------------------------ moves

    def move(self, action: int | str, version: int, tries: int = 6) -> int:
        """Post a move chosen at ``version``; the version after it. A refusal raises
        :class:`MoveRefused`; a dropped connection is retried (a retry that finds the move
        already committed is refused ``stale``)."""
        backoff = Backoff()
        for attempt in range(tries):
            try:
                r = self.http.post(f"{self.base}/api/bot/games/{self.game}/move",
                                   json={"action": action, "version": version}, headers=self._auth)
            except httpx.TransportError:
                if attempt == tries - 1:
                    raise
                self._next_server()
                time.sleep(backoff.wait())
                continue
            if r.status_code == 200:
                return int(r.json()["version"])
            if r.status_code == 429 or r.status_code >= 500:
                time.sleep(min(5.0, float(r.headers.get("Retry-After", "1"))) if r.status_code == 429
                           else backoff.wait())
                continue
            raise _refusal(r, MoveRefused)
        raise MoveRefused(503, "unreachable")
