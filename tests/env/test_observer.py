"""Observations (issue 11, item 4): built from a View only, so hidden information of
other seats (S-5 hands and supplies, S-3/S-4 set-aside tiles, K-1/I-9 secret missions,
S-8 deck order) never changes them."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from rebirth.engine.game import Game
from rebirth.engine.observer import Observer, observations_markdown
from rebirth.engine.state import State

DOC = Path(__file__).resolve().parents[2] / "docs" / "observations.md"
CONFIGS = [(b, n, v) for b in ("scotland", "ireland") for n in (2, 3, 4) for v in ((),)] + [
    ("scotland", 3, ("set_aside_public",)),
    ("ireland", 3, ("ireland_set_aside_known",)),
]


def _positions(game: Game, seed: int, every: int = 7) -> Iterator[State]:
    """States of one random game (chance resolved as the authority does, I-7), every
    ``every``-th decision and the final one."""
    state = game.new_state(seed)
    rng = random.Random(seed)
    k = 0
    while True:
        if state.is_chance_node():
            state.apply_id(state.sample_chance(rng))
            continue
        if state.is_terminal():
            yield state
            return
        if k % every == 0:
            yield state
        state.apply_id(rng.choice(state.legal_action_ids()))
        k += 1


def test_doc_matches_pieces() -> None:
    assert DOC.read_text(encoding="utf-8") == observations_markdown(), (
        "docs/observations.md is stale: run `python -m rebirth.engine.observer > docs/observations.md`"
    )


@pytest.mark.parametrize("board", ["scotland", "ireland"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_pieces_tile_the_vector(board: str, players: int) -> None:
    obs = Observer(Game.create(board, players))
    pieces = obs.pieces
    assert len({p[0] for p in pieces}) == len(pieces)
    at = 0
    for name, off, size, desc in pieces:
        assert off == at and size >= 0 and desc, name
        at += size
    assert at == obs.size == len(obs.low) == len(obs.high)
    want = {"board", "scores", "castle_holders", "cathedral_pieces", "tower_visits", "hand",
            "own_set_aside", "own_missions", "display", "fulfilled", "marks", "supply_counts",
            "hand_counts", "set_aside_counts", "mission_counts", "deck_count", "phase",
            "current_player", "extra_tile"}
    assert want <= {p[0] for p in pieces}


@pytest.mark.parametrize(("board", "players", "variants"), CONFIGS)
def test_resampled_twin_gives_the_same_observation(board: str, players: int,
                                                   variants: tuple[str, ...]) -> None:
    """Resampling everything hidden from a seat (S-5, S-3/S-4, K-1, I-9, S-8) leaves its
    observation unchanged, while the twins really differ in hidden items."""
    game = Game.create(board, players, variants)
    obs = Observer(game)
    rng = random.Random(7)
    differed = 0
    for state in _positions(game, seed=players * 10 + len(variants)):
        for seat in range(players):
            x = obs.encode(state.view(seat))
            assert len(x) == obs.size
            assert all(math.isfinite(v) for v in x)
            assert all(lo <= v <= hi for v, lo, hi in zip(x, obs.low, obs.high, strict=True))
            twin = state.resample_from_infostate(seat, rng)
            others = [q for q in range(players) if q != seat]
            if any(twin.tiles.hand[q] != state.tiles.hand[q]
                   or twin.tiles.set_aside[q] != state.tiles.set_aside[q]
                   or twin.tiles_of(q)["supply"] != state.tiles_of(q)["supply"]
                   for q in others):
                differed += 1
            assert obs.encode(twin.view(seat)) == x
    assert differed > 0, "the twins never differed: the test would prove nothing"


def test_own_hidden_items_are_encoded_and_other_seats_are_relative() -> None:
    game = Game.create("scotland", 3)
    obs = Observer(game)
    state = next(p for p in _positions(game, 5, every=1) if p.view(0).missions)
    v0, v1 = state.view(0), state.view(1)
    x0, x1 = obs.encode(v0), obs.encode(v1)
    # Own hand (S-5) and own secret missions (K-1), one-hot by kind and by card.
    assert v0.hand is not None
    assert obs.piece(x0, "hand") == [1.0 if c == v0.hand else 0.0 for c in ("E", "F", "S1", "S2", "S3", "S4")]
    cards = [c.id for c in game.cards]
    assert obs.piece(x0, "own_missions") == [1.0 if c in v0.missions else 0.0 for c in cards]
    assert obs.piece(x0, "own_set_aside_visible") == [1.0]  # S-3: own set-aside tiles are known
    # Relative seats: slot 0 is always the observer.
    assert obs.piece(x1, "scores")[0] == state.score[1] / 100
    assert obs.piece(x1, "scores")[2] == state.score[0] / 100
    counts = [len(state.cards.cathedral_cards[q]) / len(cards) for q in range(3)]
    assert obs.piece(x0, "mission_counts") == counts
    # A spectator has no private pieces.
    xs = obs.encode(state.view(None))
    for name in ("hand", "own_set_aside", "own_missions", "own_set_aside_visible"):
        assert set(obs.piece(xs, name)) <= {0.0}, name


def test_ireland_face_down_set_aside_is_not_visible_S4() -> None:
    game = Game.create("ireland", 3)
    obs = Observer(game)
    x = obs.encode(game.new_state(1).view(0))
    assert obs.piece(x, "own_set_aside_visible") == [0.0]
    assert set(obs.piece(x, "own_set_aside")) == {0.0}
    assert sum(obs.piece(x, "display")) == 8  # S-8: eight public missions
    known = Game.create("ireland", 3, ("ireland_set_aside_known",))
    ok = Observer(known)
    xk = ok.encode(known.new_state(1).view(0))
    assert ok.piece(xk, "own_set_aside_visible") == [1.0]
    assert math.isclose(sum(ok.piece(xk, "own_set_aside")), 1.0)  # 4 tiles / 4


def test_board_piece_reflects_occupancy() -> None:
    game = Game.create("scotland", 2)
    obs = Observer(game)
    state = game.new_state(3)
    x = obs.encode(state.view(1))
    board = obs.piece(x, "board")
    width = 2 + 2 * 6
    for i in range(len(game.board.spaces)):
        cell = board[i * width:(i + 1) * width]
        assert sum(cell) == 1.0
        if i in game.board.blockers:
            assert cell[1] == 1.0  # S-6: neutral tile
        else:
            assert cell[0] == 1.0
    mover = state.current_player
    aid = min(state.legal_action_ids())
    tile = state.tiles.hand[mover]
    state.apply_id(aid)
    cell = obs.piece(obs.encode(state.view(1)), "board")[aid * width:(aid + 1) * width]
    assert cell[2 + ((mover - 1) % 2) * 6 + tile] == 1.0


def test_size_is_constant_through_a_game_and_text_rendering() -> None:
    game = Game.create("ireland", 4)
    obs = Observer(game)
    sizes = {len(obs.encode(s.view(q))) for s in _positions(game, 3, every=11) for q in range(4)}
    assert sizes == {obs.size}
    state = game.new_state(3)
    text = obs.string_from(state.view(2))
    assert "ireland 4p" in text and "view of P3" in text
    assert f"hand {state.view(2).hand}" in text
    assert "display" in text


def test_a_view_of_another_game_is_refused() -> None:
    obs = Observer(Game.create("scotland", 3))
    view = Game.create("scotland", 4).new_state(1).view(0)
    with pytest.raises(ValueError, match="scotland with 3 players"):
        obs.encode(view)
    with pytest.raises(KeyError, match="no observation piece"):
        obs.piece([0.0] * obs.size, "nonsense")


def test_light_view_gives_the_same_observation() -> None:
    """``view(seat, detail=False)`` (what the environment uses) drops only the history, the
    action texts and the missions' progress: the observation is the same."""
    for board, players in (("scotland", 3), ("ireland", 4)):
        game = Game.create(board, players)
        obs = Observer(game)
        state = game.new_state(5)
        rng = random.Random(5)
        for _ in range(40):
            if not state.is_chance_node():
                seat = state.current_player
                full, light = state.view(seat), state.view(seat, detail=False)
                assert obs.encode(light) == obs.encode(full)
                assert light.history == () and light.legal_actions == ()
                assert light.legal_action_ids == full.legal_action_ids
            state.apply_id(state.random_action_id(rng))


