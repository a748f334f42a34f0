"""A game's configuration values, below every module that plays: the rule variants, the size
of Ireland's display and the deal (:class:`Setup`).

The game (:class:`~rebirth.engine.state.Game`) and its states both use these; they live here,
under both, so that neither has to import the other for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rebirth.engine.messages import UserError, languages, render_message
from rebirth.engine.tiles import parse_tile, tile_code

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
