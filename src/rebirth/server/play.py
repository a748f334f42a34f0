"""The game WebSocket (``/ws/games/{id}``): hello/sync, act, preview, claim, ping (docs/protocol.md).

Every refusal is an ``error`` message; the connection stays open and nothing changes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import time
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from rebirth.engine.actions import ActionError
from rebirth.server.caps import Caps
from rebirth.server.deps import RegistryDep, SettingsDep
from rebirth.server.errors import error_frame, texts
from rebirth.server.guard import BadJson, bounded_loads
from rebirth.server.hub import Conn, Hub, ServerError, action_code
from rebirth.server.store import hash_token
from rebirth.server.throttle import Throttle, client_address

router = APIRouter(tags=["play"])
access = logging.getLogger("rebirth.access")


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@router.websocket("/ws/games/{game_id}")
async def game_socket(ws: WebSocket, game_id: str, registry: RegistryDep, settings: SettingsDep) -> None:
    """One device's connection to one game."""
    await ws.accept()
    hub = await registry.get(game_id) if len(game_id) <= 64 else None
    caps: Caps = ws.app.state.caps
    # No await between the load and the count: the idle sweep cannot drop the game in between.
    if hub is not None and not caps.attach(hub.id):
        registry.metrics.rate_limited.labels("sockets").inc()
        await ws.send_json(error_frame("too_many_sockets", hub.committed,
                                       texts("server.too_many_sockets", n=caps.max_sockets_per_game),
                                       {"cap": caps.max_sockets_per_game}))
        await ws.close(code=1013)  # "try again later"
        return
    throttle: Throttle = ws.app.state.throttle
    client = client_address(ws.scope, settings)
    conn = Conn(ws)
    conn_key = secrets.token_hex(8)
    registry.metrics.connections.inc()
    try:
        while True:
            msg = await ws.receive()
            if msg["type"] == "websocket.disconnect":
                break
            refusal = await throttle.socket_message(conn_key, client)
            if refusal is not None:
                await conn.send(error_frame("rate_limited", hub.committed if hub is not None else None,
                                            refusal.text(), refusal.details()))
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
            version = hub.committed if hub is not None else None
            if size > settings.max_message_bytes:
                await conn.send(error_frame("too_large", version))
                continue
            try:
                # Bounded: a 5,000-digit integer, a lone surrogate or deep nesting is a clear
                # error frame, never an exception that ends the connection.
                obj = bounded_loads(raw)
            except BadJson as exc:
                await conn.send(error_frame("bad_message", version, exc.text(), {"reason": exc.reason}))
                continue
            if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
                await conn.send(error_frame("bad_message", version))
                continue
            await _handle(conn, hub, obj, registry)
    except WebSocketDisconnect:
        pass
    finally:
        conn.closed = True
        registry.metrics.connections.dec()
        if hub is not None:
            caps.detach(hub.id)
            # Shielded: a cancelled handler (server shutdown, test client) still updates presence.
            await asyncio.shield(hub.leave(conn))


async def _handle(conn: Conn, hub: Hub | None, obj: dict[str, Any], registry: RegistryDep) -> None:
    kind = obj["type"]
    if kind == "ping":
        await conn.send({"type": "pong"})
        return
    if hub is None:
        await conn.send(error_frame("unknown_game", None))
        return
    version = hub.committed
    if kind == "hello":
        token, since = obj.get("token"), obj.get("since", -1)
        if not isinstance(token, str) or not _int(since) or len(token) > 200:
            await conn.send(error_frame("bad_message", version))
            return
        tok = await asyncio.to_thread(registry.store.token, token)
        if tok is None or tok.game != hub.id:
            await conn.send(error_frame("bad_token", version))
            return
        if tok.revoked:
            await conn.send(error_frame("revoked", version))
            return
        await hub.join(conn, tok, hash_token(token), max(-1, since))
        # One structured line per joined socket (HTTP requests have theirs in app.py): which
        # process serves which seat of which game, behind a load balancer. Never the token.
        access.info(json.dumps({"ts": round(time.time(), 3), "event": "join", "game": hub.id,
                                "role": tok.role, "seat": tok.seat, "pid": os.getpid()}))
        return
    if conn.role is None:
        await conn.send(error_frame("hello_first", version))
        return
    try:
        if kind == "act":
            action, ver = obj.get("action"), obj.get("version")
            if not isinstance(action, str) or not isinstance(ver, int) or isinstance(ver, bool) \
                    or len(action) > 64:
                await conn.send(error_frame("bad_message", version))
                return
            await hub.act(conn, obj.get("seat"), action, ver)
        elif kind == "preview":
            action = obj.get("action")
            if not isinstance(action, str) or len(action) > 64:
                await conn.send(error_frame("bad_message", version))
                return
            await conn.send(await hub.preview(conn, obj.get("seat"), action))
        elif kind == "chat":
            await hub.social.chat(conn, obj)  # server/social.py: checks, stores, delivers
        elif kind == "chat_history":
            await hub.social.history(conn, obj)
        elif kind == "claim":
            seat = obj.get("seat")
            if conn.role != "table":
                await conn.send(error_frame("forbidden", version))
            elif not isinstance(seat, int) or isinstance(seat, bool):
                await conn.send(error_frame("bad_message", version))
            else:
                await hub.claim(conn, seat)
        else:
            await conn.send(error_frame("bad_message", version))
    except ActionError as exc:
        if kind == "act":
            registry.metrics.actions.labels("refused", "human").inc()
        text = exc.texts()
        await conn.send(error_frame(action_code(exc), hub.committed, text))
    except ServerError:
        # The storage is away: say so (the code stays server_error for clients that know it).
        await conn.send(error_frame("server_error", hub.committed, texts("server.storage_failed"),
                                    {"reason": "storage"}))
