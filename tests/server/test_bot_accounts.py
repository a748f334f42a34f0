"""Bot accounts and challenges (issue 27 item 2): an account becomes a bot account and gets an
API token (shown once, stored hashed, revocable); a human challenges it by name; the reference
client (``rebirth.client.account``) hears the challenge on the events stream, accepts and plays
the game to its end with the token alone; ``gameFinish`` follows. Declines, cancels, the
limits (429 with ``Retry-After``), a revoked token (401), and S-5 on the events stream (no
token, no seed, no card)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from canaries import SEED_CANARY, canary_game
from rebirth.client.account import BotAccount, Worker
from rebirth.client.play import play
from rebirth.client.policy import FunctionPolicy, load
from rebirth.client.remote import RemoteSeat
from rebirth.engine.game import Game
from rebirth.server.accounts.store import account_for_email, new_session
from rebirth.server.persistence.botaccounts import bot_tokens, decide, reopen
from rebirth.server.persistence.store import Store
from server import botkit, livekit, pgkit


class Person:
    """A signed-in browser on the live server: its cookie and the server's own Origin."""

    def __init__(self, url: str, store: Store, email: str) -> None:
        self.account = account_for_email(store, email, "en")
        sid = new_session(store, self.account.id, "test")
        self.url = url
        self.headers = {"Cookie": f"rebirth_session={sid}", "Origin": url}

    def post(self, path: str, body: Any = None) -> httpx.Response:
        return httpx.post(f"{self.url}{path}", json=body, headers=self.headers, timeout=30)

    def get(self, path: str) -> httpx.Response:
        return httpx.get(f"{self.url}{path}", headers=self.headers, timeout=30)


def _store(app: Any) -> Store:
    s: Store = app.state.registry.store
    return s


