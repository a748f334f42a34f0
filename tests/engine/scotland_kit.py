"""Shared helpers for the Scotland rule tests: scripted setups on hand-made maps."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from mapkit import make_board
from rebirth.engine.board import Board
from rebirth.engine.events import Event
from rebirth.engine.game import Game, Setup
from rebirth.engine.missions import MissionCard
from rebirth.engine.state import State
from rebirth.engine.tiles import parse_tile

TIEBREAK = ["castle:edinburgh", "castle:stirling"]


def board(rows: str, **kw: Any) -> Board:
    """A Scotland test board (E-3 tiebreak: Edinburgh, then Stirling)."""
    kw.setdefault("tiebreak", [t for t in TIEBREAK if f"C:{t.split(':')[1]}" in rows])
    return make_board(rows, **kw)


def tiles(codes: str) -> tuple[int, ...]:
    """``"E F S3"`` as tile numbers."""
    return tuple(parse_tile(c) for c in codes.split())


def card(index: int, cid: str, condition: dict[str, Any], points: int = 3) -> MissionCard:
    return MissionCard(index, cid, condition, {"en": cid, "de": cid}, points=points)


def cards(*conditions: tuple[str, dict[str, Any], int]) -> tuple[MissionCard, ...]:
    """Cards from ``(id, condition, points)`` triples, indexed in order."""
    return tuple(card(i, cid, cond, pts) for i, (cid, cond, pts) in enumerate(conditions))


def region_card(cid: str, region: str, points: int = 3) -> tuple[str, dict[str, Any], int]:
    return (cid, {"type": "most_spaces_in_region", "region": region}, points)


def castle_card(cid: str, castles: Sequence[str], points: int = 3) -> tuple[str, dict[str, Any], int]:
    return (cid, {"type": "most_spaces_next_to_castles", "castles": list(castles)}, points)


def settle_card(cid: str, points: int = 3, **flt: Any) -> tuple[str, dict[str, Any], int]:
    return (cid, {"type": "most_settlements", "filter": flt}, points)


def start(
    b: Board,
    supplies: Sequence[str],
    *,
    aside: Sequence[str] | None = None,
    deck: Iterable[str] = (),
    start_player: int = 0,
    variants: Iterable[str] = (),
    mission_cards: tuple[MissionCard, ...] = (),
) -> State:
    """A scripted game: ``supplies[p]`` is seat p's draw order, its first tile the hand."""
    n = len(supplies)
    game = Game.create(b, n, frozenset(variants), cards=mission_cards)
    setup = Setup(
        supplies=tuple(tiles(s) for s in supplies),
        set_aside=tuple(tiles(a) for a in (aside if aside is not None else [""] * n)),
        mission_deck=tuple(deck),
        start_player=start_player,
    )
    return game.from_setup(setup, strict=False)


def play(state: State, *labels: str) -> list[Event]:
    """Apply the placements in turn order; all events, in order."""
    out: list[Event] = []
    for lab in labels:
        out.extend(state.apply(lab))
    return out


def rules_of(events: Iterable[Event]) -> list[str]:
    return [e.rule for e in events]


def paid(events: Iterable[Event], kind: str) -> list[tuple[int | None, int]]:
    """``(seat, points)`` of the events of one kind."""
    return [(e.seat, e.points) for e in events if e.kind == kind]
