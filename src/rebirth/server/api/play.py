"""The game WebSocket (``/ws/games/{id}``): hello/sync, act, preview, claim, chat, ping
(docs/protocol.md). Frames are the declared types of server/realtime/protocol.py, decoded and
validated there; every refusal is an ``error`` frame, the connection stays open and nothing
changes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import time

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from rebirth.engine.actions import ActionError
from rebirth.server.accounts.auth import account_of
from rebirth.server.accounts.store import seat_in
from rebirth.server.api.deps import RegistryDep, SettingsDep
from rebirth.server.errors import texts
from rebirth.server.operations.caps import Caps
from rebirth.server.operations.throttle import Throttle, client_address
from rebirth.server.persistence.store import TokenRow, hash_token
from rebirth.server.play.registry import Registry
from rebirth.server.play.session import ServerError, Session, action_code
from rebirth.server.realtime import protocol as p
from rebirth.server.realtime.protocol import error_frame
from rebirth.server.realtime.room import Conn

router = APIRouter(tags=["play"])
access = logging.getLogger("rebirth.access")


@router.websocket("/ws/games/{game_id}")
async def game_socket(ws: WebSocket, game_id: str, registry: RegistryDep, settings: SettingsDep) -> None:
    """One device's connection to one game."""
    await ws.accept()
    session = await registry.get(game_id) if len(game_id) <= 64 else None
    caps: Caps = ws.app.state.caps
    # No await between the load and the count: the idle sweep cannot drop the game in between.
    if session is not None and not caps.attach(session.id):
        registry.metrics.rate_limited.labels("sockets").inc()
        cap = caps.max_sockets_per_game
        await ws.send_text(p.encode(error_frame("too_many_sockets", session.committed,
                                                texts("server.too_many_sockets", n=cap), {"cap": cap})))
        await ws.close(code=1013)  # "try again later"
        return
    throttle: Throttle = ws.app.state.throttle
    client = client_address(ws.scope, settings)
    conn = Conn(ws)
    conn_key = secrets.token_hex(8)
    registry.metrics.connections.inc()
    placed: str | None = None
    hello_by = time.monotonic() + settings.hello_timeout
    try:
        while True:
            try:
                if placed is None:
                    # A socket without a hello holds a place: it gets a bounded time to say it.
                    async with asyncio.timeout(max(0.0, hello_by - time.monotonic())):
                        msg = await ws.receive()
                else:
                    msg = await ws.receive()
            except TimeoutError:
                await conn.send(error_frame("hello_first", session.committed if session else None))
                await ws.close(code=1008)
                break
            if msg["type"] == "websocket.disconnect":
                break
            refusal = await throttle.socket_message(conn_key, client)
            if refusal is not None:
                await conn.send(error_frame("rate_limited", _version(session), refusal.text(),
                                            refusal.details()))
                continue
            raw = msg.get("text")
            if raw is None:
                data = msg.get("bytes") or b""
                size = len(data)
                try:
                    raw = data.decode("utf-8")
                except UnicodeDecodeError:
                    raw = ""
            else:
                size = len(raw.encode("utf-8"))
            if size > settings.max_message_bytes:
                await conn.send(error_frame("too_large", _version(session)))
                continue
            try:
                frame = p.decode(raw)
            except p.BadFrame as exc:
                details = {"reason": exc.reason} if exc.reason else None
                await conn.send(error_frame("bad_message", _version(session), exc.text, details))
                continue
            if isinstance(frame, p.HelloFrame) and session is not None and placed is None:
                if not await _place(conn, session, frame, registry, caps):
                    break
                placed = conn.role
                continue
            await _handle(conn, session, frame, registry)
    except WebSocketDisconnect:
        pass
    finally:
        conn.closed = True
        registry.metrics.connections.dec()
        if session is not None:
            caps.detach(session.id, placed)
            # Shielded: a cancelled handler (server shutdown, test client) still updates presence.
            await asyncio.shield(session.leave(conn))


def _version(session: Session | None) -> int | None:
    """The version an error frame reports (None: no such game); read only when one is sent."""
    return None if session is None else session.committed


