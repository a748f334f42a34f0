"""Per-seat views: exactly what one seat may see (S-5, S-4, K-1, I-9), as plain JSON-able data.

Bots and interfaces get views, never the state. ``seat=None`` is a spectator,
who sees only public facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rebirth.engine.tiles import NEUTRAL, tile_code

if TYPE_CHECKING:
    from rebirth.engine.state import State

PHASES = ("place", "extra", "mark", "end")


@dataclass(frozen=True)
class View:
    """What ``seat`` knows. Everything is public except the fields marked private."""

    board: str
    rules: str
    players: int
    seat: int | None
    variants: tuple[str, ...]
    turn: int
    phase: str
    current_player: int
    # Public.
    spaces: tuple[tuple[int, str | None], ...]
    """Per space: owner (-1 free, 4 neutral) and tile code (None when free or face down)."""
    scores: tuple[int, ...]
    breakdown: tuple[dict[str, int], ...]
    castle_holders: tuple[int, ...]
    cathedral_pieces: tuple[tuple[int, ...], ...]
    supply_counts: tuple[int, ...]
    hand_counts: tuple[int, ...]
    set_aside_counts: tuple[int, ...]
    known_set_aside: tuple[tuple[str, ...], ...]
    """Set-aside tiles everyone has seen: revealed by an extra tile (I-7) that found no space."""
    mission_counts: tuple[int, ...]
    deck_count: int
    placed: tuple[int, ...]
    discarded: tuple[tuple[str, ...], ...]
    history: tuple[dict[str, Any], ...]
    extra_tile: str | None
    pending_extra: int
    pending_double: int
    tower_tokens: tuple[str, ...]
    tower_visits: tuple[tuple[int, ...], ...]
    display: tuple[str, ...]
    fulfilled: dict[str, tuple[int, ...]]
    marks: tuple[tuple[str, ...], ...]
    winners: tuple[int, ...]
    # Private to ``seat`` (empty for a spectator).
    hand: str | None = None
    set_aside: tuple[str, ...] = ()
    missions: tuple[str, ...] = ()
    legal_actions: tuple[str, ...] = ()
    # Other seats' set-aside tiles when a variant makes them public.
    public_set_aside: tuple[tuple[str, ...], ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """A plain dict (lists, ints, strings) for JSON."""
        out: dict[str, Any] = {}
        for k, v in self.__dict__.items():
            out[k] = _plain(v)
        return out


def _plain(v: Any) -> Any:
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


def make_view(state: State, seat: int | None) -> View:
    """The view of ``seat`` (None: spectator) of ``state``."""
    s = state
    b = s.board
    n = s.n
    g = s.game
    ireland = b.is_ireland
    cards = g.cards
    spaces = tuple(
        (o, None if o in (-1, NEUTRAL) else tile_code(t))
        for o, t in zip(s.occ, s.tile, strict=True)
    )
    aside_public = ("set_aside_public" in g.variants) and not ireland
    own_aside_visible = (not ireland) or ("ireland_set_aside_known" in g.variants)
    mine = seat is not None and 0 <= seat < n
    hand = None
    set_aside: tuple[str, ...] = ()
    missions: tuple[str, ...] = ()
    legal: tuple[str, ...] = ()
    if mine:
        assert seat is not None
        h = s.hand[seat]
        hand = tile_code(h) if h >= 0 else None
        if own_aside_visible:
            set_aside = tuple(tile_code(t) for t in s.aside[seat])
        own = s.secret[seat] if ireland else s.missions[seat]
        missions = tuple(cards[c].id for c in own)
        if s.current_player == seat:
            legal = tuple(str(a) for a in s.legal_actions)
    return View(
        board=b.id,
        rules=b.rules,
        players=n,
        seat=seat if mine else None,
        variants=tuple(sorted(g.variants)),
        turn=s.turn,
        phase=PHASES[s.phase],
        current_player=s.current_player,
        spaces=spaces,
        scores=tuple(s.score),
        breakdown=tuple(s.breakdown(q) for q in range(n)),
        castle_holders=tuple(s.holder),
        cathedral_pieces=tuple(tuple(q for q in range(n) if m >> q & 1) for m in s.cath),
        supply_counts=tuple(len(s.supply[q]) - s.sptr[q] for q in range(n)),
        hand_counts=tuple(1 if s.hand[q] >= 0 else 0 for q in range(n)),
        set_aside_counts=tuple(len(a) for a in s.aside),
        known_set_aside=tuple(tuple(tile_code(t) for t in k) for k in s.known_aside),
        mission_counts=tuple(len(s.secret[q] if ireland else s.missions[q]) for q in range(n)),
        deck_count=len(s.deck) - s.deck_pos,
        placed=tuple(s.placed),
        discarded=tuple(tuple(tile_code(t) for t in d) for d in s.discarded),
        history=tuple(s.history_json()),
        extra_tile=tile_code(s.extra_tile) if s.extra_tile >= 0 else None,
        pending_extra=s.pending_extra,
        pending_double=s.pending_double,
        tower_tokens=tuple(g.tokens[t].id for t in s.tokens_on_towers),
        tower_visits=tuple(tuple(q for q in range(n) if m >> q & 1) for m in s.tmask),
        display=tuple(cards[m].id for m in s.display),
        fulfilled={cards[m].id: tuple(q for q in range(n) if s.fulfilled[m] >> q & 1)
                   for m in s.display},
        marks=tuple(tuple(cards[m].id for m in s.marks[q]) for q in range(n)),
        winners=tuple(s.winners_),
        hand=hand,
        set_aside=set_aside,
        missions=missions,
        legal_actions=legal,
        public_set_aside=tuple(tuple(tile_code(t) for t in a) for a in s.aside)
        if aside_public else (),
    )
