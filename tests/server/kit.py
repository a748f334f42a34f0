"""Helpers for the server tests: an app on a temporary database, socket conversations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from rebirth.server.app import create_app
from rebirth.server.play.registry import GameFactory, SeedFactory
from rebirth.server.settings import Settings, sqlite_url

UNLIMITED: dict[str, Any] = {
    "rate_socket": "", "rate_socket_client": "", "rate_create": "", "rate_score": "", "rate_table": "",
    "rate_signin": "", "rate_signin_email": "",
    "max_games_per_client": 0, "max_bot_games": 0, "max_sockets_per_game": 0}
"""No rate limit and no cap: the tests that are not about them create games and send messages
as fast as they like (tests/server/test_limits.py lowers them)."""

UNLIMITED_ENV = {f"REBIRTH_{k.upper()}": str(v) for k, v in UNLIMITED.items()}
"""The same for a server started as a process."""


def settings(tmp: Path, **kw: Any) -> Settings:
    """Test settings: a fresh database, no bot pause, no offline grace."""
    base: dict[str, Any] = {"database_url": sqlite_url(tmp / "test.db"), "bot_delay": 0.0,
                            "offline_grace": 0.0, "web_dir": str(tmp / "web"), **UNLIMITED}
    base.update(kw)
    return Settings(**base)


def client(tmp: Path, *, game_factory: GameFactory | None = None, seed_factory: SeedFactory | None = None,
           **kw: Any) -> TestClient:
    """A TestClient (use it as a context manager so the app starts and stops)."""
    return TestClient(create_app(settings(tmp, **kw), game_factory=game_factory, seed_factory=seed_factory))


def token(url: str) -> str:
    """The secret token in a link's fragment."""
    return url.split("#t=", 1)[1]


def new_game(c: TestClient, **body: Any) -> dict[str, Any]:
    """POST /api/games; asserts 201."""
    r = c.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def hello(ws: WebSocketTestSession, tok: str, since: int = -1) -> dict[str, Any]:
    """Say hello; returns the sync."""
    ws.send_json({"type": "hello", "token": tok, "since": since})
    msg: dict[str, Any] = ws.receive_json()
    while msg["type"] == "presence":
        msg = ws.receive_json()
    assert msg["type"] == "sync", msg
    return msg


def ping(ws: WebSocketTestSession) -> None:
    """The connection still answers."""
    ws.send_json({"type": "ping"})
    assert ws.receive_json() == {"type": "pong"}


def until_turn(ws: WebSocketTestSession, seat: int, view: dict[str, Any],
               frames: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Read updates until ``seat`` is to act or the game is over; returns the latest view."""
    while not (view["phase"] == "end" or (view["current_player"] == seat and view["legal_actions"])):
        msg = ws.receive_json()
        if frames is not None:
            frames.append(msg)
        if msg["type"] in ("update", "sync"):
            view = msg["view"]
    return view


def claim(c: TestClient | httpx.Client, url: str) -> str:
    """Open an invitation link as a browser does (issue 15 item 7): claim it; the seat's (or
    the hot-seat device's) token, which only this claimer ever gets."""
    gid, code = url.split("/game/", 1)[1].split("#i=", 1)
    r = c.post(f"/api/games/{gid}/claim", json={"invite": code})
    assert r.status_code == 200, r.text
    tok: str = r.json()["token"]
    return tok


def seat_tokens(c: TestClient, g: dict[str, Any], n: int | None = None) -> list[str]:
    """Claim the invitations of the first ``n`` seats of a new game ``g`` (all by default)."""
    return [claim(c, s["url"]) for s in g["links"]["seats"][:n]]


def grant(c: TestClient, game: str, seat: int) -> str:
    """A seat token written straight into the store, as a won claim writes it — for tests that
    watch a seat's own socket in a hot-seat game, whose seats have no invitation (the device
    holds them)."""
    from rebirth.server.persistence.store import hash_token, tokens
    from rebirth.server.play.invites import new_code

    tok = new_code()
    with c.app.state.registry.store.tx() as conn:  # type: ignore[attr-defined]
        conn.execute(tokens.insert().values(hash=hash_token(tok), game=game, role="seat", seat=seat,
                                            revoked=False))
    return tok
