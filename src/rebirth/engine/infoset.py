"""Information sets in one place: which hidden items exist on a board with its variants,
who sees each, and the three operations built on that one rule set (OpenSpiel's
observer / ``resample_from_infostate`` split):

* :func:`view` — what a seat (or a spectator) may see of a state;
* :func:`rebirth.engine.determinize.determinize` — a full state consistent with a view,
  hidden items sampled (what bots search on; they never hold the real state), using
  :class:`Visibility` for the set-aside tiles;
* :func:`resample` — a twin of a state in which everything hidden from one seat is
  drawn again, so that the seat's view is unchanged.

The rules (RULES.md S-3, S-4, S-5, K-1, I-7, I-9 and the variants ``set_aside_public``
and ``ireland_set_aside_known``) are in :data:`HIDDEN_ITEMS` and :class:`Visibility`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, TypeVar

from rebirth.engine import explain
from rebirth.engine.protocols import Configured, Observed
from rebirth.engine.tiles import NEUTRAL, TILE_CODES, tile_code
from rebirth.engine.views import PHASES, View

# The state is seen through its protocol (the state imports this module for its ``view``).
S = TypeVar("S", bound=Observed)


@dataclass(frozen=True)
class HiddenItem:
    """One kind of hidden information: who may see it, by the rule that says so."""

    name: str
    owner_sees: str
    others_see: str
    rule: str


HIDDEN_ITEMS: tuple[HiddenItem, ...] = (
    HiddenItem("hand", "yes", "no (a count only)", "S-5"),
    HiddenItem("supply order", "no", "no (a count only)", "S-5"),
    HiddenItem("set-aside tiles (Scotland)", "yes", "no; yes with set_aside_public", "S-3"),
    HiddenItem("set-aside tiles (Ireland)", "no; yes with ireland_set_aside_known", "no", "S-4"),
    HiddenItem("set-aside tile revealed by an extra tile and left face up", "yes", "yes", "I-7"),
    HiddenItem("secret mission cards (Scotland cathedrals, Ireland mission tokens)", "yes",
               "no (a count only)", "K-1, I-9"),
    HiddenItem("mission deck order", "no", "no (a count only)", "S-8"),
    HiddenItem("seed and random state (future chance)", "no", "no", "docs/security.md"),
)
"""Every hidden item of the game. Public: the board, scores, castle holders, cathedral
pieces, tower tokens and visits, Ireland's display, fulfilments and x2 markers, counts."""


@dataclass(frozen=True)
class Visibility:
    """Who sees the set-aside tiles on this board with these variants (the one item whose
    visibility depends on the configuration)."""

    ireland: bool
    own_set_aside: bool
    """The owner may look at their own face-down set-aside tiles."""
    set_aside_public: bool
    """Everyone sees every set-aside tile."""

    @staticmethod
    def of(game: Configured) -> Visibility:
        """The rule set of ``game`` (computed once per configuration: searches ask every iteration)."""
        ireland = game.board.is_ireland
        v = game.variants
        # Keyed by the configuration, not by the Game: a compiled Game (mypyc) cannot be a
        # weak key. The configurations are few (two rule sets times the variant sets).
        key = (ireland, v)
        vis = _BY_CONFIG.get(key)
        if vis is None:
            vis = _BY_CONFIG[key] = Visibility(
                ireland=ireland,
                own_set_aside=(not ireland) or "ireland_set_aside_known" in v,
                set_aside_public=(not ireland) and "set_aside_public" in v,
            )
        return vis

    def sees_set_aside(self, viewer: int | None, owner: int) -> bool:
        """Whether ``viewer`` (None: a spectator) sees ``owner``'s face-down set-aside tiles."""
        return self.set_aside_public or (viewer == owner and self.own_set_aside)


_BY_CONFIG: dict[tuple[bool, frozenset[str]], Visibility] = {}


_SEATS_OF: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple(q for q in range(n) if m >> q & 1) for m in range(1 << n)) for n in range(1, 7)}
"""Per player count, the seats of each bit mask (visits, fulfilments, cathedral pieces)."""

