"""Positions from data: JSON round trip, validation naming the hex, scoring through the engine."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rebirth.engine.actions import IllegalActionError
from rebirth.engine.events import Event
from rebirth.engine.game import Game
from rebirth.engine.position import (
    PlacedTile,
    Position,
    PositionError,
    castle_control,
    end_scoring,
    preview,
    settlement_standings,
)
from rebirth.engine.state import PHASE_MARK, PHASE_PLACE, State
from rebirth.engine.tiles import tile_code

DOC = Path(__file__).resolve().parents[2] / "docs" / "positions.md"
CONFIGS = [(board, n) for board in ("scotland", "ireland") for n in (2, 3, 4)]


def before_end_scoring(game: Game, seed: int) -> tuple[State, Position, list[Event]]:
    """A random game played out, its position after the last placement but before E-2, and
    the end-of-game events the engine logs (the last action replayed on the explaining path)."""
    state = game.new_state(seed)
    rng = random.Random(seed)
    prev, last = state, -1
    while not state.is_terminal():
        prev, last = state.clone(), state.random_action_id(rng)
        state.apply_id(last)
    # The last action ends the game inside apply (E-1 → E-2): replay it with the end
    # scoring held back, to see the board exactly as end scoring finds it.
    twin = prev.clone()
    with mock.patch.object(State, "_finish", lambda self: None):
        twin.apply_id(last)
    assert twin.occupancy.owner == state.occupancy.owner and twin.castles.holder == state.castles.holder
    explained = prev.clone()
    explained.apply(prev.action_text(last))
    assert explained.score == state.score
    return state, Position.from_state(twin, secrets=True), explained.final_events


def test_E2_end_scoring_of_the_last_position_is_the_engines_final_score() -> None:
    """200 random games, both boards, 2–4 players: T-7, C-5, missions (K-2, I-9), E-3/E-4."""
    for i in range(200):
        board, n = CONFIGS[i % len(CONFIGS)]
        game = Game.create(board, n)
        final, pos, logged = before_end_scoring(game, 5000 + i)
        again = Position.from_json(json.loads(json.dumps(pos.to_json())))
        assert again == pos
        result = end_scoring(game, again)
        assert list(result.scores) == final.score, (board, n, i)
        assert list(result.breakdown) == [final.breakdown(q) for q in range(n)]
        assert list(result.winners) == final.winners
        assert list(result.events) == logged
        # The T-7 and C-5 parts are what the standings and castle control announce.
        t7 = [0] * n
        for d in settlement_standings(game, again):
            if not d.complete:
                t7 = [a + b for a, b in zip(t7, d.points, strict=True)]
        c5 = [0] * n
        for c in castle_control(game, again):
            for e in c.events:
                assert e.seat is not None
                c5[e.seat] += e.points
        for q in range(n):
            before = dict(pos.breakdown[q])
            assert final.breakdown(q)["settlements"] - before["settlements"] == t7[q]
            assert final.breakdown(q)["castles"] - before["castles"] == c5[q]


def test_P5_preview_pays_what_apply_pays_on_1000_mid_game_positions() -> None:
    """A legal placement previewed on a position scores exactly what apply pays, with the same events."""
    rng = random.Random(11)
    checked = 0
    i = 0
    while checked < 1000:
        board, n = CONFIGS[i % len(CONFIGS)]
        game = Game.create(board, n)
        state = game.new_state(9000 + i)
        i += 1
        while not state.is_terminal():
            if state.phase == PHASE_MARK or state.is_chance_node() or rng.random() > 0.3:
                state.apply_id(state.random_action_id(rng))
                continue
            pos = Position.from_state(state)
            aid = state.random_action_id(rng)
            seat = state.current_player
            label = state.board.spaces[aid].label
            pv = preview(game, pos, seat, tile_code(state.tile_to_place), label)
            before = state.score[:]
            events = state.apply(label)
            ended = [0] * n
            for e in state.final_events:
                if e.seat is not None:
                    ended[e.seat] += e.points
            assert list(pv.points) == [state.score[q] - before[q] - ended[q] for q in range(n)]
            # The placement's events come first in apply's list; a drawn card stays hidden.
            assert [e.for_seat(None) for e in events[: len(pv.events)]] == list(pv.events)
            assert sum(sum(c.values()) for c in pv.categories) == sum(pv.points)
            if not state.is_terminal() and state.phase == PHASE_PLACE and state.pending_extra == 0:
                assert pv.after.tiles == Position.from_state(state).tiles
            checked += 1


def test_from_view_gives_the_public_facts_of_the_state() -> None:
    """A view's position equals the state's (without secrets), for every seat and a spectator."""
    for board, n in CONFIGS:
        game = Game.create(board, n)
        state = game.new_state(3)
        rng = random.Random(3)
        for k in range(70):
            if state.is_terminal():
                break
            if k % 10 == 9:
                want = Position.from_state(state)
                for seat in (*range(n), None):
                    assert Position.from_view(state.view(seat)) == want
            state.apply_id(state.random_action_id(rng))


def test_to_state_plays_on_from_the_position() -> None:
    """A state built from a position has the same public facts and legal spaces for its tile."""
    game = Game.create("ireland", 3)
    state = game.new_state(21)
    rng = random.Random(21)
    for _ in range(30):
        state.apply_id(state.random_action_id(rng))
    while state.phase != PHASE_PLACE:
        state.apply_id(state.random_action_id(rng))
    pos = Position.from_state(state)
    built = pos.to_state(game, to_move=state.current_player)
    assert Position.from_state(built) == pos
    assert built.current_player == state.current_player
    with pytest.raises(PositionError, match="to_move"):
        pos.to_state(game, to_move=5)


# ------------------------------------------------------------ the documented example


def doc_example() -> dict[str, Any]:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```json\n(.*?)```", text, re.S)
    assert block is not None, "docs/positions.md lost its worked example"
    data: dict[str, Any] = json.loads(block.group(1))
    return data


def test_documented_example_parses_and_scores_as_documented() -> None:
    """docs/positions.md: every figure stated for its worked example (T-3, T-5, T-7, C-5, K-1, E-3)."""
    data = doc_example()
    game = Game.create("scotland", 3)
    pos = Position.from_json(data)
    pos.validate(game)
    assert pos.to_json() == data
    castles = {c.castle: c for c in castle_control(game, pos) if c.holder >= 0}
    assert set(castles) == {"dunrobin", "duart"}
    assert (castles["dunrobin"].hex, castles["dunrobin"].holder) == ("I8", 0)
    assert castles["dunrobin"].adjacent == (1, 0, 0) and castles["dunrobin"].farms == (1, 0, 0)
    assert (castles["duart"].hex, castles["duart"].holder) == ("C18", 1)
    assert castles["duart"].adjacent == (0, 2, 0) and castles["duart"].farms == (0, 0, 0)
    ds = {d.district: d for d in settlement_standings(game, pos)}
    assert set(ds) == {"kirkwall", "stornoway", "tobermory"}
    assert ds["tobermory"].complete and ds["tobermory"].points == (0, 8, 0)
    assert ds["tobermory"].events[0].rule == "T-5"
    assert ds["kirkwall"].hexes == ("M2", "M3") and ds["kirkwall"].points == (5, 0, 0)
    assert ds["kirkwall"].influence == (3, 0, 0)
    assert ds["stornoway"].hexes == ("B7", "C7") and ds["stornoway"].points == (0, 5, 0)
    assert ds["stornoway"].influence == (0, 2, 0)
    pv = preview(game, pos, 2, "S1", "M3")
    assert pv.points == (5, 0, 3)
    assert [e.rule for e in pv.events] == ["P-1", "T-3", "T-3", "K-1"]
    assert dict(pv.after.cathedrals)["st_magnus"] == (0, 2)
    end = end_scoring(game, pos)
    assert end.scores == (13, 19, 3) and end.winners == (1,)
    assert [e.rule for e in end.events] == ["T-7", "T-7", "C-5", "C-5", "E-3"]
    assert not end.missions_scored


@pytest.mark.parametrize(("variants", "order"), [([], (0, 1)), (["medium_completer_wins"], (1, 0))])
def test_T4_standings_break_a_tie_against_the_completer(variants: list[str], order: tuple[int, ...]) -> None:
    """Kirkwall completed by seat 1 on a tie 3:3: the completer loses it (T-4), or wins it with
    the medium_completer_wins variant; the events say so."""
    game = Game.create("scotland", 3, variants)
    pos = Position.from_json(with_json(
        variants=variants, tiles=tiles_plus({"hex": "M3", "seat": 1, "tile": "S3"}),
        district_last={"kirkwall": 1, "stornoway": 1, "tobermory": 1},
        cathedrals={"st_magnus": [0, 1]}))
    kirkwall = next(d for d in settlement_standings(game, pos) if d.district == "kirkwall")
    assert kirkwall.complete and kirkwall.tied and kirkwall.last_placer == 1
    assert kirkwall.influence == (3, 3, 0) and kirkwall.order == order
    pts = [0, 0, 0]
    pts[order[0]], pts[order[1]] = 5, 3
    assert kirkwall.points == tuple(pts)
    want = [(order[0], 5, "T-4"), (order[1], 3, "T-4")]
    assert [(e.seat, e.points, e.rule) for e in kirkwall.events] == want


# --------------------------------------------------------------------- refusals


def with_json(**changes: Any) -> dict[str, Any]:
    data = doc_example()
    data.update(changes)
    return data


def tiles_plus(*extra: dict[str, Any]) -> list[dict[str, Any]]:
    return [*doc_example()["tiles"], *extra]


def swap_tile(hex_: str, **kw: Any) -> list[dict[str, Any]]:
    return [dict(t, **kw) if t["hex"] == hex_ else t for t in doc_example()["tiles"]]


INVALID = [
    # (changes to the documented example, players, words the message must contain)
    (dict(tiles=tiles_plus({"hex": "I8", "seat": 2, "tile": "F"})), 3,
     ["hex I8", "castle Dunrobin Castle", "not a tile space"]),
    (dict(tiles=tiles_plus({"hex": "Z99", "seat": 2, "tile": "F"})), 3, ["hex Z99", "does not exist"]),
    (dict(tiles=tiles_plus({"hex": "J8", "seat": 2, "tile": "E"})), 3, ["hex J8", "two tiles"]),
    (dict(tiles=swap_tile("J8", tile="S1")), 3, ["hex J8", "settlement tile", "P-4"]),
    (dict(tiles=swap_tile("M2", tile="E")), 3, ["hex M2", "settlement space", "farm", "P-3"]),
    (dict(tiles=tiles_plus({"hex": "K5", "seat": 1, "tile": "S4"}, {"hex": "H6", "seat": 1, "tile": "S4"})),
     3, ["hex H6", "seat 1 owns only 3 Settlement 4", "S-1"]),
    (dict(tiles=tiles_plus({"hex": "K5", "seat": 1, "tile": "S4"}), players=4,
          marks=[[], [], [], []], scores=[3, 9, 3, 0], breakdown=[]), 4,
     ["hex K5", "owns only 2 Settlement 4", "S-2"]),
    (dict(tiles=tiles_plus({"hex": "K5", "neutral": True})), 3, ["hex K5", "only with 2 players", "S-6"]),
    (dict(castles={"dunrobin": 1, "duart": 1}), 3,
     ["Dunrobin Castle (hex I8)", "seat 1 holds it without a tile next to it", "C-1"]),
    (dict(castles={"duart": 1}), 3, ["Dunrobin Castle (hex I8)", "seat 0 has a tile next to it", "C-1"]),
    (dict(tiles=tiles_plus({"hex": "I7", "seat": 2, "tile": "F"}, {"hex": "J7", "seat": 2, "tile": "E"})),
     3, ["Dunrobin Castle (hex I8)", "seat 2 has more tiles next to it", "C-2"]),
    (dict(tiles=tiles_plus({"hex": "J7", "seat": 2, "tile": "F"}), castles={"dunrobin": 0, "duart": 1},
          cathedrals={"st_magnus": [0]}), 3, []),  # a tie with equal farms: the holder keeps it (C-3)
    (dict(district_last={"kirkwall": 1, "stornoway": 1, "tobermory": 1}), 3,
     ["district kirkwall (hexes M2, M3)", "seat 1 has no settlement there"]),
    (dict(tiles=tiles_plus({"hex": "M3", "seat": 1, "tile": "S3"}), district_last={"stornoway": 1},
          cathedrals={"st_magnus": [0, 1]}), 3,
     ["district kirkwall (hexes M2, M3)", "tie", "district_last", "T-3"]),
    (dict(cathedrals={}), 3, ["St Magnus Cathedral (hex L2)", "seat 0 has a tile next to it", "K-1"]),
    (dict(cathedrals={"st_magnus": [0, 2]}), 3, ["St Magnus Cathedral (hex L2)", "seat 2", "without a tile"]),
    (dict(scores=[3, 9, 4]), 3, ["seat 2", "adds up to 3", "score is 4"]),
    (dict(secrets=[["S01", "S02"], [], []]), 3, ["seat 0", "2 secret missions but only 1 drawn", "K-1"]),
    (dict(display=["I01"]), 3, ["exist only on Ireland"]),
]


@pytest.mark.parametrize(("changes", "players", "words"), INVALID)
def test_invalid_positions_are_refused_naming_the_hex(changes: dict[str, Any], players: int,
                                                       words: list[str]) -> None:
    """validate refuses what the rules make impossible; the message names the hex (both languages)."""
    game = Game.create("scotland", players)
    pos = Position.from_json(with_json(**changes))
    if not words:
        pos.validate(game)
        return
    with pytest.raises(PositionError) as err:
        pos.validate(game)
    for w in words:
        assert w in str(err.value), (w, str(err.value))
    assert err.value.message("de") != err.value.message("en")
    for label in re.findall(r"hex ([A-Z]+\d+)", str(err.value)):
        assert label in err.value.message("de")


def test_S6_two_player_positions_need_their_neutral_tiles() -> None:
    game = Game.create("scotland", 2)
    state = game.new_state(4)
    pos = Position.from_state(state)
    pos.validate(game)
    blockers = [t for t in pos.tiles if t.seat is None]
    assert len(blockers) == len(game.board.blockers)
    with pytest.raises(PositionError, match=r"hex L1 is a blocker: with 2 players it holds a neutral tile"):
        replace(pos, tiles=tuple(t for t in pos.tiles if t.hex != "L1")).validate(game)
    with pytest.raises(PositionError, match=r"hex L1 is a blocker"):
        replace(pos, tiles=tuple(PlacedTile("L1", 0, "F") if t.hex == "L1" else t
                                 for t in pos.tiles)).validate(game)
    with pytest.raises(PositionError, match=r"hex M2: a neutral tile lies only on a blocker hex \(S-6\)"):
        replace(pos, tiles=(*pos.tiles, PlacedTile("M2", None, None))).validate(game)


def test_I10_public_missions_must_match_what_the_board_shows() -> None:
    """A seat that meets a displayed mission has fulfilled it; x2 marks need x2 tokens (I-8)."""
    game = Game.create("ireland", 3)
    state = game.new_state(8)
    rng = random.Random(8)
    while not state.is_terminal() and not any(state.cards.fulfilled[m] for m in state.cards.display):
        state.apply_id(state.random_action_id(rng))
    while state.phase != PHASE_PLACE:
        state.apply_id(state.random_action_id(rng))
    pos = Position.from_state(state)
    pos.validate(game)
    card, _ = pos.fulfilled[0]
    with pytest.raises(PositionError, match=f"public mission {card}: seat .* meets it"):
        replace(pos, fulfilled=pos.fulfilled[1:]).validate(game)
    with pytest.raises(PositionError, match=r"x2 marks but only 0 x2 tower tokens"):
        replace(pos, marks=((pos.display[0],), (), ()), tower_visits=()).validate(game)


def test_malformed_json_is_refused_naming_the_field() -> None:
    cases = [
        ({"format": "x"}, "'format'"),
        (with_json(version=2), "unsupported version 2"),
        (with_json(players=5), "'players': must be 2, 3 or 4"),
        (with_json(tiles=[{"hex": "C7", "seat": 1, "tile": "S9"}]), r"'tiles'\[0\] \(hex C7\): 'tile'"),
        (with_json(tiles=[{"hex": "C7", "seat": 7, "tile": "S2"}]), r"\(hex C7\): 7 is not a seat"),
        (with_json(tiles=[{"seat": 1, "tile": "S2"}]), r"'tiles'\[0\]: 'hex'"),
        (with_json(castles=[]), "'castles': must be an object"),
        (with_json(scores=["3"]), "'scores'"),
        (with_json(colour="red"), "'colour': unknown field"),
        ([], "top level"),
    ]
    for data, msg in cases:
        with pytest.raises(PositionError, match=msg):
            Position.from_json(data)
    game = Game.create("ireland", 3)
    with pytest.raises(PositionError, match="of board 'scotland', the game of 'ireland'"):
        Position.from_json(doc_example()).validate(game)


def test_preview_refuses_illegal_tiles_and_hexes() -> None:
    """P-1, P-3, P-4 and S-1: the engine's own reasons, naming the hex."""
    game = Game.create("scotland", 3)
    pos = Position.from_json(doc_example())
    with pytest.raises(IllegalActionError, match="M2 is already occupied"):
        preview(game, pos, 2, "S1", "M2")
    with pytest.raises(IllegalActionError, match="J7 is not a settlement space"):
        preview(game, pos, 2, "S1", "J7")
    with pytest.raises(IllegalActionError, match="M3 is a settlement space"):
        preview(game, pos, 2, "E", "M3")
    with pytest.raises(IllegalActionError, match="hex I8 is the castle"):
        preview(game, pos, 2, "E", "I8")
    with pytest.raises(IllegalActionError, match="hex Q40 does not exist"):
        preview(game, pos, 2, "E", "Q40")
    full = Position.from_json(with_json(tiles=tiles_plus({"hex": "K5", "seat": 1, "tile": "S4"})))
    with pytest.raises(PositionError, match="seat 1 has no Settlement 4 tile left"):
        preview(game, full, 1, "S4", "K6")
    with pytest.raises(PositionError, match="unknown tile"):
        preview(game, pos, 1, "S7", "K6")
    with pytest.raises(PositionError, match="not a seat"):
        preview(game, pos, 3, "S1", "K6")


