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
from rebirth.engine.missions import MissionCard
from rebirth.engine.tiles import TILE_CODES, parse_tile, tile_code

NUM_CHANCE_OUTCOMES = len(TILE_CODES)
"""Chance outcomes are tile kinds: E, F, S1..S4."""

_REVEAL_RE = re.compile(r"^reveal\s+(\S+)$", re.IGNORECASE)


class ActionCodec:
    """Action id <-> :class:`Action` <-> text for one board and card set."""

    __slots__ = ("_card_by_key", "board", "cards", "num_actions", "num_spaces")

    def __init__(self, board: Board, cards: tuple[MissionCard, ...]) -> None:
        self.board = board
        self.cards = cards
        self.num_spaces = len(board.spaces)
        self.num_actions = self.num_spaces + len(cards)
        # Mission ids are matched without regard to case: a player typing `mark m2`
        # means card M2, whatever case the data file uses.
        self._card_by_key = {c.id.upper(): c.index for c in cards}

    # ------------------------------------------------------------ ids and actions

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
        """The text form of id ``aid`` (``C7``, ``mark I03``)."""
        return str(self.decode(aid))

    def parse(self, text: str) -> int:
        """The id of an action text; ActionSyntaxError / IllegalActionError when it names nothing."""
        action = parse_action(text)
        aid = self.encode(action)
        if aid is None:
            raise unknown_action(action)
        return aid

    # -------------------------------------------------------------- chance outcomes

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
            raise ActionSyntaxError(f"{text!r} is not a chance outcome (expected 'reveal TILE')",
                                    f"{text!r} ist kein Zufallsergebnis (erwartet: 'reveal PLÄTTCHEN')")
        try:
            return parse_tile(m.group(1))
        except ValueError as exc:
            raise ActionSyntaxError(str(exc)) from None


def unknown_action(action: Action) -> IllegalActionError:
    """The error for an action that names no hex or mission of this game."""
    if isinstance(action, Reveal):
        return IllegalActionError(f"{action} is a chance outcome, not a player's action",
                                  f"{action} ist ein Zufallsergebnis, keine Spieleraktion")
    if isinstance(action, Place):
        return IllegalActionError(f"hex {action} does not exist on this board",
                                  f"Feld {action} gibt es auf diesem Spielplan nicht")
    return IllegalActionError(f"mission {action.mission} does not exist in this game",
                              f"Mission {action.mission} gibt es in dieser Partie nicht")
