"""Links that work where the players are (issue 15 item 1): links from REBIRTH_PUBLIC_URL or
the request's address, X-Forwarded-* believed only from trusted proxies, and `--host 0.0.0.0`
printing this machine's addresses rather than 0.0.0.0."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient

from rebirth.cli.main import main
from rebirth.server.app import create_app
from rebirth.server.operations.addresses import interface_addresses, is_loopback_host, listen_urls
from server import kit

BODY = {"board": "scotland", "players": 3,
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "easy"}]}


def _urls(answer: dict[str, object]) -> list[str]:
    links = answer["links"]
    assert isinstance(links, dict)
    out = [s["url"] for s in links["seats"] if s["url"]]
    return [*out, links["spectator"], links["admin"]]


def test_links_come_from_the_public_url(tmp_path: Path) -> None:
    with kit.client(tmp_path, public_url="https://rebirth.example.org/") as c:
        g = kit.new_game(c, **BODY)
        assert g["base"] == {"url": "https://rebirth.example.org", "loopback": False, "public": True}
        assert all(u.startswith("https://rebirth.example.org/game/") for u in _urls(g))
        # A bot's seat has no link.
        assert g["links"]["seats"][2]["url"] is None
        admin = kit.token(g["links"]["admin"])
        r = c.post(f"/api/games/{g['game']}/seats/0/revoke", headers={"Authorization": f"Bearer {admin}"})
        assert r.json()["url"].startswith("https://rebirth.example.org/game/")


def test_links_from_the_request_say_when_they_are_loopback(tmp_path: Path) -> None:
    app = create_app(kit.settings(tmp_path))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        g = kit.new_game(c, **BODY)
        assert g["base"] == {"url": "http://127.0.0.1:8000", "loopback": True, "public": False}
        assert all(u.startswith("http://127.0.0.1:8000/game/") for u in _urls(g))
    with TestClient(app, base_url="http://192.0.2.7:8000") as c:
        g = kit.new_game(c, **BODY)
        assert g["base"]["loopback"] is False


@pytest.mark.parametrize("bad", ["ftp://x.example", "rebirth.example.org", "https://x.example/?a=1",
                                 "https://#frag"])
def test_a_bad_public_url_is_refused_before_starting(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--public-url", bad, "--port", "1"]) == 2
    err = capsys.readouterr()
    # The error names the flag the user typed (issue 26 item 6), not pydantic's field tuple.
    assert "--public-url" in err.err and "('public_url',)" not in err.err and "running at" not in err.out


def test_loopback_and_interface_addresses() -> None:
    assert is_loopback_host("127.0.0.1") and is_loopback_host("localhost") and is_loopback_host("[::1]")
    assert not is_loopback_host("192.0.2.1") and not is_loopback_host("play.example.test")
    addrs = interface_addresses()
    assert "127.0.0.1" in addrs and "0.0.0.0" not in addrs
    assert addrs[-1] == "127.0.0.1"  # reachable addresses first, this computer's own last
    assert listen_urls("127.0.0.1", 8000) == ["http://127.0.0.1:8000/"]
    assert all("0.0.0.0" not in u for u in listen_urls("0.0.0.0", 8000))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def _serve(tmp_path: Path, *args: str) -> Iterator[tuple[str, list[str]]]:
    """A real `rebirth serve` with ``args``; yields its base URL on loopback and what it printed."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "rebirth.cli.main", "serve", "--port", str(port),
                             "--db", str(tmp_path / "g.db"), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ})
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline()]
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(base + "/healthz", timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("rebirth serve did not start") from None
                time.sleep(0.1)
        yield base, lines
    finally:
        proc.terminate()
        proc.wait(10)


def test_host_0000_prints_this_machines_addresses(tmp_path: Path) -> None:
    with _serve(tmp_path, "--host", "0.0.0.0") as (base, lines):
        printed = re.findall(r"http://[^\s]+/", lines[0])
        assert printed and "0.0.0.0" not in lines[0]
        host = urlsplit(printed[0]).hostname
        assert host in interface_addresses()
        # Only this machine's loopback is ever contacted by the tests; the other printed
        # addresses are this machine's own interfaces, checked above.
        assert httpx.get(base + "/healthz").json() == {"status": "ok"}


def test_forwarded_headers_only_from_trusted_proxies(tmp_path: Path) -> None:
    fwd = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    with _serve(tmp_path) as (base, _):  # trusts 127.0.0.1, where this test connects from
        g = httpx.post(base + "/api/games", json=BODY, headers=fwd).json()
        assert all(u.startswith(f"https://127.0.0.1:{urlsplit(base).port}/game/") for u in _urls(g))
    with _serve(tmp_path, "--forwarded-allow-ips", "192.0.2.1") as (base, _):
        g = httpx.post(base + "/api/games", json=BODY, headers=fwd).json()
        assert all(u.startswith(base + "/game/") for u in _urls(g))