async def _grant(conn: Conn, session: Session, hello: p.HelloFrame,
                 registry: Registry) -> tuple[TokenRow | None, str | None, str | None]:
    """What a hello is: ``(grant, token hash, refusal code)``. With a token, what the token
    grants; without one, the session cookie's account: its seat in the game, or a spectator
    (no token hash: nothing to revoke but the session, checked at every hello). A revoked or
    missing session: ``signin_required``."""
    if hello.token:
        tok = await asyncio.to_thread(registry.store.token, hello.token)
        if tok is None or tok.game != session.id:
            return None, None, "bad_token"
        if tok.revoked:
            return tok, None, "revoked"
        return tok, hash_token(hello.token), None
    account = await account_of(conn.ws, registry.store, registry.settings)
    if account is None:
        return None, None, "signin_required"
    seat = await asyncio.to_thread(seat_in, registry.store, account.id, session.id)
    if seat is None:
        return TokenRow(session.id, "spectator", None, False), None, None
    return TokenRow(session.id, "seat", seat, False), None, None


async def _place(conn: Conn, session: Session, hello: p.HelloFrame, registry: Registry, caps: Caps) -> bool:
    """The first hello: the socket takes a place for its role (spectators only outside the
    seats' reserved room) and joins; False when it was refused and closed."""
    tok, _h, refused = await _grant(conn, session, hello, registry)
    if refused is not None:
        tok = None
    if tok is not None and tok.game == session.id and not tok.revoked \
            and not caps.place(session.id, tok.role, session.game.players):
        registry.metrics.rate_limited.labels("sockets").inc()
        cap = caps.max_sockets_per_game
        await conn.send(error_frame("too_many_sockets", session.committed,
                                    texts("server.too_many_sockets", n=cap), {"cap": cap}))
        await conn.ws.close(code=1013)  # "try again later"
        return False
    await _handle(conn, session, hello, registry, (tok, _h, refused))
    if conn.role is None and tok is not None and tok.game == session.id and not tok.revoked:
        caps.detach(session.id, tok.role)  # placed, but the join did not happen
        caps.attach(session.id)
    return True


async def _handle(conn: Conn, session: Session | None, frame: p.Inbound, registry: Registry,
                  granted: tuple[TokenRow | None, str | None, str | None] | None = None) -> None:
    if isinstance(frame, p.PingFrame):
        await conn.send(p.Pong())
        return
    if session is None:
        await conn.send(error_frame("unknown_game", None))
        return
    if isinstance(frame, p.HelloFrame):
        tok, token_hash, refused = granted or await _grant(conn, session, frame, registry)
        if refused is not None or tok is None:
            text = texts("server.signin_required") if refused == "signin_required" else None
            await conn.send(error_frame(refused or "bad_token", session.committed, text))
            return
        await session.join(conn, tok, token_hash, max(-1, frame.since))
        # One structured line per joined socket (HTTP requests have theirs in app.py): which
        # process serves which seat of which game, behind a load balancer. Never the token.
        access.info(json.dumps({"ts": round(time.time(), 3), "event": "join", "game": session.id,
                                "role": tok.role, "seat": tok.seat, "pid": os.getpid()}))
        return
    if conn.role is None:
        await conn.send(error_frame("hello_first", session.committed))
        return
    try:
        if isinstance(frame, p.ActFrame):
            await session.act(conn, frame.seat, frame.action, frame.version)
        elif isinstance(frame, p.PreviewAsk):
            await conn.send(await session.preview(conn, frame.seat, frame.action))
        elif isinstance(frame, p.ChatSay):
            await session.social.chat(conn, frame)  # server/social: checks, stores, delivers
        elif isinstance(frame, p.ChatHistoryAsk):
            await session.social.history(conn, frame)
        elif isinstance(frame, p.ClaimFrame):
            if conn.role != "table":
                await conn.send(error_frame("forbidden", session.committed))
            else:
                await session.claim(conn, frame.seat)
    except ActionError as exc:
        if isinstance(frame, p.ActFrame):
            registry.metrics.actions.labels("refused", "human").inc()
        text = exc.texts()
        await conn.send(error_frame(action_code(exc), session.committed, text))
    except ServerError:
        # The storage is away: say so (the code stays server_error for clients that know it).
        await conn.send(error_frame("server_error", session.committed, texts("server.storage_failed"),
                                    {"reason": "storage"}))
