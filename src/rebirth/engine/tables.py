"""The tables a :class:`~rebirth.engine.state.State` keeps, each a small typed class.

A state is its facts (who owns which tile where, who holds each castle, the cards,
the tiles still to come) plus tables derived from them, kept up to date placement by
placement so that scoring a move never rescans the board. Each table here clones
itself; ``State.clone`` is one call per table. Per-seat tables are flat lists indexed
``x * players + seat`` (``x`` a district, castle or region), so a clone is a handful
of list copies. ``n`` below is the number of players.

=================  ===========================  ==============================================
table              field                        meaning (rules)
=================  ===========================  ==============================================
``occupancy``      ``owner[h]``                 seat on space h; -1 free; NEUTRAL a blocker (S-6)
(Occupancy)        ``tile[h]``                  tile kind on h (-1: none)
                   ``group_parent[h]``          farm groups as a union-find forest (F-1)
                   ``group_size[h]``            size of the group whose root is h
                   ``free[k]``                  free spaces by :class:`FreeList` k (P-2…P-4)
                   ``free_at[h]``               where h sits in its free list
                   ``region_tiles[r*n+q]``      q's tiles in region r (I-11)
                   ``largest_group[q]``         q's largest farm group (I-11)
                   ``offshore_farms[q]``        q's farms on offshore spaces (F-3, I-11)
                   ``placed[q]``                tiles q has placed
``districts``      ``filled[d]``                settlements in district d (T-1)
(Districts)        ``last_placer[d]``           seat that placed last in d (-1: none; T-3, T-7)
                   ``influence[d*n+q]``         q's influence in d (T-1)
                   ``first_ranks[q]``           districts where q ranked first (Ireland I-11)
``castles``        ``adjacent[c*n+q]``          q's tiles next to castle c (C-1, C-2)
(Castles)          ``adjacent_farms[c*n+q]``    q's farms among them (C-3)
                   ``holder[c]``                seat holding c (-1: nobody; C-1…C-4)
                   ``held[q]``                  castles q holds (I-11)
``visited``        ``cathedral_pieces[k]``      bit q: q has a piece at cathedral k (K-1)
(Visits)           ``tower_visits[t]``          bit q: q has visited tower t (I-6)
                   ``towers_visited[q]``        towers q has visited (I-11)
``cards``          ``deck`` / ``next_card``     the mission deck, drawn from ``next_card`` on
(Cards)            ``display``                  public missions on display (I-10)
                   ``cathedral_cards[q]``       cards q drew at cathedrals (K-1)
                   ``tower_cards[q]``           cards q drew from tower tokens (I-9)
                   ``fulfilled[m]``             bit q: q fulfilled public mission m (I-10)
                   ``first_paid[m]``            m's higher value has been paid (I-10)
                   ``marks[q]``                 missions q put an x2 marker on (I-8)
                   ``conditions[m]``            m's condition as (:class:`Condition`, a, b)
``tiles``          ``supply[q]`` / ``drawn[q]`` q's supply, drawn up to ``drawn[q]`` (P-6)
(Tiles)            ``hand[q]``                  q's tile in hand (-1: none)
                   ``set_aside[q]``             q's set-aside tiles (I-7)
                   ``known_set_aside[q]``       those revealed face up (I-7)
                   ``returned[q]``              tiles back in the box (S-2)
                   ``discarded[q]``             tiles discarded (P-7)
=================  ===========================  ==============================================

``deck``, ``supply``, ``returned`` and ``conditions`` never change after the deal (only
``next_card`` / ``drawn`` move), so clones share them.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any


class Phase(IntEnum):
    """What the state waits for (an int, so the hot path compares ints)."""

    PLACE = 0
    """The player to act places the tile in hand (P-1…P-5)."""
    EXTRA = 1
    """The player places a revealed extra tile (I-7)."""
    MARK = 2
    """The player puts an x2 marker on a public mission (I-8)."""
    END = 3
    """The game is over (E-1)."""
    CHANCE = 4
    """A chance outcome is pending: the reveal of an extra tile (I-7)."""


class FreeList(IntEnum):
    """Which free-space list a space of each kind lives in."""

    ENERGY = 0
    FOOD = 1
    EITHER = 2
    """Blank and flexible spaces: either farm fits."""
    SETTLEMENT = 3


class Condition(IntEnum):
    """The kind of an Ireland mission condition, checked after every placement (I-10, I-11)."""

    NONE = -1
    """A Scotland card: evaluated once, at the end (K-2…K-8)."""
    FARM_GROUP = 0
    CASTLES_HELD = 1
    TOWERS_VISITED = 2
    DISTRICT_FIRSTS = 3
    OFFSHORE_FARMS = 4
    TILES_IN_PROVINCES = 5


class Occupancy:
    """Who owns which space, the farm groups and what the board's regions count."""

    __slots__ = ("free", "free_at", "group_parent", "group_size", "largest_group",
                 "offshore_farms", "owner", "placed", "region_tiles", "tile")

    def __init__(self, owner: list[int], tile: list[int], group_parent: list[int],
                 group_size: list[int], free: list[list[int]], free_at: list[int],
                 region_tiles: list[int], largest_group: list[int], offshore_farms: list[int],
                 placed: list[int]) -> None:
        self.owner = owner
        self.tile = tile
        self.group_parent = group_parent
        self.group_size = group_size
        self.free = free
        self.free_at = free_at
        self.region_tiles = region_tiles
        self.largest_group = largest_group
        self.offshore_farms = offshore_farms
        self.placed = placed

    @staticmethod
    def empty(spaces: int, regions: int, n: int) -> Occupancy:
        """An empty board (the free lists are filled by the state, which knows the kinds)."""
        return Occupancy([-1] * spaces, [-1] * spaces, list(range(spaces)), [1] * spaces,
                         [[], [], [], []], [0] * spaces, [0] * (regions * n), [0] * n,
                         [0] * n, [0] * n)

    def clone(self) -> Occupancy:
        return Occupancy(self.owner[:], self.tile[:], self.group_parent[:], self.group_size[:],
                         [lst[:] for lst in self.free], self.free_at[:], self.region_tiles[:],
                         self.largest_group[:], self.offshore_farms[:], self.placed[:])


