"""The action space: the one place that knows how actions are numbered.

A game has ``num_actions`` distinct player actions (OpenSpiel's
``num_distinct_actions``): ids ``0 .. spaces-1`` place the tile to be placed on
that space (in map file order), ids ``spaces .. spaces+cards-1`` put an x2 marker
on that mission card (I-8). Chance outcomes (Ireland's extra-tile reveal, I-7)
are a separate, small space: outcome ``t`` reveals a tile of kind ``t`` (the tile
numbers of :mod:`rebirth.engine.tiles`), written ``reveal S2``.
"""

from __future__ import annotations

import re

from rebirth.engine.actions import (
    Action,
    ActionSyntaxError,
    IllegalActionError,
    Mark,
    Place,
    Reveal,
    parse_action,
)
from rebirth.engine.board import Board
from rebirth.engine.missions import MissionCard, TowerToken
from rebirth.engine.tiles import TILE_CODES, parse_tile, tile_code

NUM_CHANCE_OUTCOMES = len(TILE_CODES)
"""Chance outcomes are tile kinds: E, F, S1..S4."""

_REVEAL_RE = re.compile(r"^reveal\s+(\S+)$", re.IGNORECASE)


class ActionCodec:
    """Action id <-> :class:`Action` <-> text for one board and card set."""

    __slots__ = ("_card_by_key", "_texts", "board", "cards", "num_actions", "num_spaces")

    def __init__(self, board: Board, cards: tuple[MissionCard, ...]) -> None:
        self.board = board
        self.cards = cards
        self.num_spaces = len(board.spaces)
        self.num_actions = self.num_spaces + len(cards)
        # Mission ids are matched without regard to case: a player typing `mark m2`
        # means card M2, whatever case the data file uses.
        self._card_by_key = {c.id.upper(): c.index for c in cards}
        # Every view of the seat to move names each of its legal actions: written once here.
        self._texts = tuple(str(self.decode(a)) for a in range(self.num_actions))

    # ------------------------------------------------------------ ids and actions

    def is_action(self, aid: int) -> bool:
        """True for an id of this game's action space (``0 .. num_actions-1``)."""
        return 0 <= aid < self.num_actions

    def is_place(self, aid: int) -> bool:
        """True for a placement id."""
        return 0 <= aid < self.num_spaces

    def is_mark(self, aid: int) -> bool:
        """True for an x2-marker id."""
        return self.num_spaces <= aid < self.num_actions

    def place_id(self, space: int) -> int:
        """The id that places on space number ``space``."""
        return space

    def mark_id(self, card: int) -> int:
        """The id that puts an x2 marker on card number ``card``."""
        return self.num_spaces + card

    def card_of(self, aid: int) -> int:
        """The card number of an x2-marker id."""
        return aid - self.num_spaces

    def encode(self, action: Action) -> int | None:
        """The id of ``action``, or None if it names no hex or mission of this game."""
        if isinstance(action, Place):
            return self.board.by_label.get(action.label)
        if isinstance(action, Reveal):
            return parse_tile(action.tile)
        ix = self._card_by_key.get(action.mission.upper())
        return None if ix is None else self.mark_id(ix)

    def decode(self, aid: int) -> Action:
        """The action of id ``aid`` (ValueError outside ``0 .. num_actions-1``)."""
        if self.is_place(aid):
            return Place(self.board.spaces[aid].label)
        if self.is_mark(aid):
            return Mark(self.cards[self.card_of(aid)].id)
        raise ValueError(f"action id {aid} is outside 0..{self.num_actions - 1}")

    def text(self, aid: int) -> str:
        """The text form of id ``aid`` (``C7``, ``mark I03``; ValueError outside the ids)."""
        if not 0 <= aid < self.num_actions:
            raise ValueError(f"action id {aid} is outside 0..{self.num_actions - 1}")
        return self._texts[aid]

    def texts(self, aids: tuple[int, ...]) -> tuple[str, ...]:
        """The text forms of several ids (a view's legal actions)."""
        t = self._texts
        return tuple([t[a] for a in aids])

    def parse(self, text: str) -> int:
        """The id of an action text; ActionSyntaxError / IllegalActionError when it names nothing."""
        action = parse_action(text)
        aid = self.encode(action)
        if aid is None:
            raise unknown_action(action)
        return aid

    # -------------------------------------------------------------- chance outcomes

    @staticmethod
    def is_chance(outcome: int) -> bool:
        """True for a chance outcome (``0 .. NUM_CHANCE_OUTCOMES-1``: a tile kind)."""
        return 0 <= outcome < NUM_CHANCE_OUTCOMES

    @staticmethod
    def decode_chance(outcome: int) -> Reveal:
        """The chance outcome ``outcome`` as an action value."""
        return Reveal(tile_code(outcome))

    @staticmethod
    def chance_text(outcome: int) -> str:
        """``reveal S2`` for the outcome that reveals an S2 tile."""
        return f"reveal {tile_code(outcome)}"

    @staticmethod
    def parse_chance(text: str) -> int:
        """The outcome of a chance text such as ``reveal S2``; ActionSyntaxError otherwise."""
        m = _REVEAL_RE.match(text.strip())
        if not m:
            raise ActionSyntaxError("error.not_chance_outcome_expected_reveal", text=repr(text))
        try:
            return parse_tile(m.group(1))
        except ValueError:
            raise ActionSyntaxError("error.unknown_tile_expected_one", tile=repr(m.group(1)),
                                    value=", ".join(TILE_CODES)) from None


