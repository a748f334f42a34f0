"""The native core (``rebirth._core``, C through the CPython API; issue 28): the hot path of
the engine as flat arrays, and the bridge between it and :class:`State`.

The pure engine (``state.py``) is the reference and the only definition of the rules; the
native core repeats its fast path (``apply_id``, the legal actions, the playouts, the
projection, the resampling, the mcts loop) step for step, drawing from a copy of the
caller's ``random.Random`` and writing the generator's state back, so that a game played
natively is the same game (``tests/core/test_differential.py``).

:func:`core_kind` says which core runs: ``"native"`` when the extension was built (an
ordinary install with a C compiler builds it) and ``REBIRTH_CORE`` is not ``pure``, else
``"pure"``. :func:`for_game` gives a game's :class:`Native` bridge, or None when the pure
engine must play (no extension, ``REBIRTH_CORE=pure``, or a game the native tables cannot
hold, which the bridge refuses when it is built). Callers keep their pure path and use the
bridge when they get one.
"""

from __future__ import annotations

import os
import random
from typing import TYPE_CHECKING, Any, Protocol

from rebirth.engine.tables import Cards, Castles, Condition, Districts, Occupancy, Phase, Tiles, Visits

if TYPE_CHECKING:
    from rebirth.engine.state import Game, State


class CStateLike(Protocol):
    """The extension's state object (see src/rebirth/_core/core.c)."""

    done: bool
    cur: int
    phase: int
    score: list[int]
    winners: list[int]
    turn: int

    def pack(self) -> list[int]: ...
    def clone(self) -> CStateLike: ...
    def legal(self) -> list[int]: ...
    def apply(self, aid: int) -> None: ...
    def random_action(self, rng: random.Random) -> int: ...
    def fast_policy(self, rng: random.Random, epsilon: float) -> int: ...
    def playout(self, rng: random.Random, policy: int, epsilon: float, plies: int) -> int: ...
    def projected(self, weights: tuple[float, ...]) -> list[float]: ...
    def trace(self, rng: random.Random, policy: int, epsilon: float,
              full: bool) -> list[tuple[list[int], int, list[int], int, int, list[int] | None]]: ...
    def score_actions(self, seat: int, weights: tuple[float, ...]) -> list[tuple[float, int]]: ...
    def resample(self, seat: int, rng: random.Random) -> CStateLike: ...
    def resample_many(self, seat: int, rng: random.Random, count: int) -> list[CStateLike]: ...
    def observe(self, seat: int, obs: Any, mask: Any) -> None: ...
    def mcts(self, seat: int, rng: random.Random, roots: list[int], iterations: int,
             seconds: float, c: float, plies: int, temperature: float,
             weights: tuple[float, ...], leaf: Any) -> tuple[int, list[tuple[int, float, float]]]: ...


LIB_ENV = "REBIRTH_CORE_LIB"
"""A path to load the extension from instead of the installed one: scripts/test-sanitizer.sh
points it at a build with AddressSanitizer and UBSan."""


def _load_extension() -> Any:
    path = os.environ.get(LIB_ENV, "").strip()
    if path:
        import importlib.machinery
        import importlib.util

        loader = importlib.machinery.ExtensionFileLoader("rebirth._core", path)
        spec = importlib.util.spec_from_file_location("rebirth._core", path, loader=loader)
        if spec is None:
            raise ImportError(f"{LIB_ENV}={path}: not an extension module")
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
        return mod
    try:
        from rebirth import _core  # type: ignore[attr-defined]
    except ImportError:  # no C compiler at install time, or a failed build: the pure engine
        return None
    return _core


_ext = _load_extension()

CORE_ENV = "REBIRTH_CORE"

_TOKEN_KINDS = {"points": 0, "extra_tile": 1, "double": 2}
_LIST_OF_KIND = (0, 1, 2, 2, 3)  # ENERGY, FOOD, BLANK, FLEXIBLE, SETTLEMENT -> FreeList
_MAX_NEIGHBOURS = 8
_TILE_CAP = 48


def extension() -> Any:
    """The extension module itself (None when not built): for the tests' fuzzer."""
    return _ext


def available() -> bool:
    """Whether the extension module was built and imports."""
    return _ext is not None


