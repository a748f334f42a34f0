"""Running batches of seeded games on Ray (the optional extra ``[scale]``).

The arena and self-play hand this module a list of tasks whose arguments hold
everything a game depends on (configuration, seed, game index). Games are grouped into
batches, one Ray task each; a task that Ray retries after a lost worker therefore plays
exactly the same games again. Results come back in task order whatever the order in
which the batches finish, so a Ray run gives the same figures as the local backend.

Without an address a private local Ray instance is started with ``num_cpus`` workers and
shut down afterwards; with one, the run joins that cluster (``ray://HOST:PORT`` or
``HOST:PORT``, what ``ray start --head`` prints) and leaves it running.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from rebirth.engine.messages import UserError, msg

T = TypeVar("T")
R = TypeVar("R")

BACKENDS = ("local", "ray")
"""The backends the arena accepts: worker processes of this machine, or Ray."""

RETRIES = 3
"""How often Ray re-runs a batch whose worker died (the batch replays the same games)."""


class BackendError(UserError, RuntimeError):
    """The distributed backend cannot run: Ray missing, or no cluster at the address (a catalog
    key plus arguments; a RuntimeError as before, and a ValueError as every UserError)."""


def batch_size(tasks: int, workers: int) -> int:
    """Games per Ray task: about four batches per worker, so that a slow batch does not
    leave the others idle at the end, and no task so small that Ray's per-task cost
    (about a millisecond) dominates a fast game."""
    if tasks <= 0:
        return 1
    return max(1, -(-tasks // (4 * max(1, workers))))


def batches(items: Sequence[T], size: int) -> list[list[T]]:
    """``items`` cut into consecutive lists of ``size`` (the last one shorter)."""
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BackendError("error.arena.no_ray") from None
    return ray


def run_on_ray(fn: Callable[[T], R], tasks: Sequence[T], *, num_cpus: int,
               address: str | None = None) -> Iterator[R]:
    """``fn(task)`` for every task, on Ray, yielded in task order.

    ``fn`` must be a module-level function (Ray pickles it by reference) and each task's
    arguments must fully determine its result.
    """
    ray = _import_ray()
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
        # Workers import this package the way the driver does (an uninstalled checkout
        # runs with PYTHONPATH=src).
        path = os.environ.get("PYTHONPATH")
        if path:
            kwargs["runtime_env"] = {"env_vars": {"PYTHONPATH": path}}
        try:
            if address is None:
                ray.init(num_cpus=num_cpus, **kwargs)
            else:
                ray.init(address=address, **kwargs)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = msg("error.arena.ray_local") if address is None \
                else msg("error.arena.ray_cluster", address=address)
            raise BackendError("error.arena.ray_unreachable", where=where, reason=str(exc)) from exc
        started = True
    try:
        remote = ray.remote(max_retries=RETRIES)(_run_batch)
        workers = num_cpus if address is None else max(1, int(ray.cluster_resources().get("CPU", 1)))
        parts = batches(tasks, batch_size(len(tasks), workers))
        pending = {remote.remote(fn, part): k for k, part in enumerate(parts)}
        done: dict[int, list[R]] = {}
        next_part = 0
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                done[pending.pop(ref)] = ray.get(ref)
            # Hand results on in task order as soon as the next batch in line is there.
            while next_part in done:
                yield from done.pop(next_part)
                next_part += 1
    finally:
        if started:
            ray.shutdown()


def run_tasks(fn: Callable[[T], R], tasks: Sequence[T], *, jobs: int = 1, backend: str = "local",
              address: str | None = None) -> Iterator[R]:
    """``fn(task)`` for every task, yielded in task order, on the chosen backend: in this
    process (``jobs`` 1), in ``jobs`` worker processes, or on Ray (a local instance of
    ``jobs`` CPUs, or the cluster at ``address``). The arena and self-play both run here,
    so the same seeds give the same results on every backend.

    Raises :class:`BackendError` for ``jobs`` below 1, a bad backend, an address without
    Ray, or Ray that cannot run.
    """
    if jobs < 1:
        raise BackendError("error.arena.jobs", jobs=jobs)
    if backend not in BACKENDS:
        raise BackendError("error.arena.backend", backend=repr(backend), known=", ".join(BACKENDS))
    if address is not None and backend != "ray":
        raise BackendError("error.arena.address")
    if backend == "ray":
        yield from run_on_ray(fn, tasks, num_cpus=jobs, address=address)
        return
    if jobs == 1 or len(tasks) <= 1:
        for t in tasks:
            yield fn(t)
        return
    # spawn: the same behaviour on every platform, and no fork of a threaded parent
    # (a progress bar runs a refresh thread).
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(min(jobs, len(tasks))) as pool:
        yield from pool.imap(fn, tasks)


def _run_batch(fn: Callable[[T], R], part: list[T]) -> list[R]:
    """One Ray task: the games of one batch, in order."""
    return [fn(t) for t in part]


__all__ = ["BACKENDS", "RETRIES", "BackendError", "batch_size", "batches", "run_on_ray", "run_tasks"]
