"""The game state: position, legal actions, apply, clone, scoring (RULES.md P-, F-, T-, C-, K-, I-, E-);
and the :class:`Game` that makes states (at the end of the module: each type names the other).

One code path serves both the explaining mode (``apply``: checks legality and
returns events) and the fast mode (``apply_id``: no checks, no events), so the
two cannot drift apart; the events (worded in :mod:`rebirth.engine.explain`) are
only built when a list is there to take them (``with state.recording() as events``).

The data model: besides the turn (``phase``, a :class:`~rebirth.engine.tables.Phase`;
``cur``, the seat to act; ``turn``; ``pending_extra`` / ``pending_double`` / ``extra_tile``),
the scores (``score``; ``cat``, by category) and the action ``history``, a state holds six
named tables, documented once in :mod:`rebirth.engine.tables`: ``occupancy`` (spaces and
farm groups), ``districts``, ``castles``, ``visited`` (cathedral pieces, tower visits),
``cards`` (missions) and ``tiles`` (supplies and hands). ``clone`` copies each table with
its own ``clone``. :meth:`State.derive_tables` is the one derivation of the tables from
the board's facts (``from_facts`` / ``load_facts`` use it; ``_place`` keeps the same tables
up to date move by move).

The narrow API the other modules use instead of the tables' insides:
:meth:`State.score_placement` ("what would this placement score"), :meth:`State.end_now`
("if the game ended now"), :meth:`State.district_payout`, :meth:`State.meets_mission`,
:meth:`State.is_castle_mission`, :meth:`State.start_play`, :meth:`State.from_facts`, and what
the tiles alone decide: :meth:`State.castle_contenders` (who may hold a castle),
:meth:`State.district_seats` and :meth:`State.last_placer_matters` (a district's tie).
Only the engine's core (this module, ``tables``, ``table`` (table mode, a subclass),
``infoset`` and ``determinize``, which fill a state's hidden part) writes the tables;
``tests/test_architecture.py`` checks every other module.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rebirth.engine import explain, infoset
from rebirth.engine.actions import (
    Action,
    ActionSyntaxError,
    IllegalActionError,
    Mark,
    Place,
    Reveal,
    parse_action,
)
from rebirth.engine.board import (
    BLANK,
    ENERGY,
    FLEXIBLE,
    FOOD,
    SET_ASIDE,
    SETTLEMENT,
    Board,
    builtin_board,
    resolve_board,
)
from rebirth.engine.codec import ActionCodec, unknown_action
from rebirth.engine.config import (
    DISPLAY_SIZE,
    IRELAND_VARIANTS,
    SCOTLAND_VARIANTS,
    VARIANTS,
    Setup,
    SetupError,
)
from rebirth.engine.events import Event
from rebirth.engine.messages import msg
from rebirth.engine.missions import (
    MissionCard,
    TowerToken,
    builtin_cards,
    builtin_tokens,
    card_spaces,
)
from rebirth.engine.protocols import Facts
from rebirth.engine.streams import chance_seed
from rebirth.engine.tables import (
    Cards,
    Castles,
    Condition,
    Districts,
    FreeList,
    Occupancy,
    Phase,
    Tiles,
    Visits,
    compile_condition,
)
from rebirth.engine.tiles import NEUTRAL, TILE_CODES, parse_tile, starting_tiles, tile_code, tile_counts
from rebirth.engine.views import View

CATEGORIES = ("farms", "settlements", "ports", "castles", "missions", "offshore", "towers",
              "public_missions")
SCOTLAND_CATEGORIES = CATEGORIES[:5]
IRELAND_CATEGORIES = ("farms", "settlements", "castles", "missions", "offshore", "towers",
                      "public_missions")
C_FARMS, C_SETTLE, C_PORTS, C_CASTLES, C_MISSIONS, C_OFFSHORE, C_TOWERS, C_PUBLIC = range(8)
NCAT = 8

# Free-space lists: which list a space of each kind lives in.
L_ENERGY, L_FOOD, L_EITHER, L_SETTLE = FreeList.ENERGY, FreeList.FOOD, FreeList.EITHER, FreeList.SETTLEMENT
_LIST_OF_KIND = {ENERGY: L_ENERGY, FOOD: L_FOOD, BLANK: L_EITHER, FLEXIBLE: L_EITHER,
                 SETTLEMENT: L_SETTLE}

# Short names of the phases, as the hot path uses them (module globals, no attribute lookup).
PHASE_PLACE, PHASE_EXTRA, PHASE_MARK, PHASE_END, PHASE_CHANCE = (
    Phase.PLACE, Phase.EXTRA, Phase.MARK, Phase.END, Phase.CHANCE)

def returns_of(n: int, winners: list[int]) -> list[float]:
    """A finished game's returns: 1/k for each of its k ``winners``, 0 for the other seats."""
    share = 1.0 / len(winners)
    return [share if q in winners else 0.0 for q in range(n)]


CHANCE = -1
"""``current_player`` at a chance node (OpenSpiel's ``kChancePlayerId``): an outcome is pending."""
TERMINAL = -4
"""``current_player`` once the game is over (OpenSpiel's ``kTerminalPlayerId``)."""

RANKS = {2: (5, 3), 3: (8, 5), 4: (12, 8, 5)}
CASTLE_POINTS = 5



# The kinds as module globals: an enum member read through its class costs an attribute
# lookup on the enum type, and _meets runs after every Ireland placement.
_NONE, _FARM_GROUP, _CASTLES_HELD, _TOWERS_VISITED = (
    Condition.NONE, Condition.FARM_GROUP, Condition.CASTLES_HELD, Condition.TOWERS_VISITED)
_DISTRICT_FIRSTS, _OFFSHORE_FARMS, _TILES_IN_PROVINCES = (
    Condition.DISTRICT_FIRSTS, Condition.OFFSHORE_FARMS, Condition.TILES_IN_PROVINCES)
def uf_find(parent: list[int], x: int) -> int:
    """The root of ``x``'s farm group (F-1): union-find with path halving. The one copy
    of the walk; halving changes no group, only how fast the next walk is."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def rank_order(present: list[int], infl: list[int], base: int, completer: int, n: int,
               completer_wins: bool) -> None:
    """Sort ``present`` into rank order in place (T-3, T-4): influence, then the completer
    loses every tie and the others follow clockwise from the player after the completer."""

    def order(q: int) -> int:
        if q == completer:
            return -1 if completer_wins else n
        return (q - completer - 1) % n

    present.sort(key=lambda q: (-infl[base + q], order(q)))


class LegalActions:
    """A lazy view of the legal actions: ``action in state.legal_actions``, ``len``, iteration."""

    __slots__ = ("_state",)

    def __init__(self, state: State) -> None:
        self._state = state

    def _ids(self) -> list[int]:
        return sorted(self._state.legal_action_ids())

    def __iter__(self) -> Iterator[Action]:
        s = self._state
        return iter([s.action_from_id(i) for i in self._ids()])

    def __len__(self) -> int:
        return len(self._state.legal_action_ids())

    def __contains__(self, action: object) -> bool:
        s = self._state
        if isinstance(action, str):
            try:
                action = parse_action(action)
            except ActionSyntaxError:
                return False
        if not isinstance(action, Place | Mark | Reveal):
            return False
        if isinstance(action, Reveal) != s.is_chance_node():
            return False
        aid = s.action_id(action)
        return aid is not None and aid in s.legal_action_ids()

    def __repr__(self) -> str:
        return f"<LegalActions {' '.join(str(a) for a in self)}>"


class Recording:
    """``with state.recording() as events:`` collects the events of what runs inside the
    block into ``events`` (the engine builds them only while a list is there to take them);
    the state's previous collector, if any, is restored on the way out."""

    __slots__ = ("_outer", "_state", "events")

    def __init__(self, state: State) -> None:
        self._state = state
        self._outer: list[Event] | None = None
        self.events: list[Event] = []

    def __enter__(self) -> list[Event]:
        self._outer = self._state._events
        self._state._events = self.events
        return self.events

    def __exit__(self, *exc: object) -> None:
        self._state._events = self._outer


@dataclass(frozen=True)
class PlacementScore:
    """What one placement pays (P-5), worked out by the engine's own scoring on a copy."""

    seat: int
    space: int
    tile: int
    points: tuple[int, ...]
    """Points paid to every seat (a completed district or a public mission can pay others)."""
    categories: tuple[dict[str, int], ...]
    """Per seat, the points by category that changed."""
    extra_tiles: int
    """Extra tiles the placement earns (I-7)."""
    x2_markers: int
    """x2 markers the placement earns (I-8)."""
    events: tuple[Event, ...]
    """The events as the engine made them (unredacted: redact with ``Event.for_seat``)."""
    after: State
    """The copy after the placement (and after the turn's end with ``to_turn_end``)."""


