"""Independent random streams from one secret seed (docs/security.md, "Seeds").

A game has one secret seed. The deal shuffles with ``random.Random(seed)`` itself (so a
given seed deals what it always dealt); every other purpose gets its own stream seeded
with HMAC-SHA256 keyed by the seed over the purpose's name. HMAC cannot be turned back
into its key, so a stream tells nothing of the seed, hence nothing of the deal or of any
other stream: knowing which extra tile came back (I-7) says nothing about a supply.
"""

from __future__ import annotations

import hashlib
import hmac

CHANCE = "rebirth-chance"
"""The purpose of the stream that draws chance outcomes after the deal (I-7's reveals)."""


def derive(seed: int, purpose: str, *, nbytes: int = 32) -> int:
    """The seed of ``purpose``'s stream: the first ``nbytes`` of HMAC-SHA256(seed, purpose)."""
    digest = hmac.new(str(seed).encode(), purpose.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:nbytes], "big")


def chance_seed(seed: int | None) -> int | None:
    """The seed of a game's chance stream (``State.rng``); None (fresh OS entropy) without one."""
    return None if seed is None else derive(seed, CHANCE)


def bot_seed_of(seed: int, seat: int) -> int:
    """The seed of seat ``seat``'s bot in a game with ``seed`` (64 bits)."""
    return derive(seed, f"rebirth-bot/{seat}", nbytes=8)
