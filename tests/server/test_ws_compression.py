"""WebSocket compression is a setting (``REBIRTH_WS_COMPRESSION``): off by default — an update
frame is a few KB of JSON and deflating it cost more server CPU per move than anything else
on the socket path (docs/hosting.md) — and on when a host asks for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from websockets.sync.client import connect

from server.workerkit import free_port, start_serve


@pytest.mark.parametrize("setting, negotiated", [(None, False), ("true", True), ("false", False)])
def test_the_server_deflates_frames_only_when_told(tmp_path: Path, setting: str | None,
                                                   negotiated: bool) -> None:
    port = free_port()
    env = {} if setting is None else {"REBIRTH_WS_COMPRESSION": setting}
    proc = start_serve(tmp_path / "c.db", port, env)
    try:
        # The client offers permessage-deflate (websockets does by default); the server decides.
        with connect(f"ws://127.0.0.1:{port}/ws/games/nosuchgame") as ws:
            assert ws.response is not None
            ext = ws.response.headers.get("Sec-WebSocket-Extensions") or ""
            assert ("permessage-deflate" in ext) == negotiated, ext
            ws.send(json.dumps({"type": "hello", "token": "x" * 20, "since": -1}))
            assert json.loads(ws.recv(timeout=10))["type"] == "error"  # the socket works either way
    finally:
        proc.terminate()
        proc.wait(15)
