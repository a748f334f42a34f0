"""A deterministic stand-in for the ``time`` module, so speed figures can be checked exactly."""

from __future__ import annotations

from typing import Any

import pytest


class FakeClock:
    """``perf_counter()`` returns 0, step, 2*step, ...: each reading advances the clock."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = -step
        self.reads = 0

    def perf_counter(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


def install(monkeypatch: pytest.MonkeyPatch, module: Any, step: float) -> FakeClock:
    """Replace ``module.time`` (a module that did ``import time``) with a FakeClock."""
    clock = FakeClock(step)
    monkeypatch.setattr(module, "time", clock)
    return clock


class WallClock:
    """A wall clock a test moves by hand: ``time()`` is ``now`` (starting at the real time, so
    stored rows stay plausible); ``advance(s)`` moves it on. Install it as a module's ``time``
    (its other readings pass through to the real module) or as a ``wall_time`` function."""

    def __init__(self) -> None:
        import time as real

        self._real = real
        self.now = real.time()

    def time(self) -> float:
        return self.now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)
