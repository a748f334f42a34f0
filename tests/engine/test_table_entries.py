"""Table mode by composition (issue 14, item 4): a table game holds an engine State; its
entries are values with text forms, listed by a legal-entry view that every listed entry
passes (S-1…S-4 counts, P-1…P-4 and P-7 legality, I-6…I-9 outcomes entered, E-1 end)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebirth.engine.actions import Mark, Reveal
from rebirth.engine.records import replay, replay_game, result_json, table_record
from rebirth.engine.state import CHANCE, State
from rebirth.engine.table import (
    CardEntry,
    TableDiscard,
    TableGame,
    TablePlace,
    TokenEntry,
    new_table_game,
)

CASES = [("scotland", 2), ("scotland", 3), ("scotland", 4), ("ireland", 2), ("ireland", 3), ("ireland", 4)]
IRELAND_DISPLAY = ("I01", "I02", "I03", "I04", "I05", "I06", "I07", "I08")


def _new(board: str, n: int, start: int = 0) -> TableGame:
    display = IRELAND_DISPLAY if board == "ireland" else ()
    return new_table_game(board, n, start_player=start, display=display)


def test_the_reviewed_failure_now_lists_entries() -> None:
    """The review's probe: ``list(new_table_game("scotland", 3).legal_actions)`` raised
    ``ValueError: action id 191 is outside 0..190``; ``"S1@A1" in …`` was always False."""
    tg = new_table_game("scotland", 3)
    entries = list(tg.legal_actions)
    assert entries and all(isinstance(e, TablePlace) for e in entries)
    assert len(entries) == len(tg.legal_actions)
    first = entries[0]
    assert str(first) in tg.legal_actions and first in tg.legal_actions
    assert "S4@Z99" not in tg.legal_actions and "nonsense" not in tg.legal_actions
    assert 42 not in tg.legal_actions


def test_a_table_game_is_not_a_state_and_holds_one() -> None:
    """Nothing inherited lies about the action space: the table game is no State subclass."""
    tg = new_table_game("ireland", 3, display=IRELAND_DISPLAY)
    assert not isinstance(tg, State) and isinstance(tg.state, State)
    assert not hasattr(tg, "legal_action_ids") and not hasattr(tg, "apply_id")


def test_by_hex_groups_every_placement_once() -> None:
    """``by_hex`` holds exactly the listed placements, per hex label, tiles in tile order."""
    tg = _new("scotland", 3)
    places = [e for e in tg.legal_actions if isinstance(e, TablePlace)]
    grouped = tg.legal_actions.by_hex()
    assert sorted(str(p) for ps in grouped.values() for p in ps) == sorted(str(p) for p in places)
    for label, ps in grouped.items():
        assert {p.label for p in ps} == {label}
    # S-1: every seat starts with energy, food and settlements, so a settlement hex takes S1…S4.
    settle = next(s.label for s in tg.board.spaces if s.kind_name == "settlement")
    assert [p.tile for p in grouped[settle]] == ["S1", "S2", "S3", "S4"]


def _check_every_entry(tg: TableGame, rng: random.Random, limit: int) -> None:
    """Each listed entry (a sample of ``limit`` if more) round-trips its text and applies."""
    entries = list(tg.legal_actions)
    assert entries, "a running table game always has something to enter"
    assert len(set(map(str, entries))) == len(entries)
    sample = entries if len(entries) <= limit else rng.sample(entries, limit)
    for e in sample:
        assert tg.parse(str(e)) == e
        assert e in tg.legal_actions and str(e) in tg.legal_actions
        trial = tg.clone()
        trial.apply(e, seat=tg.current_player)
        assert len(trial.entries) == len(tg.entries) + 1
    kinds = {type(e) for e in entries}
    if tg.is_chance_node():
        assert tg.current_player == CHANCE
        assert kinds <= {Reveal, TokenEntry, CardEntry} and len(kinds) == 1
    else:
        assert kinds <= {TablePlace, TableDiscard, Mark}


def _play(tg: TableGame, rng: random.Random, limit: int) -> int:
    steps = 0
    while not tg.is_terminal():
        _check_every_entry(tg, rng, limit)
        tg.apply(tg.random_entry(rng))
        steps += 1
    assert list(tg.legal_actions) == []
    return steps


@pytest.mark.parametrize(("board", "n"), CASES)
def test_every_listed_entry_is_accepted_through_a_whole_game(board: str, n: int) -> None:
    """A random table game to its end: at every step every listed entry (sampled when many)
    is accepted by ``apply`` on a copy; the game ends (E-1) with the cards entered (K-1,
    I-9), and its record replays to the same result."""
    rng = random.Random(f"{board}{n}")
    tg = _new(board, n, start=n - 1)
    steps = _play(tg, rng, limit=12)
    assert steps > 20 * n
    rec = json.loads(json.dumps(table_record(tg)))
    assert result_json(replay(rec)) == result_json(tg.state)
    again = replay_game(rec)
    assert isinstance(again, TableGame) and again.history_json() == tg.history_json()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 150))
def test_listed_entries_apply_and_unlisted_ones_are_refused(case: tuple[str, int], seed: int,
                                                             cut: int) -> None:
    """Invariant at a random point of a random game: the listed entries are exactly the
    candidate texts ``apply`` accepts (every tile kind × hex, discards, marks, outcomes)."""
    board, n = case
    rng = random.Random(seed)
    tg = _new(board, n)
    for _ in range(cut):
        if tg.is_terminal():
            return
        tg.apply(tg.random_entry(rng))
    if tg.is_terminal():
        return
    listed = {str(e) for e in tg.legal_actions}
    codes = ("E", "F", "S1", "S2", "S3", "S4")
    labels = [s.label for s in tg.board.spaces]
    candidates = [f"{t}@{lb}" for t in codes for lb in rng.sample(labels, 12)]
    candidates += [f"discard {t}" for t in codes] + [f"reveal {t}" for t in codes]
    candidates += [f"mark {c.id}" for c in tg.game.cards[:10]]
    candidates += [f"token {t.id}" for t in tg.game.tokens] + [f"card {c.id}" for c in tg.game.cards[:10]]
    candidates += rng.sample(sorted(listed), min(8, len(listed)))
    for text in candidates:
        trial = tg.clone()
        try:
            trial.apply(text)
            accepted = True
        except ValueError:
            accepted = False
        assert accepted == (text in listed), text