class Districts:
    """Settlement districts: fill, influence, last placer, first ranks (T-1…T-7)."""

    __slots__ = ("filled", "first_ranks", "influence", "last_placer")

    def __init__(self, filled: list[int], last_placer: list[int], influence: list[int],
                 first_ranks: list[int]) -> None:
        self.filled = filled
        self.last_placer = last_placer
        self.influence = influence
        self.first_ranks = first_ranks

    @staticmethod
    def empty(districts: int, n: int) -> Districts:
        return Districts([0] * districts, [-1] * districts, [0] * (districts * n), [0] * n)

    def clone(self) -> Districts:
        return Districts(self.filled[:], self.last_placer[:], self.influence[:],
                         self.first_ranks[:])


class Castles:
    """Castle control: tiles and farms next to each castle per seat, holders (C-1…C-4)."""

    __slots__ = ("adjacent", "adjacent_farms", "held", "holder")

    def __init__(self, adjacent: list[int], adjacent_farms: list[int], holder: list[int],
                 held: list[int]) -> None:
        self.adjacent = adjacent
        self.adjacent_farms = adjacent_farms
        self.holder = holder
        self.held = held

    @staticmethod
    def empty(castles: int, n: int) -> Castles:
        return Castles([0] * (castles * n), [0] * (castles * n), [-1] * castles, [0] * n)

    def clone(self) -> Castles:
        return Castles(self.adjacent[:], self.adjacent_farms[:], self.holder[:], self.held[:])