def core_kind() -> str:
    """``"native"`` when the native core plays (built, and ``REBIRTH_CORE`` is not ``pure``)."""
    if _ext is None or os.environ.get(CORE_ENV, "").strip().lower() == "pure":
        return "pure"
    return "native"


def _csr(rows: Any) -> list[int]:
    offs = [0]
    items: list[int] = []
    for r in rows:
        items.extend(r)
        offs.append(len(items))
    return offs + items


def tables_spec(game: Game) -> list[int] | None:
    """The flat list the extension's ``Tables`` reads for ``game``; None when the native
    tables cannot hold it (then the pure engine plays)."""
    from rebirth.engine.board import SET_ASIDE
    from rebirth.engine.tiles import starting_tiles

    b = game.board
    n = game.players
    if any(len(nb) > _MAX_NEIGHBOURS for nb in b.nbrs) or any(not 1 <= d.size <= 4
                                                               for d in b.districts):
        return None
    if (any(c.index != i for i, c in enumerate(game.cards))
            or any(t.index != i for i, t in enumerate(game.tokens))):
        return None
    v = game.variants
    tiles, _ = starting_tiles(n)
    kset = SET_ASIDE[b.rules]
    cond_kind, cond_a, cond_b, mtype, minf = [], [], [], [], []
    for c, (kind, a, bb) in zip(game.cards, game.conditions, strict=True):
        cond_kind.append(int(kind))
        cond_a.append(a)
        cond_b.append(bb)
        t = c.condition.get("type")
        if t == "most_settlements":
            mtype.append(2)
            minf.append(int(c.condition["filter"].get("influence", 0)))
        else:
            mtype.append(1 if kind == Condition.NONE else 0)
            minf.append(0)
    own_set_aside = (not b.is_ireland) or "ireland_set_aside_known" in v
    set_aside_public = (not b.is_ireland) and "set_aside_public" in v
    body: list[int] = []
    body += [s.kind for s in b.spaces]
    body += [_LIST_OF_KIND[s.kind] for s in b.spaces]
    body += [s.district for s in b.spaces]
    body += [s.region for s in b.spaces]
    body += [int(s.port) for s in b.spaces]
    body += [int(s.offshore) for s in b.spaces]
    body += _csr(b.nbrs) + _csr(b.adj_castles) + _csr(b.adj_cathedrals) + _csr(b.adj_towers)
    body += [d.size for d in b.districts]
    body += list(b.blockers)
    body += [c.points for c in game.cards] + [c.values[0] for c in game.cards]
    body += [c.values[1] for c in game.cards]
    body += cond_kind + cond_a + cond_b + mtype + minf
    body += _csr(game.mission_spaces)
    body += [_TOKEN_KINDS.get(t.kind, 3) for t in game.tokens] + [t.points for t in game.tokens]
    body += [0 if k == "castle" else 1 for k, _ in b.tiebreak] + [ix for _, ix in b.tiebreak]
    body += _csr(t.spaces for t in b.towers)
    body += list(tiles)
    head = [n, len(b.spaces), len(b.districts), len(b.castles), len(b.cathedrals), len(b.towers),
            len(b.regions), len(game.cards), len(game.tokens), int(b.is_ireland),
            int("castle_tie_to_active" in v), int("incomplete_as_small" in v),
            int("medium_completer_wins" in v), int("stirling_literal" in v),
            int(own_set_aside), int(set_aside_public), len(b.blockers), len(b.tiebreak),
            len(tiles), kset, len(body)]
    return head + body


