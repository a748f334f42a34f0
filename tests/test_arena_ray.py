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


def test_selfplay_on_ray_writes_the_local_data(local_ray: None, tmp_path: Path) -> None:
    """Issue 17 item 5: ``rebirth selfplay --backend ray`` writes the same manifest and the
    same batch files, byte for byte, as the local backend for the same seeds."""
    from rebirth.learn.selfplay import SelfPlayConfig, SelfPlayError, run_selfplay

    cfg = SelfPlayConfig("ireland", 2, ("heuristic", "greedy"), games=6, seed=9)
    local = run_selfplay(cfg, tmp_path / "local", jobs=1, batch_games=4)
    seen: list[int] = []
    on_ray = run_selfplay(cfg, tmp_path / "ray", jobs=2, batch_games=4, backend="ray",
                          progress=lambda done, _pos: seen.append(done))
    assert on_ray == local and seen == list(range(1, 7))
    names = sorted(p.name for p in (tmp_path / "local").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "ray").iterdir()) and len(names) == 3
    for name in names:
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "ray" / name).read_bytes()
    other = run_selfplay(SelfPlayConfig("ireland", 2, cfg.seats, games=6, seed=10), tmp_path / "other",
                         jobs=2, backend="ray")
    assert other["per_game"] != local["per_game"]  # another seed: the comparison can fail
    with pytest.raises(SelfPlayError, match="needs --backend ray"):
        run_selfplay(cfg, tmp_path / "bad", address="127.0.0.1:1")
    assert not (tmp_path / "bad").exists()


def test_selfplay_cli_on_ray(local_ray: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The command line: ``--backend ray`` plays on the Ray instance already running."""
    out = tmp_path / "d"
    assert main(["selfplay", "--board", "scotland", "--players", "2", "--games", "3", "--seed", "2",
                 "--out", str(out), "--jobs", "2", "--backend", "ray"]) == 0
    assert "wrote 3 games" in capsys.readouterr().out
    assert main(["selfplay", "--board", "scotland", "--players", "2", "--games", "3",
                 "--out", str(tmp_path / "e"), "--address", "127.0.0.1:1"]) == 2
    assert "needs --backend ray" in capsys.readouterr().err
