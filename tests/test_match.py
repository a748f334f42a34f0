"""The authority (src/rebirth/app/match.py): versions, refusals that change nothing, per-seat
events and records, chance resolved by the authority, seeds that no seat can use."""

from __future__ import annotations

import json

import pytest

from rebirth.app.match import Match, NotYourTurnError, StaleVersionError, bot_seed, new_seed
from rebirth.engine.actions import ActionSyntaxError, IllegalActionError
from rebirth.engine.game import Game
from rebirth.engine.records import RecordError, replay


def _match(board: str = "ireland", players: int = 3, seed: int | None = 11) -> Match:
    return Match.start(Game.create(board, players), ["human"] + ["greedy"] * (players - 1), seed,
                       start_player=0)


def _fingerprint(m: Match) -> str:
    return json.dumps([m.snapshot(), m.version, m.events_for(0)], sort_keys=True)


def test_submit_refuses_stale_foreign_and_illegal_actions_and_changes_nothing() -> None:
    m = _match()
    legal = m.view(0).legal_actions[0]
    before = _fingerprint(m)
    with pytest.raises(StaleVersionError, match="version 5"):
        m.submit(0, legal, version=5)
    with pytest.raises(NotYourTurnError):
        m.submit(1, legal, version=m.version)
    with pytest.raises(ActionSyntaxError):
        m.submit(0, "not an action", version=m.version)
    wrong = next(sp.label for sp in m.game.board.spaces if sp.label not in m.view(0).legal_actions)
    with pytest.raises(IllegalActionError):
        m.submit(0, wrong, version=m.version)
    assert _fingerprint(m) == before
    m.submit(0, legal, version=m.version)
    assert m.version == len(m.state.history) >= 1


def test_versions_count_every_step_and_events_for_filters_by_version() -> None:
    m = _match()
    m.submit(0, m.view(0).legal_actions[0], version=0)
    v1 = m.version
    m.run_bots()
    steps = m.events_for(None)
    assert steps[0]["version"] == 0  # the deal
    versions = [s["version"] for s in steps]
    assert versions == sorted(versions) and versions[-1] == m.version
    later = m.events_for(1, since_version=v1)
    assert later and all(s["version"] > v1 for s in later)
    assert [s["version"] for s in m.events_for(1, since_version=m.version)] == []


def test_chance_is_resolved_by_the_authority_as_its_own_step() -> None:
    """I-7: after the action that earned an extra tile, the authority reveals it (a chance
    step with no seat), so a seat never waits at a chance node."""
    for seed in range(40):
        m = Match.start(Game.create("ireland", 2), ["greedy", "greedy"], seed)
        m.run_bots()
        chance = [s for s in m.events_for(None) if s["seat"] is None and s["version"] > 0]
        if chance:
            assert all(any(e["kind"] in ("extra_tile", "extra_unplaceable") for e in s["events"])
                       for s in chance)
            assert replay(m.record()).score == m.state.score
            return
    pytest.fail("no extra tile was revealed in 40 Ireland games")


def test_mid_game_record_is_redacted_and_refuses_to_replay() -> None:
    m = _match("scotland", 3)
    m.submit(0, m.view(0).legal_actions[0])
    m.run_bots()
    for seat in (None, 0, 1, 2):
        rec = m.record(for_seat=seat)
        assert rec["redacted_for"] == seat
        assert set(rec["setup"]) == {"start_player"}
        assert "seed" not in rec and "result" not in rec
        with pytest.raises(RecordError, match="redacted"):
            replay(rec)
    full = m.snapshot()
    assert full["seed"] == m.seed and "supplies" in full["setup"]
    assert replay(full).score == m.state.score


def test_complete_record_after_the_game_names_the_seed() -> None:
    m = Match.start(Game.create("scotland", 2), ["greedy", "random"], None)
    m.run_bots()
    rec = m.record(for_seat=1)
    assert rec["seed"] == m.seed and "result" in rec
    assert replay(rec).winners == m.state.winners


def test_seeds_are_secret_and_bot_seeds_are_independent_of_the_deal() -> None:
    assert len({new_seed() for _ in range(100)}) == 100
    assert all(s.bit_length() <= 128 for s in (new_seed() for _ in range(20)))
    assert max(new_seed().bit_length() for _ in range(20)) > 100
    # A reproducible game: bot seeds are a keyed hash, not an affine function of the seed.
    s = [bot_seed(7, seat) for seat in range(4)]
    assert s == [bot_seed(7, seat) for seat in range(4)]
    assert len(set(s)) == 4 and all(x != 7 * 1009 + i for i, x in enumerate(s))
    assert bot_seed(7, 0) != bot_seed(8, 0)
    m = Match.start(Game.create("scotland", 3), ["greedy"] * 3)
    assert m.seed.bit_length() > 64  # a secret seed of 128 bits (rarely fewer)


def test_a_replayed_snapshot_continues_with_the_same_future_chance() -> None:
    """A resumed or restarted game (replayed from the authority's save) holds the game's RNG
    where the authority left it, so future chance (I-7 reveals) is not changed by a restart."""
    for seed in range(40):
        m = Match.start(Game.create("ireland", 2), ["greedy", "greedy"], seed)
        while not m.state.is_terminal() and not any(a == -1 for a, _ in m.state.history):
            m.step_bot()
        if m.state.is_terminal():
            continue
        assert replay(m.snapshot()).rng.getstate() == m.state.rng.getstate()
        return
    pytest.fail("no extra tile was revealed in 40 Ireland games")
