"""Events: what an action caused, each naming its rule id and explaining itself in English and German.

Texts use ``{s0}``..``{s3}`` for player names, filled in by the interface, so the
engine never needs to know who sits where.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from rebirth.engine.i18n import Text


@dataclass(frozen=True)
class Event:
    """One thing that happened. ``points`` were paid to ``seat`` (0 when nothing was paid)."""

    kind: str
    rule: str
    seat: int | None
    text: Text
    points: int = 0
    data: dict[str, Any] = field(default_factory=dict)
    private: dict[str, Any] | None = None
    private_text: Text | None = None

    def render(self, lang: str, names: list[str] | tuple[str, ...], *, seat: int | None = None) -> str:
        """The explanation in ``lang`` with player names; private details only for their owner."""
        subs = {f"s{i}": n for i, n in enumerate(names)}
        base = self.text["de" if lang == "de" else "en"].format(**subs)
        if self.private_text is not None and seat is not None and seat == self.seat:
            base += " " + self.private_text["de" if lang == "de" else "en"].format(**subs)
        return base

    def for_seat(self, seat: int | None) -> Event:
        """The event as ``seat`` may see it (None: a spectator)."""
        if self.private is None or (seat is not None and seat == self.seat):
            return self
        return replace(self, private=None, private_text=None)

    def to_json(self, seat: int | None) -> dict[str, Any]:
        """The event as JSON for ``seat`` (None: a spectator): private details only for their owner."""
        if self.private is not None and seat != self.seat:
            return self.for_seat(seat).to_json(seat)
        out: dict[str, Any] = {
            "kind": self.kind,
            "rule": self.rule,
            "seat": self.seat,
            "points": self.points,
            "data": self.data,
            "text": dict(self.text),
        }
        if self.private is not None:
            out["private"] = self.private
            out["private_text"] = dict(self.private_text) if self.private_text else None
        return out
