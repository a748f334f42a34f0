"""State's narrow API (issue 14 item 2): recording, score_placement, end_now, district_payout,
from_facts; each answers with the engine's own rules (P-5, T-3…T-7, E-2…E-4)."""

from __future__ import annotations

import random

import pytest

from rebirth.engine.actions import IllegalActionError
from rebirth.engine.game import Game
from rebirth.engine.position import Position
from rebirth.engine.state import State


def midgame(board: str, n: int, seed: int, plies: int) -> State:
    state = Game.create(board, n).new_state(seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if state.done:
            break
        state.apply_id(state.random_action_id(rng))
    return state


def test_recording_collects_and_restores() -> None:
    state = midgame("scotland", 3, 1, 5)
    with state.recording() as outer:
        with state.recording() as inner:
            state.apply_id(state.legal_action_ids()[0])
        assert inner and inner[0].kind == "place"
        assert outer == []  # the inner block took them; the outer collector is back
        state.apply_id(state.legal_action_ids()[0])
        assert outer and outer[0].kind == "place"
    assert state.apply(state.action_text(state.legal_action_ids()[0]))  # and apply still records


@pytest.mark.parametrize(("board", "n"), [("scotland", 3), ("ireland", 2), ("ireland", 4)])
def test_score_placement_is_what_apply_pays_and_changes_nothing(board: str, n: int) -> None:
    """P-5: a placement scored to the turn's end pays what apply pays; the state is untouched."""
    tried = 0
    for seed in range(4):
        state = midgame(board, n, seed, 9 + 5 * seed)
        if state.done or state.is_chance_node() or state.phase not in (0, 1):
            continue
        before = state.clone()
        p = state.current_player
        for aid in state.legal_action_ids()[:6]:
            tried += 1
            sc = state.score_placement(aid, to_turn_end=True)
            real = state.clone()
            events = real.apply(state.action_text(aid))
            assert list(sc.points) == [real.score[q] - state.score[q] for q in range(n)]
            assert [e.key for e in sc.events] == [e.key for e in events]
            assert sc.seat == p and sc.space == aid and sc.after.score == real.score
            short = state.score_placement(aid)
            assert sum(short.categories[p].values()) == short.points[p]
        assert state.score == before.score and state.history == before.history
        assert state.occupancy.owner == before.occupancy.owner and state.tiles.hand == before.tiles.hand
    assert tried >= 6


def test_score_placement_refuses_what_apply_refuses() -> None:
    """P-1: an occupied hex is refused with apply's reason."""
    state = midgame("scotland", 3, 2, 12)
    taken = next(h for h, o in enumerate(state.occupancy.owner) if o >= 0)
    with pytest.raises(IllegalActionError) as by_apply:
        state.clone().apply(state.action_text(taken))
    with pytest.raises(IllegalActionError) as by_score:
        state.score_placement(taken)
    assert str(by_score.value) == str(by_apply.value)


@pytest.mark.parametrize("board", ["scotland", "ireland"])
def test_end_now_scores_the_end_on_a_copy(board: str) -> None:
    """E-2: every held castle pays C-5's 5 points, the winners follow the tiebreak (E-3/E-4)
    and the game is over; the state it was copied from plays on."""
    state = midgame(board, 3, 5, 24)
    twin = state.clone()
    events = twin.end_now()
    held = [c for c in state.castles.holder if c >= 0]
    assert sum(1 for e in events if e.kind == "castle_final") == len(held)
    assert events[-1].kind == "game_end" and twin.done and not state.done
    assert twin.winners == twin.decide_winners()[0]
    assert sum(twin.score) >= sum(state.score) + 5 * len(held)


def test_district_payout_matches_settlement_standings() -> None:
    """T-3…T-7: district_payout is what settlement_standings reports per district."""
    from rebirth.engine.position import settlement_standings

    state = midgame("scotland", 3, 3, 30)
    pos = Position.from_state(state)
    game = state.game
    standings = {d.district: d for d in settlement_standings(game, pos)}
    checked = pos.checked_state(game)
    for d in game.board.districts:
        if d.id in standings:
            points, events = checked.district_payout(d.index)
            assert points == standings[d.id].points
            assert tuple(events) == standings[d.id].events


def test_from_facts_rebuilds_the_board_tables() -> None:
    """The one derivation: a state from a position's facts has the live state's tables."""
    state = midgame("ireland", 3, 4, 25)
    again = State.from_facts(state.game, Position.from_state(state))
    assert again.occupancy.owner == state.occupancy.owner
    assert again.castles.holder == state.castles.holder
    assert again.castles.adjacent == state.castles.adjacent
    assert again.districts.influence == state.districts.influence
    assert again.visited.tower_visits == state.visited.tower_visits
    assert again.occupancy.largest_group == state.occupancy.largest_group
    assert again.score == state.score
