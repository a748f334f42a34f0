"""The bot API (issue 27 items 1 and 3): remote seats played through the NDJSON stream and the
move endpoint by the reference client, against the server's bots, on both boards and every
player count; every streamed observation and action mask equals the PettingZoo environment's
for the same record; the socket's refusals, presence, keep-alive, resume and rate limits."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from server import botkit, livekit

GAMES = [
    ("scotland", ["remote", "easy"]),
    ("ireland", ["easy", "remote"]),
    ("scotland", ["remote", "normal", "remote"]),
    ("ireland", ["remote", "remote", "easy"]),
    ("scotland", ["easy", "remote", "remote", "remote"]),
    ("ireland", ["remote", "easy", "normal", "remote"]),
]


def _auth(tok: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {tok}"}


@pytest.mark.parametrize(("board", "kinds"), GAMES)
def test_whole_games_through_the_bot_api_match_the_environment(tmp_path: Path, board: str,
                                                               kinds: list[str]) -> None:
    """2–4 seats, one to three remote: every game finishes, each remote seat's lines are its own
    seat's and every observation/mask is the environment's replay of the record (identical)."""
    with livekit.live(tmp_path) as (url, _app):
        g = botkit.create(url, board, kinds)
        remote = [i for i, k in enumerate(kinds) if k == "remote"]
        levels = {s: ("greedy", "random")[n % 2] for n, s in enumerate(remote)}
        played = botkit.Played(g, levels).start()
        results = played.join()
        summary = httpx.get(f"{url}/api/games/{g['game']}", timeout=10).json()
        assert summary["status"] == "over" and summary["kinds"] == kinds
        rec = botkit.record(url, g)
        # The server's bots never played a remote seat: every remote seat's step is a move the
        # client posted.
        moved = {s: sum(1 for a in rec["actions"] if a.get("seat") == s and "action" in a) for s in remote}
        assert moved == {s: results[s].moves for s in remote}
    final = rec["result"]["scores"]
    for s, res in results.items():
        assert res.seat == s and res.moves > 0 and res.scores == final
    assert botkit.check_lines(rec, played.lines) > 10


def test_every_streamed_observation_is_the_environments(tmp_path: Path) -> None:
    """One game per board with two remote seats: every line of every stream compared with the
    environment (observation float32 and action mask int8, element for element)."""
    with livekit.live(tmp_path) as (url, _app):
        total = 0
        for board, kinds in (("scotland", ["remote", "easy", "remote"]), ("ireland", ["remote", "remote"])):
            g = botkit.create(url, board, kinds)
            remote = [i for i, k in enumerate(kinds) if k == "remote"]
            p = botkit.Played(g, dict.fromkeys(remote, "greedy")).start()
            p.join()
            rec = botkit.record(url, g)
            n = botkit.check_lines(rec, p.lines)
            # Every committed version reached each stream (a line per change of position).
            for s in remote:
                got = p.lines[s]
                assert got[0]["type"] == "game" and got[-1]["type"] == "over"
                assert all(x["seat"] == s and x["view"]["seat"] == s for x in got[:-1])
                versions = [x["version"] for x in got[:-1]]
                assert versions == sorted(set(versions)) and versions[-1] == len(rec["actions"])
            total += n
    assert total > 100

def _claim(url: str, g: dict[str, Any], seat: int) -> str:
    gid, code = g["links"]["seats"][seat]["url"].split("/game/", 1)[1].split("#i=", 1)
    r = httpx.post(f"{url}/api/games/{gid}/claim", json={"invite": code}, timeout=10)
    assert r.status_code == 200, r.text
    tok: str = r.json()["token"]
    return tok


class Reader:
    """A raw stream, read line by line (keep-alives included) in the test's own thread."""

    def __init__(self, url: str, gid: str, tok: str, since: int = -1) -> None:
        self.c = httpx.Client(timeout=httpx.Timeout(10.0, read=10.0))
        self.cm = self.c.stream("GET", f"{url}/api/bot/games/{gid}/stream", params={"since": since},
                                headers=_auth(tok))
        self.r = self.cm.__enter__()
        self.it = self.r.iter_lines()

    def next(self) -> str:
        return next(self.it)

    def line(self) -> dict[str, Any]:
        while True:
            raw = self.next()
            if raw.strip():
                out: dict[str, Any] = json.loads(raw)
                return out

    def close(self) -> None:
        self.cm.__exit__(None, None, None)
        self.c.close()


