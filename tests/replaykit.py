"""Helpers for the replay tests: Ireland games between two humans driven by a fixed choice, so
an uninterrupted game and a replayed, resumed or restarted one can be compared step by step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rebirth.app.match import Match
from rebirth.engine.game import Game

KINDS = ["human", "human"]


def ireland() -> Game:
    """The game of these tests: Ireland, 2 players (extra tiles revealed by chance, I-7)."""
    return Game.create("ireland", 2)


def choose(view: dict[str, Any]) -> str:
    """The action a test plays in ``view`` (JSON): fixed by the position, varied by its length."""
    legal: list[str] = view["legal_actions"]
    return legal[(7 * len(view["history"])) % len(legal)]


def chances(history: list[dict[str, Any]]) -> int:
    """How many chance outcomes a history holds."""
    return sum(1 for e in history if "chance" in e)


def play(m: Match, until: Callable[[Match], bool] | None = None) -> None:
    """Play ``m`` by :func:`choose` until ``until(m)`` holds or the game ends."""
    while not m.state.is_terminal() and not (until is not None and until(m)):
        p = m.to_move()
        m.submit(p, choose(m.view(p).to_json()))


def history(m: Match) -> list[dict[str, Any]]:
    """The public history of ``m`` (what every seat saw)."""
    out: list[dict[str, Any]] = m.view(None).to_json()["history"]
    return out


def uninterrupted(seed: int) -> Match:
    """The game of ``seed`` played to the end without a break."""
    m = Match.start(ireland(), list(KINDS), seed)
    play(m)
    return m


def at_version(version: int) -> Callable[[Match], bool]:
    """Stop once the match has taken ``version`` steps (the cut: a save, a restart)."""
    return lambda m: m.version >= version


def seeds_with_chance_after_cut(before: int, after: int, count: int) -> list[tuple[int, int]]:
    """``count`` (seed, cut version) pairs whose uninterrupted game draws ``before`` chance
    outcomes before the cut and at least ``after`` more after it."""
    out: list[tuple[int, int]] = []
    seed = 0
    while len(out) < count:
        seed += 1
        m = uninterrupted(seed)
        hist = m.state.history_json()
        idx = [i for i, e in enumerate(hist) if "chance" in e]
        if len(idx) >= before + after:
            out.append((seed, idx[before - 1] + 1))
    return out