class Visits:
    """Structures visited: cathedral pieces (K-1) and tower visits (I-6), as seat bit masks."""

    __slots__ = ("cathedral_pieces", "tower_visits", "towers_visited")

    def __init__(self, cathedral_pieces: list[int], tower_visits: list[int],
                 towers_visited: list[int]) -> None:
        self.cathedral_pieces = cathedral_pieces
        self.tower_visits = tower_visits
        self.towers_visited = towers_visited

    @staticmethod
    def empty(cathedrals: int, towers: int, n: int) -> Visits:
        return Visits([0] * cathedrals, [0] * towers, [0] * n)

    def clone(self) -> Visits:
        return Visits(self.cathedral_pieces[:], self.tower_visits[:], self.towers_visited[:])


class Cards:
    """The mission cards: deck, display, each seat's drawn cards, public-mission progress."""

    __slots__ = ("cathedral_cards", "conditions", "deck", "display", "first_paid", "fulfilled",
                 "marks", "next_card", "tower_cards")

    def __init__(self, deck: list[int], next_card: int, display: list[int],
                 cathedral_cards: list[list[int]], tower_cards: list[list[int]],
                 fulfilled: list[int], first_paid: list[bool], marks: list[list[int]],
                 conditions: list[tuple[Condition, int, int]]) -> None:
        self.deck = deck
        self.next_card = next_card
        self.display = display
        self.cathedral_cards = cathedral_cards
        self.tower_cards = tower_cards
        self.fulfilled = fulfilled
        self.first_paid = first_paid
        self.marks = marks
        self.conditions = conditions

    def clone(self) -> Cards:
        # The deck, the display and the conditions never change after the deal: shared.
        return Cards(self.deck, self.next_card, self.display,
                     [m[:] for m in self.cathedral_cards], [m[:] for m in self.tower_cards],
                     self.fulfilled[:], self.first_paid[:], [m[:] for m in self.marks],
                     self.conditions)


class Tiles:
    """Each seat's tiles off the board: supply, hand, set-aside, returned and discarded."""

    __slots__ = ("discarded", "drawn", "hand", "known_set_aside", "returned", "set_aside",
                 "supply")

    def __init__(self, supply: list[list[int]], drawn: list[int], hand: list[int],
                 set_aside: list[list[int]], known_set_aside: list[list[int]],
                 returned: list[list[int]], discarded: list[list[int]]) -> None:
        self.supply = supply
        self.drawn = drawn
        self.hand = hand
        self.set_aside = set_aside
        self.known_set_aside = known_set_aside
        self.returned = returned
        self.discarded = discarded

    def clone(self) -> Tiles:
        # The supplies (drawn from ``drawn[q]`` on) and the returned tiles never change: shared.
        return Tiles(self.supply, self.drawn[:], self.hand[:], [a[:] for a in self.set_aside],
                     [k[:] for k in self.known_set_aside], self.returned,
                     [d[:] for d in self.discarded])


_CONDITION_OF_TYPE = {"farm_group": Condition.FARM_GROUP, "castles_held": Condition.CASTLES_HELD,
                      "towers_adjacent": Condition.TOWERS_VISITED,
                      "district_firsts": Condition.DISTRICT_FIRSTS,
                      "offshore_farms": Condition.OFFSHORE_FARMS,
                      "tiles_in_provinces": Condition.TILES_IN_PROVINCES}


def compile_condition(cond: dict[str, Any]) -> tuple[Condition, int, int]:
    """An Ireland condition as (kind, a, b) for the per-placement check (I-10, I-11)."""
    kind = _CONDITION_OF_TYPE.get(str(cond.get("type")))
    if kind is None:
        return (Condition.NONE, 0, 0)  # Scotland cards are evaluated once, at the end.
    if kind == Condition.FARM_GROUP:
        return (kind, cond["size"], 0)
    if kind == Condition.TILES_IN_PROVINCES:
        return (kind, cond["tiles"], cond["provinces"])
    return (kind, cond["count"], 0)