def unknown_action(action: Action) -> IllegalActionError:
    """The error for an action that names no hex or mission of this game."""
    if isinstance(action, Reveal):
        return IllegalActionError("error.chance_outcome_not_player_s", action=action)
    if isinstance(action, Place):
        return IllegalActionError("error.hex_does_not_exist_board_3", action=action)
    return IllegalActionError("error.mission_does_not_exist_game", mission=action.mission)


# ------------------------------------------------------------------ table mode

_TABLE_PLACE_RE = re.compile(r"^(E|F|S[1-4])\s*@\s*([A-Za-z]+[0-9]+)$", re.IGNORECASE)
_TABLE_DISCARD_RE = re.compile(r"^discard\s+(\S+)$", re.IGNORECASE)
_TOKEN_RE = re.compile(r"^token\s+(\S+)$", re.IGNORECASE)
_CARD_RE = re.compile(r"^card\s+(\S+)$", re.IGNORECASE)


class TableCodec:
    """Action ids of a table game (a physical game recorded as it is played).

    A placement names its tile, so ids ``t * spaces + h`` place a tile of kind ``t``
    on space ``h`` (text ``S3@H7``); then one x2 marker per mission card (``mark I03``,
    I-8); then one P-7 discard per tile kind (``discard S3``). Chance outcomes, entered
    by the user, are tile kinds ``0..5`` (``reveal S2``, I-7), then the tower tokens
    (``token points3a``: the token lying on the tower asked about, S-8/I-6), then the
    mission cards (``card K05``: the card a player drew, revealed at the end).
    """

    __slots__ = ("_card_by_key", "_token_by_key", "board", "cards", "num_actions",
                 "num_chance_outcomes", "num_spaces", "tokens")

    def __init__(self, board: Board, cards: tuple[MissionCard, ...],
                 tokens: tuple[TowerToken, ...]) -> None:
        self.board = board
        self.cards = cards
        self.tokens = tokens
        self.num_spaces = len(board.spaces)
        self.num_actions = len(TILE_CODES) * self.num_spaces + len(cards) + len(TILE_CODES)
        self.num_chance_outcomes = len(TILE_CODES) + len(tokens) + len(cards)
        self._card_by_key = {c.id.upper(): c.index for c in cards}
        self._token_by_key = {t.id.upper(): t.index for t in tokens}

    # ---------------------------------------------------------------- actions

    def place_id(self, tile: int, space: int) -> int:
        """The id that places a tile of kind ``tile`` on space ``space``."""
        return tile * self.num_spaces + space

    def mark_id(self, card: int) -> int:
        """The id that puts an x2 marker on card number ``card``."""
        return len(TILE_CODES) * self.num_spaces + card

    def discard_id(self, tile: int) -> int:
        """The id of a P-7 discard of a tile of kind ``tile``."""
        return len(TILE_CODES) * self.num_spaces + len(self.cards) + tile

    def split(self, aid: int) -> tuple[str, int, int]:
        """``("place", tile, space)``, ``("mark", card, 0)`` or ``("discard", tile, 0)``."""
        ns = self.num_spaces
        if 0 <= aid < len(TILE_CODES) * ns:
            return ("place", aid // ns, aid % ns)
        k = aid - len(TILE_CODES) * ns
        if 0 <= k < len(self.cards):
            return ("mark", k, 0)
        k -= len(self.cards)
        if 0 <= k < len(TILE_CODES):
            return ("discard", k, 0)
        raise ValueError(f"action id {aid} is outside 0..{self.num_actions - 1}")

    def text(self, aid: int) -> str:
        """``S3@H7``, ``mark I03`` or ``discard S3``."""
        kind, a, b = self.split(aid)
        if kind == "place":
            return f"{tile_code(a)}@{self.board.spaces[b].label}"
        if kind == "mark":
            return f"mark {self.cards[a].id}"
        return f"discard {tile_code(a)}"

    def parse(self, text: str) -> int:
        """The id of an action text; ActionSyntaxError / IllegalActionError when it names nothing."""
        t = text.strip()
        m = _TABLE_PLACE_RE.match(t)
        if m:
            label = m.group(2).upper()
            h = self.board.by_label.get(label)
            if h is None:
                raise IllegalActionError("error.hex_does_not_exist_board", label=label)
            return self.place_id(parse_tile(m.group(1)), h)
        m = _TABLE_DISCARD_RE.match(t)
        if m:
            try:
                return self.discard_id(parse_tile(m.group(1)))
            except ValueError:
                raise ActionSyntaxError("error.unknown_tile_expected_one", tile=repr(m.group(1)),
                                        value=", ".join(TILE_CODES)) from None
        try:
            action = parse_action(t)
        except ActionSyntaxError:
            action = None
        if isinstance(action, Mark):
            ix = self._card_by_key.get(action.mission.upper())
            if ix is None:
                raise unknown_action(action)
            return self.mark_id(ix)
        raise ActionSyntaxError(
            "error.not_table_entry_type_tile", text=repr(text))

    # ---------------------------------------------------------- chance outcomes

    def token_outcome(self, token: int) -> int:
        """The outcome "tower token number ``token``"."""
        return len(TILE_CODES) + token

    def card_outcome(self, card: int) -> int:
        """The outcome "mission card number ``card``"."""
        return len(TILE_CODES) + len(self.tokens) + card

    def split_chance(self, outcome: int) -> tuple[str, int]:
        """``("reveal", tile)``, ``("token", token)`` or ``("card", card)``."""
        if 0 <= outcome < len(TILE_CODES):
            return ("reveal", outcome)
        k = outcome - len(TILE_CODES)
        if 0 <= k < len(self.tokens):
            return ("token", k)
        k -= len(self.tokens)
        if 0 <= k < len(self.cards):
            return ("card", k)
        raise ValueError(f"chance outcome {outcome} is outside 0..{self.num_chance_outcomes - 1}")

    def chance_text(self, outcome: int) -> str:
        """``reveal S2``, ``token points3a`` or ``card K05``."""
        kind, k = self.split_chance(outcome)
        if kind == "reveal":
            return f"reveal {tile_code(k)}"
        if kind == "token":
            return f"token {self.tokens[k].id}"
        return f"card {self.cards[k].id}"

    def parse_chance(self, text: str) -> int:
        """The outcome of an entered chance text; ActionSyntaxError / IllegalActionError."""
        t = text.strip()
        m = _TOKEN_RE.match(t)
        if m:
            ix = self._token_by_key.get(m.group(1).upper())
            if ix is None:
                raise IllegalActionError("error.there_no_tower_token", value=repr(m.group(1)))
            return self.token_outcome(ix)
        m = _CARD_RE.match(t)
        if m:
            ix = self._card_by_key.get(m.group(1).upper())
            if ix is None:
                raise IllegalActionError("error.mission_does_not_exist_game_2", value=m.group(1))
            return self.card_outcome(ix)
        if _REVEAL_RE.match(t):
            return ActionCodec.parse_chance(t)
        raise ActionSyntaxError(
            "error.not_entered_outcome_type_reveal", text=repr(text))