def pack(st: State) -> list[int] | None:
    """``st`` as the flat list the extension's ``CState`` reads (None: a state the native
    core does not play, e.g. table mode, whose turns come from a :class:`Source`)."""
    if st.source is not None:
        return None
    n = st.n
    o, d, c, v, cd, t = st.occupancy, st.districts, st.castles, st.visited, st.cards, st.tiles
    out = [int(st.phase), st.cur, st.turn, int(st.done), st.pending_extra, st.pending_double,
           st.extra_tile, cd.next_card]
    out += st.score + st.cat + o.owner + o.tile + o.group_parent + o.group_size
    for lst in o.free:
        out.append(len(lst))
        out += lst
    out += o.free_at + o.region_tiles + o.largest_group + o.offshore_farms + o.placed
    out += d.filled + d.last_placer + d.influence + d.first_ranks
    out += c.adjacent + c.adjacent_farms + c.holder + c.held
    out += v.cathedral_pieces + v.tower_visits + v.towers_visited
    for lst in (cd.deck, cd.display):
        out.append(len(lst))
        out += lst
    for group in (cd.cathedral_cards, cd.tower_cards):
        for lst in group:
            out.append(len(lst))
            out += lst
    out += cd.fulfilled + [int(x) for x in cd.first_paid]
    for lst in cd.marks:
        out.append(len(lst))
        out += lst
    for lst in t.supply:
        if len(lst) > _TILE_CAP:
            return None
        out.append(len(lst))
        out += lst
    out += t.drawn + t.hand
    for q in range(n):
        for lst in (t.set_aside[q], t.known_set_aside[q], t.discarded[q]):
            if len(lst) > _TILE_CAP:
                return None
            out.append(len(lst))
            out += lst
    out += st.tokens_on_towers
    out.append(len(st.winners_))
    out += st.winners_
    return out


class _Reader:
    __slots__ = ("i", "v")

    def __init__(self, v: list[int]) -> None:
        self.v = v
        self.i = 0

    def take(self, k: int) -> list[int]:
        out = self.v[self.i:self.i + k]
        self.i += k
        return out

    def one(self) -> int:
        self.i += 1
        return self.v[self.i - 1]

    def lst(self) -> list[int]:
        return self.take(self.one())


def unpack_into(st: State, packed: list[int]) -> None:
    """Write a packed native state into ``st`` (a state of the same game): every table,
    the scores, the turn. History, events and the chance stream are left as they are."""
    g = st.game
    b = g.board
    n = st.n
    ns, nd, nc, nr = len(b.spaces), len(b.districts), len(b.castles), len(b.regions)
    nk, nt, ncards = len(b.cathedrals), len(b.towers), len(g.cards)
    r = _Reader(packed)
    phase, cur, turn, done, pextra, pdouble, extra, next_card = r.take(8)
    st.phase = Phase(phase)
    st.cur, st.turn, st.done = cur, turn, bool(done)
    st.pending_extra, st.pending_double, st.extra_tile = pextra, pdouble, extra
    st.score = r.take(n)
    st.cat = r.take(8 * n)
    owner, tile, parent, size = r.take(ns), r.take(ns), r.take(ns), r.take(ns)
    free = [r.lst() for _ in range(4)]
    free_at = r.take(ns)
    st.occupancy = Occupancy(owner, tile, parent, size, free, free_at, r.take(nr * n), r.take(n),
                             r.take(n), r.take(n))
    st.districts = Districts(r.take(nd), r.take(nd), r.take(nd * n), r.take(n))
    st.castles = Castles(r.take(nc * n), r.take(nc * n), r.take(nc), r.take(n))
    st.visited = Visits(r.take(nk), r.take(nt), r.take(n))
    deck, display = r.lst(), r.lst()
    cath = [r.lst() for _ in range(n)]
    tow = [r.lst() for _ in range(n)]
    fulfilled = r.take(ncards)
    first_paid = [bool(x) for x in r.take(ncards)]
    marks = [r.lst() for _ in range(n)]
    st.cards = Cards(deck, next_card, display, cath, tow, fulfilled, first_paid, marks, g.conditions)
    supply = [r.lst() for _ in range(n)]
    drawn, hand = r.take(n), r.take(n)
    aside, known, discarded = [], [], []
    for _ in range(n):
        aside.append(r.lst())
        known.append(r.lst())
        discarded.append(r.lst())
    st.tiles = Tiles(supply, drawn, hand, aside, known, st.tiles.returned, discarded)
    st.tokens_on_towers = r.take(nt)
    st.winners_ = r.lst()


def weights_tuple(w: Any) -> tuple[float, float, float, float, float]:
    """bots/evaluate.py's :class:`Weights` as the tuple the extension reads."""
    return (float(w.castle), float(w.district), float(w.mission_done), float(w.mission_open),
            float(w.farm_growth))


