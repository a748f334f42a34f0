"""The bot API through the shipped proxy (issue 27: "works through the proxy: streams are not
buffered by Caddy"): scripts/proxy-stack.sh with deploy/Caddyfile in front of a worker; a
stream's keep-alive lines and a move's ``state`` line reach the client promptly, and the
reference client plays a whole game through it."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from rebirth.client.play import play
from rebirth.client.policy import load
from rebirth.client.remote import Invitation, RemoteSeat

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("caddy") is None, reason="needs caddy (scripts/services.sh)")


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("load_proxy", ROOT / "benchmarks" / "load_proxy.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["load_proxy"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_stream_lines_arrive_promptly_through_caddy(tmp_path: Path) -> None:
    stack = bench().Stack("sqlite1", tmp_path)
    stack.env["REBIRTH_BOT_KEEPALIVE_S"] = "0.3"
    stack.run("start")
    try:
        url = f"http://127.0.0.1:{stack.proxy}"
        r = httpx.post(
            f"{url}/api/games",
            json={"board": "ireland", "players": 2, "seats": [{"kind": "remote"}, {"kind": "remote"}]},
            timeout=30,
        )
        assert r.status_code == 201, r.text
        g: dict[str, Any] = r.json()
        seats = [
            RemoteSeat.claim(Invitation.parse(g["links"]["seats"][s]["url"].replace(g["base"]["url"], url)))
            for s in (0, 1)
        ]
        to_move = httpx.get(
            f"{url}/api/bot/games/{g['game']}/stream",
            params={"limit": 1},
            headers={"Authorization": f"Bearer {seats[0].token}"},
            timeout=10,
        )
        first = json.loads(to_move.text.splitlines()[0])
        mover = 0 if first["legal"] else 1
        other = 1 - mover
        with (
            httpx.Client(timeout=httpx.Timeout(10.0, read=5.0)) as c,
            c.stream(
                "GET",
                f"{url}/api/bot/games/{g['game']}/stream",
                headers={"Authorization": f"Bearer {seats[other].token}"},
            ) as stream,
        ):
            assert stream.headers["content-type"].startswith("application/x-ndjson")
            lines = stream.iter_lines()
            t0 = time.monotonic()
            line = json.loads(next(lines))
            assert line["type"] == "game"
            # A keep-alive (one byte) is not held back by the proxy.
            assert next(lines) == "" and time.monotonic() - t0 < 2.0
            v = line["version"]
            r = httpx.post(
                f"{url}/api/bot/games/{g['game']}/move",
                json={"action": _legal(url, g, seats[mover].token), "version": v},
                headers={"Authorization": f"Bearer {seats[mover].token}"},
                timeout=10,
            )
            posted = time.monotonic()
            assert r.status_code == 200, r.text
            while True:
                raw = next(lines)
                if raw:
                    break
            got = json.loads(raw)
            assert got["type"] == "state" and got["version"] == r.json()["version"]
            assert time.monotonic() - posted < 1.0, "the state line was held back"
        # And a whole game through the proxy, both seats by the reference client.
        import threading

        results: dict[int, Any] = {}
        threads = [
            threading.Thread(
                target=lambda s=s: results.__setitem__(s, play(seats[s], load("random", s))), daemon=True
            )
            for s in (0, 1)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(180)
        assert set(results) == {0, 1} and results[0].scores == results[1].scores
    finally:
        stack.run("stop")


def _legal(url: str, g: dict[str, Any], tok: str) -> int:
    r = httpx.get(
        f"{url}/api/bot/games/{g['game']}/stream",
        params={"limit": 1},
        headers={"Authorization": f"Bearer {tok}"},
        timeout=10,
    )
    legal: int = json.loads(r.text.splitlines()[0])["legal"][0]["id"]
    return legal
