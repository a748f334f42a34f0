"""Security and robustness of the server (issue 15 item 6 and 7): a board is only ever a shipped
board's name; bodies are bounded as they stream (a 64 MiB chunked body is refused after the limit
and memory comes back); deep nesting, 5,000-digit integers and lone surrogates get a clear error
(the WebSocket stays open, no traceback); every answer carries a strict Content-Security-Policy,
cannot be framed and is not sniffed; a WebSocket from a foreign ``Origin`` (scheme, host and port,
issue 24 item 7) is refused; a client hanging up mid-body is a 499, not a server error."""

from __future__ import annotations

import json
import logging
import os
import re
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from server.kit import UNLIMITED_ENV, claim, client, hello, new_game, ping
from server.workerkit import start_serve

WEB = Path(__file__).resolve().parents[2] / "src" / "rebirth" / "web"
MAPS = Path(__file__).resolve().parents[2] / "src" / "rebirth" / "data" / "maps"

_opened: list[str] = []
_watch = [False]


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _watch[0] and event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        _opened.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)  # audit hooks cannot be removed: it records only while _watch is set


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("sec"), web_dir=str(WEB)) as c:
        yield c


def _position(board: str) -> dict[str, Any]:
    return {"format": "rebirth-position", "version": 1, "board": board, "players": 2}


@pytest.mark.parametrize("board", ["/etc/passwd", "/etc/no-such-file", str(MAPS / "scotland.json"),
                                   "src/rebirth/data/maps/scotland.json", "../../../etc/passwd",
                                   "..", "scotland/../ireland"])
def test_a_board_path_is_an_unknown_board_and_opens_nothing(api: TestClient, board: str) -> None:
    """``/api/score`` with a path as board (absolute, relative, ``..``; existing or not, even the
    shipped map file itself) answers exactly what an unknown name gets, and opens no file."""
    unknown = api.post("/api/score", json={"position": _position("atlantis")})
    _opened.clear()
    _watch[0] = True
    try:
        r = api.post("/api/score", json={"position": _position(board)})
    finally:
        _watch[0] = False
    assert r.status_code == unknown.status_code == 400
    assert r.json()["error"]["code"] == unknown.json()["error"]["code"] == "bad_board"
    assert r.json()["error"]["message"] == {"en": f"unknown board {board[:40]!r}",
                                            "de": f"unbekannter Spielplan {board[:40]!r}",
                                            "fr": f"plateau inconnu {board[:40]!r}"}
    assert not [p for p in _opened if "passwd" in p or p.endswith(board) or "no-such" in p], _opened
    # The same text/plain body (a cross-site form can send one) is refused before anything runs.
    r = api.post("/api/score", content=b'{"position": {"board": "/etc/passwd"}}',
                 headers={"Content-Type": "text/plain"})
    assert r.status_code == 400 and "passwd" not in r.text


@pytest.mark.parametrize("body", [
    b"[" * 4000 + b"]" * 4000,
    b'{"position": ' + b'{"a": ' * 200 + b"1" + b"}" * 200 + b"}",
    b'{"position": {"board": "scotland"}, "seat": ' + b"9" * 5000 + b"}",
    b'{"position": {"board": "\\ud800"}}',
])
def test_hostile_json_bodies_get_a_clear_400(api: TestClient, body: bytes,
                                             caplog: pytest.LogCaptureFixture) -> None:
    """Deep nesting, a 5,000-digit integer, a lone surrogate: 400 ``bad_message`` naming why,
    never a 500 or a traceback in the log."""
    for headers in ({"Content-Type": "application/json"}, {"Content-Type": ""}):
        with caplog.at_level(logging.WARNING):
            r = api.post("/api/score", content=body, headers=headers)
        assert r.status_code == 400, r.text
        err = r.json()["error"]
        assert err["code"] == "bad_message" and err["details"]["reason"] in ("depth", "integer", "string")
        assert err["message"]["en"] != err["message"]["de"]
    assert not [rec for rec in caplog.records if rec.exc_info], caplog.text


