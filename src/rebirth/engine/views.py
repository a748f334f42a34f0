"""Per-seat views: exactly what one seat may see (S-5, S-4, K-1, I-9), as plain JSON-able data.

Views are built by :func:`rebirth.engine.infoset.view`, the one place that decides
who sees what.

Bots and interfaces get views, never the state. ``seat=None`` is a spectator,
who sees only public facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PHASES = ("place", "extra", "mark", "end", "chance")
"""Phase names by the state's phase number (``chance``: an outcome is pending, I-7)."""


@dataclass(frozen=True)
class View:
    """What ``seat`` knows. Everything is public except the fields marked private."""

    board: str
    rules: str
    players: int
    seat: int | None
    variants: tuple[str, ...]
    turn: int
    phase: str
    current_player: int
    # Public.
    spaces: tuple[tuple[int, str | None], ...]
    """Per space: owner (-1 free, 4 neutral) and tile code (None when free or face down)."""
    scores: tuple[int, ...]
    breakdown: tuple[dict[str, int], ...]
    castle_holders: tuple[int, ...]
    cathedral_pieces: tuple[tuple[int, ...], ...]
    supply_counts: tuple[int, ...]
    hand_counts: tuple[int, ...]
    set_aside_counts: tuple[int, ...]
    known_set_aside: tuple[tuple[str, ...], ...]
    """Set-aside tiles everyone has seen: revealed by an extra tile (I-7) that found no space."""
    mission_counts: tuple[int, ...]
    deck_count: int
    placed: tuple[int, ...]
    discarded: tuple[tuple[str, ...], ...]
    history: tuple[dict[str, Any], ...]
    extra_tile: str | None
    pending_extra: int
    pending_double: int
    tower_tokens: tuple[str, ...]
    tower_visits: tuple[tuple[int, ...], ...]
    display: tuple[str, ...]
    fulfilled: dict[str, tuple[int, ...]]
    marks: tuple[tuple[str, ...], ...]
    winners: tuple[int, ...]
    tiebreak: dict[str, Any] | None
    """Once over, what decided a tie for first (``State.tiebreak``; None: no tie)."""
    # Private to ``seat`` (empty for a spectator).
    hand: str | None = None
    set_aside: tuple[str, ...] = ()
    missions: tuple[str, ...] = ()
    mission_progress: tuple[tuple[int, int, bool], ...] = ()
    """Per own secret mission: (have, need, fulfilled now) — see ``State.mission_progress``."""
    legal_actions: tuple[str, ...] = ()
    legal_action_ids: tuple[int, ...] = ()
    """The same actions as ids (:mod:`rebirth.engine.codec`), ascending."""
    # Other seats' set-aside tiles when a variant makes them public.
    public_set_aside: tuple[tuple[str, ...], ...] = field(default=())

    def legal_mask(self, num_actions: int) -> list[int]:
        """1 for each legal action id, 0 elsewhere (``num_actions`` long: ``Game.num_actions``)."""
        mask = [0] * num_actions
        for a in self.legal_action_ids:
            mask[a] = 1
        return mask

    def to_json(self) -> dict[str, Any]:
        """A plain dict (lists, ints, strings) for JSON."""
        out: dict[str, Any] = {}
        for k, v in self.__dict__.items():
            out[k] = _plain(v)
        return out


def _plain(v: Any) -> Any:
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v
