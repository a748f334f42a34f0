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
from rebirth.engine.determinize import determinize
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


class EasyBot(Bot):
    """Friendly: mostly the greedy move, but about one move in three is one of the five best
    by immediate points, so it plays sensibly and leaves chances."""

    kind = "easy"
    slip = 0.35
    """Share of moves picked among the :attr:`pool` best by immediate points, not the best."""
    pool = 5

    def choose(self, view: View) -> str:
        state = determinize(self.game, view, self.rng)
        me = self.seat
        base = state.score[me]
        scored = []
        for aid in sorted(state.legal_action_ids()):
            child = state.clone()
            child.apply_id(aid)
            # A random tiebreak: equal moves must not all pile up in one corner of the map.
            scored.append((child.score[me] - base, self.rng.random(), aid))
        scored.sort(reverse=True)
        pool = scored[:1] if self.rng.random() >= self.slip else scored[:self.pool]
        return state.action_text(pool[int(self.rng.random() * len(pool))][2])


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
