"""The searches and estimates on the native core are the pure ones (issue 28 item 3): for the
same seeds the mcts bot (SO-ISMCTS, its heuristic root ranking, progressive widening, guided
playouts, projected rewards), the expert's callback leaves, the heuristic's scores, the
resampling of an information set (S-3…S-5, K-1, I-7, I-9) and the analysis' worlds give the
same numbers, and the random stream is left in the same state."""

from __future__ import annotations

import random

import pytest

from core.corekit import make_game
from rebirth.analysis.estimate import Worlds
from rebirth.bots.evaluate import DEFAULT, projected
from rebirth.bots.expert import ExpertBot
from rebirth.bots.heuristic import score_actions
from rebirth.bots.mcts import MCTSBot
from rebirth.engine import native
from rebirth.engine.game import Game
from rebirth.engine.state import State

CASES = [("scotland", 2, frozenset()), ("scotland", 3, frozenset({"set_aside_public"})),
         ("scotland", 4, frozenset({"incomplete_as_small"})), ("ireland", 2, frozenset()),
         ("ireland", 3, frozenset({"ireland_set_aside_known"})),
         ("ireland", 4, frozenset({"medium_completer_wins"})), ("small_ireland", 3, frozenset()),
         ("small_scotland", 2, frozenset())]


def positions(game: Game, count: int) -> list[State]:
    """Positions of random games at several depths, a seat to act (no chance pending)."""
    out = []
    for seed in range(count):
        st = game.new_state(seed)
        rng = random.Random(seed)
        for _ in range(game.players * (2 + 3 * seed)):
            if st.done:
                break
            st.apply_id(st.random_action_id(rng))
        while not st.done and st.is_chance_node():
            st.apply_id(st.random_action_id(rng))
        if not st.done:
            out.append(st)
    return out


def both(monkeypatch: pytest.MonkeyPatch, run: object) -> tuple[object, object]:
    assert callable(run)
    monkeypatch.setenv("REBIRTH_CORE", "pure")
    pure = run()
    monkeypatch.delenv("REBIRTH_CORE")
    return run(), pure


@pytest.mark.parametrize(("board", "players", "variants"), CASES)
def test_mcts_searches_are_the_same(board: str, players: int, variants: frozenset[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    game = make_game(board, players, variants)
    for st in positions(game, 3):
        seat = st.current_player

        def run(st: State = st, seat: int = seat) -> tuple[object, object, object]:
            bot = MCTSBot(game, seat, 7, iterations=60)
            return bot.analyse(st.view(seat)), bot.rng.getstate(), bot.last_stats

        nat, pure = both(monkeypatch, run)
        assert nat == pure


def test_expert_leaves_called_back_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.builtin("scotland", 3)
    for st in positions(game, 2):
        seat = st.current_player

        def run(st: State = st, seat: int = seat) -> tuple[object, object]:
            bot = ExpertBot(game, seat, 3, iterations=20)
            return bot.analyse(st.view(seat)), bot.rng.getstate()

        nat, pure = both(monkeypatch, run)
        assert nat == pure


@pytest.mark.parametrize(("board", "players", "variants"), CASES)
def test_projection_scores_and_resampling_are_the_same(board: str, players: int,
                                                       variants: frozenset[str]) -> None:
    game = make_game(board, players, variants)
    bridge = native.for_game(game)
    assert bridge is not None
    w = native.weights_tuple(DEFAULT)
    for st in positions(game, 4):
        c = bridge.load(st)
        assert c is not None
        assert c.projected(w) == projected(st, DEFAULT)
        monkey = native.core_kind  # score_actions picks the native core itself: compare to pure
        assert monkey() == "native"
        assert c.score_actions(st.current_player, w) == _pure_scores(st)
        for seat in range(players):
            r1, r2 = random.Random(seat), random.Random(seat)
            twin = st.resample_from_infostate(seat, r1)
            ctwin = c.resample(seat, r2)
            assert native.pack(twin) == ctwin.pack()
            assert r1.getstate() == r2.getstate()


def _pure_scores(st: State) -> list[tuple[float, int]]:
    import os

    os.environ["REBIRTH_CORE"] = "pure"
    try:
        return score_actions(st, st.current_player)
    finally:
        del os.environ["REBIRTH_CORE"]


@pytest.mark.parametrize(("board", "players"), [("scotland", 3), ("ireland", 4)])
def test_analysis_worlds_are_the_same(board: str, players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.builtin(board, players)
    for st in positions(game, 3):
        view = st.view(st.current_player)
        aids = list(view.legal_action_ids)[:3]

        def run(view: object = view, aids: list[int] = aids) -> list[object]:
            ws = Worlds(game, view, 12, random.Random(5))  # type: ignore[arg-type]
            return [ws.outcomes(None), *(ws.outcomes(a) for a in aids)]

        nat, pure = both(monkeypatch, run)
        assert nat == pure


def test_table_mode_states_stay_pure() -> None:
    """A state whose turns come from a Source (table mode) is not loaded natively."""
    from rebirth.engine.table import new_table_game

    table = new_table_game("scotland", 3)
    bridge = native.for_game(table.state.game)
    assert bridge is not None and table.state.source is not None
    assert bridge.load(table.state) is None
