"""The native core's fuzzer, run in a child process by tests/core/test_fuzz_native.py (a
crash there kills only the child, and the test names it).

Every map and record the loaders accept (the loader fuzzer's seeded mutations of the shipped
ones, tests/engine/test_fuzz_loaders.py) runs through the native code: deal, random and
greedy playouts, a short mcts search, the analysis' worlds, at every position of a replayed
record; then hypothesis corrupts packed states and table specs, which the core must refuse
with ValueError or play without crashing. Prints one summary line.
"""

from __future__ import annotations

import random
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from rebirth.bots.mcts import MCTSBot
from rebirth.engine import native
from rebirth.engine.board import MapError, decode_map, parse_board
from rebirth.engine.game import Game, SetupError
from rebirth.engine.missions import DataError
from rebirth.engine.records import RecordError, load_record, replay

sys.setrecursionlimit(10_000)


def exercise(game: Game, seed: int) -> None:
    bridge = native.for_game(game)
    if bridge is None:
        return
    c = bridge.deal(seed)
    c.clone().playout(random.Random(seed), 0, 0.0, -1)
    c.playout(random.Random(seed), 1, 0.1, -1)
    bridge.random_games(seed, 0.0, 2)


def exercise_state(game: Game, st: object, seed: int) -> None:
    from rebirth.engine.state import State

    assert isinstance(st, State)
    bridge = native.for_game(game)
    if bridge is None or st.done:
        return
    c = bridge.load(st)
    if c is None:
        return
    seat = st.current_player
    if seat >= 0:
        c.resample(seat, random.Random(seed)).playout(random.Random(seed), 1, 0.1, -1)
        if not st.is_chance_node():
            MCTSBot(game, seat, seed, iterations=8).analyse(st.view(seat))
    c.playout(random.Random(seed), 0, 0.0, -1)


def maps(count: int) -> int:
    import json

    from engine.test_fuzz_loaders import _inputs
    from recordkit import map_json

    bases = [map_json("scotland"), map_json("ireland")]
    ok = 0
    raws = [json.dumps(b).encode() for b in bases]
    for k, raw in enumerate([*raws, *_inputs(bases, count, seed=31)]):
        try:
            board = parse_board(decode_map(raw))
            games = [Game.create(board, n) for n in (2, 3, 4)]
        except (MapError, SetupError, DataError):
            continue
        ok += 1
        for g in games:
            exercise(g, k)
    return ok


def records(count: int) -> int:
    from engine.test_fuzz_loaders import _inputs
    from recordkit import game_record, ireland_record_with_chance

    bases = [game_record(b, n, 1) for b in ("scotland", "ireland") for n in (2, 3, 4)]
    bases += [ireland_record_with_chance(), game_record("scotland", 3, 4, stop_after=30)]
    import json

    ok = 0
    raws = [json.dumps(b).encode() for b in bases]
    for k, raw in enumerate([*raws, *_inputs(bases, count, seed=32)]):
        try:
            rec = load_record(raw)
            res = replay(rec)
        except RecordError:
            continue
        ok += 1
        st = getattr(res, "state", res)
        game = st.game
        # Every 7th position of the game: replay the record's actions again up to there.
        cur = game.from_setup(st.setup, seed=0, strict=False) if hasattr(st, "setup") else None
        if cur is None:
            continue
        for i, (seat, aid) in enumerate(st.history):
            if i % 7 == 0:
                exercise_state(game, cur, k + i)
            if cur.done:
                break
            try:
                if seat < 0 or aid in cur.legal_action_ids():
                    cur.apply_id(aid)
                else:
                    break
            except (RuntimeError, ValueError):
                break
    return ok


GAME = Game.builtin("ireland", 3)
BRIDGE = native.for_game(GAME)
BASE = [BRIDGE.deal(s).pack() for s in range(3)] if BRIDGE is not None else []


@settings(max_examples=400, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(hs.integers(0, 2), hs.lists(hs.tuples(hs.integers(0, 10_000), hs.integers(-70, 70)), max_size=6),
       hs.integers(0, 400))
def corrupt_states(which: int, edits: list[tuple[int, int]], cut: int) -> None:
    assert BRIDGE is not None
    packed = list(BASE[which])
    for i, v in edits:
        packed[i % len(packed)] = v
    if cut % 5 == 0:
        packed = packed[: len(packed) - cut]
    try:
        c = native.extension().CState(BRIDGE.tables, packed)
    except ValueError:
        return
    try:
        c.clone().playout(random.Random(1), 0, 0.0, 500)
        c.playout(random.Random(2), 1, 0.1, 500)
    except RuntimeError:
        pass


SPEC = native.tables_spec(Game.builtin("scotland", 2)) or []


@settings(max_examples=300, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(hs.lists(hs.tuples(hs.integers(0, 100_000), hs.integers(-5, 300)), min_size=1, max_size=4))
def corrupt_specs(edits: list[tuple[int, int]]) -> None:
    spec = list(SPEC)
    for i, v in edits:
        spec[i % len(spec)] = v
    try:
        tables = native.extension().Tables(spec)
    except ValueError:
        return
    for seed in range(2):
        try:
            c = native.extension().deal(tables, seed)
            c.playout(random.Random(seed), seed, 0.1, 400)
        except (RuntimeError, ValueError):
            pass


def main(scale: int) -> None:
    m = maps(100 * scale)
    r = records(200 * scale)
    corrupt_states()
    corrupt_specs()
    print(f"native fuzz: {m} accepted maps, {r} accepted records, 400 corrupted states, "
          f"300 corrupted specs: no crash")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