class Source:
    """Where a state's turns and mission cards come from when not from its deal.

    The deal is the default (``State.source`` None, the fast path). Table mode
    (:mod:`rebirth.engine.table`) passes one: at a physical table nobody knows the next tile
    or card, so the players name each tile as they place it and the cards at the end; its
    source decides whose turn it is from the counts and keeps drawn cards unknown.
    """

    def start_turn(self, state: State) -> None:
        """Choose the seat to act (or end the game) where the deal's P-7/E-1 loop would."""
        raise NotImplementedError

    def draw_card(self, state: State, into: list[int]) -> int:
        """A mission card drawn into ``into`` (K-1, I-9): its index, or -1 for none known."""
        raise NotImplementedError

    def clone(self) -> Source:
        """An independent copy (a cloned state clones its source)."""
        raise NotImplementedError


class State:
    """A position of one game. Create with :meth:`Game.new_state` or :meth:`Game.from_setup`."""

    __slots__ = (
        "_events",
        "_rng",
        "_rng_shared",
        "board",
        "cards",
        "castles",
        "cat",
        "cur",
        "districts",
        "done",
        "extra_tile",
        "final_events",
        "game",
        "history",
        "hjson",
        "initial_events",
        "n",
        "occupancy",
        "pending_double",
        "pending_extra",
        "phase",
        "score",
        "setup",
        "source",
        "tiles",
        "tokens_on_towers",
        "turn",
        "visited",
        "winners_",
    )

    def __init__(self, game: Game | None = None, setup: Setup | None = None, *,
                 seed: int | None = None, source: Source | None = None) -> None:
        if game is None or setup is None:
            # A bare instance for clone() to fill: a compiled class (mypyc) runs __init__
            # with no arguments inside __new__.
            return
        b = game.board
        n = game.players
        self.game = game
        self.board = b
        self.n = n
        self.setup = setup
        self.source = source
        self._rng = random.Random(seed)
        self._rng_shared = False
        ns = len(b.spaces)
        self.occupancy = Occupancy.empty(ns, len(b.regions), n)
        free = self.occupancy.free
        free_at = self.occupancy.free_at
        for s in b.spaces:
            lst = free[_LIST_OF_KIND[s.kind]]
            free_at[s.index] = len(lst)
            lst.append(s.index)
        self.districts = Districts.empty(len(b.districts), n)
        self.castles = Castles.empty(len(b.castles), n)
        self.visited = Visits.empty(len(b.cathedrals), len(b.towers), n)
        self.score = [0] * n
        self.cat = [0] * (NCAT * n)
        card_ix = {c.id: c.index for c in game.cards}
        # The deck is drawn from the front; next_card is the next card.
        self.cards = Cards([card_ix[c] for c in setup.mission_deck], 0,
                           [card_ix[c] for c in setup.display], [[] for _ in range(n)],
                           [[] for _ in range(n)], [0] * len(game.cards),
                           [False] * len(game.cards), [[] for _ in range(n)],
                           game.conditions)
        tok_ix = {t.id: t.index for t in game.tokens}
        # Tower i carries token tokens[i]; stored on the state so clone shares it.
        self.pending_extra = 0
        self.pending_double = 0
        self.extra_tile = -1
        _, ret = starting_tiles(n)
        self.tiles = Tiles([list(s) for s in setup.supplies], [0] * n, [-1] * n,
                           [list(a) for a in setup.set_aside], [[] for _ in range(n)],
                           [list(ret) for _ in range(n)], [[] for _ in range(n)])
        self.history: list[tuple[int, int]] = []
        self.hjson: list[dict[str, Any]] = []
        self.winners_: list[int] = []
        self.final_events: list[Event] = []
        self._events: list[Event] | None = None
        """Where events go while :meth:`recording`; None (the fast path) builds none."""
        self.done = False
        self.turn = 0
        self.phase: int = PHASE_PLACE  # a Phase (an int: compared on the hot path)
        self.cur = setup.start_player
        self.tokens_on_towers = [tok_ix[t] for t in setup.tower_tokens]
        # S-6: neutral tiles on every blocker hex with 2 players.
        if n == 2:
            for h in b.blockers:
                self._remove_free(h)
                self.occupancy.owner[h] = NEUTRAL
                self.occupancy.tile[h] = -1
        for p in range(n):
            self._draw(p)
        # A P-7 discard can happen before the first turn on a custom map; keep its event.
        with self.recording() as events:
            if n == 4:
                # The S-2 ruling is one tables miss: say it in the log.
                for p in range(n):
                    events.append(explain.returned_4p(p, [tile_code(t) for t in ret]))
            self._start_turn()
        self.initial_events: list[Event] = events

    # ------------------------------------------------------- state from facts

    @staticmethod
    def from_facts(game: Game, pos: Facts) -> State:
        """A state at position ``pos`` between turns: no tile in hand, every seat's unplaced
        tiles as its supply (S-1, S-2), the unseen cards as the deck. Not validated: see
        :meth:`Position.validate`, which calls this."""
        n = game.players
        full, _ = starting_tiles(n)
        known = set(pos.display) | {c for s in pos.secrets or () for c in s}
        unseen = [c.id for c in game.cards if c.id not in known]
        deck = unseen if pos.deck_count is None else unseen[: pos.deck_count]
        tok = dict(pos.tower_tokens)
        towers = tuple(tok[t.id] for t in game.board.towers) if tok else ()
        st = State(game, game.setup_from_facts(tuple(deck), tuple(pos.display), towers), seed=0)
        st.load_facts(pos)
        occ, tile = st.occupancy.owner, st.occupancy.tile
        for q in range(n):
            rest = Counter(full)
            rest.subtract(Counter(tile[h] for h in range(len(occ)) if occ[h] == q))
            st.tiles.supply[q] = sorted(rest.elements())
            st.tiles.drawn[q] = 0
            st.tiles.hand[q] = -1
        st.cur = 0
        st.phase = PHASE_PLACE
        return st

    def load_facts(self, pos: Facts) -> None:
        """Write the public facts of ``pos`` into this state and derive every table from them
        (:meth:`derive_tables`). Hidden facts (supplies, hands, set-aside tiles, deck order)
        stay as they are; secret mission cards are written only when ``pos`` has them."""
        b = self.board
        g = self.game
        n = self.n
        card_ix = {c.id: c.index for c in g.cards}
        tok_ix = {t.id: t.index for t in g.tokens}
        occ = [-1] * len(b.spaces)
        tile = [-1] * len(b.spaces)
        for pt in pos.tiles:
            h = b.by_label[pt.hex.strip().upper()]
            if pt.seat is None:
                occ[h] = NEUTRAL
            else:
                occ[h] = pt.seat
                tile[h] = TILE_CODES.index(str(pt.tile))
        holder = [-1] * len(b.castles)
        castle_ix = {c.id: c.index for c in b.castles}
        for cid, q in pos.castles:
            holder[castle_ix[cid]] = q
        last = dict(pos.district_last)
        last_placer = [-1] * len(b.districts)
        for d in b.districts:
            if d.id in last:
                last_placer[d.index] = last[d.id]
            else:
                # No tie depends on it (validate checks): any seat present will do.
                for h in d.spaces:
                    if 0 <= occ[h] < n and tile[h] >= 2:
                        last_placer[d.index] = occ[h]
                        break
        self.cards.display = [card_ix[c] for c in pos.display]
        if pos.tower_tokens:
            tok_at = dict(pos.tower_tokens)
            self.tokens_on_towers = [tok_ix[tok_at[t.id]] for t in b.towers]
        self.cards.fulfilled = [0] * len(g.cards)
        self.cards.first_paid = [False] * len(g.cards)
        for m, who in pos.fulfilled:
            self.cards.fulfilled[card_ix[m]] = sum(1 << q for q in who)
            # The first to fulfil took the higher value; later ones get the lower (I-10).
            self.cards.first_paid[card_ix[m]] = bool(who)
        self.cards.marks = [[card_ix[c] for c in ms] for ms in pos.marks]
        self.score = list(pos.scores)
        self.cat = [0] * (NCAT * n)
        for q, bd in enumerate(pos.breakdown):
            for name, v in bd:
                self.cat[CATEGORIES.index(name) * n + q] = v
        if pos.secrets is not None:
            own = [[card_ix[c] for c in s] for s in pos.secrets]
            if b.is_ireland:
                self.cards.tower_cards = own
            else:
                self.cards.cathedral_cards = own
        self.derive_tables(occ, tile, holder, last_placer)

    def derive_tables(self, owner: list[int], tile: list[int], holder: list[int],
                      last_placer: list[int]) -> None:
        """Set the board to ``owner``/``tile`` (per space), castle ``holder`` and district
        ``last_placer``, and recompute every table the engine derives from them (see
        :mod:`rebirth.engine.tables`): farm groups, free lists, region counts, offshore
        farms, tiles placed, district fill and influence, first ranks (Ireland), castle
        adjacency and castles held, cathedral pieces and tower visits. The one derivation
        from facts; ``_place`` keeps the same tables up to date move by move."""
        b = self.board
        n = self.n
        ns = len(b.spaces)
        spaces = Occupancy.empty(ns, len(b.regions), n)
        spaces.owner = owner
        spaces.tile = tile
        parent, size = spaces.group_parent, spaces.group_size
        dt = Districts.empty(len(b.districts), n)
        dt.last_placer = last_placer
        ct = Castles.empty(len(b.castles), n)
        ct.holder = holder
        vt = Visits.empty(len(b.cathedrals), len(b.towers), n)
        for s in b.spaces:
            h = s.index
            p = owner[h]
            if p == -1:
                lst = spaces.free[_LIST_OF_KIND[s.kind]]
                spaces.free_at[h] = len(lst)
                lst.append(h)
                continue
            if p == NEUTRAL:
                continue
            t = tile[h]
            spaces.placed[p] += 1
            spaces.region_tiles[s.region * n + p] += 1
            farm = t < 2
            if farm:
                if s.offshore:
                    spaces.offshore_farms[p] += 1
                for nb in b.nbrs[h]:
                    if owner[nb] == p and tile[nb] == t:
                        a, c = uf_find(parent, h), uf_find(parent, nb)
                        if a != c:
                            if size[a] < size[c]:
                                a, c = c, a
                            parent[c] = a
                            size[a] += size[c]
            else:
                dt.influence[s.district * n + p] += t - 1
                dt.filled[s.district] += 1
            for c in b.adj_castles[h]:
                ct.adjacent[c * n + p] += 1
                if farm:
                    ct.adjacent_farms[c * n + p] += 1
            # K-1, I-6: a piece / visit comes with the first tile next to the structure.
            for k in b.adj_cathedrals[h]:
                vt.cathedral_pieces[k] |= 1 << p
            for k in b.adj_towers[h]:
                vt.tower_visits[k] |= 1 << p
        for s in b.spaces:
            p = owner[s.index]
            if 0 <= p < n and tile[s.index] < 2:
                spaces.largest_group[p] = max(spaces.largest_group[p],
                                              size[uf_find(parent, s.index)])
        ct.held = [sum(1 for x in holder if x == q) for q in range(n)]
        vt.towers_visited = [sum(1 for m in vt.tower_visits if m >> q & 1) for q in range(n)]
        if self.cards.display:
            # First ranks count for Ireland's public missions (I-11); a full district was
            # ranked when its completer, its last placer, filled it (T-3, T-4, T-5).
            for d, dist in enumerate(b.districts):
                if dist.size > 1 and dt.filled[d] == dist.size:
                    present = [q for q in range(n) if dt.influence[d * n + q] > 0]
                    rank_order(present, dt.influence, d * n, last_placer[d], n,
                               dist.size == 2 and "medium_completer_wins" in self.game.variants)
                    if present:
                        dt.first_ranks[present[0]] += 1
        self.occupancy = spaces
        self.districts = dt
        self.castles = ct
        self.visited = vt

    def rederive_tables(self) -> None:
        """:meth:`derive_tables` from this state's own board facts (a consistency check)."""
        self.derive_tables(self.occupancy.owner[:], self.occupancy.tile[:],
                           self.castles.holder[:], self.districts.last_placer[:])

    # ------------------------------------------------------------------ basics

    def clone(self) -> State:
        """An independent copy (the RNG state included)."""
        c = State.__new__(State)
        c.game = self.game
        c.board = self.board
        c.n = self.n
        c.setup = self.setup
        c.source = None if self.source is None else self.source.clone()
        # The chance stream is shared until one of the two draws from it (copy on first use):
        # copying a Mersenne Twister is two thirds of a clone, and most clones (a search's, the
        # server's proposal of a step) never draw.
        c._rng = self._rng
        c._rng_shared = self._rng_shared = True
        c.occupancy = self.occupancy.clone()
        c.districts = self.districts.clone()
        c.castles = self.castles.clone()
        c.visited = self.visited.clone()
        c.score = self.score[:]
        c.cat = self.cat[:]
        c.cards = self.cards.clone()
        c.pending_extra = self.pending_extra
        c.pending_double = self.pending_double
        c.extra_tile = self.extra_tile
        c.tiles = self.tiles.clone()
        c.history = self.history[:]
        # The history's JSON is built lazily and its entries are never edited: sharing them
        # keeps a clone from rebuilding the whole list on its next view.
        c.hjson = self.hjson[:]
        c.winners_ = self.winners_[:]
        c.final_events = self.final_events[:]
        c.initial_events = self.initial_events
        c._events = None
        c.done = self.done
        c.turn = self.turn
        c.phase = self.phase
        c.cur = self.cur
        c.tokens_on_towers = self.tokens_on_towers
        return c

    @property
    def current_player(self) -> int:
        """The seat to act; :data:`CHANCE` at a chance node, :data:`TERMINAL` when over."""
        if self.done:
            return TERMINAL
        return CHANCE if self.phase == PHASE_CHANCE else self.cur

    def is_chance_node(self) -> bool:
        """True when a chance outcome (an extra tile's reveal, I-7) must be applied next."""
        return self.phase == PHASE_CHANCE

    def face_down(self, p: int) -> list[int]:
        """Seat p's set-aside tiles still face down (I-7: a revealed tile is never drawn again)."""
        known = self.tiles.known_set_aside[p]
        if not known:
            return self.tiles.set_aside[p][:]
        rest = self.tiles.set_aside[p][:]
        for t in known:
            rest.remove(t)
        return rest

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At a chance node: each possible outcome (a tile kind) with its probability."""
        if self.phase != PHASE_CHANCE:
            return []
        fd = self.face_down(self.cur)
        return [(t, fd.count(t) / len(fd)) for t in sorted(set(fd))]

    @property
    def rng(self) -> random.Random:
        """The game's chance stream (I-7's reveals): this state's own, copied from a clone's
        shared one on first use."""
        if self._rng_shared:
            # Random(0) is cheap to build; a seedless Random() would read the OS entropy pool.
            own = random.Random(0)
            own.setstate(self._rng.getstate())
            self._rng = own
            self._rng_shared = False
        return self._rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng = value
        self._rng_shared = False

    def sample_chance(self, rng: random.Random) -> int:
        """A chance outcome drawn with its probability (one ``rng.random()`` call)."""
        fd = self.face_down(self.cur)
        return fd[int(rng.random() * len(fd))]

    def is_terminal(self) -> bool:
        return self.done

    @property
    def tile_to_place(self) -> int:
        """The tile the current player must place now (-1 outside a placement)."""
        if self.phase == PHASE_PLACE:
            return self.tiles.hand[self.cur]
        if self.phase == PHASE_EXTRA:
            return self.extra_tile
        return -1

    def group_root(self, h: int) -> int:
        """The root space of the farm group on space ``h`` (``h`` itself when alone)."""
        return uf_find(self.occupancy.group_parent, h)

    def best_farm_spaces(self, spaces: list[int], p: int, t: int) -> list[int]:
        """Among free ``spaces``, those where a farm ``t`` of seat ``p`` would form the
        largest group (what F-1 pays most for), in the order given: the playout policy's
        question, answered in one call."""
        parent = self.occupancy.group_parent
        size = self.occupancy.group_size
        occ = self.occupancy.owner
        tile = self.occupancy.tile
        nbrs = self.board.nbrs
        best_g = -1
        best: list[int] = []
        for h in spaces:
            g = 1
            roots: list[int] = []
            for nb in nbrs[h]:
                if occ[nb] == p and tile[nb] == t:
                    # uf_find inlined, read-only: this is the playouts' inner loop.
                    r = nb
                    while parent[r] != r:
                        r = parent[r]
                    if r not in roots:
                        roots.append(r)
                        g += size[r]
            if g > best_g:
                best_g, best = g, [h]
            elif g == best_g:
                best.append(h)
        return best

    # ------------------------------------------------------------ legal actions

    def _spaces_for(self, t: int) -> list[int]:
        free = self.occupancy.free
        if t >= 2:
            return free[L_SETTLE][:]
        own = L_ENERGY if t == 0 else L_FOOD
        out = free[own] + free[L_EITHER]
        if out:
            return out
        # P-3: emergency rule, the other farm type, never a settlement space.
        return free[L_FOOD if t == 0 else L_ENERGY][:]

    def _has_space_for(self, t: int) -> bool:
        free = self.occupancy.free
        if t >= 2:
            return bool(free[L_SETTLE])
        return bool(free[0] or free[1] or free[2])

    def _mark_options(self, p: int) -> list[int]:
        f = self.cards.fulfilled
        bit = 1 << p
        mine = self.cards.marks[p]
        return [m for m in self.cards.display if not f[m] & bit and m not in mine]

    def spaces_for(self, tile: int) -> list[int]:
        """The spaces where a tile of kind ``tile`` may go now (P-1…P-4)."""
        return self._spaces_for(tile)

    def has_space_for(self, tile: int) -> bool:
        """Whether a tile of kind ``tile`` has any legal space now (else P-7 discards it)."""
        return self._has_space_for(tile)

    def mark_options(self, p: int) -> list[int]:
        """The public missions seat ``p`` may put an x2 marker on now (I-8)."""
        return self._mark_options(p)

    def why_not_place(self, space: int, tile: int) -> dict[str, Any]:
        """Why a tile of kind ``tile`` may not go on ``space`` now (P-1…P-4), as a message value."""
        hand = self.tiles.hand
        p = self.cur
        held = hand[p]
        hand[p] = tile
        try:
            return self._why_illegal(space)
        finally:
            hand[p] = held

    def why_not_mark(self, card: int) -> dict[str, Any]:
        """Why an x2 marker may not go on mission ``card`` now (I-8), as a message value."""
        return self._why_illegal(self.game.codec.mark_id(card))

    def place_named(self, p: int, tile: int, space: int) -> None:
        """Seat ``p`` places a tile of kind ``tile`` it names on ``space`` (legal; no checks):
        at a table the tile comes from no deal. In an extra-tile phase the tile is the revealed
        one, then ``tile`` must be it."""
        if self.phase == PHASE_PLACE:
            self.tiles.hand[p] = tile
        self.apply_id(space)

    def discard_named(self, p: int, tile: int) -> None:
        """P-7 at a table: seat ``p`` shows a tile of kind ``tile`` that has no legal space and
        discards it; the turn passes on (no checks)."""
        self.tiles.discarded[p].append(tile)
        ev = self._events
        if ev is not None:
            ev.append(explain.discard(p, tile))
        self.cur = (p + 1) % self.n
        self._start_turn()

    def reveal_named(self, p: int, tile: int, unknown: int) -> None:
        """I-7 at a table: one of seat ``p``'s face-down tiles (stored as ``unknown``) turns
        out to be of kind ``tile``; then the engine's extra-tile rule goes on (no checks)."""
        a = self.tiles.set_aside[p]
        a[a.index(unknown)] = tile
        self.apply_id(tile)

    def legal_action_ids(self) -> list[int]:
        """Legal action ids (see :mod:`rebirth.engine.codec`); the possible outcomes at a chance node."""
        if self.done:
            return []
        if self.phase == PHASE_MARK:
            codec = self.game.codec
            return [codec.mark_id(m) for m in self._mark_options(self.cur)]
        if self.phase == PHASE_CHANCE:
            return sorted(set(self.face_down(self.cur)))
        return self._spaces_for(self.tile_to_place)

    @property
    def legal_actions(self) -> LegalActions:
        """The legal actions of the player to act, as a lazy view."""
        return LegalActions(self)

    def random_action_id(self, rng: random.Random) -> int:
        """A uniformly random legal action without building the list (fast path for playouts);
        at a chance node an outcome drawn with its probability."""
        if self.phase == PHASE_CHANCE:
            return self.sample_chance(rng)
        if self.phase == PHASE_MARK:
            opts = self.legal_action_ids()
            return opts[int(rng.random() * len(opts))]
        t = self.tiles.hand[self.cur] if self.phase == PHASE_PLACE else self.extra_tile
        free = self.occupancy.free
        if t >= 2:
            lst = free[L_SETTLE]
            return lst[int(rng.random() * len(lst))]
        a = free[L_ENERGY if t == 0 else L_FOOD]
        e = free[L_EITHER]
        k = len(a) + len(e)
        if k:
            i = int(rng.random() * k)
            return a[i] if i < len(a) else e[i - len(a)]
        o = free[L_FOOD if t == 0 else L_ENERGY]
        return o[int(rng.random() * len(o))]

    def action_from_id(self, aid: int) -> Action:
        """The action of an id (see :class:`~rebirth.engine.codec.ActionCodec`); at a chance
        node, the outcome."""
        if self.phase == PHASE_CHANCE:
            return self.game.codec.decode_chance(aid)
        return self.game.codec.decode(aid)

    def action_id(self, action: Action) -> int | None:
        """The id of an action, or None if it names no hex/mission of this game."""
        return self.game.codec.encode(action)

    def action_text(self, aid: int) -> str:
        """The text of an id: an action, or at a chance node an outcome (``reveal S2``)."""
        if self.phase == PHASE_CHANCE:
            return self.game.codec.chance_text(aid)
        return self.game.codec.text(aid)

    def action_texts(self, aids: tuple[int, ...]) -> tuple[str, ...]:
        """The texts of several ids (:meth:`action_text` of each)."""
        if self.phase == PHASE_CHANCE:
            return tuple([self.game.codec.chance_text(a) for a in aids])
        return self.game.codec.texts(aids)

    # ------------------------------------------------------------------- apply

    def apply(self, action: Action | str) -> list[Event]:
        """Apply a player's action after checking it; returns the events it caused.

        Raises :class:`ActionSyntaxError` or :class:`IllegalActionError` and then
        changes nothing.
        """
        if self.done:
            raise IllegalActionError("error.game_over")
        if isinstance(action, str):
            action = parse_action(action)
        if self.phase == PHASE_CHANCE:
            if isinstance(action, Reveal):
                return self.apply_chance(parse_tile(action.tile))
            raise IllegalActionError(
                "error.chance_outcome_extra_tile_s")
        aid = self.action_id(action)
        if aid is None:
            raise unknown_action(action)
        if aid not in self.legal_action_ids():
            raise IllegalActionError.of(self._why_illegal(aid))
        with self.recording() as events:
            self.apply_id(aid)
        return events

    def apply_chance(self, outcome: int) -> list[Event]:
        """Apply a chance outcome (a tile kind revealed as extra tile, I-7) after checking it."""
        if self.phase != PHASE_CHANCE:
            raise IllegalActionError("error.no_chance_outcome_pending")
        if outcome not in self.face_down(self.cur):
            code = tile_code(outcome) if ActionCodec.is_chance(outcome) else str(outcome)
            raise IllegalActionError(
                "error.not_among_face_down_set", code=code)
        with self.recording() as events:
            self.apply_id(outcome)
        return events

    def recording(self) -> Recording:
        """``with state.recording() as events:``: the events of what runs inside the block."""
        return Recording(self)

    def score_placement(self, space: int, *, tile: int | None = None, seat: int | None = None,
                        to_turn_end: bool = False) -> PlacementScore:
        """What placing on ``space`` would pay, worked out on a copy (this state is unchanged).

        By default the tile to place now by the player to act; ``seat`` and ``tile`` set a
        placement between turns instead (the calculator's question). Only the placement and
        its scoring (P-5) run, unless ``to_turn_end``: then the turn ends as :meth:`apply`
        ends it (a last placement then includes the end scoring, E-2). The one place that
        answers "what would this placement score". Raises IllegalActionError with the
        rule's reason when the placement is not legal now.
        """
        if self.done:
            raise IllegalActionError("error.game_over")
        c = self.clone()
        if seat is not None:
            c.cur = seat
            c.phase = PHASE_PLACE
        p = c.cur
        if tile is not None:
            c.tiles.hand[p] = tile
        t = c.tile_to_place
        if space not in c.legal_action_ids() or c.phase not in (PHASE_PLACE, PHASE_EXTRA):
            raise IllegalActionError.of(c._why_illegal(space))
        n = c.n
        before = c.score[:]
        cat_before = c.cat[:]
        if c.phase == PHASE_PLACE:
            c.tiles.hand[p] = -1
        else:
            c.extra_tile = -1
        with c.recording() as events:
            c._place(p, space, t)
            extra, double = c.pending_extra, c.pending_double
            if to_turn_end:
                c.history.append((p, space))
                c._continue_turn()
        cats = tuple({name: c.cat[i * n + q] - cat_before[i * n + q]
                      for i, name in enumerate(CATEGORIES)
                      if name in c.categories and c.cat[i * n + q] != cat_before[i * n + q]}
                     for q in range(n))
        return PlacementScore(seat=p, space=space, tile=t,
                              points=tuple(c.score[q] - before[q] for q in range(n)),
                              categories=cats, extra_tiles=extra, x2_markers=double,
                              events=tuple(events), after=c)

    @property
    def deck_count(self) -> int:
        """Mission cards left in the deck (a public count; the order is hidden)."""
        return len(self.cards.deck) - self.cards.next_card

    def board_copy(self) -> State:
        """A copy that is not over: the same board and tables, to ask standings and tiebreak
        counts of a finished game (its scores are the final ones)."""
        c = self.clone()
        c.done = False
        return c

    def finish(self) -> None:
        """End the game here and score it (E-2…E-4); its events go to the recording open now,
        if any (table mode ends this way once the drawn cards are entered)."""
        self._finish()

    def end_now(self) -> list[Event]:
        """End the game here and score it (E-2…E-4, the engine's own end scoring); returns
        its events. For "if the game ended now": call it on a :meth:`clone`."""
        with self.recording() as events:
            self._finish()
        return events

    def district_payout(self, d: int) -> tuple[tuple[int, ...], list[Event]]:
        """What district ``d`` pays every seat now, with its events, worked out on a copy: a
        complete district what it paid at completion (T-3…T-5), an incomplete one what it
        would pay at game end (T-7)."""
        c = self.clone()
        dist = self.board.districts[d]
        with c.recording() as events:
            c._score_district(d, self.districts.last_placer[d],
                              final=self.districts.filled[d] < len(dist.spaces))
        return tuple(c.score[q] - self.score[q] for q in range(self.n)), events

    def castle_contenders(self, c: int) -> list[int]:
        """The seats that may hold castle ``c`` by the tiles next to it (C-1…C-3): those with
        a tile next to it that have the most adjacent spaces and, of these, the most adjacent
        farms. None: nobody holds it (C-1); one: that seat holds it; several: a full tie.

        A placer takes a castle only when at least level with its holder (more spaces, C-2;
        as many and more farms, C-3; a full tie only with ``castle_tie_to_active``), so the
        holder is one of these seats under either rule; in a full tie the variant decides
        which by the order of play (the first to get level keeps it, or the last to get
        level takes it), which a board without its history does not show."""
        n = self.n
        k = c * n
        adj = self.castles.adjacent
        farms = self.castles.adjacent_farms
        best = max((adj[k + q], farms[k + q]) for q in range(n))
        return [q for q in range(n) if adj[k + q] and (adj[k + q], farms[k + q]) == best]

    def district_seats(self, d: int) -> list[int]:
        """The seats with influence in district ``d`` (T-1), in seat order."""
        n = self.n
        infl = self.districts.influence
        return [q for q in range(n) if infl[d * n + q] > 0]

    def last_placer_matters(self, d: int) -> bool:
        """Whether district ``d``'s standing depends on who placed there last (T-4, T-7): two
        seats there have the same influence, and no variant makes the order irrelevant. With
        ``incomplete_as_small`` an incomplete district pays each seat its own influence at the
        end (T-7) and the next settlement there makes its placer the last one, so a tie in it
        depends on nothing; a complete district was ranked by its completer (T-4) either way."""
        n = self.n
        infl = self.districts.influence
        vals = [infl[d * n + q] for q in self.district_seats(d)]
        if len(set(vals)) == len(vals):
            return False
        incomplete = self.districts.filled[d] < len(self.board.districts[d].spaces)
        return not (incomplete and "incomplete_as_small" in self.game.variants)

    def start_play(self, to_move: int) -> None:
        """Begin play here with ``to_move`` to act: every seat draws its tile (P-6), then the
        turn starts as usual (P-7 discards, or the end of the game when no tile is left)."""
        self.cur = to_move
        for q in range(self.n):
            self._draw(q)
        self._start_turn()

    def _why_illegal(self, aid: int) -> dict[str, Any]:
        b = self.board
        if self.phase == PHASE_MARK:
            return msg("error.x2_marker_must_go_public")
        if not self.game.codec.is_place(aid):
            return msg("error.you_must_place_tile_now")
        s = b.spaces[aid]
        t = self.tile_to_place
        if self.occupancy.owner[aid] != -1:
            return msg("error.already_occupied_p_1", label=s.label)
        if t >= 2:
            return msg("error.not_settlement_space_settlement_goes", label=s.label)
        if s.kind == SETTLEMENT:
            return msg("error.settlement_space_farm_never_goes", label=s.label)
        return msg("error.space_may_use_only_when", label=s.label, kind=msg(f"space.kind.a.{s.kind_name}"),
                   tile=msg(f"tile.{tile_code(t)}.a"))

    def apply_id(self, aid: int) -> None:
        """Apply a legal action (or at a chance node, an outcome) given as int. Fast path:
        no legality check."""
        p = self.cur
        if self.phase == PHASE_CHANCE:
            self._resolve_extra(p, aid)
            return
        if self.phase == PHASE_MARK:
            m = self.game.codec.card_of(aid)
            self.cards.marks[p].append(m)
            self.pending_double -= 1
            self.history.append((p, aid))
            ev = self._events
            if ev is not None:
                ev.append(explain.double_marker(p, self.game.cards[m]))
            self._continue_turn()
            return
        if self.phase == PHASE_PLACE:
            hand = self.tiles.hand
            t = hand[p]
            hand[p] = -1
        else:
            t = self.extra_tile
            self.extra_tile = -1
        self.history.append((p, aid))
        self._place(p, aid, t)
        self._continue_turn()

    # ---------------------------------------------------------------- the turn

    def _remove_free(self, h: int) -> None:
        spaces = self.occupancy
        lst = spaces.free[_LIST_OF_KIND[self.board.spaces[h].kind]]
        free_at = spaces.free_at
        i = free_at[h]
        last = lst.pop()
        if last != h:
            lst[i] = last
            free_at[last] = i

    def _draw(self, p: int) -> None:
        """P-6: draw the next supply tile into the hand, if any is left."""
        tiles = self.tiles
        drawn = tiles.drawn
        i = drawn[p]
        sup = tiles.supply[p]
        if i < len(sup):
            tiles.hand[p] = sup[i]
            drawn[p] = i + 1

    def _start_turn(self) -> None:
        """Find the next player able to act, applying P-7 discards; end the game when none."""
        if self.source is not None:
            self.source.start_turn(self)
            return
        n = self.n
        hand = self.tiles.hand  # changed in place only, so one binding serves the loop
        for _ in range(64 * n):
            p = self.cur
            t = hand[p]
            if t < 0:
                # Equal supplies make this a full stop: every hand is empty (E-1).
                if all(h < 0 for h in hand):
                    self._finish()
                    return
                self.cur = (p + 1) % n
                continue
            if self._has_space_for(t):
                self.phase = PHASE_PLACE
                return
            # P-7: no legal space at all: reveal, discard, draw, pass on.
            hand[p] = -1
            self.tiles.discarded[p].append(t)
            ev = self._events
            if ev is not None:
                ev.append(explain.discard(p, t))
            self._draw(p)
            self.cur = (p + 1) % n
        raise RuntimeError("no player can act")  # pragma: no cover

    def _continue_turn(self) -> None:
        p = self.cur
        while self.pending_extra:
            self.pending_extra -= 1
            if len(self.tiles.set_aside[p]) > len(self.tiles.known_set_aside[p]):
                # I-7: a face-down tile is revealed at random: a chance node.
                self.phase = PHASE_CHANCE
                return
            ev = self._events
            if ev is not None:
                ev.append(explain.extra_lost(p))
        while self.pending_double:
            if self._mark_options(p):
                self.phase = PHASE_MARK
                return
            self.pending_double -= 1
            ev = self._events
            if ev is not None:
                ev.append(explain.double_lost(p))
        # P-6 and pass clockwise.
        self._draw(p)
        self.turn += 1
        self.cur = (p + 1) % self.n
        self._start_turn()

    def _resolve_extra(self, p: int, t: int) -> None:
        """I-7: the revealed tile ``t`` is placed as an extra tile, or, with no legal space,
        stays set aside face up (public from then on); then the turn goes on."""
        ev = self._events
        self.history.append((-1, t))
        if not self._has_space_for(t):
            self.tiles.known_set_aside[p].append(t)
            self.phase = PHASE_PLACE
            if ev is not None:
                ev.append(explain.extra_unplaceable(p, t))
            self._continue_turn()
            return
        self.tiles.set_aside[p].remove(t)
        self.extra_tile = t
        self.phase = PHASE_EXTRA
        if ev is not None:
            ev.append(explain.extra_tile(p, t))

    # ---------------------------------------------------------- scoring (P-5)

    def _pay(self, p: int, pts: int, cat: int) -> None:
        self.score[p] += pts
        self.cat[cat * self.n + p] += pts

    def _place(self, p: int, h: int, t: int) -> None:
        b = self.board
        n = self.n
        spaces = self.occupancy  # the tables bound once: this is the playouts' hot path
        occ = spaces.owner
        tl = spaces.tile
        ev = self._events
        sp = b.spaces[h]
        # _remove_free inlined (one call less per placement): swap h out of its free list.
        lst = spaces.free[_LIST_OF_KIND[sp.kind]]
        free_at = spaces.free_at
        i = free_at[h]
        last = lst.pop()
        if last != h:
            lst[i] = last
            free_at[last] = i
        occ[h] = p
        tl[h] = t
        spaces.placed[p] += 1
        spaces.region_tiles[sp.region * n + p] += 1
        farm = t < 2
        completed = False
        if ev is not None:
            emergency = farm and sp.kind in (ENERGY, FOOD) and sp.kind != t
            ev.append(explain.place(p, t, sp, emergency))
        if farm:
            # F-1: union-find over same-owner, same-type neighbours.
            parent = spaces.group_parent
            size = spaces.group_size
            root = h
            for nb in b.nbrs[h]:
                if occ[nb] == p and tl[nb] == t:
                    r = uf_find(parent, nb)
                    if r != root:
                        if size[r] > size[root]:
                            parent[root] = r
                            size[r] += size[root]
                            root = r
                        else:
                            parent[r] = root
                            size[root] += size[r]
            g = size[root]
            self.score[p] += g
            self.cat[p] += g  # C_FARMS == 0
            largest = spaces.largest_group
            if g > largest[p]:
                largest[p] = g
            if ev is not None:
                ev.append(explain.farm(p, t, g))
            if sp.offshore:
                self._pay(p, 1, C_OFFSHORE)
                spaces.offshore_farms[p] += 1
                if ev is not None:
                    ev.append(explain.offshore(p, sp))
        else:
            d = sp.district
            dist = b.districts[d]
            inf = t - 1
            dt = self.districts
            dt.influence[d * n + p] += inf
            dt.filled[d] += 1
            dt.last_placer[d] = p
            size_d = len(dist.spaces)
            if size_d == 1:
                self._pay(p, inf, C_SETTLE)
                if ev is not None:
                    ev.append(explain.small_district(p, dist, inf))
            if sp.port:
                self._pay(p, 1, C_PORTS)
                if ev is not None:
                    ev.append(explain.port(p, sp))
            if size_d > 1 and dt.filled[d] == size_d:
                completed = True
                self._score_district(d, p, final=False)
        # C-1…C-4
        ct = self.castles
        adj = ct.adjacent
        adj_farms = ct.adjacent_farms
        holder = ct.holder
        held = ct.held
        for c in b.adj_castles[h]:
            k = c * n
            adj[k + p] += 1
            if farm:
                adj_farms[k + p] += 1
            hol = holder[c]
            if hol == p:
                continue
            if hol < 0:
                holder[c] = p
                held[p] += 1
                if ev is not None:
                    ev.append(explain.castle_claim(p, b.castles[c]))
                continue
            mine, theirs = adj[k + p], adj[k + hol]
            take = mine > theirs
            rule = "C-2"
            if mine == theirs:
                mf, tf = adj_farms[k + p], adj_farms[k + hol]
                rule = "C-3"
                take = mf > tf or (mf == tf and "castle_tie_to_active" in self.game.variants)
            if take:
                holder[c] = p
                held[p] += 1
                held[hol] -= 1
            if ev is not None:
                ev.append(explain.castle_contest(
                    p, hol, b.castles[c], take=take, rule=rule, mine=mine, theirs=theirs,
                    my_farms=adj_farms[k + p], their_farms=adj_farms[k + hol]))
        if b.adj_cathedrals[h]:
            self._cathedrals(p, h)
        if b.adj_towers[h]:
            self._towers(p, h)
        if self.cards.display:
            self._public_missions(p, completed)

    def _draw_card(self, into: list[int]) -> int:
        """Draw the top mission card into a player's hidden cards (K-1, I-9); -1 if empty."""
        if self.source is not None:
            return self.source.draw_card(self, into)
        if self.cards.next_card >= len(self.cards.deck):
            return -1
        card = self.cards.deck[self.cards.next_card]
        self.cards.next_card += 1
        into.append(card)
        return card

    def _cathedrals(self, p: int, h: int) -> None:
        b = self.board
        bit = 1 << p
        ev = self._events
        for k in b.adj_cathedrals[h]:
            pieces = self.visited.cathedral_pieces
            if pieces[k] & bit:
                continue
            pieces[k] |= bit
            card = self._draw_card(self.cards.cathedral_cards[p])
            if ev is not None:
                ev.append(explain.cathedral(p, b.cathedrals[k],
                                            self.game.cards[card] if card >= 0 else None))

    def _towers(self, p: int, h: int) -> None:
        b = self.board
        bit = 1 << p
        ev = self._events
        # Adjacent towers resolve in the map's tower order (P-5); the table is built that way.
        for tw in b.adj_towers[h]:
            visits = self.visited
            if visits.tower_visits[tw] & bit:
                continue
            visits.tower_visits[tw] |= bit
            visits.towers_visited[p] += 1
            tok = self.game.tokens[self.tokens_on_towers[tw]]
            card = -1
            if tok.kind == "points":
                self._pay(p, tok.points, C_TOWERS)
            elif tok.kind == "extra_tile":
                self.pending_extra += 1
            elif tok.kind == "double":
                self.pending_double += 1
            else:
                card = self._draw_card(self.cards.tower_cards[p])
            if ev is not None:
                ev.append(explain.tower(p, b.towers[tw], tok,
                                        self.game.cards[card] if card >= 0 else None))

    def _score_district(self, d: int, completer: int, *, final: bool) -> None:
        """T-3…T-5 (final=False, at completion) and T-7 (final=True, at game end)."""
        n = self.n
        dist = self.board.districts[d]
        size = len(dist.spaces)
        base = d * n
        infl = self.districts.influence
        present = [q for q in range(n) if infl[base + q] > 0]
        if not present:
            return
        ev = self._events
        ranks = RANKS[size]
        if final and "incomplete_as_small" in self.game.variants:
            for q in present:
                self._pay(q, infl[base + q], C_SETTLE)
                if ev is not None:
                    ev.append(explain.incomplete_as_small(q, dist, infl[base + q]))
            return
        if len(present) == 1 and not final:
            q = present[0]
            pts = sum(ranks)
            self._pay(q, pts, C_SETTLE)
            if self.cards.display:
                self.districts.first_ranks[q] += 1
            if ev is not None:
                ev.append(explain.district_alone(q, dist, pts))
            return
        completer_wins = size == 2 and "medium_completer_wins" in self.game.variants
        rank_order(present, infl, base, completer, n, completer_wins)
        for i, q in enumerate(present[: len(ranks)]):
            pts = ranks[i]
            self._pay(q, pts, C_SETTLE)
            if i == 0 and not final and self.cards.display:
                self.districts.first_ranks[q] += 1
            if ev is not None:
                v = infl[base + q]
                tied = any(o != q and infl[base + o] == v for o in present)
                ev.append(explain.district_rank(q, dist, i + 1, pts, v, tied=tied,
                                                completer_wins=completer_wins, final=final))

    # ---------------------------------------------------- Ireland public missions

    def meets_mission(self, card: int, q: int) -> bool:
        """Whether seat q meets Ireland card ``card``'s condition now (I-10, I-11)."""
        return self._meets(card, q)

    def is_castle_mission(self, card: int) -> bool:
        """Whether ``card``'s condition is about castles held: the one measure that can be
        lost again (C-2), so a fulfilled castle mission may no longer be met (I-10)."""
        return self.cards.conditions[card][0] == _CASTLES_HELD

    def _meets(self, card: int, q: int) -> bool:
        kind, a, b = self.cards.conditions[card]
        if kind == _FARM_GROUP:
            return self.occupancy.largest_group[q] >= a
        if kind == _CASTLES_HELD:
            return self.castles.held[q] >= a
        if kind == _TOWERS_VISITED:
            return self.visited.towers_visited[q] >= a
        if kind == _DISTRICT_FIRSTS:
            return self.districts.first_ranks[q] >= a
        if kind == _OFFSHORE_FARMS:
            return self.occupancy.offshore_farms[q] >= a
        if kind == _TILES_IN_PROVINCES:
            n = self.n
            rc = self.occupancy.region_tiles
            return sum(1 for r in range(len(self.board.regions)) if rc[r * n + q] >= a) >= b
        return False

    def mission_progress(self, card: int, q: int) -> tuple[int, int]:
        """How far seat q is on a card, as (have, need): on Ireland the card's measure and its
        threshold (I-11); on Scotland q's count and the most any other seat has (K-3: q needs
        at least that, and at least 1, K-7)."""
        kind, a, b = self.cards.conditions[card]
        if kind == _NONE:
            vals = self.mission_values(card)
            return vals[q], max([1] + [v for o, v in enumerate(vals) if o != q])
        if kind == _TILES_IN_PROVINCES:
            n = self.n
            rc = self.occupancy.region_tiles
            return sum(1 for r in range(len(self.board.regions)) if rc[r * n + q] >= a), b
        have = (self.occupancy.largest_group, self.castles.held, self.visited.towers_visited,
                self.districts.first_ranks, self.occupancy.offshore_farms)[kind][q]
        return have, a

    def _public_missions(self, p: int, completed: bool) -> None:
        """I-10: check every displayed mission for every player, placer first, then clockwise.

        Only the placer's measures can grow, except first ranks: a completed district
        can give another player a first rank, so then everyone is checked.
        """
        n = self.n
        ev = self._events
        for off in range(n if completed else 1):
            q = (p + off) % n
            bit = 1 << q
            for m in self.cards.display:
                if self.cards.fulfilled[m] & bit or not self._meets(m, q):
                    continue
                self.cards.fulfilled[m] |= bit
                card = self.game.cards[m]
                first = not self.cards.first_paid[m]
                self.cards.first_paid[m] = True
                pts = card.values[0] if first else card.values[1]
                doubled = m in self.cards.marks[q]
                if doubled:
                    pts *= 2
                self._pay(q, pts, C_PUBLIC)
                if ev is not None:
                    ev.append(explain.public_mission(q, card, first=first, pts=pts, doubled=doubled))

    # ------------------------------------------------------------ game end (E)

    def mission_values(self, card: int) -> list[int]:
        """A Scotland secret mission's measure for every seat (K-3…K-8), in one pass."""
        cond = self.game.cards[card].condition
        n = self.n
        out = [0] * n
        occ = self.occupancy.owner
        spaces = self.game.mission_spaces[card]
        if cond["type"] == "most_settlements":
            tile = self.occupancy.tile
            inf = cond["filter"].get("influence", 0)
            for i in spaces:
                o = occ[i]
                if 0 <= o < n and (not inf or tile[i] - 1 == inf):
                    out[o] += 1
            return out
        # Regions and castles: every occupied space counts, whatever its tile (K-4, K-6).
        for i in spaces:
            o = occ[i]
            if 0 <= o < n:
                out[o] += 1
        return out

    def mission_value(self, card: int, q: int) -> int:
        """A Scotland secret mission's measure for seat q."""
        return self.mission_values(card)[q]

    def secret_fulfilled(self, card: int, q: int) -> bool:
        """Whether player q fulfils a secret card now (Scotland K-3/K-7, Ireland I-9)."""
        if self.board.is_ireland:
            return self._meets(card, q)
        vals = self.mission_values(card)
        mine = vals[q]
        # K-7: "all have 0" fulfils nothing; K-3: a tie with the leader is enough.
        return mine >= 1 and mine == max(vals)

    def _finish(self) -> None:
        """E-2: incomplete districts, castles, secret missions; then the winners (E-3/E-4)."""
        self.done = True
        self.phase = PHASE_END
        self.cur = -1
        b = self.board
        n = self.n
        mark = len(self._events) if self._events is not None else 0
        for d, dist in enumerate(b.districts):
            f = self.districts.filled[d]
            if 0 < f < len(dist.spaces):
                self._score_district(d, self.districts.last_placer[d], final=True)
        ev = self._events
        for c, hol in enumerate(self.castles.holder):
            if hol >= 0:
                self._pay(hol, CASTLE_POINTS, C_CASTLES)
                if ev is not None:
                    ev.append(explain.final_castle(hol, b.castles[c]))
        ruling = not b.is_ireland  # K-3/K-7 said with the first revealed card only
        for q in range(n):
            cards = self.cards.tower_cards[q] if b.is_ireland else self.cards.cathedral_cards[q]
            for card in cards:
                cd = self.game.cards[card]
                ok = self.secret_fulfilled(card, q)
                pts = (cd.values[0] if b.is_ireland else cd.points) if ok else 0
                if ok:
                    self._pay(q, pts, C_MISSIONS)
                if ev is not None:
                    ev.append(explain.mission_reveal(q, cd, ok, pts, ireland=b.is_ireland,
                                                     ruling=ruling))
                    ruling = False
        self.winners_ = self._winners()
        if ev is not None:
            ev.append(explain.game_end(self.winners_[:], self.score[:], ireland=b.is_ireland))
            self.final_events = ev[mark:]

    def tara_count(self, tower: int, q: int) -> int:
        return sum(1 for s in self.board.towers[tower].spaces if self.occupancy.owner[s] == q)

    def _winners(self) -> list[int]:
        return self.decide_winners()[0]

    def decide_winners(self, scores: list[int] | None = None) -> tuple[list[int], dict[str, Any] | None]:
        """E-3/E-4 on this board: the winners for ``scores`` (default: the scores now), and
        what decided a tie for first (None: no tie). The one place the tiebreak is worked out."""
        score = self.score if scores is None else scores
        best = max(score)
        tied = [q for q in range(self.n) if score[q] == best]
        if len(tied) == 1:
            return tied, None
        rule = "E-4" if self.board.is_ireland else "E-3"
        how: dict[str, Any] = {"rule": rule, "points": best, "tied": tied[:]}
        chain = self.board.tiebreak
        # E-3 variant stirling_literal: the chain's last castle (Stirling) decides whenever
        # no earlier step did, its holder winning even if not tied — also on a map whose
        # chain has no Edinburgh.
        literal_step = -1
        if "stirling_literal" in self.game.variants:
            castles = [i for i, (kind, _) in enumerate(chain) if kind == "castle"]
            literal_step = castles[-1] if castles else -1
        for step, (kind, ix) in enumerate(chain):
            if kind == "castle":
                hol = self.castles.holder[ix]
                if hol in tied or (step == literal_step and hol >= 0):
                    how.update(by="castle", id=self.board.castles[ix].id,
                               literal=hol not in tied)
                    return [hol], how
            else:
                counts = {q: self.tara_count(ix, q) for q in tied}
                top = max(counts.values())
                tied = [q for q in tied if counts[q] == top]
                if len(tied) == 1:
                    how.update(by="tower", id=self.board.towers[ix].id,
                               counts=[counts.get(q, -1) for q in range(self.n)])
                    return tied, how
        how["by"] = "shared"
        return tied, how

    def tiebreak(self) -> dict[str, Any] | None:
        """Once the game is over, what decided a tie for first (E-3, E-4): ``by`` is
        ``castle`` (its holder won; ``literal`` under stirling_literal), ``tower`` (most
        spaces next to it; ``counts`` per seat, -1 for seats not tied) or ``shared``; None
        when nobody tied or the game is not over."""
        return self.decide_winners()[1] if self.done else None

    # ---------------------------------------------------------------- results

    @property
    def winners(self) -> list[int]:
        """The winning seats after the tiebreak (several: a shared win); [] while playing."""
        return self.winners_[:]

    def returns(self) -> list[float]:
        """1/k for each of k winners, 0 for the others (OpenSpiel's ``returns``)."""
        if not self.done:
            return [0.0] * self.n
        return returns_of(self.n, self.winners_)

    @property
    def categories(self) -> tuple[str, ...]:
        return IRELAND_CATEGORIES if self.board.is_ireland else SCOTLAND_CATEGORIES

    def breakdown(self, q: int) -> dict[str, int]:
        """Points of seat q by category (the board's categories only)."""
        return {c: self.cat[CATEGORIES.index(c) * self.n + q] for c in self.categories}

    def tiles_of(self, q: int) -> dict[str, list[int]]:
        """Where each of seat q's tiles is (conservation invariant)."""
        b = self.board
        occ, tile = self.occupancy.owner, self.occupancy.tile
        placed = [tile[s.index] for s in b.spaces if occ[s.index] == q]
        return {
            "supply": self.tiles.supply[q][self.tiles.drawn[q]:],
            "hand": [self.tiles.hand[q]] if self.tiles.hand[q] >= 0 else [],
            "extra": [self.extra_tile] if self.extra_tile >= 0 and self.cur == q else [],
            "set_aside": self.tiles.set_aside[q][:],
            "returned": self.tiles.returned[q][:],
            "placed": placed,
            "discarded": self.tiles.discarded[q][:],
        }

    def history_json(self) -> list[dict[str, Any]]:
        """The actions so far, with chance outcomes (I-7 reveals), for a record."""
        return [dict(e) for e in self.history_entries()]

    def last_history_json(self) -> dict[str, Any]:
        """The last entry of :meth:`history_json` (the step just taken), without the others."""
        return dict(self.history_entries()[-1])

    def history_entries(self) -> list[dict[str, Any]]:
        """:meth:`history_json`'s entries themselves, not copies: never edit them."""
        # Views ask for this every move: extend a cache instead of rebuilding (quadratic).
        out = self.hjson
        for seat, a in self.history[len(out):]:
            if seat < 0:
                out.append({"chance": f"reveal {tile_code(a)}"})
            else:
                out.append({"seat": seat, "action": self.game.codec.text(a)})
        return out

    def view(self, seat: int | None, *, detail: bool = True) -> View:
        """What ``seat`` may see (None: a spectator); see :func:`rebirth.engine.infoset.view`."""
        return infoset.view(self, seat, detail=detail)

    def resample_from_infostate(self, seat: int, rng: random.Random) -> State:
        """A twin with everything hidden from ``seat`` drawn again (OpenSpiel's
        ``resample_from_infostate``); see :func:`rebirth.engine.infoset.resample`."""
        return infoset.resample(self, seat, rng)