def _bearer(tok: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {tok}"}


def make_bot(url: str, store: Store, email: str = "bot@example.org") -> tuple[Person, str]:
    """A bot account (upgraded through the API) and its API token."""
    bot = Person(url, store, email)
    r = bot.post("/api/account/bot")
    assert r.status_code == 201, r.text
    assert r.headers["cache-control"] == "no-store"
    body = r.json()
    assert body["bot"] is True and body["name"] == bot.account.name
    tok: str = body["token"]
    return bot, tok


class Events:
    """A bot's raw events stream read in a thread: every line (keep-alives counted apart)."""

    def __init__(self, url: str, tok: str) -> None:
        self.lines: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.keepalives = 0
        self.status = 0
        self._stop = False
        self.t = threading.Thread(target=self._run, args=(url, tok), daemon=True)
        self.t.start()
        deadline = time.monotonic() + 10
        while not self.status:
            assert time.monotonic() < deadline
            time.sleep(0.01)

    def _run(self, url: str, tok: str) -> None:
        with (
            httpx.Client(timeout=httpx.Timeout(10.0, read=15.0)) as c,
            c.stream("GET", f"{url}/api/bot/stream/events", headers=_bearer(tok)) as r,
        ):
            self.status = r.status_code
            for raw in r.iter_lines():
                if self._stop:
                    return
                self.raw.append(raw)
                if raw.strip():
                    self.lines.append(json.loads(raw))
                else:
                    self.keepalives += 1

    def wait(self, kind: str, timeout: float = 30, **where: Any) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for line in list(self.lines):
                if line["type"] == kind and all(_pick(line, k) == v for k, v in where.items()):
                    return line
            assert time.monotonic() < deadline, (kind, where, self.lines)
            time.sleep(0.02)

    def stop(self) -> None:
        self._stop = True


def _pick(line: dict[str, Any], path: str) -> Any:
    out: Any = line
    for part in path.split("__"):
        out = out.get(part) if isinstance(out, dict) else None
    return out


@contextmanager
def server(tmp: Path, **kw: Any) -> Iterator[tuple[str, Any]]:
    kw.setdefault("bot_keepalive_s", 0.5)
    kw.setdefault("bot_events_poll_s", 0.3)
    with livekit.live(tmp, **kw) as (url, app):
        yield url, app


def _challenge(person: Person, bot_name: str, **body: Any) -> httpx.Response:
    return person.post("/api/challenges", {"bot": bot_name, "board": "ireland", "players": 2, **body})


def _challenger_seat(human: Person, cid: str, timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        r = human.get(f"/api/challenges/{cid}")
        assert r.status_code == 200, r.text
        if r.json()["status"] != "open":
            out: dict[str, Any] = r.json()
            return out
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_challenge_accepted_by_the_client_is_played_to_the_end_with_the_token(tmp_path: Path) -> None:
    with server(tmp_path) as (url, app):
        store = _store(app)
        bot, tok = make_bot(url, store)
        # Stored as its digest only.
        with store.engine.connect() as c:
            hashes = list(c.execute(select(bot_tokens.c.hash)).scalars())
        assert hashes == [hashlib.sha256(tok.encode()).hexdigest()] and tok not in hashes
        events = Events(url, tok)
        assert events.status == 200
        human = Person(url, store, "ailsa@example.org")
        worker = Worker(BotAccount([url], tok), lambda: load("greedy", 1), concurrency=2, games=1)
        runner = threading.Thread(target=worker.run, daemon=True)
        runner.start()
        r = _challenge(human, bot.account.name.upper())  # names are matched case-insensitively
        assert r.status_code == 201, r.text
        cid = r.json()["id"]
        assert r.json()["status"] == "open" and r.json()["token"] is None
        events.wait("challenge", challenge__id=cid)
        got = _challenger_seat(human, cid)
        assert got["status"] == "accepted" and got["seat"] == 0 and got["bot_seat"] == 1 and got["token"]
        gid = got["game"]
        events.wait("gameStart", game__id=gid, game__seat=1)
        summary = httpx.get(f"{url}/api/games/{gid}", timeout=10).json()
        assert summary["kinds"] == ["human", "remote"]
        assert summary["names"] == [human.account.name, bot.account.name]
        # The challenger plays its own seat with its device's token (here through the bot API too).
        mine = play(RemoteSeat([url], gid, got["token"]), FunctionPolicy(botkit.first_legal))
        runner.join(120)
        assert not runner.is_alive() and worker.errors == []
        (res,) = worker.results
        assert res.game == gid and res.seat == 1 and res.moves > 0 and res.scores == mine.scores
        fin = events.wait("gameFinish", game__id=gid)
        assert fin["game"]["scores"] == mine.scores and fin["game"]["seat"] == 1 and fin["id"] > 0
        assert httpx.get(f"{url}/api/games/{gid}", timeout=10).json()["status"] == "over"
        # Told once, however often the game's end is seen.
        time.sleep(0.5)
        assert sum(1 for x in events.lines if x["type"] == "gameFinish") == 1
        events.stop()
        # The account page says it is a bot account.
        page = bot.get("/api/account").json()
        assert page["bot"] is True and page["bot_token"] is True
        assert human.get("/api/account").json()["bot"] is False


def test_decline_cancel_and_refusals(tmp_path: Path) -> None:
    with server(tmp_path) as (url, app):
        store = _store(app)
        bot, tok = make_bot(url, store)
        human = Person(url, store, "bo@example.org")
        events = Events(url, tok)
        cid = _challenge(human, bot.account.name).json()["id"]
        r = httpx.post(
            f"{url}/api/challenges/{cid}/decline",
            json={"reason": "tooFast"},
            headers=_bearer(tok),
            timeout=10,
        )
        assert r.status_code == 200 and r.json()["status"] == "declined", r.text
        line = events.wait("challengeDeclined", challenge__id=cid)
        assert line["challenge"]["reason"] == "tooFast"
        assert human.get(f"/api/challenges/{cid}").json()["status"] == "declined"
        # Decided once: a late accept is refused, nothing is made.
        r = httpx.post(f"{url}/api/challenges/{cid}/accept", headers=_bearer(tok), timeout=10)
        assert (r.status_code, r.json()["error"]["code"]) == (409, "challenge_closed")
        assert set(r.json()["error"]["message"]) >= {"en", "de"}
        cid2 = _challenge(human, bot.account.name).json()["id"]
        r = human.post(f"/api/challenges/{cid2}/cancel")
        assert r.status_code == 200 and r.json()["status"] == "canceled"
        events.wait("challengeCanceled", challenge__id=cid2)
        # Only the bot answers, only the challenger cancels; a stranger sees nothing.
        cid3 = _challenge(human, bot.account.name).json()["id"]
        stranger = Person(url, store, "cy@example.org")
        assert stranger.get(f"/api/challenges/{cid3}").status_code == 404
        assert stranger.post(f"/api/challenges/{cid3}/cancel").status_code == 404
        assert human.post(f"/api/challenges/{cid3}/accept").status_code == 401
        _, other = make_bot(url, store, "otherbot@example.org")
        r = httpx.post(f"{url}/api/challenges/{cid3}/accept", headers=_bearer(other), timeout=10)
        assert r.status_code == 404
        assert human.get(f"/api/challenges/{cid3}").json()["status"] == "open"
        # No such bot; a human is no bot; the bot itself; without a session; a bad game.
        assert _challenge(human, "nobody-here").json()["error"]["code"] == "unknown_bot"
        assert _challenge(human, stranger.account.name).status_code == 404
        assert _challenge(bot, bot.account.name).json()["error"]["code"] == "self_challenge"
        assert (
            httpx.post(f"{url}/api/challenges", json={"bot": bot.account.name}, timeout=10).status_code == 401
        )
        assert (
            _challenge(human, bot.account.name, variants=["no_such_rule"]).json()["error"]["code"]
            == "bad_game"
        )
        # Upgrading twice; the token of a human account; renewing turns the old token off.
        assert bot.post("/api/account/bot").json()["error"]["code"] == "already_bot"
        assert human.post("/api/account/bot/token").json()["error"]["code"] == "not_bot"
        events.stop()


def test_an_account_with_rated_games_cannot_become_a_bot(tmp_path: Path) -> None:
    from server import ratingskit

    with server(tmp_path) as (url, app):
        store = _store(app)
        p = Person(url, store, "rated@example.org")
        g = botkit.create(url, "ireland", ["human", "easy"])
        ratingskit.seat(store, g["game"], 0, p.account.id)
        ratingskit.rated(store, g["game"])
        r = p.post("/api/account/bot")
        assert (r.status_code, r.json()["error"]["code"]) == (409, "has_rated_games")
        assert p.get("/api/account").json()["bot"] is False


def test_limits_give_a_readable_429_with_retry_after(tmp_path: Path) -> None:
    with server(tmp_path, bot_max_games=1, bot_games_per_day=0) as (url, app):
        store = _store(app)
        bot, tok = make_bot(url, store)
        human = Person(url, store, "dee@example.org")
        a = _challenge(human, bot.account.name).json()["id"]
        b = _challenge(human, bot.account.name).json()["id"]
        assert (
            httpx.post(f"{url}/api/challenges/{a}/accept", headers=_bearer(tok), timeout=10).status_code
            == 200
        )
        r = httpx.post(f"{url}/api/challenges/{b}/accept", headers=_bearer(tok), timeout=10)
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
        err = r.json()["error"]
        assert err["code"] == "bot_busy" and err["details"]["limit"] == "concurrent"
        assert bot.account.name in err["message"]["en"] and err["message"]["de"] != err["message"]["en"]
        assert human.get(f"/api/challenges/{b}").json()["status"] == "open"  # nothing changed
        r = _challenge(human, bot.account.name)
        assert r.status_code == 429 and r.json()["error"]["code"] == "bot_busy" and r.headers["Retry-After"]
    (tmp_path / "day").mkdir()
    with server(tmp_path / "day", bot_max_games=0, bot_games_per_day=1) as (url, app):
        store = _store(app)
        bot, tok = make_bot(url, store)
        human = Person(url, store, "eve@example.org")
        a = _challenge(human, bot.account.name).json()["id"]
        assert (
            httpx.post(f"{url}/api/challenges/{a}/accept", headers=_bearer(tok), timeout=10).status_code
            == 200
        )
        r = _challenge(human, bot.account.name)
        assert r.status_code == 429
        err = r.json()["error"]
        assert err["code"] == "bot_day_limit" and err["details"]["limit"] == "per_day"
        # The window frees a place 24 hours after the accepted one.
        retry = int(r.headers["Retry-After"])
        assert 86000 < retry <= 86400 and err["details"]["retry_after"] == retry


def test_the_challenger_reads_accepted_only_with_the_game(tmp_path: Path) -> None:
    """Between the bot's accept and its game being made, the challenger's poll says ``open``
    (a poll in that window once read ``accepted`` with no game, and the challenger's client
    failed with 404 ``unknown_game``: the CLI test waited for ever on a loaded machine)."""
    with server(tmp_path) as (url, app):
        store = _store(app)
        bot, tok = make_bot(url, store)
        human = Person(url, store, "joy@example.org")
        cid = _challenge(human, bot.account.name).json()["id"]
        decide(store, cid, "accepted", bot=bot.account.id)  # the accept's first half only
        got = human.get(f"/api/challenges/{cid}").json()
        assert got["status"] == "open" and got["game"] is None and got["token"] is None
        reopen(store, cid)
        ans = httpx.post(f"{url}/api/challenges/{cid}/accept", headers=_bearer(tok), timeout=10)
        assert ans.status_code == 200, ans.text
        got = human.get(f"/api/challenges/{cid}").json()
        assert got["status"] == "accepted" and got["game"] == ans.json()["game"] and got["token"]


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_racing_accepts_cannot_pass_the_concurrency_limit_together(tmp_path: Path, db: str) -> None:
    """The limit is judged in the accept's own transaction (the bot's row locked), with the
    accepted challenges whose game is still being made counted: of five accepts released at
    once with a limit of one game, exactly one starts a game, the others get 429 and stay open."""
    with contextlib.ExitStack() as stack:
        kw: dict[str, Any] = {"bot_max_games": 1, "bot_games_per_day": 0}
        if db == "postgresql":
            kw["database_url"] = stack.enter_context(pgkit.database())
        url, app = stack.enter_context(server(tmp_path, **kw))
        store = _store(app)
        bot, tok = make_bot(url, store)
        human = Person(url, store, "ike@example.org")
        ids = [_challenge(human, bot.account.name).json()["id"] for _ in range(5)]
        gate = threading.Barrier(len(ids))
        got: dict[str, int] = {}

        def accept(cid: str) -> None:
            gate.wait(10)
            got[cid] = httpx.post(f"{url}/api/challenges/{cid}/accept", headers=_bearer(tok),
                                  timeout=30).status_code

        threads = [threading.Thread(target=accept, args=(cid,)) for cid in ids]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sorted(got.values()) == [200, 429, 429, 429, 429], got
        states = sorted(human.get(f"/api/challenges/{cid}").json()["status"] for cid in ids)
        assert states == ["accepted", "open", "open", "open", "open"]


def test_a_revoked_token_is_refused_401_everywhere(tmp_path: Path) -> None:
    with server(tmp_path) as (url, app):
        store = _store(app)
        bot, tok = make_bot(url, store)
        human = Person(url, store, "fay@example.org")
        cid = _challenge(human, bot.account.name).json()["id"]
        ans = httpx.post(f"{url}/api/challenges/{cid}/accept", headers=_bearer(tok), timeout=10).json()
        gid = ans["game"]
        r = httpx.get(
            f"{url}/api/bot/games/{gid}/stream", params={"limit": 1}, headers=_bearer(tok), timeout=10
        )
        assert r.status_code == 200 and json.loads(r.text.splitlines()[0])["seat"] == 1
        # The token stands for the bot's seat only: not the challenger's game of another.
        other = botkit.create(url, "ireland", ["remote", "easy"])
        r = httpx.get(f"{url}/api/bot/games/{other['game']}/stream", headers=_bearer(tok), timeout=10)
        assert r.status_code == 403
        r = bot.post("/api/account/bot/token")
        assert r.status_code == 200
        fresh = r.json()["token"]
        assert fresh != tok
        for t, ok in ((tok, False), (fresh, True)):
            r = httpx.get(f"{url}/api/bot/stream/events", params={"limit": 1}, headers=_bearer(t), timeout=10)
            assert (r.status_code == 200) == ok, r.text
        assert httpx.request(
            "DELETE", f"{url}/api/account/bot/token", headers=bot.headers, timeout=10
        ).json() == {"revoked": 1}
        for path, method in (
            (f"/api/bot/games/{gid}/stream", "GET"),
            ("/api/bot/stream/events", "GET"),
            (f"/api/challenges/{cid}/decline", "POST"),
        ):
            r = httpx.request(method, f"{url}{path}", headers=_bearer(fresh), timeout=10)
            assert r.status_code == 401 and r.json()["error"]["code"] == "revoked", (path, r.text)
        r = httpx.post(
            f"{url}/api/bot/games/{gid}/move",
            json={"action": 0, "version": 0},
            headers=_bearer(fresh),
            timeout=10,
        )
        assert r.status_code == 401
        assert (
            httpx.get(f"{url}/api/bot/stream/events", headers=_bearer("bot_junk"), timeout=10).status_code
            == 401
        )


def test_revoking_the_token_ends_its_open_streams(tmp_path: Path) -> None:
    """A revoked API token also ends the streams it opened (within the keep-alive interval, on
    every worker: the stream reads its token again), not only the next request with it."""
    with server(tmp_path, bot_keepalive_s=0.3) as (url, app):
        store = _store(app)
        bot, tok = make_bot(url, store)
        human = Person(url, store, "hal@example.org")
        cid = _challenge(human, bot.account.name).json()["id"]
        ans = httpx.post(f"{url}/api/challenges/{cid}/accept", headers=_bearer(tok), timeout=10)
        gid = ans.json()["game"]
        ended: dict[str, float] = {}
        opened = threading.Barrier(3)

        def read(name: str, path: str) -> None:
            with httpx.Client(timeout=httpx.Timeout(10.0, read=15.0)) as c, \
                    c.stream("GET", f"{url}{path}", headers=_bearer(tok)) as r:
                assert r.status_code == 200
                lines = r.iter_lines()
                next(lines)  # the first line: the stream is open
                opened.wait(10)
                for _ in lines:
                    pass
            ended[name] = time.monotonic()

        paths = (("game", f"/api/bot/games/{gid}/stream"), ("events", "/api/bot/stream/events"))
        readers = [threading.Thread(target=read, args=(n, p), daemon=True) for n, p in paths]
        for t in readers:
            t.start()
        opened.wait(10)
        time.sleep(1.0)
        assert ended == {}, "a stream ended before its token was revoked"
        t0 = time.monotonic()
        assert httpx.request("DELETE", f"{url}/api/account/bot/token", headers=bot.headers,
                             timeout=10).json() == {"revoked": 1}
        for t in readers:
            t.join(10)
        assert sorted(ended) == ["events", "game"], ended
        assert all(v - t0 < 3.0 for v in ended.values()), {k: v - t0 for k, v in ended.items()}
        r = httpx.get(f"{url}/api/bot/games/{gid}/stream", headers=_bearer(tok), timeout=10)
        assert r.status_code == 401 and r.json()["error"]["code"] == "revoked"


def test_the_events_stream_keeps_alive_and_tells_what_waits_on_reconnect(tmp_path: Path) -> None:
    with server(tmp_path, bot_keepalive_s=0.3) as (url, app):
        store = _store(app)
        bot, tok = make_bot(url, store)
        human = Person(url, store, "gus@example.org")
        cid = _challenge(human, bot.account.name).json()["id"]
        a = _challenge(human, bot.account.name).json()["id"]
        gid = httpx.post(f"{url}/api/challenges/{a}/accept", headers=_bearer(tok), timeout=10).json()["game"]
        events = Events(url, tok)
        # Opened later: the challenge still open and the game under way come first.
        events.wait("challenge", challenge__id=cid)
        events.wait("gameStart", game__id=gid)
        assert all("id" not in x for x in events.lines[:2])
        t0 = time.monotonic()
        while events.keepalives < 2:
            assert time.monotonic() - t0 < 5, "no keep-alive"
            time.sleep(0.05)
        events.stop()


def canary_factory(board: str, players: int, variants: list[str]) -> Game:
    return canary_game(board, players, variants)


def test_no_events_line_holds_a_token_a_seed_or_a_card(tmp_path: Path) -> None:
    """S-5 on the events stream: a whole challenged game with canary cards and a canary seed."""
    with server(tmp_path, game_factory=canary_factory, seed_factory=lambda: SEED_CANARY) as (url, app):
        store = _store(app)
        bot, tok = make_bot(url, store)
        human = Person(url, store, "hal@example.org")
        events = Events(url, tok)
        cid = _challenge(human, bot.account.name, board="scotland").json()["id"]
        events.wait("challenge", challenge__id=cid)
        gid = httpx.post(f"{url}/api/challenges/{cid}/accept", headers=_bearer(tok), timeout=10).json()[
            "game"
        ]
        got = _challenger_seat(human, cid)
        p = threading.Thread(
            target=play, args=(RemoteSeat([url], gid, tok), FunctionPolicy(botkit.last_legal)), daemon=True
        )
        p.start()
        mine = play(RemoteSeat([url], gid, got["token"]), FunctionPolicy(botkit.first_legal))
        p.join(60)
        assert mine.scores
        events.wait("gameFinish", game__id=gid)
        events.stop()
        secrets = [
            tok,
            got["token"],
            str(SEED_CANARY),
            hex(SEED_CANARY)[2:],
            "CANARY",
            "seed",
            "setup",
            human.headers["Cookie"].split("=", 1)[1],
        ]
        text = "\n".join(events.raw)
        assert len(events.lines) >= 3
        assert [s for s in secrets if s in text] == []
        # Planted: the check would see a token.
        assert [s for s in secrets if s in text + tok] == [tok]


def test_the_badge_facts_name_bot_accounts_only(tmp_path: Path) -> None:
    """The "BOT" badge's data: the game's ``bots`` per seat, the profile's ``bot``, the open
    game's ``creator_bot`` — true for a bot account's, false for a human's."""
    with server(tmp_path) as (url, app):
        store = _store(app)
        bot, tok = make_bot(url, store)
        human = Person(url, store, "kai@example.org")
        cid = _challenge(human, bot.account.name).json()["id"]
        gid = httpx.post(f"{url}/api/challenges/{cid}/accept", headers=_bearer(tok), timeout=10).json()[
            "game"
        ]
        assert httpx.get(f"{url}/api/games/{gid}", timeout=10).json()["bots"] == [False, True]
        for who, want in ((bot, True), (human, False)):
            r = httpx.get(f"{url}/api/players/{who.account.name}", timeout=10)
            assert r.status_code == 200 and r.json()["bot"] is want
            g = who.post(
                "/api/games",
                {
                    "board": "ireland",
                    "players": 2,
                    "seats": [{"kind": "human", "account": "me"}, {"kind": "open"}],
                },
            )
            assert g.status_code == 201, g.text
            listed = httpx.get(f"{url}/api/open-games", timeout=10).json()["games"]
            mine = [x for x in listed if x["game"] == g.json()["game"]]
            assert [x["creator_bot"] for x in mine] == [want]
