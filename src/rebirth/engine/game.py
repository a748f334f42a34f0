"""The Game: rules, configuration and factory of states (OpenSpiel's Game/State split).

A game is a board, a player count and a set of rule variants. It deals a new
state from a seed, or builds one from an explicit :class:`Setup` (scripted
setups for tests and puzzles, and the setup stored in a record).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from rebirth.engine.board import SET_ASIDE, Board, builtin_board, resolve_board
from rebirth.engine.codec import ActionCodec
from rebirth.engine.i18n import Text
from rebirth.engine.missions import (
    MissionCard,
    TowerToken,
    builtin_cards,
    builtin_tokens,
    card_spaces,
)
from rebirth.engine.tiles import parse_tile, starting_tiles, tile_code, tile_counts

VARIANTS: dict[str, Text] = {
    "medium_completer_wins": {
        "en": "In a 2-space district the completer wins ties (seed 001).",
        "de": "In einem 2-Felder-Gebiet gewinnt der Vollender Gleichstände (Quelle 001).",
    },
    "castle_tie_to_active": {
        "en": "A full castle tie goes to the placing player (seed 001).",
        "de": "Ein vollständiger Burg-Gleichstand geht an den legenden Spieler (Quelle 001).",
    },
    "incomplete_as_small": {
        "en": "Incomplete districts pay each player their influence (seed 001).",
        "de": "Unvollständige Gebiete zahlen jedem seinen Einfluss (Quelle 001).",
    },
    "stirling_literal": {
        "en": "Stirling's holder wins a tie for first even if not tied (seed 001).",
        "de": "Wer Stirling hält, gewinnt einen Gleichstand, auch ohne selbst gleichauf zu sein "
              "(Quelle 001).",
    },
    "set_aside_public": {
        "en": "Scotland's set-aside tiles lie face up for all (seed 000's \"offen\").",
        "de": "Die beiseitegelegten Plättchen liegen in Schottland offen aus.",
    },
    "ireland_set_aside_known": {
        "en": "On Ireland each owner may look at their 4 set-aside tiles.",
        "de": "In Irland darf jeder seine 4 beiseitegelegten Plättchen ansehen.",
    },
}
SCOTLAND_VARIANTS = frozenset(
    {"medium_completer_wins", "castle_tie_to_active", "incomplete_as_small", "stirling_literal",
     "set_aside_public"}
)
IRELAND_VARIANTS = frozenset(
    {"medium_completer_wins", "castle_tie_to_active", "incomplete_as_small",
     "ireland_set_aside_known"}
)
DISPLAY_SIZE = 8


class SetupError(ValueError):
    """A game configuration or scripted setup that the rules do not allow."""


@dataclass(frozen=True)
class Setup:
    """Everything chance decided before the first turn, as dealt.

    ``supplies[p]`` is player p's draw order; its first tile is the starting hand
    (S-5). Mission cards are named by id, tiles by code (E, F, S1..S4).
    """

    supplies: tuple[tuple[int, ...], ...]
    set_aside: tuple[tuple[int, ...], ...]
    mission_deck: tuple[str, ...]
    start_player: int = 0
    display: tuple[str, ...] = ()
    tower_tokens: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "start_player": self.start_player,
            "supplies": [[tile_code(t) for t in s] for s in self.supplies],
            "set_aside": [[tile_code(t) for t in s] for s in self.set_aside],
            "mission_deck": list(self.mission_deck),
        }
        if self.display or self.tower_tokens:
            out["display"] = list(self.display)
            out["tower_tokens"] = list(self.tower_tokens)
        return out

    @staticmethod
    def from_json(data: Any) -> Setup:
        """Inverse of :meth:`to_json`; raises SetupError on malformed data."""
        if not isinstance(data, dict):
            raise SetupError("setup: must be an object")
        try:
            supplies = tuple(tuple(parse_tile(t) for t in s) for s in data["supplies"])
            aside = tuple(tuple(parse_tile(t) for t in s) for s in data["set_aside"])
            deck = tuple(str(c) for c in data["mission_deck"])
            start = data.get("start_player", 0)
            display = tuple(str(c) for c in data.get("display", ()))
            tokens = tuple(str(c) for c in data.get("tower_tokens", ()))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise SetupError(f"setup: malformed ({exc})") from exc
        if not isinstance(start, int):
            raise SetupError("setup: 'start_player' must be an integer")
        return Setup(supplies, aside, deck, start, display, tokens)


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
            raise SetupError(f"Rebirth is for 2 to 4 players, not {players}")
        vs = frozenset(variants)
        allowed = IRELAND_VARIANTS if b.is_ireland else SCOTLAND_VARIANTS
        for v in vs:
            if v not in VARIANTS:
                raise SetupError(f"unknown variant {v!r} (known: {', '.join(VARIANTS)})")
            if v not in allowed:
                raise SetupError(f"variant {v!r} does not apply to {b.rules}")
        c = builtin_cards(b) if cards is None else cards
        t = (builtin_tokens() if b.is_ireland else ()) if tokens is None else tokens
        if b.is_ireland and len(t) < len(b.towers):
            raise SetupError(f"{len(b.towers)} towers but only {len(t)} tower tokens")
        if b.is_ireland and len(c) < DISPLAY_SIZE:
            raise SetupError(f"Ireland needs at least {DISPLAY_SIZE} public missions, got {len(c)}")
        return Game(b, players, vs, c, t)

    @staticmethod
    def builtin(name: str, players: int, variants: frozenset[str] | set[str] | tuple[str, ...] = ()) -> Game:
        return Game.create(builtin_board(name), players, variants)

    # Computed on first use and kept: a hand-made cached property, since the compiled
    # build (mypyc) turns functools.cached_property into a property that recomputes.
    _mission_spaces: tuple[tuple[int, ...], ...] | None = field(init=False, repr=False)
    _codec: ActionCodec | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # Set here, not as field defaults: a compiled dataclass has no class-level default.
        object.__setattr__(self, "_mission_spaces", None)
        object.__setattr__(self, "_codec", None)

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
        """A random setup (S-1…S-8) from ``seed``."""
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

    def check_setup(self, setup: Setup, *, strict: bool = True) -> None:
        """Refuse a setup that is not well formed (SetupError naming the fault).

        ``strict`` also requires that each player's tiles are exactly the tiles in
        play for this player count (S-1, S-2) and that every deck is complete.
        """
        n = self.players
        if len(setup.supplies) != n or len(setup.set_aside) != n:
            raise SetupError(f"setup: need supplies and set-aside tiles for {n} players")
        if not 0 <= setup.start_player < n:
            raise SetupError(f"setup: start player {setup.start_player} is not a seat of 0..{n - 1}")
        ids = {c.id for c in self.cards}
        used = list(setup.mission_deck) + list(setup.display)
        for cid in used:
            if cid not in ids:
                raise SetupError(f"setup: unknown mission card {cid!r}")
        if len(set(used)) != len(used):
            raise SetupError("setup: a mission card appears twice")
        if self.board.is_ireland:
            if len(setup.display) != DISPLAY_SIZE:
                raise SetupError(f"setup: Ireland shows {DISPLAY_SIZE} public missions (S-8)")
            tids = {t.id for t in self.tokens}
            if len(setup.tower_tokens) != len(self.board.towers) or not set(setup.tower_tokens) <= tids:
                raise SetupError("setup: one known tower token per tower is needed (S-8)")
            if len(set(setup.tower_tokens)) != len(setup.tower_tokens):
                raise SetupError("setup: a tower token appears twice")
        elif setup.display or setup.tower_tokens:
            raise SetupError("setup: public missions and tower tokens exist only on Ireland")
        if strict:
            tiles, _ = starting_tiles(n)
            want = tile_counts(tiles)
            for p in range(n):
                have = tile_counts(setup.supplies[p] + setup.set_aside[p])
                if have != want:
                    raise SetupError(
                        f"setup: player {p + 1}'s supply and set-aside tiles are not the "
                        f"{len(tiles)} tiles in play (S-1, S-2)"
                    )
                if len(setup.set_aside[p]) != self.set_aside_count:
                    raise SetupError(
                        f"setup: player {p + 1} must set {self.set_aside_count} tiles aside (S-3, S-4)"
                    )
            if len(used) != len(self.cards):
                raise SetupError("setup: every mission card must be in the deck or on display")

    def new_state(self, seed: int | None = None, *, start_player: int | None = None) -> State:
        """A new game dealt from ``seed``; the state's own RNG is seeded from it too."""
        setup = self.deal(seed, start_player=start_player)
        return State(self, setup, seed=seed)

    def from_setup(self, setup: Setup, *, seed: int | None = None, strict: bool = True) -> State:
        """A state from an explicit setup (scripted games, puzzles, records)."""
        self.check_setup(setup, strict=strict)
        return State(self, setup, seed=seed)



from rebirth.engine.state import State  # noqa: E402  (State needs Game at runtime only)