# ------------------------------------------------ the game: configuration and states
# Game lives here, beside State: a game is the factory of its states and every state holds
# its game, so each type names the other; one module holds both without an import circle.


@dataclass(frozen=True, eq=False)
class Game:
    """Rules + configuration + factory of states."""

    board: Board
    players: int
    variants: frozenset[str] = frozenset()
    cards: tuple[MissionCard, ...] = field(default=(), repr=False)
    tokens: tuple[TowerToken, ...] = field(default=(), repr=False)

    @staticmethod
    def create(
        board: Board | str,
        players: int,
        variants: frozenset[str] | set[str] | list[str] | tuple[str, ...] = (),
        *,
        cards: tuple[MissionCard, ...] | None = None,
        tokens: tuple[TowerToken, ...] | None = None,
    ) -> Game:
        """A game on a board (object, shipped name or file path); validates the configuration."""
        b = resolve_board(board) if isinstance(board, str) else board
        if players not in (2, 3, 4):
            raise SetupError("setup.rebirth_for_2_4_players", players=players)
        vs = frozenset(variants)
        allowed = IRELAND_VARIANTS if b.is_ireland else SCOTLAND_VARIANTS
        for v in vs:
            if v not in VARIANTS:
                raise SetupError("setup.unknown_variant_known", v=repr(v), known=', '.join(VARIANTS))
            if v not in allowed:
                raise SetupError("setup.variant_does_not_apply", v=repr(v), rules=b.rules)
        c = builtin_cards(b) if cards is None else cards
        t = (builtin_tokens() if b.is_ireland else ()) if tokens is None else tokens
        if b.is_ireland and len(t) < len(b.towers):
            raise SetupError("setup.towers_but_only_tower_tokens", towers=len(b.towers), tokens=len(t))
        if b.is_ireland and len(c) < DISPLAY_SIZE:
            raise SetupError("setup.ireland_needs_at_least_public", display=DISPLAY_SIZE, cards=len(c))
        return Game(b, players, vs, c, t)

    @staticmethod
    def builtin(name: str, players: int, variants: frozenset[str] | set[str] | tuple[str, ...] = ()) -> Game:
        return Game.create(builtin_board(name), players, variants)

    # Computed on first use and kept: a hand-made cached property, since the compiled
    # build (mypyc) turns functools.cached_property into a property that recomputes.
    _mission_spaces: tuple[tuple[int, ...], ...] | None = field(init=False, repr=False)
    _codec: ActionCodec | None = field(init=False, repr=False)
    _conditions: list[tuple[Condition, int, int]] | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # Set here, not as field defaults: a compiled dataclass has no class-level default.
        object.__setattr__(self, "_mission_spaces", None)
        object.__setattr__(self, "_codec", None)
        object.__setattr__(self, "_conditions", None)

    @property
    def conditions(self) -> list[tuple[Condition, int, int]]:
        """Every card's Ireland condition compiled for the per-placement check (I-10, I-11),
        once per game: every state of the game shares the list."""
        found = self._conditions
        if found is None:
            found = [compile_condition(c.condition) for c in self.cards]
            object.__setattr__(self, "_conditions", found)
        return found

    @property
    def mission_spaces(self) -> tuple[tuple[int, ...], ...]:
        """Per card, the spaces its Scotland condition counts (see :func:`card_spaces`)."""
        found = self._mission_spaces
        if found is None:
            found = tuple(card_spaces(self.board, c) for c in self.cards)
            object.__setattr__(self, "_mission_spaces", found)
        return found

    @property
    def codec(self) -> ActionCodec:
        """How this game's actions are numbered (the only place that knows)."""
        found = self._codec
        if found is None:
            found = ActionCodec(self.board, self.cards)
            object.__setattr__(self, "_codec", found)
        return found

    @property
    def num_actions(self) -> int:
        """Distinct player actions: one per tile space, one x2 marker per mission card."""
        return self.codec.num_actions

    @property
    def set_aside_count(self) -> int:
        return SET_ASIDE[self.board.rules]

    def deal(self, seed: int | None = None, *, start_player: int | None = None) -> Setup:
        """A random setup (S-1…S-8) from ``seed`` (the deal's own stream: ``Random(seed)``,
        which no later draw of the game shares; docs/security.md)."""
        rng = random.Random(seed)
        tiles, _ = starting_tiles(self.players)
        k = self.set_aside_count
        supplies, aside = [], []
        for _p in range(self.players):
            mine = list(tiles)
            rng.shuffle(mine)
            aside.append(tuple(mine[:k]))
            supplies.append(tuple(mine[k:]))
        ids = [c.id for c in self.cards]
        rng.shuffle(ids)
        display: tuple[str, ...] = ()
        tower_tokens: tuple[str, ...] = ()
        if self.board.is_ireland:
            display, ids = tuple(ids[:DISPLAY_SIZE]), ids[DISPLAY_SIZE:]
            tok = [t.id for t in self.tokens]
            rng.shuffle(tok)
            tower_tokens = tuple(tok[: len(self.board.towers)])
        start = rng.randrange(self.players) if start_player is None else start_player
        return Setup(tuple(supplies), tuple(aside), tuple(ids), start, display, tower_tokens)

    def setup_from_facts(self, deck: tuple[str, ...], display: tuple[str, ...],
                         tower_tokens: tuple[str, ...]) -> Setup:
        """The setup of a state built from a position's facts (:meth:`State.from_facts`):
        full supplies, so that the first turn never ends the game, and nothing set aside."""
        full, _ = starting_tiles(self.players)
        n = self.players
        return Setup(supplies=tuple(full for _ in range(n)), set_aside=tuple(() for _ in range(n)),
                     mission_deck=deck, start_player=0, display=display, tower_tokens=tower_tokens)

    def check_setup(self, setup: Setup, *, strict: bool = True) -> None:
        """Refuse a setup that is not well formed (SetupError naming the fault).

        ``strict`` also requires that each player's tiles are exactly the tiles in
        play for this player count (S-1, S-2) and that every deck is complete.
        """
        n = self.players
        if len(setup.supplies) != n or len(setup.set_aside) != n:
            raise SetupError("setup.need_supplies_set_aside_tiles", n=n)
        if not 0 <= setup.start_player < n:
            raise SetupError("setup.start_player_not_seat_0", start_player=setup.start_player, n=n - 1)
        ids = {c.id for c in self.cards}
        used = list(setup.mission_deck) + list(setup.display)
        for cid in used:
            if cid not in ids:
                raise SetupError("setup.unknown_mission_card", cid=repr(cid))
        if len(set(used)) != len(used):
            raise SetupError("setup.mission_card_appears_twice")
        if self.board.is_ireland:
            if len(setup.display) != DISPLAY_SIZE:
                raise SetupError("setup.ireland_shows_public_missions_s", display=DISPLAY_SIZE)
            tids = {t.id for t in self.tokens}
            if len(setup.tower_tokens) != len(self.board.towers) or not set(setup.tower_tokens) <= tids:
                raise SetupError("setup.one_known_tower_token_per")
            if len(set(setup.tower_tokens)) != len(setup.tower_tokens):
                raise SetupError("setup.tower_token_appears_twice")
        elif setup.display or setup.tower_tokens:
            raise SetupError("setup.public_missions_tower_tokens_exist")
        if strict:
            tiles, _ = starting_tiles(n)
            want = tile_counts(tiles)
            for p in range(n):
                have = tile_counts(setup.supplies[p] + setup.set_aside[p])
                if have != want:
                    raise SetupError(
                        "setup.player_s_supply_set_aside", n=p + 1, tiles=len(tiles)
                    )
                if len(setup.set_aside[p]) != self.set_aside_count:
                    raise SetupError(
                        "setup.player_must_set_tiles_aside", n=p + 1, set_aside_count=self.set_aside_count
                    )
            if len(used) != len(self.cards):
                raise SetupError("setup.every_mission_card_must_deck")

    def new_state(self, seed: int | None = None, *, start_player: int | None = None) -> State:
        """A new game dealt from ``seed``. Its chance stream (``State.rng``, I-7's reveals) is
        seeded from ``seed`` too, but through HMAC (:func:`~rebirth.engine.streams.chance_seed`):
        independent of the deal, so a reveal tells nothing of anyone's supply."""
        setup = self.deal(seed, start_player=start_player)
        return State(self, setup, seed=chance_seed(seed))

    def from_setup(self, setup: Setup, *, seed: int | None = None, strict: bool = True) -> State:
        """A state from an explicit setup (scripted games, puzzles, records); ``seed`` is the
        game's seed, and the chance stream is derived from it as in :meth:`new_state`."""
        self.check_setup(setup, strict=strict)
        return State(self, setup, seed=chance_seed(seed))
