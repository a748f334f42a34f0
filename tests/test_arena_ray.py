"""The arena on Ray (issue 17 item 5): same outcomes as the local backend for the same
seeds, batches replayed on retry, clear errors when Ray cannot run."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray

from rebirth.app import distributed
from rebirth.app.arena import ArenaConfig, ArenaError, run_arena
from rebirth.app.distributed import BackendError, batch_size, batches, run_on_ray
from rebirth.cli.main import main


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One local Ray instance of 2 CPUs for the module (starting one takes seconds)."""
    env = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False, runtime_env={"env_vars": env})
    try:
        yield
    finally:
        ray.shutdown()


def test_batches_cover_every_task_in_order() -> None:
    items = list(range(23))
    for size in (1, 4, 23, 50):
        parts = batches(items, size)
        assert [x for p in parts for x in p] == items
        assert all(len(p) == size for p in parts[:-1])
    assert batch_size(200, 2) == 25
    assert batch_size(3, 8) == 1
    assert batch_size(0, 2) == 1


def test_ray_gives_the_local_arena_json(local_ray: None) -> None:
    cfg = ArenaConfig("scotland", 3, ("greedy", "random", "heuristic"), games=12, seed=5)
    local = run_arena(cfg, jobs=1)
    seen: list[int] = []
    on_ray = run_arena(cfg, jobs=2, progress=seen.append, backend="ray")
    assert on_ray == local
    assert json.dumps(on_ray.to_json(), sort_keys=True) == json.dumps(local.to_json(), sort_keys=True)
    assert seen == list(range(1, 13))
    # Another seed plays other games: the comparison above can fail.
    other = run_arena(ArenaConfig("scotland", 3, cfg.seats, games=12, seed=6), jobs=2, backend="ray")
    assert other.outcomes != local.outcomes


def _crash_once(task: tuple[str, int]) -> tuple[int, int]:
    """Kills its worker process the first time it sees task 3 (a lost machine)."""
    marker, i = task
    if i == 3 and not os.path.exists(marker):
        Path(marker).write_text("crashed")
        os._exit(1)
    return (i, i * i)


def test_a_lost_worker_replays_the_same_batch(local_ray: None, tmp_path: Path) -> None:
    marker = str(tmp_path / "crashed")
    out = list(run_on_ray(_crash_once, [(marker, i) for i in range(8)], num_cpus=2))
    assert Path(marker).exists()  # the worker really died once
    assert out == [(i, i * i) for i in range(8)]


def test_address_needs_the_ray_backend() -> None:
    cfg = ArenaConfig("scotland", 2, ("random", "random"), games=2)
    with pytest.raises(ArenaError, match="needs --backend ray"):
        run_arena(cfg, address="127.0.0.1:1")
    with pytest.raises(ArenaError, match="unknown backend"):
        run_arena(cfg, backend="spark")


def test_missing_ray_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    with pytest.raises(BackendError, match=r"rebirth\[scale\]"):
        list(run_on_ray(_crash_once, [], num_cpus=1))
    cfg = ArenaConfig("scotland", 2, ("random", "random"), games=2)
    with pytest.raises(ArenaError, match=r"rebirth\[scale\]"):
        run_arena(cfg, backend="ray")


def test_cli_backend_flags(capsys: pytest.CaptureFixture[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    base = ["arena", "--board", "scotland", "--players", "2", "--seats", "random,random",
            "--games", "2"]
    assert main([*base, "--address", "127.0.0.1:1"]) == 2
    assert "needs --backend ray" in capsys.readouterr().err
    assert main([*base, "--backend", "spark"]) == 2
    monkeypatch.setattr(distributed, "_import_ray", _no_ray)
    assert main([*base, "--backend", "ray"]) == 2
    assert "rebirth[scale]" in capsys.readouterr().err


def _no_ray() -> object:
    raise BackendError("error.arena.no_ray")
