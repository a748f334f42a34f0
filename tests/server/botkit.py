"""Helpers for the bot-API tests: remote seats played by the reference client in threads, and
the PettingZoo environment's replay of a finished game's record to check every streamed line."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import numpy as np

from rebirth.client.play import Result, play
from rebirth.client.policy import load
from rebirth.client.remote import Invitation, RemoteSeat
from rebirth.engine.game import Game, Setup
from rebirth.engine.replay import entry_from_json, replay_log
from rebirth.env import raw_env


def start_seed(board: str, players: int, seat: int = 0) -> int:
    """A seed whose deal has ``seat`` start (for ``livekit.live(seed_factory=...)``)."""
    game = Game.create(board, players)
    return next(n for n in range(1, 1000) if game.new_state(n).current_player == seat)


def create(url: str, board: str, kinds: list[str], **body: Any) -> dict[str, Any]:
    """POST /api/games with these seat kinds; asserts 201."""
    r = httpx.post(f"{url}/api/games", json={"board": board, "players": len(kinds),
                                              "seats": [{"kind": k} for k in kinds], **body}, timeout=30)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


class Played:
    """The remote seats of one game played to the end by the client, each in its thread."""

    def __init__(self, g: dict[str, Any], levels: dict[int, Any], servers: list[str] | None = None,
                 seed: int = 1, tokens: dict[int, str] | None = None) -> None:
        self.g = g
        self.lines: dict[int, list[dict[str, Any]]] = {s: [] for s in levels}
        self.results: dict[int, Result] = {}
        self.seats: dict[int, RemoteSeat] = {}
        self.errors: list[BaseException] = []
        for s in levels:
            inv = Invitation.parse(g["links"]["seats"][s]["url"])
            if tokens and s in tokens:  # claimed already: resume with the seat's token
                self.seats[s] = RemoteSeat(servers or [inv.base], inv.game, tokens[s])
            else:
                self.seats[s] = RemoteSeat.claim(inv, servers=servers)
            self.seats[s].give_up_s = 60
        self.threads = [threading.Thread(target=self._run, args=(s, load(lv, seed + s) if isinstance(lv, str)
                                                                 else lv), daemon=True)
                        for s, lv in levels.items()]

    def _run(self, s: int, policy: Any) -> None:
        try:
            self.results[s] = play(self.seats[s], policy, self.lines[s].append)
        except BaseException as exc:  # reported by join()
            self.errors.append(exc)

    def start(self) -> Played:
        for t in self.threads:
            t.start()
        return self

    def join(self, timeout: float = 300) -> dict[int, Result]:
        deadline = time.monotonic() + timeout
        while any(t.is_alive() for t in self.threads):
            assert self.errors == [], self.errors
            assert time.monotonic() < deadline, "a remote seat did not finish"
            time.sleep(0.05)
        assert self.errors == [], self.errors
        return self.results


def first_legal(observation: Any, action_mask: Any) -> int:
    """A policy of (observation, mask): the first legal id (works on any game's cards)."""
    return int(np.flatnonzero(action_mask)[0])


def last_legal(observation: Any, action_mask: Any) -> int:
    """Another such policy: the last legal id."""
    return int(np.flatnonzero(action_mask)[-1])


def record(url: str, g: dict[str, Any]) -> dict[str, Any]:
    """The complete record of a finished game (the admin's link)."""
    tok = g["links"]["admin"].split("#t=", 1)[1]
    r = httpx.get(f"{url}/api/games/{g['game']}/record", headers={"Authorization": f"Bearer {tok}"},
                  timeout=30)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def env_observations(rec: dict[str, Any]) -> dict[int, dict[int, dict[str, Any]]]:
    """Per version, per seat: the PettingZoo environment's observation of the record's position
    (the environment's state set to the record's deal and advanced by the engine's replay)."""
    players = len(rec["players"])
    e = raw_env(rec["board"], players, tuple(rec.get("variants", [])))
    e.game_state = e.game.from_setup(Setup.from_json(rec["setup"]), seed=rec.get("seed"))
    out: dict[int, dict[int, dict[str, Any]]] = {}

    def take(version: int) -> None:
        e._obs_cache = {}
        out[version] = {s: e.observe(f"player_{s}") for s in range(players)}

    take(0)
    replay_log(e.game_state, [entry_from_json(x) for x in rec["actions"]],
               on_step=lambda st: take(st.index + 1))
    return out


def check_lines(rec: dict[str, Any], lines: dict[int, list[dict[str, Any]]]) -> int:
    """Every position line's observation and action mask equal the environment's for that seat
    and version; returns how many were compared."""
    ref = env_observations(rec)
    n = 0
    for seat, got in lines.items():
        for line in got:
            if line["type"] == "over":
                continue
            want = ref[int(line["version"])][seat]
            obs = np.asarray(line["observation"], dtype=np.float32)
            mask = np.asarray(line["action_mask"], dtype=np.int8)
            assert obs.dtype == want["observation"].dtype and obs.shape == want["observation"].shape
            assert np.array_equal(obs, want["observation"]), (seat, line["version"])
            assert np.array_equal(mask, want["action_mask"]), (seat, line["version"])
            assert [x["id"] for x in line["legal"]] == list(np.flatnonzero(mask))
            n += 1
    return n
