"""Actions are small values with a text form: ``C7`` places the hand tile on hex C7,
``mark I03`` puts an x2 marker on public mission I03 (Ireland, I-8).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rebirth.engine.hexgrid import LABEL_RE
from rebirth.engine.messages import UserError


class ActionError(UserError):
    """Base class for a refused action: a catalog key and its arguments (see :class:`UserError`)."""


class ActionSyntaxError(ActionError):
    """The text is not an action at all."""


class IllegalActionError(ActionError):
    """A well-formed action that the rules do not allow here."""


_MARK_RE = re.compile(r"^(?:mark|x2)\s+([A-Za-z0-9_]+)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Place:
    """Place the tile to be placed (hand or revealed extra tile) on the hex ``label``."""

    label: str

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True, slots=True)
class Mark:
    """Put an x2 marker on the public mission ``mission`` (I-8)."""

    mission: str

    def __str__(self) -> str:
        return f"mark {self.mission}"


@dataclass(frozen=True, slots=True)
class Reveal:
    """A chance outcome: the extra tile revealed is of kind ``tile`` (I-7). Applied by the
    authority (or a replay), never chosen by a player."""

    tile: str

    def __str__(self) -> str:
        return f"reveal {self.tile}"


Action = Place | Mark | Reveal

_REVEAL_RE = re.compile(r"^reveal\s+(E|F|S[1-4])$", re.IGNORECASE)


def parse_action(text: str) -> Action:
    """Parse the text form; raises :class:`ActionSyntaxError` with a clear message."""
    t = text.strip()
    if LABEL_RE.match(t.upper()):
        return Place(t.upper())
    r = _REVEAL_RE.match(t)
    if r:
        return Reveal(r.group(1).upper())
    m = _MARK_RE.match(t)
    if m:
        # The case is kept: the codec matches mission ids without regard to case.
        return Mark(m.group(1))
    raise ActionSyntaxError(
        "error.not_action_type_hex_such", text=repr(text),
    )