_SPACE_OF: dict[tuple[int, int], tuple[int, str | None]] = {
    (o, t): (o, None if o == -1 or o == NEUTRAL else tile_code(t))
    for o in range(-1, NEUTRAL + 1) for t in range(-1, len(TILE_CODES))}
"""A view's entry of a space, by (owner, tile) of the occupancy table: looked up in one
``map`` instead of a comprehension per space (the RL observation's hottest line); defined
by the same expression, for every pair the tables can hold."""


def _spaces(owner: list[int], tile: list[int]) -> tuple[tuple[int, str | None], ...]:
    """``View.spaces`` of the occupancy table's two columns."""
    try:
        return tuple(map(_SPACE_OF.__getitem__, zip(owner, tile, strict=True)))
    except KeyError:  # a pair outside the tables' ranges: the defining expression
        return tuple([(o, None if o == -1 or o == NEUTRAL else tile_code(t))
                      for o, t in zip(owner, tile, strict=True)])


def public_part(state: Observed, *, detail: bool = True) -> dict[str, Any]:
    """The fields of a view that are the same for every seat and spectator (the public facts):
    computed once per position and shared by the views of all seats (:func:`view`'s
    ``public``)."""
    s = state
    b = s.board
    n = s.n
    g = s.game
    ireland = b.is_ireland
    cards = g.cards
    seats_of = _SEATS_OF[n]
    return dict(
        board=b.id,
        rules=b.rules,
        players=n,
        variants=tuple(sorted(g.variants)),
        turn=s.turn,
        phase=PHASES[s.phase],
        current_player=s.current_player,
        spaces=_spaces(s.occupancy.owner, s.occupancy.tile),
        scores=tuple(s.score),
        breakdown=tuple(s.breakdown(q) for q in range(n)),
        castle_holders=tuple(s.castles.holder),
        cathedral_pieces=tuple([seats_of[m] for m in s.visited.cathedral_pieces]),
        supply_counts=tuple(len(s.tiles.supply[q]) - s.tiles.drawn[q] for q in range(n)),
        hand_counts=tuple(1 if s.tiles.hand[q] >= 0 else 0 for q in range(n)),
        set_aside_counts=tuple(len(a) for a in s.tiles.set_aside),
        known_set_aside=tuple(tuple(tile_code(t) for t in k) for k in s.tiles.known_set_aside),
        mission_counts=tuple(len(s.cards.tower_cards[q] if ireland else s.cards.cathedral_cards[q])
                             for q in range(n)),
        deck_count=len(s.cards.deck) - s.cards.next_card,
        placed=tuple(s.occupancy.placed),
        discarded=tuple(tuple(tile_code(t) for t in d) for d in s.tiles.discarded),
        history=tuple(map(dict, s.history_entries())) if detail else (),
        extra_tile=tile_code(s.extra_tile) if s.extra_tile >= 0 else None,
        pending_extra=s.pending_extra,
        pending_double=s.pending_double,
        tower_tokens=tuple(g.tokens[t].id for t in s.tokens_on_towers),
        tower_visits=tuple([seats_of[m] for m in s.visited.tower_visits]),
        display=tuple(cards[m].id for m in s.cards.display),
        fulfilled={cards[m].id: seats_of[s.cards.fulfilled[m]] for m in s.cards.display},
        marks=tuple(tuple(cards[m].id for m in s.cards.marks[q]) for q in range(n)),
        winners=tuple(s.winners_),
        tiebreak=_tiebreak(s),
        public_set_aside=tuple(tuple(tile_code(t) for t in a) for a in s.tiles.set_aside)
        if Visibility.of(g).set_aside_public else (),
    )


