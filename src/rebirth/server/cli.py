"""``rebirth serve``: run the server with uvicorn and print its URL."""

from __future__ import annotations

import argparse

import uvicorn

from rebirth.server.app import create_app
from rebirth.server.settings import Settings, sqlite_url


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The environment's settings, overridden by the command line."""
    s = Settings()
    upd: dict[str, object] = {}
    if args.host is not None:
        upd["host"] = args.host
    if args.port is not None:
        upd["port"] = args.port
    if args.db is not None:
        upd["database_url"] = sqlite_url(args.db)
    return s.model_copy(update=upd)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    s = settings_from_args(args)
    app = create_app(s)
    host = f"[{s.host}]" if ":" in s.host else s.host
    print(f"Rebirth is running at http://{host}:{s.port}/  (Ctrl+C stops it)", flush=True)
    # Messages above max_message_bytes are answered with ``too_large`` by the app itself;
    # uvicorn's own limit sits well above so that it never cuts a connection first.
    uvicorn.run(app, host=s.host, port=s.port, ws_max_size=max(1 << 20, 4 * s.max_message_bytes),
                log_level="info", server_header=False)
    return 0
