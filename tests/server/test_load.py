"""The bounded load test (benchmarks/load.py) in a small variant: 3 concurrent games over
WebSockets against a real ``rebirth serve``; all finish without an error."""

from __future__ import annotations

import importlib.util
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def test_small_load_run_finishes_every_game() -> None:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "load.py"
    spec = importlib.util.spec_from_file_location("load", path)
    assert spec is not None and spec.loader is not None
    load = importlib.util.module_from_spec(spec)
    sys.modules["load"] = load  # dataclasses look their module up there
    spec.loader.exec_module(load)
    # In a thread of its own: the load run starts its own event loop (asyncio.run), and a
    # test worker may already run one (Playwright's sync API in the browser tests).
    with ThreadPoolExecutor(1) as pool:
        out = pool.submit(load.main, ["--games", "3", "--time-limit", "120"]).result()
    assert out["finished"] == 3 and out["errors"] == 0
    assert out["actions"] > 3 * 20 and out["p99_ms"] >= out["p50_ms"] > 0
