"""The bot API (issue 27; docs/bot-api.md, docs/protocol.md "Bot API"): a program plays a seat
over HTTP with the seat's token — the token it got by claiming the seat's invitation
(``POST /api/games/{id}/claim``), as a browser does.

- ``GET /api/bot/games/{id}/stream``: NDJSON lines of the seat's position (server/play/stream.py),
  a keep-alive empty line every ``bot_keepalive_s`` seconds; ``?since=V`` resumes (the first
  line's ``events`` are the steps after version V).
- ``POST /api/bot/games/{id}/move``: ``{"action": id or text, "version": v}``, the socket's
  ``act`` through the same step and the same refusals (server/play/session.py).

Both count against the WebSocket's rate limits (per seat token, as per connection, and per
client address); a refusal is a 429 with ``Retry-After``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from rebirth.engine.actions import ActionError, IllegalActionError
from rebirth.server.accounts.store import seat_in
from rebirth.server.api.botanswers import Moved
from rebirth.server.api.deps import BearerToken, RegistryDep, SettingsDep
from rebirth.server.api.lobby import GameHub
from rebirth.server.errors import ApiError, error_response, texts
from rebirth.server.operations.throttle import Throttle, client_address
from rebirth.server.persistence import botaccounts as ba
from rebirth.server.persistence.store import TokenRow, hash_token
from rebirth.server.play.session import Session, action_code
from rebirth.server.play.stream import KEEPALIVE, SeatStream

router = APIRouter(prefix="/api/bot", tags=["bot"])

NDJSON = "application/x-ndjson"
ACTION_STATUS = {"stale": 409, "not_your_turn": 409, "illegal": 400}
"""The HTTP status of each refusal code of a move."""
BOT_CODES = {"stale_version": "stale"}
"""The bot API's name of a socket's refusal code (play/changes.py), where they differ: issue 27
names a move at an old version ``409 stale``; the socket keeps ``stale_version``."""


async def seat_token(game_id: str, registry: RegistryDep, token: BearerToken) -> tuple[TokenRow, str]:
    """The bearer token of a seat of the path's game, and its hash (403 otherwise). A bot
    account's API token stands for the account's seat in the game (no invitation to claim);
    revoked: 401."""
    if token.startswith("bot_"):
        return await _account_seat(game_id, registry, token)
    tok = await asyncio.to_thread(registry.store.token, token)
    if tok is None or tok.game != game_id:
        raise ApiError(403, "bad_token")
    if tok.revoked:
        raise ApiError(403, "revoked")
    if tok.role != "seat" or tok.seat is None:
        raise ApiError(403, "forbidden")
    return tok, hash_token(token)


async def _account_seat(game_id: str, registry: RegistryDep, token: str) -> tuple[TokenRow, str]:
    got = await asyncio.to_thread(ba.auth, registry.store, token)
    if got.status == "revoked":
        raise ApiError(401, "revoked", texts("server.bot_token_revoked"))
    if got.status != "ok":
        raise ApiError(403, "bad_token")
    seat = None
    if len(game_id) <= 64:
        seat = await asyncio.to_thread(seat_in, registry.store, got.account, game_id)
    if seat is None:
        raise ApiError(403, "forbidden")
    return TokenRow(game_id, "seat", seat, False), hash_token(token)


SeatToken = Annotated[tuple[TokenRow, str], Depends(seat_token)]


class TokenWatch:
    """Reads an open stream's token again every ``every`` seconds: a token revoked on any
    worker (a seat's link re-opened, a bot account's token revoked or renewed) ends the streams
    opened with it within that time, as the next request with it is refused. The check is a
    database read, so it is spaced out rather than made per line."""

    def __init__(self, valid: Callable[[], Awaitable[bool]], every: float) -> None:
        self.valid = valid
        self.every = every
        self._next = time.monotonic() + every

    async def revoked(self) -> bool:
        """True once the token is no longer good (checked at most every ``every`` seconds)."""
        now = time.monotonic()
        if now < self._next:
            return False
        self._next = now + self.every
        return not await self.valid()


def refused_to(check: Callable[[], Awaitable[object]]) -> Callable[[], Awaitable[bool]]:
    """``check`` (a dependency that raises :class:`ApiError` for a bad token) as a yes/no."""

    async def valid() -> bool:
        try:
            await check()
        except ApiError:
            return False
        return True

    return valid


async def limited(request: Request, settings: SettingsDep, key: str) -> JSONResponse | None:
    """The socket's rate limits: per ``key`` (a token, as per connection) and per client address."""
    throttle: Throttle = request.app.state.throttle
    refusal = await throttle.socket_message(key, client_address(request.scope, settings))
    if refusal is None:
        return None
    out = error_response(429, "rate_limited", refusal.text(), refusal.details())
    out.headers["Retry-After"] = str(refusal.retry_after)
    return out


