"""The load benchmark through the proxy (benchmarks/load_proxy.py, issue 15 "Load") in a small
variant: 2 games on 2 workers (PostgreSQL + Redis) behind Caddy finish without an error and the
figures (latency, worker CPU per action) come out; the profile summary reads py-spy's format."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("load_proxy", ROOT / "benchmarks" / "load_proxy.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["load_proxy"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_small_run_through_caddy_on_two_workers(tmp_path: Path) -> None:
    out = bench().main(["--games", "2", "--setups", "pg2redis", "--time-limit", "60",
                        "--out", str(tmp_path)])
    (run,) = out["runs"]
    assert run["finished"] == 2 and run["errors"] == 0
    assert run["actions"] > 2 * 20 and run["p99_ms"] >= run["p50_ms"] > 0
    assert run["cpu_s"]["workers"] > 0 and run["cpu_ms_per_action"] > 0
    # Every server process counts in the server figure: PostgreSQL's backends too.
    assert run["cpu_s"]["postgres"] > 0 and run["server_cpu_ms_per_action"] > run["cpu_ms_per_action"]
    md = (tmp_path / "load.md").read_text("utf-8")
    assert "| 2 workers, PostgreSQL + Redis | 2 | 1 | 2 |" in md


def test_an_earlier_revisions_server_runs_behind_the_same_proxy(tmp_path: Path) -> None:
    """``sqlite1@REV``: the server of a git revision (``git archive``), measured like the others
    (here this checkout's HEAD, the machinery being what is tested)."""
    out = bench().main(["--games", "2", "--setups", "sqlite1@HEAD", "--time-limit", "60"])
    (run,) = out["runs"]
    assert run["label"] == "1 worker, SQLite, code of HEAD"
    assert run["finished"] == 2 and run["errors"] == 0 and run["cpu_ms_per_action"] > 0


def test_the_table_gives_each_figures_median_over_the_rounds() -> None:
    def row(aps: float, p99: float, ms: float) -> dict[str, object]:
        return {"setup": "pg1", "label": "1 worker, PostgreSQL", "games": 100, "finished": 100,
                "actions_per_s": aps, "p50_ms": 90.0, "p99_ms": p99, "cpu_ms_per_action": ms,
                "server_cpu_ms_per_action": ms * 2, "errors": 0,
                "cpu_s": {"workers": ms * 7, "proxy": 1.0, "redis": 0.0, "postgres": 2.0}}

    md = bench().table([row(700, 300, 1.0), row(900, 200, 1.2), row(800, 250, 0.9)])
    assert ("| 1 worker, PostgreSQL | 100 | 3 | 100 | 800 | 90.0 | 250 | 1.0 | 2.0 "
            "| 7.0 / 1.0 / 0.0 / 2.0 | 0 |") in md


def test_profile_summary_of_py_spy_raw_stacks(tmp_path: Path) -> None:
    raw = tmp_path / "p.txt"
    raw.write_text(
        "run (rebirth/server/cli.py:111);Hub.act (rebirth/server/hub.py:300);"
        "view (rebirth/engine/infoset.py:40) 3\n"
        "run (rebirth/server/cli.py:111);Hub.act (rebirth/server/hub.py:310);"
        "Cursor.execute (psycopg/cursor.py:113) 1\n", "utf-8")
    text = bench().profile_summary(raw)
    assert "4 samples" in text
    assert "- rules engine (views, legal actions): 75.0 %" in text
    assert "- psycopg: 25.0 %" in text
    # Functions, not lines: both Hub.act lines count as one; the entry point is left out.
    assert "- 100.0 % `Hub.act (rebirth/server/hub.py)`" in text
    assert "cli.py" not in text
