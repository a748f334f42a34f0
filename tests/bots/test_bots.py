"""Bots: legal moves only, fairness (views only), reproducibility, levels, hints."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

import fakeclock
import rebirth.app.bench
from rebirth.app.bench import bench_mcts, bench_random
from rebirth.app.hint import hint
from rebirth.bots import BOT_KINDS, BotError, make_bot
from rebirth.bots.mcts import Candidate, MCTSBot
from rebirth.engine.determinize import determinize
from rebirth.engine.game import Game
from rebirth.engine.records import make_record
from rebirth.engine.state import State
from rebirth.engine.tiles import tile_code
from rebirth.engine.views import View


def midgame(board: str, players: int, seed: int, plies: int) -> State:
    game = Game.create(board, players)
    state = game.new_state(seed)
    rng = random.Random(seed)
    for _ in range(plies):
        state.apply_id(state.random_action_id(rng))
    return state


def test_levels_and_bots_are_registered() -> None:
    kinds = BOT_KINDS()
    for k in ("random", "greedy", "heuristic", "mcts", "easy", "normal", "hard"):
        assert k in kinds
    with pytest.raises(BotError, match="unknown seat kind"):
        make_bot("grandmaster", Game.create("scotland", 2), 0)


@pytest.mark.parametrize("board", ["scotland", "ireland"])
@pytest.mark.parametrize("kind", ["random", "greedy", "heuristic", "easy", "normal", "mcts"])
def test_bots_choose_legal_actions(board: str, kind: str) -> None:
    state = midgame(board, 3, 11, 21)
    for _ in range(6):
        p = state.current_player
        bot = make_bot(kind, state.game, p, 5)
        if isinstance(bot, MCTSBot):
            bot.iterations = 40
        action = bot.act(state.view(p))
        assert action in state.legal_actions
        state.apply(action)
        while state.is_chance_node():  # the authority's part (I-7 reveals)
            state.apply_chance(state.sample_chance(state.rng))


def test_bot_refuses_a_view_out_of_turn() -> None:
    state = midgame("scotland", 3, 1, 4)
    other = (state.current_player + 1) % 3
    bot = make_bot("random", state.game, other, 0)
    with pytest.raises(BotError, match="out of turn"):
        bot.act(state.view(other))


def _walk(obj: object, seen: set[int]) -> None:
    """Fail if a State is reachable from obj (bots must only ever hold plain data)."""
    if id(obj) in seen:
        return
    seen.add(id(obj))
    assert not isinstance(obj, State)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _walk(getattr(obj, f.name), seen)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _walk(k, seen)
            _walk(v, seen)
    elif isinstance(obj, list | tuple | set | frozenset):
        for v in obj:
            _walk(v, seen)


def _tuples(obj: Any) -> Any:
    """JSON lists back to the tuples a View holds (dicts stay dicts)."""
    if isinstance(obj, list):
        return tuple(_tuples(x) for x in obj)
    if isinstance(obj, dict):
        return {k: _tuples(v) for k, v in obj.items()}
    return obj


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_view_holds_no_state(board: str) -> None:
    state = midgame(board, 4, 2, 30)
    for seat in [*range(4), None]:
        view = state.view(seat)
        _walk(view, set())
        data = json.loads(json.dumps(view.to_json()))
        # The JSON form loses nothing: the same View comes back from it.
        assert View(**_tuples(data)) == view
        # ...and carries the public position and only this seat's own secrets (S-5).
        assert data["seat"] == seat and data["scores"] == state.score
        assert data["supply_counts"] == [len(state.tiles.supply[q]) - state.tiles.drawn[q] for q in range(4)]
        own = (state.cards.tower_cards if state.board.is_ireland else state.cards.cathedral_cards)
        if seat is None:
            assert data["hand"] is None and data["missions"] == [] and data["legal_actions"] == []
        else:
            hand = state.tiles.hand[seat]
            assert data["hand"] == (tile_code(hand) if hand >= 0 else None)
            assert data["missions"] == [state.game.cards[c].id for c in own[seat]]
            want_legal = sorted(str(a) for a in state.legal_actions) if seat == state.current_player else []
            assert sorted(data["legal_actions"]) == want_legal
        # S-3: Scotland shows the owner their set-aside tiles; S-4: Ireland shows them to nobody.
        mine = ([] if seat is None or state.board.is_ireland
                else [tile_code(t) for t in state.tiles.set_aside[seat]])
        assert data["set_aside"] == mine


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_mcts_is_fair(board: str) -> None:
    """Two states that differ only in what a seat cannot see give that seat's mcts bot (same
    seed, same budget) the same decision."""
    real = midgame(board, 3, 21, 25)
    seat = real.current_player
    twin = determinize(real.game, real.view(seat), random.Random(99)).resample_from_infostate(
        seat, random.Random(7))
    # The twin really differs in hidden information...
    others = [q for q in range(3) if q != seat]
    assert any(
        real.tiles_of(q)["supply"] != twin.tiles_of(q)["supply"] or real.tiles.hand[q] != twin.tiles.hand[q]
        for q in others
    )
    # ...but not in what the seat sees.
    assert twin.view(seat) == real.view(seat)
    a = MCTSBot(real.game, seat, 3, iterations=150).choose(real.view(seat))
    b = MCTSBot(twin.game, seat, 3, iterations=150).choose(twin.view(seat))
    assert a == b


def test_mcts_is_reproducible_for_a_seed_and_budget() -> None:
    state = midgame("scotland", 3, 4, 12)
    seat = state.current_player
    view: View = state.view(seat)
    runs = [MCTSBot(state.game, seat, 17, iterations=120).analyse(view) for _ in range(2)]
    assert runs[0] == runs[1]


def test_resample_keeps_the_view() -> None:
    for board in ("scotland", "ireland"):
        state = midgame(board, 4, 8, 33)
        for seat in range(4):
            twin = state.resample_from_infostate(seat, random.Random(seat))
            assert twin.view(seat) == state.view(seat)


def test_hint_uses_the_last_position() -> None:
    state = midgame("scotland", 3, 6, 15)
    rec = make_record(state)
    seat = state.current_player
    h = hint(rec, seat, iterations=60)
    assert h.action in state.legal_actions
    assert h.expected_score >= state.score[seat]
    with pytest.raises(ValueError, match="not to act"):
        hint(rec, (seat + 1) % 3, iterations=10)


def test_bench_reports_rates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Games and iterations counted over the time measured, on a clock that ticks 0.1 s a read."""
    game = Game.create("scotland", 3)
    played: list[State] = []
    real_playout = rebirth.app.bench.random_playout

    def playout(state: State, rng: random.Random) -> State:
        played.append(real_playout(state, rng))
        return state

    monkeypatch.setattr(rebirth.app.bench, "random_playout", playout)
    # The pure core's loop is the one the fake clock and the playout stand-in see.
    monkeypatch.setenv("REBIRTH_CORE", "pure")
    fakeclock.install(monkeypatch, rebirth.app.bench, 0.1)
    # Reads at 0.0 (start), then one after each game: 0.1, 0.2, 0.3 >= 0.25 -> 3 games in 0.3 s.
    r = bench_random(game, runs=3, seconds=0.25)
    assert r == {"core": "pure", "games_per_s": pytest.approx(10.0), "min": pytest.approx(10.0),
                 "max": pytest.approx(10.0), "runs": 3}
    assert len(played) == 9 and all(s.is_terminal() for s in played)

    counts: list[int] = []
    real_analyse = MCTSBot.analyse

    def analyse(self: MCTSBot, view: View) -> list[Candidate]:
        out = real_analyse(self, view)
        counts.append(int(self.last_stats["iterations"]))
        return out

    monkeypatch.setattr(MCTSBot, "analyse", analyse)
    # MCTS runs on real time (its own clock); bench reads the fake one twice: 0.1 s apart.
    m = bench_mcts(game, runs=3, seconds=0.2)
    rates = sorted(c / 0.1 for c in counts)
    assert len(counts) == 3 and min(counts) >= 1
    assert m == {"mcts_iterations_per_s": pytest.approx(rates[1]),
                 "mcts_min": pytest.approx(rates[0]), "mcts_max": pytest.approx(rates[2])}
