"""A thousand spectator sockets on one game are capped (issue 15 item 6): a real ``rebirth serve``
(benchmarks/spectators.py in a small run) accepts ``max_sockets_per_game`` sockets on the watched
game — its two players included — refuses every other one clearly (``too_many_sockets``, close
1013), and the watched and an unrelated game are played meanwhile without an error."""

from __future__ import annotations

import asyncio
import importlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
CAP = 30


def test_a_thousand_spectator_sockets_are_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    load = importlib.import_module("load")
    spectators = importlib.import_module("spectators")

    port = load.free_port()
    proc = load.start_server(tmp_path / "s.db", port, REBIRTH_MAX_SOCKETS_PER_GAME=str(CAP),
                             PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    try:
        # In a thread of its own: the run starts its own event loop.
        with ThreadPoolExecutor(1) as pool:
            out = pool.submit(asyncio.run, spectators.run(port, 1000, 20)).result(timeout=600)
    finally:
        load.stop_server(proc, 15)
    # The watched game's two seats keep two places each (their players hold two of them).
    assert out["accepted"] == CAP - 4, out
    # Refused: the error frame read, or the close 1013 (try again later) came first.
    refused = out.get("too_many_sockets", 0) + out.get("closed_1013", 0)
    assert out["accepted"] + refused == 1000, out
    assert out["watched_moves"] > 0 and out["moves_timed"] == 20
