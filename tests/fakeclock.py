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