OBSERVATION_FIELDS = (
    "size", "board", "scores", "breakdown", "castle_holders", "cathedral_pieces",
    "tower_visits", "tower_tokens", "hand", "own_set_aside", "own_set_aside_visible",
    "public_set_aside", "own_missions", "display", "fulfilled", "marks", "supply_counts",
    "hand_counts", "set_aside_counts", "mission_counts", "placed", "discarded", "deck_count",
    "phase", "current_player", "extra_tile", "pending", "winners", "kinds", "tiles_per_seat",
    "set_aside", "deck_size", "score_scale", "pending_cap")
"""The order of the core's ``OB_*`` layout fields (csrc/core.c), before the categories."""
_NCAT = 8


def observation_layout(layout: dict[str, int | tuple[int, ...]]) -> list[int]:
    """:meth:`rebirth.engine.observer.Observer.layout` as the flat list ``Tables.set_observation``
    reads (the fields in :data:`OBSERVATION_FIELDS` order, the category count, then each
    category's index, padded to the table's 8)."""
    cats = layout["categories"]
    assert isinstance(cats, tuple)
    head = []
    for name in OBSERVATION_FIELDS:
        v = layout[name]
        assert isinstance(v, int)
        head.append(v)
    return head + [len(cats), *cats] + [0] * (_NCAT - len(cats))


class Native:
    """One game's native tables and the conversions between :class:`State` and the core."""

    __slots__ = ("game", "tables")

    def __init__(self, game: Game, tables: Any) -> None:
        self.game = game
        self.tables = tables

    def load(self, st: State) -> CStateLike | None:
        """``st`` in the native core, or None when it cannot go there (table mode, or a state
        the core refuses: one between turns, from :meth:`State.from_facts`, has nobody to act)."""
        packed = pack(st)
        if packed is None or _ext is None:
            return None
        try:
            c: CStateLike = _ext.CState(self.tables, packed)
        except ValueError:
            return None
        return c

    def deal(self, seed: int) -> CStateLike:
        """``Game.new_state(seed)`` dealt natively (a seed in 0 .. 2**64-1)."""
        assert _ext is not None
        c: CStateLike = _ext.deal(self.tables, seed)
        return c

    def observing(self, layout: dict[str, int | tuple[int, ...]]) -> Native:
        """This bridge with ``layout`` (an :class:`Observer`'s) set for ``CState.observe``
        (the tables keep one layout; every observer of a game has the same)."""
        self.tables.set_observation(observation_layout(layout))
        return self

    def to_state(self, c: CStateLike, template: State) -> State:
        """A :class:`State` (a clone of ``template``, a state of this game) set to ``c``."""
        st = template.clone()
        unpack_into(st, c.pack())
        return st

    def random_games(self, seed: int, seconds: float, max_games: int = 0) -> tuple[int, float, int]:
        """app/bench.py's random games, dealt and played natively for ``seconds`` or up to
        ``max_games``: (games, seconds, the sum of every game's final scores)."""
        assert _ext is not None
        res: tuple[int, float, int] = _ext.random_games(self.tables, seed, seconds, max_games)
        return res

    @staticmethod
    def outcomes(states: list[CStateLike], seeds: list[int], aid: int,
                 seat: int) -> list[tuple[float, float, float]]:
        """analysis Worlds.outcomes over native states (``aid`` -1: no action)."""
        assert _ext is not None
        res: list[tuple[float, float, float]] = _ext.outcomes(states, seeds, aid, seat)
        return res


_BRIDGES: dict[int, tuple[Game, Native | None]] = {}


def for_game(game: Game) -> Native | None:
    """The game's native bridge when the native core plays (see :func:`core_kind`), else None."""
    if core_kind() != "native":
        return None
    found = _BRIDGES.get(id(game))
    if found is not None and found[0] is game:
        return found[1]
    spec = tables_spec(game)
    bridge = None
    if spec is not None and _ext is not None:
        try:
            bridge = Native(game, _ext.Tables(spec))
        except ValueError:
            bridge = None  # a map the native tables refuse: the pure engine plays it
    if len(_BRIDGES) > 256:
        _BRIDGES.clear()
    _BRIDGES[id(game)] = (game, bridge)
    return bridge