# --------------------------------------------------------------------- property

labels = st.from_regex(r"[A-P][1-9]", fullmatch=True)
seats = st.integers(0, 3)
ids = st.text("abcdefgh_", min_size=1, max_size=6)
seat_sets = st.lists(seats, max_size=4, unique=True).map(tuple)


@st.composite
def positions(draw: st.DrawFn) -> Position:
    n = draw(st.integers(2, 4))
    tiles = draw(st.lists(
        st.one_of(st.builds(PlacedTile, labels, seats, st.sampled_from(["E", "F", "S1", "S2", "S3", "S4"])),
                  st.builds(PlacedTile, labels, st.none(), st.none())), max_size=12))
    pair_map = st.dictionaries(ids, seats, max_size=4).map(lambda d: tuple(d.items()))
    sets_map = st.dictionaries(ids, seat_sets, max_size=4).map(lambda d: tuple(d.items()))
    return Position(
        board=draw(st.sampled_from(["scotland", "ireland", "my_map"])),
        players=n,
        variants=tuple(sorted(draw(st.sets(ids, max_size=2)))),
        tiles=tuple(tiles),
        castles=draw(pair_map),
        district_last=draw(pair_map),
        cathedrals=draw(sets_map),
        tower_tokens=tuple(draw(st.dictionaries(ids, ids, max_size=3)).items()),
        tower_visits=draw(sets_map),
        display=tuple(draw(st.lists(ids, max_size=3))),
        fulfilled=draw(sets_map),
        marks=tuple(tuple(draw(st.lists(ids, max_size=2))) for _ in range(n)),
        scores=tuple(draw(st.lists(st.integers(0, 200), min_size=n, max_size=n))),
        breakdown=tuple(tuple(draw(st.dictionaries(ids, st.integers(0, 50), max_size=3)).items())
                        for _ in range(n)),
        deck_count=draw(st.none() | st.integers(0, 40)),
        secrets=draw(st.none() | st.lists(st.lists(ids, max_size=2).map(tuple), min_size=n,
                                          max_size=n).map(tuple)),
    )


@settings(max_examples=100, deadline=None)
@given(positions())
def test_json_round_trip_is_the_identity(pos: Position) -> None:
    """from_json(to_json(p)) == p, through JSON text too."""
    assert Position.from_json(json.loads(json.dumps(pos.to_json()))) == pos
