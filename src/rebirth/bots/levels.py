"""Player levels: ``easy``, ``normal`` and ``hard``, each a concrete bot and budget.

``hard`` is the mcts bot with a fixed iteration budget (not a time budget), so games
stay reproducible for a seed. The budget depends on the build so that a move takes
about the same time in both: 600 iterations in the pure build (well under 1 s per move
on the reference machine, 2 cores, one used) and :data:`HARD_ITERATIONS_COMPILED` in
the compiled build, whose mcts runs that much more iterations per second (README,
"Compiled build"; ``rebirth bench`` measures both). Each build's games are reproducible;
the two builds' ``hard`` games differ, as their budgets do.
"""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES
from importlib.resources import files

from rebirth.bots.base import Bot, register
from rebirth.bots.greedy import GreedyBot
from rebirth.bots.heuristic import HeuristicBot
from rebirth.bots.mcts import MCTSBot
from rebirth.engine import native
from rebirth.engine import state as _state_module
from rebirth.engine.game import Game
from rebirth.engine.views import View


def build_kind() -> str:
    """``"compiled"`` when the engine runs as compiled (mypyc) extension modules, else ``"pure"``."""
    return "compiled" if _state_module.__file__.endswith(tuple(EXTENSION_SUFFIXES)) else "pure"


def build_note() -> str | None:
    """Why this is the pure build although the compiled one was asked for: the sentence the
    build backend left in the package when compiling failed (build_backend/rebirth_backend.py),
    else None."""
    note = files("rebirth").joinpath("build_note.txt")
    if not note.is_file():
        return None
    return note.read_text(encoding="utf-8").strip() or None


HARD_ITERATIONS_PURE = 600
HARD_ITERATIONS_COMPILED = 1300
"""600 times the compiled build's mcts speed-up (about 2.2 to 2.6 on 3-player Scotland),
rounded down: the same time per move, more iterations."""
HARD_ITERATIONS_NATIVE = 15000
"""With the native core: 600 iterations took 0.31 s (2 players) and 0.44 s (3 players) of CPU
per move with the pure core, 15,000 took 0.33 s and 0.38 s natively (one run, medians of four
Scotland positions; a speed-up of about 26-30): the same time per move, 25 times the search."""


def hard_iterations() -> int:
    """The ``hard`` level's budget for the core and build that run now."""
    if native.core_kind() == "native":
        return HARD_ITERATIONS_NATIVE
    return HARD_ITERATIONS_COMPILED if build_kind() == "compiled" else HARD_ITERATIONS_PURE


HARD_ITERATIONS = hard_iterations()
"""The ``hard`` level's budget in the running build and core (at import)."""


class EasyBot(GreedyBot):
    """Friendly: the greedy move half of the time, otherwise a move that scores less now (any
    of them, at random), so it plays sensibly often and leaves chances. A slip among moves
    that score the same would be no slip at all: on Scotland the greedy move ties with about
    ten others. In a 4-player arena game of random, greedy, easy and normal (100 games,
    seed 7) easy scored between the two: 77.9 points against greedy's 101.0 and random's
    65.2 on Scotland, 120.4 against 136.0 and 93.0 on Ireland."""

    kind = "easy"
    slip = 0.5
    """Share of moves that are a slip: a move scoring less now than the greedy move."""
    pool: int | None = None
    """A slip picks among this many of the best moves below the greedy move's points (None:
    among all of them)."""

    def choose(self, view: View) -> str:
        state, gains = self.gains(view)
        top = max(g for g, _ in gains)
        pick = [aid for g, aid in gains if g == top]
        if self.rng.random() < self.slip:
            worse = [(g, aid) for g, aid in gains if g < top]
            if self.pool is not None:
                # A random tiebreak: equal moves must not all pile up in one corner of the map.
                worse = [(g, aid) for g, _, aid in sorted(
                    ((g, self.rng.random(), aid) for g, aid in worse), reverse=True)][:self.pool]
            if worse:  # every move scoring the same leaves nothing to slip to
                pick = [aid for _, aid in worse]
        return state.action_text(pick[int(self.rng.random() * len(pick))])


@register("easy", "level easy: greedy with deliberate slips")
def _easy(game: Game, seat: int, seed: int | None) -> Bot:
    return EasyBot(game, seat, seed)


@register("normal", "level normal: the heuristic bot")
def _normal(game: Game, seat: int, seed: int | None) -> Bot:
    bot = HeuristicBot(game, seat, seed)
    bot.kind = "normal"
    return bot


@register("hard", f"level hard: mcts with {HARD_ITERATIONS} iterations per move")
def _hard(game: Game, seat: int, seed: int | None) -> Bot:
    bot = MCTSBot(game, seat, seed, iterations=hard_iterations())
    bot.kind = "hard"
    return bot


__all__ = ["EasyBot", "GreedyBot"]
