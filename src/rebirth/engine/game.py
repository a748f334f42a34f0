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
from rebirth.engine.messages import UserError, languages, render_message
from rebirth.engine.missions import (
    MissionCard,
    TowerToken,
    builtin_cards,
    builtin_tokens,
    card_spaces,
)
from rebirth.engine.state import State
from rebirth.engine.streams import chance_seed
from rebirth.engine.tables import Condition, compile_condition
from rebirth.engine.tiles import parse_tile, starting_tiles, tile_code, tile_counts

VARIANTS: dict[str, dict[str, str]] = {
    name: {lang: render_message(f"variant.{name}", {}, lang, ()) for lang in languages()}
    for name in ("medium_completer_wins", "castle_tie_to_active", "incomplete_as_small", "stirling_literal",
                 "set_aside_public", "ireland_set_aside_known")
}
"""Every rule variant → its explanation in each language (catalog keys ``variant.<name>``)."""
SCOTLAND_VARIANTS = frozenset(
    {"medium_completer_wins", "castle_tie_to_active", "incomplete_as_small", "stirling_literal",
     "set_aside_public"}
)
IRELAND_VARIANTS = frozenset(
    {"medium_completer_wins", "castle_tie_to_active", "incomplete_as_small",
     "ireland_set_aside_known"}
)
DISPLAY_SIZE = 8


class SetupError(UserError):
    """A game configuration or scripted setup that the rules do not allow (a catalog key and arguments)."""


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
            raise SetupError("setup.must_object")
        try:
            supplies = tuple(tuple(parse_tile(t) for t in s) for s in data["supplies"])
            aside = tuple(tuple(parse_tile(t) for t in s) for s in data["set_aside"])
            deck = tuple(str(c) for c in data["mission_deck"])
            start = data.get("start_player", 0)
            display = tuple(str(c) for c in data.get("display", ()))
            tokens = tuple(str(c) for c in data.get("tower_tokens", ()))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise SetupError("setup.malformed", exc=exc) from exc
        if not isinstance(start, int):
            raise SetupError("setup.start_player_must_integer")
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

