"""A bot account at work (docs/bot-api.md, "Bot accounts"): read the account's events stream,
accept challenges up to a concurrency (decline the rest, ``later``), play every game it starts
— each in its own thread, through :func:`rebirth.client.play.play` with the account's API token —
and reconnect with backoff after a dropped stream (the stream's first lines after a reconnect
repeat the open challenges and the games under way: nothing is missed, nothing played twice)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from rebirth.client.play import Result, play
from rebirth.client.policy import Policy
from rebirth.client.remote import Backoff, RemoteSeat, follow

EventHandler = Callable[[dict[str, Any]], None]


@dataclass
class BotAccount:
    """A bot account's side of the API: its events, its answers to challenges, its games."""

    servers: list[str]
    token: str
    http: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=httpx.Timeout(10.0, read=30.0)))
    backoff: Backoff = field(default_factory=Backoff)
    give_up_s: float = 120.0
    reconnects: int = 0
    _server: int = 0

    @property
    def base(self) -> str:
        return self.servers[self._server % len(self.servers)]

    @property
    def _auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def events(self) -> Iterator[dict[str, Any]]:
        """Every event line (keep-alives skipped), reconnecting after a drop; for ever (the
        caller stops reading). A revoked or unknown token raises :class:`ClientError`."""
        return follow(self, "/api/bot/stream/events", self._auth)

    def answer(self, challenge: str, accept: bool, reason: str = "later") -> httpx.Response:
        """Accept or decline a challenge (the answer as it came: 200, 409 when another answer
        was first, 429 at the account's limits)."""
        what = "accept" if accept else "decline"
        body = None if accept else {"reason": reason}
        return self.http.post(f"{self.base}/api/challenges/{challenge}/{what}", json=body, headers=self._auth)

    def seat(self, game: str) -> RemoteSeat:
        """The account's seat of ``game`` (its API token stands for the seat: nothing to claim)."""
        return RemoteSeat(list(self.servers), game, self.token, give_up_s=self.give_up_s)


@dataclass
class Worker:
    """Plays a bot account's challenges: at most ``concurrency`` games at once; stops after
    ``games`` finished games (None: never)."""

    account: BotAccount
    make_policy: Callable[[], Policy]
    concurrency: int = 1
    games: int | None = None
    on_result: Callable[[Result], None] | None = None
    on_event: EventHandler | None = None
    results: list[Result] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)
    _playing: dict[str, threading.Thread] = field(default_factory=dict)
    _done: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _finished: threading.Event = field(default_factory=threading.Event)

    def active(self) -> int:
        with self._lock:
            return sum(1 for t in self._playing.values() if t.is_alive())

    def run(self) -> list[Result]:
        """Read the events until ``games`` games are finished; the results."""
        reader = threading.Thread(target=self._read, daemon=True)
        reader.start()
        while not self._finished.wait(0.2):
            if self.errors:
                raise self.errors[0]
            if not reader.is_alive() and not self.active():
                break
        if self.errors:
            raise self.errors[0]
        return self.results

    def _read(self) -> None:
        try:
            for ev in self.account.events():
                if self._finished.is_set():
                    return
                if self.on_event is not None:
                    self.on_event(ev)
                kind = ev.get("type")
                if kind == "challenge":
                    self._challenge(ev["challenge"])
                elif kind == "gameStart":
                    self._start(str(ev["game"]["id"]))
        except BaseException as exc:  # reported by run()
            self.errors.append(exc)
            self._finished.set()

    def _challenge(self, ch: dict[str, Any]) -> None:
        if ch.get("status") != "open":
            return
        busy = self.active() >= self.concurrency or (self.games is not None
                                                      and len(self.results) + self.active() >= self.games)
        r = self.account.answer(str(ch["id"]), accept=not busy)
        if r.status_code == 200 and not busy:
            game = r.json().get("game")
            if game:
                self._start(str(game))
        elif r.status_code == 429 and not busy:
            self.account.answer(str(ch["id"]), accept=False)

    def _start(self, game: str) -> None:
        with self._lock:
            if game in self._playing or game in self._done:
                return
            t = threading.Thread(target=self._play, args=(game,), daemon=True)
            self._playing[game] = t
        t.start()

    def _play(self, game: str) -> None:
        try:
            res = play(self.account.seat(game), self.make_policy())
        except BaseException as exc:
            self.errors.append(exc)
            self._finished.set()
            return
        with self._lock:
            self._done.add(game)
            self._playing.pop(game, None)
            self.results.append(res)
            done = self.games is not None and len(self.results) >= self.games
        if self.on_result is not None:
            self.on_result(res)
        if done:
            self._finished.set()
