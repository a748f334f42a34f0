"""Events: what an action caused, each naming its rule id and a catalog message that explains it.

An event carries a message ``key`` and its ``args`` (see :mod:`rebirth.engine.messages`
and ``docs/messages.md``); the sentence is rendered by whoever shows it, in the
viewer's language and with the players' names, so the engine never needs to know
who sits where. A secret detail (the mission card a player drew) is in ``private`` /
``private_key`` / ``private_args`` and is only ever shown or serialised for its owner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rebirth.engine.i18n import Text, codes
from rebirth.engine.messages import render_message

PLACEHOLDER_NAMES = ("{s0}", "{s1}", "{s2}", "{s3}")
"""Names that leave the seat placeholders in (for :attr:`Event.text`)."""


@dataclass(frozen=True)
class Event:
    """One thing that happened. ``points`` were paid to ``seat`` (0 when nothing was paid)."""

    kind: str
    rule: str
    seat: int | None
    key: str
    args: dict[str, Any] = field(default_factory=dict)
    points: int = 0
    data: dict[str, Any] = field(default_factory=dict)
    private: dict[str, Any] | None = None
    private_key: str | None = None
    private_args: dict[str, Any] | None = None

    def render(self, lang: str, names: Sequence[str], *, seat: int | None = None) -> str:
        """The explanation in ``lang`` with player names; private details only for their owner."""
        base = render_message(self.key, self.args, lang, names)
        if self.private_key is not None and seat is not None and seat == self.seat:
            base += " " + render_message(self.private_key, self.private_args or {}, lang, names)
        return base

    @property
    def text(self) -> Text:
        """The public explanation in every declared language, players as ``{s0}``..``{s3}``."""
        return {lang: self.render(lang, PLACEHOLDER_NAMES) for lang in codes()}

    def for_seat(self, seat: int | None) -> Event:
        """The event as ``seat`` may see it (None: a spectator)."""
        if self.private is None and self.private_key is None:
            return self
        if seat is not None and seat == self.seat:
            return self
        return replace(self, private=None, private_key=None, private_args=None)

    def to_json(self, seat: int | None, /, *, copy: bool = True) -> dict[str, Any]:
        """The event as JSON for ``seat`` (None: a spectator): private parts only for the owner.
        ``copy=False``: the event's own values, shared — only for a caller that serialises the
        JSON at once and never edits it (the server's frames)."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "rule": self.rule,
            "seat": self.seat,
            "points": self.points,
            "data": self.data,
            "key": self.key,
            "args": self.args,
        }
        if seat is not None and seat == self.seat and (
                self.private is not None or self.private_key is not None):
            out["private"] = self.private
            out["private_key"] = self.private_key
            out["private_args"] = self.private_args
        if not copy:
            return out
        # A copy, so a caller editing the JSON cannot change the event (JSON values only:
        # a walk of its own, several times cheaper than copy.deepcopy's memo on every step).
        copied: dict[str, Any] = _json_copy(out)
        return copied


def _json_copy(v: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists and tuples copied, scalars shared)."""
    if isinstance(v, dict):
        return {k: _json_copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_json_copy(x) for x in v]
    if isinstance(v, tuple):
        return tuple([_json_copy(x) for x in v])
    return v
