"""Local receivers for the notification tests: an HTTP webhook receiver, an SMTP server
(aiosmtpd) and a blackhole (a socket that takes connections and never answers)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller


@dataclass
class Hit:
    """One request a receiver got."""

    path: str
    host: str
    body: bytes


@dataclass
class Receiver:
    """An HTTP receiver on 127.0.0.1: records every POST, answers ``status`` (and ``location``)."""

    status: int = 204
    location: str | None = None
    hits: list[Hit] = field(default_factory=list)
    port: int = 0

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def on(self, path: str) -> list[Hit]:
        return [h for h in self.hits if h.path == path]


@contextmanager
def receiver(status: int = 204, location: str | None = None) -> Iterator[Receiver]:
    rec = Receiver(status, location)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            rec.hits.append(Hit(self.path, self.headers.get("Host") or "", self.rfile.read(n)))
            self.send_response(rec.status)
            if rec.location:
                self.send_header("Location", rec.location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    rec.port = srv.server_address[1]
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield rec
    finally:
        srv.shutdown()
        srv.server_close()


@dataclass
class Mail:
    """One message the SMTP server accepted."""

    rcpt: list[str]
    data: bytes


class _Handler:
    def __init__(self, box: list[Mail], refuse: bool) -> None:
        self.box, self.refuse, self.refused = box, refuse, 0

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: Any) -> str:
        if self.refuse:
            self.refused += 1
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.box.append(Mail(list(envelope.rcpt_tos), bytes(envelope.original_content or envelope.content)))
        return "250 Message accepted"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Smtp:
    port: int
    box: list[Mail]
    handler: _Handler


@contextmanager
def smtp_server(refuse: bool = False) -> Iterator[Smtp]:
    """An SMTP server on 127.0.0.1 (``refuse``: every recipient gets a 550)."""
    box: list[Mail] = []
    handler = _Handler(box, refuse)
    port = free_port()
    ctl = Controller(handler, hostname="127.0.0.1", port=port)
    ctl.start()
    try:
        yield Smtp(port, box, handler)
    finally:
        ctl.stop()


@contextmanager
def blackhole() -> Iterator[str]:
    """A webhook URL whose server takes the connection (the kernel's backlog) and never answers."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    try:
        yield f"http://127.0.0.1:{s.getsockname()[1]}/never"
    finally:
        s.close()


def closed_port_url() -> str:
    """A webhook URL where nothing listens (connection refused)."""
    return f"http://127.0.0.1:{free_port()}/nobody"


def wait_for(cond: Callable[[], bool], timeout: float = 10.0, step: float = 0.02) -> bool:
    """Poll ``cond`` until it holds (True) or ``timeout`` passes (False)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(step)
    return cond()
