"""Rate limits (issue 15 item 6): moving windows per connection and per client address, with
the ``limits`` library.

Per client address the counts live where every worker sees them — Redis when
``REBIRTH_REDIS_URL`` is set, else this process's memory; per WebSocket connection always in
memory (a connection lives in one process). A refusal is the one error shape with code
``rate_limited``, a catalog message naming the wait and, over HTTP, status 429 with
``Retry-After``; on a socket an error frame, the connection kept.

The client address is the request's own peer, or — only when that peer is a trusted proxy
(``forwarded_allow_ips``, as uvicorn uses it) — the nearest untrusted address of
``X-Forwarded-For``. Behind uvicorn's own proxy handling the peer is already that address and
the rule finds nothing more to believe.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import time
from dataclasses import dataclass

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from starlette.types import ASGIApp, Receive, Scope, Send

from rebirth.server.errors import error_object, texts
from rebirth.server.metrics import Metrics
from rebirth.server.settings import Settings

log = logging.getLogger("rebirth.server.operations.throttle")

HTTP_RULES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("POST", re.compile(r"/api/games/?"), "create"),
    ("POST", re.compile(r"/api/challenges/?"), "create"),  # a challenge makes a game when accepted
    ("POST", re.compile(r"/api/score/?"), "score"),
    ("*", re.compile(r"/api/tables(/.*)?"), "table"),
    ("POST", re.compile(r"/api/account/email/?"), "signin"),
)
"""(method, path, rule) of the HTTP requests that are counted; the rule names a setting
``rate_<rule>``."""


def parse_rate(spec: str) -> list[RateLimitItem]:
    """The windows of a setting ("20/second;600/minute"); empty: none."""
    return list(parse_many(spec)) if spec.strip() else []


def _trusted(host: str, allow: str) -> bool:
    allowed = {a.strip() for a in allow.split(",") if a.strip()}
    return "*" in allowed or host in allowed


def client_address(scope: Scope, settings: Settings) -> str:
    """Who is asking: the peer, or the address a trusted proxy forwarded for."""
    client = scope.get("client")
    peer = str(client[0]) if client else "unknown"
    if not _trusted(peer, settings.forwarded_allow_ips):
        return peer
    forwarded = ""
    for k, v in scope.get("headers", ()):
        if k == b"x-forwarded-for":
            forwarded = (forwarded + "," if forwarded else "") + bytes(v).decode("latin-1")
    hops = [h.strip() for h in forwarded.split(",") if h.strip()]
    # From the right: each trusted hop vouches for the one before it.
    for hop in reversed(hops):
        if not _trusted(hop, settings.forwarded_allow_ips):
            return hop[:64]
    return hops[0][:64] if hops else peer


@dataclass(frozen=True)
class Refusal:
    """A request over a limit: the rule and the seconds until the window lets one more in."""

    rule: str
    retry_after: int

    def text(self) -> dict[str, str]:
        """The catalog message (en, de)."""
        return texts("server.rate_limited", seconds=self.retry_after)

    def details(self) -> dict[str, object]:
        """What a client may act on: the rule and the wait."""
        return {"limit": self.rule, "retry_after": self.retry_after}


class Throttle:
    """The app's rate limiter (one per app; ``app.state.throttle``)."""

    def __init__(self, settings: Settings, metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.metrics = metrics
        self.rules: dict[str, list[RateLimitItem]] = {
            name: parse_rate(getattr(settings, f"rate_{name}"))
            for name in ("socket", "socket_client", "create", "score", "table", "signin",
                         "signin_email")}
        shared: Storage
        if settings.redis_url:
            # Every worker counts against the same windows; the keys carry the server's prefix.
            shared = RedisStorage(f"async+{settings.redis_url}", implementation="redispy",
                                  key_prefix=f"{settings.redis_prefix}rl", socket_timeout=1.0,
                                  socket_connect_timeout=1.0)
        else:
            shared = MemoryStorage()
        self.shared = MovingWindowRateLimiter(shared)
        self.local = MovingWindowRateLimiter(MemoryStorage())
        self.refused = 0
        """Requests and messages refused (tests, logs)."""

    async def _hit(self, limiter: MovingWindowRateLimiter, rule: str, key: str) -> Refusal | None:
        for item in self.rules[rule]:
            try:
                if await limiter.hit(item, rule, key):
                    continue
                stats = await limiter.get_window_stats(item, rule, key)
            except Exception as exc:  # Redis away: the limits fail open, games go on
                log.warning("rate limit %s not checked: %s", rule, exc)
                return None
            self.refused += 1
            if self.metrics is not None:
                self.metrics.rate_limited.labels(rule).inc()
            return Refusal(rule, max(1, math.ceil(stats.reset_time - time.time())))
        return None

    async def check(self, rule: str, client: str) -> Refusal | None:
        """Count one request of ``client`` against ``rule``; a refusal when over."""
        return await self._hit(self.shared, rule, _key(client))

    async def socket_message(self, conn_key: str, client: str) -> Refusal | None:
        """Count one WebSocket message: per connection, then per client address."""
        return (await self._hit(self.local, "socket", conn_key)
                or await self._hit(self.shared, "socket_client", _key(client)))


def _key(client: str) -> str:
    """The window key of a client address: a hash, so that Redis holds no address."""
    return hashlib.sha256(client.encode("utf-8", "replace")).hexdigest()[:32]


def http_rule(method: str, path: str) -> str | None:
    """The rule an HTTP request counts against (None: not limited)."""
    for m, pattern, rule in HTTP_RULES:
        if (m == "*" or m == method) and pattern.fullmatch(path):
            return rule
    return None


class RateLimit:
    """ASGI middleware: the HTTP rules of :data:`HTTP_RULES`, answered with 429 when over."""

    def __init__(self, app: ASGIApp, throttle: Throttle) -> None:
        self.app = app
        self.throttle = throttle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            rule = http_rule(scope["method"], scope["path"])
            if rule is not None:
                refusal = await self.throttle.check(rule, client_address(scope, self.throttle.settings))
                if refusal is not None:
                    await _too_many(send, refusal)
                    return
        await self.app(scope, receive, send)


async def _too_many(send: Send, refusal: Refusal) -> None:
    body = json.dumps({"error": error_object("rate_limited", refusal.text(), refusal.details())}).encode()
    await send({"type": "http.response.start", "status": 429,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"retry-after", str(refusal.retry_after).encode())]})
    await send({"type": "http.response.body", "body": body})
