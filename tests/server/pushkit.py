"""A local web push service for the tests (issue 26 item 1): an HTTP server on loopback that
takes pushes like a browser vendor's service would (recording the headers and the encrypted
body, answering 201 or whatever the test sets, 410 for a gone subscription), and browser-side
subscriptions made in the test — a P-256 key pair and an auth secret — that decrypt what arrived
with ``http_ece`` exactly as a browser would."""

from __future__ import annotations

import base64
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(s: str) -> bytes:
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


@dataclass
class Push:
    """One request the push service got."""

    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    """The service: every POST recorded; ``status[path]`` answered (default 201)."""

    port: int = 0
    hits: list[Push] = field(default_factory=list)
    status: dict[str, int] = field(default_factory=dict)

    def endpoint(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def on(self, path: str) -> list[Push]:
        return [h for h in self.hits if h.path == path]


@contextmanager
def push_service() -> Iterator[PushService]:
    svc = PushService()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            heads = {k.lower(): v for k, v in self.headers.items()}
            svc.hits.append(Push(self.path, heads, self.rfile.read(n)))
            self.send_response(svc.status.get(self.path, 201))
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    svc.port = srv.server_address[1]
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield svc
    finally:
        srv.shutdown()
        srv.server_close()


class Browser:
    """A browser's push subscription: its key pair and auth secret stay here."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self) -> dict[str, Any]:
        """What ``PushSubscription.toJSON()`` gives."""
        pub = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                 serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64(pub), "auth": b64(self.auth)}}

    def decrypt(self, push: Push) -> dict[str, Any]:
        """The payload of a push, decrypted with this subscription's keys (RFC 8291)."""
        assert push.headers.get("content-encoding") == "aes128gcm", push.headers
        plain = http_ece.decrypt(push.body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        out: dict[str, Any] = json.loads(plain)
        return out


def vapid_parts(push: Push) -> tuple[dict[str, Any], str]:
    """The JWT claims and the ``k`` (the server's public key) of a push's VAPID Authorization."""
    auth = push.headers["authorization"]
    assert auth.startswith("vapid "), auth
    parts = dict(p.strip().split("=", 1) for p in auth[len("vapid "):].split(","))
    claims = json.loads(unb64(parts["t"].split(".")[1]))
    return claims, parts["k"]