@pytest.mark.parametrize(("board", "players", "variants"), CONFIGS)
def test_lookup_fast_paths_equal_their_defining_loops(board: str, players: int,
                                                      variants: tuple[str, ...],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The observation's board piece and the view's spaces are built by table lookups (the
    RL step's hot path); with the tables emptied both fall back to the loops that define
    them. Same entries in the same order (the value network sums them in that order), for
    every seat and the spectator, at every decision of random games."""
    from rebirth.engine import infoset

    game = Game.create(board, players, variants)
    obs = Observer(game)
    fast: list[list[tuple[int, float]]] = []
    spaces: list[object] = []
    states: list[State] = []
    for seed in range(3):
        for st in _positions(game, seed, every=1):
            states.append(st.clone())
            for q in [*range(players), None]:
                v = st.view(q, detail=False)
                fast.append(list(obs.sparse(v).items()))
                spaces.append(v.spaces)
    monkeypatch.setattr(infoset, "_SPACE_OF", {})
    monkeypatch.setattr(obs, "_slots", tuple({} for _ in range(players)))
    k = 0
    for st in states:
        for q in [*range(players), None]:
            v = st.view(q, detail=False)
            assert v.spaces == spaces[k]
            assert list(obs.sparse(v).items()) == fast[k]
            k += 1
    assert k == len(fast) > 100
