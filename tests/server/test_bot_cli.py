"""``rebirth bot play`` as a subprocess against a local server (issue 27: "``rebirth bot play``
against a local server with ``--bot expert`` finishes a game"): a remote seat's invitation played
to the end, and a bot account (``--token``) that accepts a challenge and plays it. CI plays the
cheap ``greedy`` level; ``expert`` is the same code path (``REBIRTH_BOT_CLI_LEVEL=expert`` runs
it, slowly)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from rebirth.client.play import play
from rebirth.client.policy import FunctionPolicy
from rebirth.client.remote import RemoteSeat
from server import botkit, livekit
from server.test_bot_accounts import Person, _challenge, _challenger_seat, _store, make_bot

LEVEL = os.environ.get("REBIRTH_BOT_CLI_LEVEL", "greedy")


def cli(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rebirth.cli.main", "bot", "play", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_cli_plays_a_remote_seat_to_the_end(tmp_path: Path) -> None:
    with livekit.live(tmp_path) as (url, _app):
        g = botkit.create(url, "ireland", ["remote", "easy"])
        t0 = time.monotonic()
        out = cli(g["links"]["seats"][0]["url"], "--bot", LEVEL, "--json")
        took = time.monotonic() - t0
        assert out.returncode == 0, out.stderr
        res = json.loads(out.stdout.strip().splitlines()[-1])
        summary = httpx.get(f"{url}/api/games/{g['game']}", timeout=10).json()
        assert summary["status"] == "over" and res["game"] == g["game"] and res["seat"] == 0
        assert res["scores"] == botkit.record(url, g)["result"]["scores"]
        print(f"rebirth bot play --bot {LEVEL}: {took:.1f} s, {res}")
        # Its invitation is spent: a second run is refused, readably, exit 1.
        again = cli(g["links"]["seats"][0]["url"], "--bot", LEVEL)
        assert again.returncode == 1 and "claimed" in again.stderr


def test_the_cli_as_a_bot_account_accepts_a_challenge_and_plays_it(tmp_path: Path) -> None:
    with livekit.live(tmp_path, bot_events_poll_s=0.3) as (url, app):
        store = _store(app)
        bot, tok = make_bot(url, store)
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "rebirth.cli.main",
                "bot",
                "play",
                url,
                "--token",
                tok,
                "--bot",
                LEVEL,
                "--games",
                "1",
                "--json",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            human = Person(url, store, "ida@example.org")
            r = _challenge(human, bot.account.name)
            assert r.status_code == 201, r.text
            got = _challenger_seat(human, r.json()["id"])
            assert got["status"] == "accepted"
            box: dict[str, object] = {}

            def human_plays() -> None:
                try:
                    seat = RemoteSeat([url], got["game"], got["token"])
                    box["r"] = play(seat, FunctionPolicy(botkit.first_legal))
                except BaseException as exc:  # reported below: the bot would wait for ever
                    box["error"] = exc

            t = threading.Thread(target=human_plays, daemon=True)
            t.start()
            try:
                out, err = proc.communicate(timeout=420)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate(timeout=10)
                summary = httpx.get(f"{url}/api/games/{got['game']}", timeout=10).json()
                raise AssertionError(f"the CLI did not finish: human side {box!r}; game {summary!r}; "
                                     f"CLI stderr {err[-4000:]!r}") from None
            t.join(60)
            assert "error" not in box, box
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        assert proc.returncode == 0, err
        res = json.loads(out.strip().splitlines()[-1])
        assert res["game"] == got["game"] and res["seat"] == 1
        assert httpx.get(f"{url}/api/games/{got['game']}", timeout=10).json()["status"] == "over"
        # A revoked token: the CLI says so and stops (exit 1).
        httpx.request("DELETE", f"{url}/api/account/bot/token", headers=bot.headers, timeout=10)
        done = cli(url, "--token", tok, "--bot", LEVEL, timeout=60)
        assert done.returncode == 1 and "revoked" in done.stderr