def test_hostile_websocket_frames_keep_the_connection(api: TestClient,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    """The four kinds of issue 15 (a 5,000-digit ``since``, ``version`` or top-level integer, a
    lone surrogate escape) and deep nesting: each an ``error`` frame, the socket stays open
    (``ping`` answers, ``hello`` then works), nothing is logged as an exception."""
    res = new_game(api, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
    tok = claim(api, res["links"]["seats"][0]["url"])
    big = "9" * 5000
    frames = [f'{{"type": "hello", "token": "{tok}", "since": {big}}}',
              f'{{"type": "act", "action": "E@A1", "version": {big}}}',
              big,
              '{"type": "hello", "token": "\\ud800", "since": -1}',
              "[" * 3000 + "]" * 3000]
    with caplog.at_level(logging.WARNING), api.websocket_connect(f"/ws/games/{res['game']}") as ws:
        for f in frames:
            ws.send_text(f)
            msg = ws.receive_json()
            assert msg["type"] == "error" and msg["code"] == "bad_message", (f[:40], msg)
            assert msg["details"]["reason"] in ("integer", "string", "depth")
            ping(ws)
        assert hello(ws, tok)["seat"] == 0
    assert not [rec for rec in caplog.records if rec.exc_info], caplog.text


PAGES = ["/", "/calculator", "/table", "/table/x", "/game/x", "/static/game.js", "/static/style.css",
         "/api/variants", "/api/games/nosuch", "/nowhere"]


@pytest.mark.parametrize("path", PAGES)
def test_every_answer_has_the_security_headers(api: TestClient, path: str) -> None:
    """A strict CSP (scripts only from this server, no inline script), no framing
    (``frame-ancestors 'none'``, ``X-Frame-Options``), ``nosniff``; on pages and errors alike."""
    r = api.get(path)
    csp = r.headers["content-security-policy"]
    rules = {d.split()[0]: d.split()[1:] for d in (x.strip() for x in csp.split(";")) if d}
    assert rules["script-src"] == ["'self'"] and rules["frame-ancestors"] == ["'none'"]
    assert rules["default-src"] == ["'self'"] and rules["object-src"] == ["'none'"]
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["x-content-type-options"] == "nosniff"


def test_pages_have_no_inline_script() -> None:
    """What the CSP forbids, the shipped pages do not use: every script is a module file, no
    ``on…=`` handler attribute, no ``javascript:`` link."""
    for page in WEB.glob("*.html"):
        html = page.read_text("utf-8")
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert 'src="/static/' in tag, (page.name, tag)
        assert not re.search(r"<script\b[^>]*>\s*\S", html.replace("</script>", "")) or all(
            re.fullmatch(r"<script\b[^>]*src=[^>]*>", t) for t in re.findall(r"<script\b[^>]*>", html))
        assert not re.search(r"\son[a-z]+\s*=", html), page.name
        assert "javascript:" not in html, page.name


def test_a_foreign_origin_websocket_is_refused(api: TestClient) -> None:
    """A page of another site cannot open a game socket (cross-site WebSocket hijacking); the
    server's own pages (same host) and non-browser clients (no ``Origin``) can."""
    res = new_game(api, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
    url = f"/ws/games/{res['game']}"
    for origin in ("http://evil.example", "null", "http://testserver.evil.example", "file://"):
        with pytest.raises(WebSocketDisconnect) as info, \
                api.websocket_connect(url, headers={"origin": origin}) as ws:
            ws.receive_json()
        assert info.value.code == 1008
    for headers in ({"origin": "http://testserver"}, {}):
        with api.websocket_connect(url, headers=headers) as ws:
            ping(ws)


# ---------------------------------------------------------------------- a real server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _stop(proc: subprocess.Popen[str]) -> str:
    """Stop a server started by a test; its output."""
    proc.terminate()
    try:
        out, _ = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return out


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _chunked_post(port: int, total: int) -> bytes:
    """POST /api/score with a chunked body of ``total`` bytes; returns the answer's first bytes.
    It keeps sending until the server answers (then stops: a refusal need not be read whole)."""
    chunk = b"a" * 65536
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"POST /api/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        head = b'{"position": {"pad": "'
        s.sendall(b"%x\r\n%s\r\n" % (len(head), head))
        sent = len(head)
        try:
            while sent < total:
                if select.select([s], [], [], 0)[0]:
                    break
                part = chunk[:total - sent]
                s.sendall(b"%x\r\n%s\r\n" % (len(part), part))
                sent += len(part)
            else:
                tail = b'"}}'
                s.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(tail), tail))
        except (BrokenPipeError, ConnectionResetError):
            pass
        got = b""
        try:
            while b"\r\n\r\n" not in got or got.endswith(b"\r\n\r\n"):
                more = s.recv(4096)
                if not more:
                    break
                got += more
        except ConnectionResetError:
            pass
        return got


def test_a_64_mib_chunked_body_is_refused_and_memory_comes_back(tmp_path: Path) -> None:
    """No Content-Length (chunked): the size is counted as the body streams; past the limit the
    answer is a clear 413 and the rest is never read, so six 64 MiB bodies leave the server's
    memory where it was; the server then still answers."""
    port = _free_port()
    env = {**os.environ, **UNLIMITED_ENV, "REBIRTH_BOT_DELAY": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "rebirth.cli.main", "serve", "--port", str(port),
                             "--db", str(tmp_path / "s.db")], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/variants", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        assert _chunked_post(port, 100).startswith(b"HTTP/1.1 400")  # small: parsed, refused
        before = _rss_kb(proc.pid)
        for _ in range(6):
            answer = _chunked_post(port, 64 << 20)
            assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
            assert b'"too_large"' in answer
        time.sleep(0.5)
        grown = _rss_kb(proc.pid) - before
        assert grown < 16 * 1024, f"server memory grew by {grown} KB"
        assert httpx.get(f"http://127.0.0.1:{port}/api/variants", timeout=5).status_code == 200
    finally:
        out = _stop(proc)
    assert "Traceback" not in out, out[-2000:]


def _origin_answer(api: TestClient, url: str, origin: str) -> str:
    """``"accepted"`` when a socket with this ``Origin`` opens, ``"refused"`` when the handshake
    is refused (1008)."""
    try:
        with api.websocket_connect(url, headers={"origin": origin}) as ws:
            ping(ws)
            return "accepted"
    except WebSocketDisconnect as exc:
        assert exc.code == 1008
        return "refused"


def test_the_origin_check_compares_scheme_host_and_port(api: TestClient) -> None:
    """Issue 24 item 7: without a public URL the socket's own scheme (ws: http, wss: https),
    host and port are the origin; ``https://`` for an ``http://`` server (or back), another
    port, a path are refused."""
    res = new_game(api, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
    path = f"/ws/games/{res['game']}"
    plain = {"http://testserver": "accepted", "http://TestServer:80": "accepted",
             "https://testserver": "refused", "http://testserver:8080": "refused",
             "ws://testserver": "refused", "http://testserver/x": "refused"}
    assert {o: _origin_answer(api, path, o) for o in plain} == plain
    tls = {"https://testserver": "accepted", "https://testserver:443": "accepted",
           "http://testserver": "refused", "https://testserver:8443": "refused"}
    assert {o: _origin_answer(api, f"wss://testserver{path}", o) for o in tls} == tls


def test_with_a_public_url_the_origin_is_the_public_one(tmp_path: Path) -> None:
    """Issue 24 item 7: with ``--public-url https://x.example`` the pages are served from
    there, so only that scheme, host and port may open a socket (the request's Host is that of
    the proxy's hop and says nothing)."""
    with client(tmp_path, public_url="https://x.example") as c:
        res = new_game(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        path = f"/ws/games/{res['game']}"
        want = {"https://x.example": "accepted", "https://x.example:443": "accepted",
                "http://x.example": "refused", "https://x.example:8443": "refused",
                "https://y.example": "refused", "http://testserver": "refused"}
        assert {o: _origin_answer(c, path, o) for o in want} == want
        # A client that is no browser sends no Origin.
        with c.websocket_connect(path) as ws:
            ping(ws)


def _cut_off(port: int, path: str, head: bytes, body: bytes) -> None:
    """Send a request's headers and part of its body, then hang up without reading."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"POST " + path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Type: application/json\r\n" + head + b"\r\n" + body)
        time.sleep(0.2)  # the server is now waiting for the rest


def test_a_client_hanging_up_mid_body_is_no_server_error(tmp_path: Path) -> None:
    """Issue 24 item 7: a request whose client hangs up before its body is complete (a
    Content-Length larger than what came, a chunked body cut off) is recorded as 499 (client
    closed request), counted so in the metrics, with no traceback and no 500; the server goes
    on serving."""
    port = _free_port()
    proc = start_serve(tmp_path / "s.db", port)
    try:
        for path in ("/api/games", "/api/score", "/api/tables", "/api/no-such-route"):
            _cut_off(port, path, b"Content-Length: 1000\r\n", b'{"players": ')
        _cut_off(port, "/api/score", b"Transfer-Encoding: chunked\r\n", b"c\r\n{\"position\":\r\n")
        time.sleep(0.5)
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
        r = httpx.post(f"http://127.0.0.1:{port}/api/games", json={"players": 2}, timeout=10)
        assert r.status_code == 201, r.text
        metrics = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
        assert 'status="500"' not in metrics
        total_499 = sum(float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines()
                        if line.startswith("rebirth_http_requests_total{") and 'status="499"' in line)
        assert total_499 == 5, metrics
    finally:
        out = _stop(proc)
    assert "Traceback" not in out and "Exception in ASGI application" not in out, out[-3000:]
    logged = [json.loads(line) for line in out.splitlines() if line.startswith('{"ts"')]
    assert [e["status"] for e in logged if e["method"] == "POST"].count(499) == 5, out[-3000:]
    assert not any(e["status"] >= 500 for e in logged), out[-3000:]