async def _rate(request: Request, settings: SettingsDep, token_hash: str) -> JSONResponse | None:
    return await limited(request, settings, f"bot:{token_hash[:32]}")


STREAM_DOC: dict[int | str, dict[str, Any]] = {
    200: {"description": "NDJSON lines: game, state…, over (docs/protocol.md, \"Bot API\")",
          "content": {NDJSON: {"schema": {"type": "string"}}}},
}


@router.get("/games/{game_id}/stream", response_class=StreamingResponse, responses=STREAM_DOC)
async def stream(hub: GameHub, seat: SeatToken, request: Request, settings: SettingsDep,
                 registry: RegistryDep, token: BearerToken,
                 since: Annotated[int, Query(ge=-1, le=2**31)] = -1,
                 limit: Annotated[int | None, Query(ge=1, le=100_000)] = None) -> Any:
    """The seat's game as NDJSON: a ``game`` line, a ``state`` line after every committed
    change, an ``over`` line at the end; an empty line when nothing happened for
    ``bot_keepalive_s`` seconds. ``since``: the first line's ``events`` are the steps after
    that version (a resumed stream misses none); ``limit``: the stream ends after that many
    position lines (``limit=1``: the position now, once)."""
    tok, token_hash = seat
    refused = await _rate(request, settings, token_hash)
    if refused is not None:
        return refused
    assert tok.seat is not None
    st = await hub.open_stream(tok.seat, token_hash, since)
    watch = TokenWatch(refused_to(lambda: seat_token(hub.id, registry, token)), settings.bot_keepalive_s)
    return StreamingResponse(_lines(hub, st, settings.bot_keepalive_s, limit, watch), media_type=NDJSON,
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def _lines(hub: Session, st: SeatStream, keepalive: float, limit: int | None,
                 watch: TokenWatch) -> AsyncIterator[bytes]:
    left = limit
    try:
        while True:
            try:
                line = await asyncio.wait_for(st.queue.get(), keepalive)
            except TimeoutError:
                line = KEEPALIVE
            if await watch.revoked():
                return  # the reconnect is refused with the reason (401/403 ``revoked``)
            if line is KEEPALIVE:
                yield line
                continue
            if line is None:
                return
            yield line
            if left is not None and not line.startswith(b'{"type":"over"'):
                left -= 1
                if left == 0:
                    return
    finally:
        # Shielded: a client gone (the response cancelled) still leaves the seat's presence right.
        await asyncio.shield(hub.close_stream(st))


class MoveBody(BaseModel):
    """``POST /api/bot/games/{id}/move``: an action (its id, as the stream's ``legal`` and the
    environment's action mask number them, or its text) chosen at ``version``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    action: Annotated[int, Field(ge=-(2**31), le=2**31)] | Annotated[str, Field(min_length=1, max_length=64)]
    version: int = Field(ge=-1, le=2**31)


@router.post("/games/{game_id}/move", response_model=Moved)
async def move(body: MoveBody, hub: GameHub, seat: SeatToken, request: Request,
               settings: SettingsDep) -> Any:
    """The seat's move: committed before it is answered; refused as the socket refuses an
    ``act`` (``stale`` 409 — the socket's ``stale_version`` —, ``not_your_turn`` 409, ``illegal``
    400), nothing changed."""
    tok, token_hash = seat
    refused = await _rate(request, settings, token_hash)
    if refused is not None:
        return refused
    assert tok.seat is not None
    try:
        action = _text(hub, tok.seat, body.action)
        version = await hub.act_remote(tok.seat, action, body.version)
    except ActionError as exc:
        hub.host.metrics.actions.labels("refused", "remote").inc()
        code = action_code(exc)
        code = BOT_CODES.get(code, code)
        raise ApiError(ACTION_STATUS[code], code, exc.texts(), {"version": hub.committed}) from None
    return {"version": version}


def _text(hub: Session, seat: int, action: int | str) -> str:
    """The action's text: an id through the game's codec (one outside the ids is illegal)."""
    if isinstance(action, str):
        return action
    codec = hub.game.codec
    if not 0 <= action < hub.game.num_actions:
        legal = sorted(hub.match.view(seat).legal_action_ids)
        raise IllegalActionError("error.action_not_legal_for_now", aid=action, what="-",
                                 agent=f"player_{seat}", value=legal)
    return codec.text(action)