def _move(url: str, gid: str, tok: str, action: Any, version: Any) -> httpx.Response:
    return httpx.post(f"{url}/api/bot/games/{gid}/move", json={"action": action, "version": version},
                      headers=_auth(tok), timeout=10)


def test_refusals_are_the_sockets_and_change_nothing(tmp_path: Path) -> None:
    seed = botkit.start_seed("scotland", 3)
    with livekit.live(tmp_path, seed_factory=lambda: seed) as (url, _app):
        g = botkit.create(url, "scotland", ["remote", "human", "easy"])
        gid = g["game"]
        tok, human = _claim(url, g, 0), _claim(url, g, 1)
        spect = g["links"]["spectator"].split("#t=", 1)[1]
        rd = Reader(url, gid, tok)
        first = rd.line()
        assert first["type"] == "game" and first["seat"] == 0 and first["version"] == 0
        assert r"\"seed\"" not in json.dumps(first) and tok not in json.dumps(first)
        v = first["version"]
        legal = first["legal"]
        assert legal and first["view"]["current_player"] == 0
        mask = first["action_mask"]
        illegal = next(i for i, m in enumerate(mask) if not m)
        for action, code, status in ((illegal, "illegal", 400), (len(mask) + 5, "illegal", 400),
                                     (-1, "illegal", 400), ("Z99", "illegal", 400),
                                     (legal[0]["id"], "stale", 409)):
            r = _move(url, gid, tok, action, v if code != "stale" else v + 7)
            assert r.status_code == status and r.json()["error"]["code"] == code, r.text
            assert set(r.json()["error"]["message"]) >= {"en", "de"}
        # Another seat's link moves nothing for this seat (it acts for its own seat only).
        r = _move(url, gid, human, legal[0]["id"], v)
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_your_turn"
        for who, status, code in ((spect, 403, "forbidden"), ("junk", 403, "bad_token")):
            r = _move(url, gid, who, legal[0]["id"], v)
            assert (r.status_code, r.json()["error"]["code"]) == (status, code)
        assert httpx.post(f"{url}/api/bot/games/{gid}/move", json={"action": 1, "version": 0},
                          timeout=10).status_code == 401
        assert _move(url, "nosuchgame", tok, 1, 0).status_code in (403, 404)
        for bad in ({"action": 1}, {"action": 1.5, "version": 0}, {"action": 1, "version": "0"},
                    {"action": None, "version": 0}, {"action": 1, "version": 0, "x": 1}):
            r = httpx.post(f"{url}/api/bot/games/{gid}/move", json=bad, headers=_auth(tok), timeout=10)
            assert r.status_code == 400 and r.json()["error"]["code"] == "bad_message", (bad, r.text)
        assert httpx.get(f"{url}/api/games/{gid}", timeout=10).json()["version"] == v
        # A legal move by text and one by id: 200 {"version"}, then the stream's state line.
        r = _move(url, gid, tok, legal[0]["text"], v)
        assert r.status_code == 200 and r.json()["version"] > v
        line = rd.line()
        assert line["type"] == "state" and line["version"] == r.json()["version"]
        assert line["events"] and line["events"][0]["seat"] == 0
        rd.close()


