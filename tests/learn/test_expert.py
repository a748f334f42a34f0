"""The expert level: the hard search with the learned value at its leaves, from views only."""

from __future__ import annotations

import random

from rebirth.app.match import Match
from rebirth.bots.expert import ExpertBot
from rebirth.bots.levels import hard_iterations
from rebirth.bots.mcts import MCTSBot
from rebirth.bots.registry import BOT_KINDS, make_bot
from rebirth.bots.value import heuristic_features, with_extras
from rebirth.engine.determinize import determinize
from rebirth.engine.game import Game
from rebirth.engine.state import State


def midgame(board: str, players: int, seed: int, moves: int, game: Game | None = None) -> State:
    game = game or Game.create(board, players)
    m = Match.start(game, ["random"] * players, seed=seed)
    for _ in range(moves):
        m.step_bot()
    return m.state


def test_expert_is_registered_and_uses_the_shipped_model() -> None:
    assert "expert" in BOT_KINDS()
    bot = make_bot("expert", Game.create("scotland", 3), 0, 1)
    assert isinstance(bot, ExpertBot) and bot.net is not None


def test_without_a_model_expert_plays_as_hard() -> None:
    """No model ships for a variant game: the heuristic is the fallback, the search is hard's
    move for move, and the level gets hard's budget (its own would make it a weaker hard)."""
    for game in (Game.create("ireland", 4, ["ireland_set_aside_known"]),
                 Game.create("scotland", 3, ["set_aside_public"])):
        level = make_bot("expert", game, 0, 1)
        assert isinstance(level, ExpertBot) and level.net is None
        assert level.iterations == hard_iterations()
        bot = ExpertBot(game, 0, 5, iterations=80)
        assert bot.net is None
        st = midgame(game.board.id, game.players, 3, 10, game)
        seat = st.current_player
        a = ExpertBot(game, seat, 5, iterations=80).analyse(st.view(seat))
        b = MCTSBot(game, seat, 5, iterations=80).analyse(st.view(seat))
        assert a == b


def test_leaf_blends_the_learned_value() -> None:
    st = midgame("scotland", 3, 8, 40)
    game = st.game
    pure = ExpertBot(game, 0, 1, net_weight=1.0)
    none = ExpertBot(game, 0, 1, net_weight=0.0)
    hard = MCTSBot(game, 0, 1)
    vals, heur = hard.leaf(st)
    assert none.leaf(st) == (vals, heur)
    pv, pr = pure.leaf(st)
    assert pv == vals and pr != heur and all(0.0 < r < 1.0 for r in pr)
    # The learned reward is the logistic of the predicted margin from the mover's view.
    assert pure.net is not None
    q = st.current_player
    x = with_extras(pure.observer.sparse(st.view(q)), pure.observer.size,
                    heuristic_features([vals[(q + r) % 3] for r in range(3)]))
    _, margins = pure.net.evaluate_all(x)
    assert (pr[q] > 0.5) == (margins[0] > 0)


def test_expert_is_fair() -> None:
    """States that differ only in what the seat cannot see give it the same decision."""
    real = midgame("scotland", 3, 21, 25)
    seat = real.current_player
    twin = determinize(real.game, real.view(seat), random.Random(99)).resample_from_infostate(
        seat, random.Random(7))
    assert twin.view(seat) == real.view(seat)
    a = ExpertBot(real.game, seat, 3, iterations=60).choose(real.view(seat))
    b = ExpertBot(twin.game, seat, 3, iterations=60).choose(twin.view(seat))
    assert a == b
