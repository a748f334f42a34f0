"""The games the native core is checked on (tests/core), and the step-by-step comparison.

Configurations: both shipped boards with 2, 3 and 4 players, plain and with every variant
alone; capacity-tight maps (exactly the S-9 minimum, and maps far below it where P-3's
emergency rule and P-7's discards happen all the time); small hand-made maps with every
structure (tests/mapkit.py); and maps from the loader fuzzer's mutations that the loader
accepts (tests/engine/test_fuzz_loaders.py).
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from functools import cache

from mapkit import make_board, map_data
from rebirth.bots.mcts import fast_policy
from rebirth.engine import native
from rebirth.engine.board import Board, MapError, decode_map, parse_board
from rebirth.engine.config import IRELAND_VARIANTS, SCOTLAND_VARIANTS
from rebirth.engine.game import Game, SetupError
from rebirth.engine.missions import DataError
from rebirth.engine.state import State


def capacity_map(settle: int, farms: int, blockers: int) -> str:
    """Size-1 districts and blank farm spaces (as tests/engine/test_rules_setup.py's S-9 map)."""
    toks = [f"S:d{i}" for i in range(settle)] + ["B*"] * blockers + ["B"] * (farms - blockers)
    return "\n".join(" ".join(toks[i:i + 12]) for i in range(0, len(toks), 12))


# Every structure, ports, offshore spaces, districts of 1 to 4 spaces, emergency-rule kinds.
SMALL_SCOTLAND = """
E   F   S:a S:a C:c1 S:g^  F
F   E   S:b  S:b S:b  B   B
K:k1 B  S:c^ E@south F@south S:d S:d
E@south B@south S:e@south S:e@south S:e@south B@south C:c2@south
F*  E*  B   S:f^ K:k2 F E
"""

SMALL_IRELAND = """
E   F   S:a S:a T:t1 E@east  F@east
F~  E   S:b  S:b S:b  B@east   X@east
C:c1 B  S:c E@south F@south S:d@east S:d@east
E@south X@south S:e@south S:e@south S:e@south T:t2@south B@west
F*@west  E*@west  B@west   S:f@west T:t3@west F~@west E~@west
"""


@cache
def boards() -> dict[str, Board]:
    """The hand-made and capacity maps by name."""
    out = {
        "tight36": parse_board(map_data(capacity_map(36, 80, 32)), check_capacity=True),
        "starved": make_board(capacity_map(14, 30, 6)),
        "farms_only": make_board(capacity_map(2, 40, 10)),
        "small_scotland": make_board(SMALL_SCOTLAND, tiebreak=["castle:c1", "castle:c2"]),
        "small_ireland": make_board(SMALL_IRELAND, rules="ireland", tiebreak=["tower:t1", "castle:c1"]),
    }
    return out


def configs() -> list[tuple[str, int, frozenset[str]]]:
    """(board, players, variants): the shipped boards plain and with each variant alone,
    then the small maps plain."""
    out: list[tuple[str, int, frozenset[str]]] = []
    for b, vs in (("scotland", SCOTLAND_VARIANTS), ("ireland", IRELAND_VARIANTS)):
        for n in (2, 3, 4):
            out.append((b, n, frozenset()))
            out += [(b, n, frozenset({v})) for v in sorted(vs)]
    for name in boards():
        out += [(name, n, frozenset()) for n in (2, 3, 4)]
    return out


def make_game(board: str, n: int, variants: frozenset[str] = frozenset()) -> Game:
    b = boards().get(board)
    if b is None:
        return Game.builtin(board, n, variants)
    cards = () if not b.is_ireland else None
    return Game.create(b, n, variants, cards=cards)


def fuzzed_boards(count: int, seed: int) -> Iterator[Board]:
    """Boards from the loader fuzzer's mutations of the shipped maps that the loader accepts."""
    from engine.test_fuzz_loaders import _inputs
    from recordkit import map_json

    bases = [map_json("scotland"), map_json("ireland")]
    for raw in _inputs(bases, count, seed):
        try:
            board = parse_board(decode_map(raw))
            for n in (2, 3, 4):
                Game.create(board, n)
        except (MapError, SetupError, DataError, ValueError):
            continue
        yield board


def compare_game(game: Game, seed: int, *, policy: int, full: bool) -> int:
    """Deal ``seed`` in both cores and play it out by the same draws, comparing every step
    (the legal ids in order, the id chosen, scores, seat, phase; with ``full`` the whole
    state after each step) and the whole state at the end. Returns the steps played."""
    bridge = native.for_game(game)
    assert bridge is not None, "the native core refuses this game"
    st = game.new_state(seed)
    c = bridge.deal(seed)
    assert c.pack() == native.pack(st), f"deal {seed}"
    r_pure, r_nat = random.Random(seed ^ 0x5EED), random.Random(seed ^ 0x5EED)
    steps = c.trace(r_nat, policy, 0.1, full)
    for i, (legal, aid, score, cur, phase, packed) in enumerate(steps):
        where = f"{game.board.id}/{game.players}/{sorted(game.variants)} seed {seed} step {i}"
        assert not st.done, where
        assert st.legal_action_ids() == legal, where
        mine = fast_policy(st, r_pure) if policy else st.random_action_id(r_pure)
        assert mine == aid, where
        st.apply_id(aid)
        assert st.score == score and st.cur == cur and int(st.phase) == phase, where
        if packed is not None:
            assert native.pack(st) == packed, where
    assert st.done
    assert native.pack(st) == c.pack() == native.pack(bridge.to_state(c, st))
    assert r_pure.getstate() == r_nat.getstate()
    return len(steps)


def mutated_state(st: State, rng: random.Random) -> State:
    """A copy of ``st`` with a few hidden facts redrawn (for resampling checks)."""
    return st.resample_from_infostate(rng.randrange(st.n), rng)


def board_json(board: Board) -> str:
    return json.dumps(copy.deepcopy(board.source))