def view(state: Observed, seat: int | None, *, detail: bool = True,
         public: dict[str, Any] | None = None) -> View:
    """The view of ``seat`` (None: a spectator) of ``state``: every public fact, and the
    seat's own hidden items as :class:`Visibility` allows.

    ``detail=False`` leaves out what only a person needs — the history, the legal actions'
    texts and the missions' progress — for observers that run millions of times (RL); it
    never adds anything. ``public``: :func:`public_part` of this very position (with the same
    ``detail``), when the caller keeps it for several seats."""
    s = state
    n = s.n
    ireland = s.board.is_ireland
    cards = s.game.cards
    vis = Visibility.of(s.game)
    mine = seat is not None and 0 <= seat < n
    hand = None
    set_aside: tuple[str, ...] = ()
    missions: tuple[str, ...] = ()
    progress: tuple[tuple[int, int, bool], ...] = ()
    legal: tuple[str, ...] = ()
    legal_ids: tuple[int, ...] = ()
    if mine:
        assert seat is not None
        h = s.tiles.hand[seat]
        hand = tile_code(h) if h >= 0 else None
        if vis.own_set_aside:
            set_aside = tuple(tile_code(t) for t in s.tiles.set_aside[seat])
        own = s.cards.tower_cards[seat] if ireland else s.cards.cathedral_cards[seat]
        missions = tuple(cards[c].id for c in own)
        if detail:
            progress = tuple((*s.mission_progress(c, seat), s.secret_fulfilled(c, seat))
                             for c in own)
        if s.current_player == seat:
            legal_ids = tuple(sorted(s.legal_action_ids()))
            if detail:
                legal = s.action_texts(legal_ids)
    return View(
        **(public if public is not None else public_part(s, detail=detail)),
        seat=seat if mine else None,
        hand=hand,
        set_aside=set_aside,
        missions=missions,
        mission_progress=progress,
        legal_actions=legal,
        legal_action_ids=legal_ids,
    )


def resample(state: S, seat: int, rng: random.Random) -> S:
    """A twin of ``state`` with everything hidden from ``seat`` drawn again from ``rng``:
    other hands, every supply order (the seat's own too: nobody knows it), set-aside tiles
    the seat cannot see (on Ireland its own face-down ones too), other seats' secret
    missions and the deck, and the random state of future chance. ``seat``'s view of the
    twin equals its view of ``state``."""
    twin = state.clone()
    n = twin.n
    vis = Visibility.of(twin.game)
    supply = [list(s[twin.tiles.drawn[q]:]) for q, s in enumerate(twin.tiles.supply)]
    twin.tiles.drawn = [0] * n
    for q in range(n):
        hidden_aside = not vis.sees_set_aside(seat, q)
        # Set-aside tiles revealed by I-7 and left face up are public: they stay.
        known = list(twin.tiles.known_set_aside[q]) if hidden_aside else []
        rest_aside = list(twin.tiles.set_aside[q])
        for t in known:
            rest_aside.remove(t)
        has_hand = q != seat and twin.tiles.hand[q] >= 0
        pool = ([twin.tiles.hand[q]] if has_hand else []) + supply[q]
        k = len(rest_aside) if hidden_aside else 0
        if k:
            pool += rest_aside
        rng.shuffle(pool)
        if hidden_aside:
            twin.tiles.set_aside[q] = known + pool[:k]
            pool = pool[k:]
        if has_hand:
            twin.tiles.hand[q] = pool.pop()
        supply[q] = pool
    twin.tiles.supply = supply
    # Mission cards: the others' secret cards and the rest of the deck are one pool.
    held = twin.cards.tower_cards if vis.ireland else twin.cards.cathedral_cards
    pool = twin.cards.deck[twin.cards.next_card:]
    for q in range(n):
        if q != seat:
            pool += held[q]
    rng.shuffle(pool)
    for q in range(n):
        if q != seat:
            k = len(held[q])
            held[q] = pool[:k]
            pool = pool[k:]
    twin.cards.deck = pool
    twin.cards.next_card = 0
    twin.rng = random.Random(rng.getrandbits(64))
    return twin



def _tiebreak(s: Observed) -> dict[str, Any] | None:
    """``State.tiebreak`` plus its sentence as an engine message (``msg``, rendered by the
    pages with the event catalog: docs/messages.md)."""
    how = s.tiebreak()
    if how is None:
        return None
    return {**how, "msg": explain.tiebreak_message(s.board, how, how["points"], s.winners_[:])}
