"""What every request passes first: bounded decoding of JSON (size counted as it streams, integer
size, nesting depth, string validity), the security headers of every answer, and the WebSocket's
``Origin`` check (docs/server.md, threat model).

A pure ASGI middleware rather than a FastAPI one: it must see a body *while it streams*
(``Content-Length`` can be absent — chunked — or lie), and refuse it after the limit without
reading the rest, so that a 64 MiB upload costs no more memory than an 8 KB one.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rebirth.engine.messages import text
from rebirth.server.errors import ERRORS, LANGS, error_object, texts

MAX_DEPTH = 32
"""The deepest nesting of arrays/objects accepted (the protocol needs 4)."""
MAX_INT_DIGITS = 30
"""The longest integer literal accepted (Python refuses 4,300 digits with a ValueError of its own)."""

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")
_SURROGATE = re.compile("[\ud800-\udfff]")

CLIENT_GONE = "rebirth.client_gone"
"""The scope key the guard sets when the client hung up before its body was read: the access
log then records the request as 499 (client closed request), not as a server error."""

CLIENT_CLOSED = 499
"""The status of a request whose client hung up before it was answered (nginx's convention)."""

_REASONS = ("encoding", "syntax", "depth", "integer", "string")
"""Why bounded decoding refused a message (catalog keys ``server.reason.<reason>``)."""


class BadJson(ValueError):
    """A message that bounded decoding refuses; ``reason`` is a key of the reasons above."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def text(self) -> dict[str, str]:
        """``bad_message``'s text with the reason (en, de)."""
        reason = texts(f"server.reason.{self.reason}", depth=MAX_DEPTH, digits=MAX_INT_DIGITS)
        return {lang: text("server.with_reason", lang, error=ERRORS["bad_message"][lang],
                           reason=reason[lang]) for lang in LANGS}


def _int(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_INT_DIGITS:
        raise BadJson("integer")
    return int(literal)


def _constant(name: str) -> float:
    raise BadJson("syntax")  # NaN and Infinity are not JSON


def _check_strings(obj: Any) -> None:
    if isinstance(obj, str):
        if _SURROGATE.search(obj):
            raise BadJson("string")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _check_strings(k)
            _check_strings(v)
    elif isinstance(obj, list):
        for v in obj:
            _check_strings(v)


def bounded_loads(raw: str | bytes) -> Any:
    """``json.loads`` with bounds: nesting depth, integer length and valid strings (the caller
    bounds the size). Raises :class:`BadJson` naming why; never RecursionError or ValueError."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BadJson("encoding") from None
    depth = 0
    for b in _BRACKET.findall(_STRING.sub("", raw)):
        depth += 1 if b in "[{" else -1
        if depth > MAX_DEPTH:
            raise BadJson("depth")
    try:
        obj = json.loads(raw, parse_int=_int, parse_constant=_constant)
    except BadJson:
        raise
    except (ValueError, RecursionError):
        raise BadJson("syntax") from None
    _check_strings(obj)
    return obj


_DEFAULT_PORT = {"http": 80, "https": 443}
_HTTP_OF = {"ws": "http", "wss": "https", "http": "http", "https": "https"}


def origin_of(scheme: str, netloc: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an http(s) origin (a ``ws``/``wss`` scheme counts as its
    http one; the port defaults by scheme); None if it is none."""
    scheme = _HTTP_OF.get(scheme.lower(), "")
    if not scheme or not netloc:
        return None
    try:
        parts = urlsplit(f"//{netloc}")
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host or parts.username is not None or parts.path:
        return None
    return scheme, host.lower().rstrip("."), port or _DEFAULT_PORT[scheme]


def same_origin(origin: str | None, expected: tuple[str, str, int] | None) -> bool:
    """A browser's ``Origin`` names the scheme, host and port it was served from; all three must
    be the server's (no Origin: not a browser). ``http://`` is not ``https://``: a page of the
    plain-text site must not drive the encrypted one's sockets."""
    if origin is None:
        return True
    if expected is None:
        return False
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or parts.path or parts.query or parts.fragment:
        return False
    return origin_of(parts.scheme, parts.netloc) == expected


def expected_origin(public_url: str, scheme: str, host: str | None) -> tuple[str, str, int] | None:
    """The origin the server's own pages have: the public URL's when one is set (links and
    pages are served there), else the request's own scheme (as uvicorn took it, from a trusted
    proxy's ``X-Forwarded-Proto`` too), host and port."""
    if public_url:
        u = urlsplit(public_url)
        return origin_of(u.scheme, u.netloc)
    return origin_of(scheme, host or "")


FRAMEABLE = "/embed/"
"""The one path prefix other sites may frame (the embeddable spectator view, server/api/share.py,
which sends its own ``frame-ancestors *``): no ``X-Frame-Options`` there."""


def security_headers(host: str | None, *, frameable: bool = False) -> list[tuple[bytes, bytes]]:
    """The headers of every answer. Scripts only from this server (no inline script: the pages
    load modules); inline *styles* stay allowed because the pages colour seat swatches with
    ``style`` attributes. The WebSocket is named explicitly for browsers whose ``'self'`` does
    not cover ``ws:``. No page may be framed (clickjacking)."""
    ws = f" ws://{host} wss://{host}" if host and re.fullmatch(r"[A-Za-z0-9.\-\[\]:]+", host) else ""
    csp = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
           "img-src 'self' data: blob:; font-src 'self'; "
           f"connect-src 'self'{ws}; object-src 'none'; base-uri 'none'; form-action 'self'; "
           "frame-ancestors 'none'")
    out = [(b"content-security-policy", csp.encode()), (b"x-frame-options", b"DENY"),
           (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]
    return [x for x in out if x[0] != b"x-frame-options"] if frameable else out


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", ()):
        if k == name:
            return bytes(v).decode("latin-1")
    return None


class Guard:
    """The ASGI middleware described in the module docstring."""

    def __init__(self, app: ASGIApp, max_bytes: int, public_url: str = "") -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.public_url = public_url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            expected = expected_origin(self.public_url, scope.get("scheme", "ws"), _header(scope, b"host"))
            if not same_origin(_header(scope, b"origin"), expected):
                # Before accepting: the server answers the handshake with 403.
                await send({"type": "websocket.close", "code": 1008})
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = _header(scope, b"host")
        extra = security_headers(host, frameable=scope["path"].startswith(FRAMEABLE))
        no_store = scope["path"].startswith("/api/")

        async def send_with_headers(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                have = {k.lower() for k, _ in msg.get("headers", ())}
                headers = list(msg.get("headers", ())) + [h for h in extra if h[0] not in have]
                if no_store and b"cache-control" not in have:
                    headers.append((b"cache-control", b"no-store"))
                msg = {**msg, "headers": headers}
            await send(msg)

        length = _header(scope, b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            await _refuse(send_with_headers, 413, "too_large", None)
            return
        # Read the body as it streams, counting; stop at the limit without reading the rest.
        chunks: list[bytes] = []
        size = 0
        while True:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                # Nobody is left to answer; the outer layers must not take the missing answer
                # for a bug (the access log counts it as 499).
                scope[CLIENT_GONE] = True
                return
            body = msg.get("body", b"")
            size += len(body)
            if size > self.max_bytes:
                chunks.clear()
                await _refuse(send_with_headers, 413, "too_large", None)
                return
            chunks.append(body)
            if not msg.get("more_body", False):
                break
        data = b"".join(chunks)
        ctype = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
        # FastAPI decodes a body without a content type as JSON too.
        if data and (not ctype or ctype == "application/json" or ctype.endswith("+json")):
            try:
                bounded_loads(data)
            except BadJson as exc:
                await _refuse(send_with_headers, 400, "bad_message", exc)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": data, "more_body": False}
            return await receive()

        await self.app(scope, replay, send_with_headers)


async def _refuse(send: Send, status: int, code: str, exc: BadJson | None) -> None:
    details = {"reason": exc.reason} if exc is not None else None
    body = json.dumps({"error": error_object(code, exc.text() if exc else None, details)}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
