"""Shared helpers for the Ireland rule tests: scripted setups on hand-made maps."""

from __future__ import annotations

from rebirth.engine.board import Board
from rebirth.engine.events import Event
from rebirth.engine.game import Game, Setup
from rebirth.engine.i18n import Text
from rebirth.engine.missions import MissionCard, TowerToken
from rebirth.engine.state import State
from rebirth.engine.tiles import parse_tile

TEXT: Text = {"en": "test", "de": "test"}


def tiles(codes: str) -> tuple[int, ...]:
    """``"E F S3"`` as tile numbers."""
    return tuple(parse_tile(c) for c in codes.split())


def card(i: int, cid: str, cond: dict[str, object],
         values: tuple[int, int] = (12, 8)) -> MissionCard:
    return MissionCard(i, cid, dict(cond), TEXT, values=values)


def never_cards(start: int, k: int) -> list[MissionCard]:
    """Filler public missions nobody can fulfil on a small map (a farm group of 99)."""
    return [card(start + j, f"Z{j + 1}", {"type": "farm_group", "size": 99}, (6, 4))
            for j in range(k)]


def token(i: int, tid: str, kind: str, points: int = 0) -> TowerToken:
    return TowerToken(i, tid, kind, points, TEXT)


def start(board: Board, players: int, supplies: list[str], *, aside: list[str] | None = None,
          cards: list[MissionCard] | None = None, deck: tuple[str, ...] = (),
          tokens: list[TowerToken] | None = None, towers: tuple[str, ...] | None = None,
          first: int = 0, variants: tuple[str, ...] = ()) -> State:
    """A scripted game; by default every tower carries a mission token (inert: empty deck)."""
    cs = cards if cards is not None else never_cards(0, 8)
    ts = tokens if tokens is not None else [token(i, f"m{i}", "mission")
                                            for i in range(len(board.towers))]
    if towers is None:
        towers = tuple(t.id for t in ts[: len(board.towers)])
    game = Game.create(board, players, variants, cards=tuple(cs), tokens=tuple(ts))
    on_display = tuple(c.id for c in cs if c.id not in deck)[:8]
    setup = Setup(
        supplies=tuple(tiles(s) for s in supplies),
        set_aside=tuple(tiles(a) for a in (aside or [""] * players)),
        mission_deck=deck,
        start_player=first,
        display=on_display,
        tower_tokens=towers,
    )
    return game.from_setup(setup, strict=False)


def act(state: State, move: str, *reveals: str) -> list[Event]:
    """Apply one action, then resolve the chance nodes it causes (I-7) as the authority
    does: with the given outcomes in order (``"F"``), else from the state's RNG."""
    events = state.apply(move)
    queue = list(reveals)
    while state.is_chance_node():
        t = parse_tile(queue.pop(0)) if queue else state.sample_chance(state.rng)
        events += state.apply_chance(t)
    assert not queue, f"outcomes {queue} were not used"
    return events


def play(state: State, *moves: str) -> None:
    """Apply the placements in turn order (chance resolved from the state's RNG)."""
    for m in moves:
        act(state, m)
