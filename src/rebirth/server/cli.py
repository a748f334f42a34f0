"""``rebirth serve``: run the server with uvicorn and print its URL."""

from __future__ import annotations

import argparse
import copy
import logging
import math
import os
import socket
import sys
from typing import Any
from urllib.parse import urlsplit

import uvicorn
from pydantic import ValidationError

from rebirth.app.fileio import check_writable_file
from rebirth.server.app import create_app, tune_gc
from rebirth.server.operations.addresses import is_loopback_host, listen_urls
from rebirth.server.settings import Settings, explain, sqlite_url

FLAGS = {"host": "--host", "port": "--port", "database_url": "--db", "public_url": "--public-url",
         "forwarded_allow_ips": "--forwarded-allow-ips"}
"""The settings ``rebirth serve`` takes as flags: a refused one is named as the user wrote it."""


def flag_values(args: argparse.Namespace) -> dict[str, object]:
    """The settings the command line gives (None: not given)."""
    upd: dict[str, object] = {}
    if args.host is not None:
        upd["host"] = args.host
    if args.port is not None:
        upd["port"] = args.port
    if args.db is not None:
        upd["database_url"] = sqlite_url(args.db)
    if getattr(args, "public_url", None) is not None:
        upd["public_url"] = args.public_url
    if getattr(args, "forwarded_allow_ips", None) is not None:
        upd["forwarded_allow_ips"] = args.forwarded_allow_ips
    return upd


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The environment's settings, overridden by the command line (both validated: a flag's
    value is checked as an environment variable's is, and a good flag hides a bad variable)."""
    return Settings(**flag_values(args))  # type: ignore[arg-type]


def _port_free(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on (None when it can), checked before starting so
    that the URL is never printed for a server that does not come up."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def configure_logging() -> None:
    """The server's logs on stderr: each request as one JSON line (``rebirth.access``), the
    rest (``rebirth.*``: errors, storage failures) as plain lines."""
    access = logging.getLogger("rebirth.access")
    if not access.handlers:
        h = logging.StreamHandler(sys.stderr)
        h.setFormatter(logging.Formatter("%(message)s"))
        access.addHandler(h)
        access.setLevel(logging.INFO)
        access.propagate = False
    base = logging.getLogger("rebirth")
    if not base.handlers:
        h = logging.StreamHandler(sys.stderr)
        h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        base.addHandler(h)
        base.setLevel(logging.INFO)


class NoBanner(logging.Filter):
    """Drops uvicorn's own "Uvicorn running on http://0.0.0.0:…" line: the server printed the
    addresses to open itself (a wildcard address is not one a browser can open)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Uvicorn running on")


def uvicorn_log_config() -> dict[str, Any]:
    """uvicorn's own logging, with its banner line dropped (:class:`NoBanner`)."""
    conf = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    conf["filters"] = {"no_banner": {"()": f"{__name__}.NoBanner"}}
    conf["loggers"]["uvicorn.error"] = {**conf["loggers"]["uvicorn.error"], "filters": ["no_banner"]}
    return conf


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; 2 (and a clear message) when it cannot start."""
    try:
        s = settings_from_args(args)
    except ValidationError as exc:
        given = flag_values(args)
        print(explain(exc, {f: flag for f, flag in FLAGS.items() if f in given}), file=sys.stderr)
        return 2
    if args.db is not None and (unwritable := check_writable_file(args.db)) is not None:
        print(f"error: cannot use --db {args.db}: {unwritable}", file=sys.stderr)
        return 2
    if (why := _port_free(s.host, s.port)) is not None:
        print(f"error: cannot listen on {s.host}:{s.port}: {why}", file=sys.stderr)
        return 2
    workers = int(getattr(args, "workers", 1) or 1)
    if workers > 1 and not s.redis_url:
        print(f"error: --workers {workers} needs REBIRTH_REDIS_URL (redis://host:port/0): the workers "
              "tell each other through Redis when a game moves on (docs/server.md, \"Several workers\")",
              file=sys.stderr)
        return 2
    configure_logging()
    urls = listen_urls(s.host, s.port)
    also = f" with {workers} workers" if workers > 1 else ""
    print(f"Rebirth is running at {urls[0]}{also}  (Ctrl+C stops it)", flush=True)
    for u in urls[1:]:
        print(f"  also at {u}", flush=True)
    if s.public_url:
        print(f"  links are built for {s.public_url}/", flush=True)
    elif all(is_loopback_host(urlsplit(u).hostname) for u in urls):
        print("  links work on this computer only: to play with friends on your network, start it "
              "with --host 0.0.0.0; behind a proxy, give --public-url", flush=True)
    # Messages above max_message_bytes are answered with ``too_large`` by the app itself;
    # uvicorn's own limit sits well above so that it never cuts a connection first.
    common: dict[str, object] = {
        "host": s.host, "port": s.port, "log_level": "info", "server_header": False,
        "ws_max_size": max(1 << 20, 4 * s.max_message_bytes),
        "ws_per_message_deflate": s.ws_compression,
        "proxy_headers": True, "forwarded_allow_ips": s.forwarded_allow_ips,
        # SIGTERM: stop accepting, close the sockets with 1012 (pages reconnect), wait this long
        # for requests in flight; the app then finishes each game's step in flight (lifecycle.py).
        "timeout_graceful_shutdown": max(1, math.ceil(s.shutdown_grace)),
        # The app logs one structured line per request itself (server/app.py); uvicorn's
        # own access line would add the query string, which must never reach a log.
        "access_log": False, "log_config": uvicorn_log_config()}
    if workers == 1:
        app = create_app(s)
        tune_gc()
        uvicorn.run(app, **common)  # type: ignore[arg-type]
        return 0
    # Each worker process builds its own app from the environment: the command line's
    # settings travel there as REBIRTH_* variables.
    os.environ.update(settings_env(s))
    uvicorn.run("rebirth.server.app:app_from_env", factory=True, workers=workers,
                **common)  # type: ignore[arg-type]
    return 0


def settings_env(s: Settings) -> dict[str, str]:
    """The ``REBIRTH_*`` variables that give a worker process exactly these settings."""
    out = {}
    for name, value in s.model_dump().items():
        if name == "database_url":
            value = s.resolved_database_url()
        out[f"REBIRTH_{name.upper()}"] = str(value)
    return out