def test_presence_keepalive_resume_and_no_server_bot_at_a_remote_seat(tmp_path: Path) -> None:
    # A deal whose start player is seat 0 (the server's bot), so the bot moves first.
    seed = botkit.start_seed("ireland", 2)
    with livekit.live(tmp_path, bot_keepalive_s=0.3, seed_factory=lambda: seed) as (url, app):
        g = botkit.create(url, "ireland", ["easy", "remote"])
        gid = g["game"]
        tok = _claim(url, g, 1)
        registry = app.state.registry
        deadline = time.monotonic() + 30
        while registry.hubs[gid].match.state.current_player != 1:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        time.sleep(0.5)
        hub = registry.hubs[gid]
        stopped = hub.match.version
        assert hub.match.state.current_player == 1 and stopped > 0  # no server bot took the seat
        assert httpx.get(f"{url}/api/games/{gid}", timeout=10).json()["online"] == [False, False]
        rd = Reader(url, gid, tok, since=0)
        first = rd.line()
        # Resumed from version 0: the first line's events are the steps after it.
        assert first["version"] == stopped and [e["version"] for e in first["events"]] == list(
            range(1, stopped + 1))
        assert httpx.get(f"{url}/api/games/{gid}", timeout=10).json()["online"] == [False, True]
        # Nothing happens: keep-alive lines (empty) at least every bot_keepalive_s.
        t0 = time.monotonic()
        assert rd.next() == "" and time.monotonic() - t0 < 2.0
        r = httpx.post(f"{url}/api/games/{gid}/seats/1/bot", headers=_auth(
            g["links"]["admin"].split("#t=", 1)[1]), timeout=10)
        assert r.status_code == 409 and r.json()["error"]["code"] == "still_online"
        rd.close()
        deadline = time.monotonic() + 10
        while httpx.get(f"{url}/api/games/{gid}", timeout=10).json()["online"][1]:
            assert time.monotonic() < deadline, "the closed stream still counts as online"
            time.sleep(0.05)
        # Offline (grace 0 in tests): the hand-over rules are a human's: another player may hand it.
        r = httpx.post(f"{url}/api/games/{gid}/seats/1/bot", headers=_auth(
            g["links"]["admin"].split("#t=", 1)[1]), timeout=10)
        assert r.status_code == 200 and r.json()["kinds"][1] == "greedy"


def test_hot_seat_game_with_a_remote_seat_and_revoke(tmp_path: Path) -> None:
    """A hot-seat device holds the human seats; a remote seat has its own invitation, and the
    admin's re-open ends its stream."""
    with livekit.live(tmp_path) as (url, _app):
        g = botkit.create(url, "scotland", ["human", "remote"], hotseat=True)
        assert g["links"]["table"] and g["links"]["seats"][0]["url"] is None
        assert g["links"]["seats"][1]["url"]
        tok = _claim(url, g, 1)
        rd = Reader(url, g["game"], tok)
        assert rd.line()["type"] == "game"
        admin = g["links"]["admin"].split("#t=", 1)[1]
        r = httpx.post(f"{url}/api/games/{g['game']}/seats/1/revoke", headers=_auth(admin), timeout=10)
        assert r.status_code == 200
        deadline = time.monotonic() + 10
        with pytest.raises(StopIteration):
            while time.monotonic() < deadline:
                rd.next()
        rd.close()
        r = httpx.get(f"{url}/api/bot/games/{g['game']}/stream", headers=_auth(tok), timeout=10)
        assert r.status_code == 403 and r.json()["error"]["code"] == "revoked"


def test_moves_and_stream_opens_count_against_the_sockets_rate_limits(tmp_path: Path) -> None:
    with livekit.live(tmp_path, rate_socket="3/minute") as (url, _app):
        g = botkit.create(url, "ireland", ["remote", "easy"])
        gid = g["game"]
        tok = _claim(url, g, 0)
        answers = [_move(url, gid, tok, 0, 99) for _ in range(4)]
        assert [a.status_code for a in answers] == [409, 409, 409, 429]
        assert int(answers[-1].headers["Retry-After"]) >= 1
        assert answers[-1].json()["error"]["code"] == "rate_limited"
        r = httpx.get(f"{url}/api/bot/games/{gid}/stream", headers=_auth(tok), timeout=10)
        assert r.status_code == 429


def test_a_stream_with_limit_and_a_finished_games_stream(tmp_path: Path) -> None:
    with livekit.live(tmp_path) as (url, _app):
        g = botkit.create(url, "ireland", ["remote", "easy"])
        tok = _claim(url, g, 0)
        r = httpx.get(f"{url}/api/bot/games/{g['game']}/stream", params={"limit": 1}, headers=_auth(tok),
                      timeout=10)
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
        assert r.headers["cache-control"] == "no-store"
        lines = [json.loads(x) for x in r.text.splitlines() if x]
        assert [x["type"] for x in lines] == ["game"]
        botkit.Played(g, {0: "greedy"}, seed=3, tokens={0: tok}).start().join()
        r = httpx.get(f"{url}/api/bot/games/{g['game']}/stream", headers=_auth(tok), timeout=10)
        kinds = [json.loads(x)["type"] for x in r.text.splitlines() if x]
        assert kinds == ["game", "over"]
        over = json.loads(r.text.splitlines()[-1])
        assert set(over) == {"type", "scores", "winners"}
