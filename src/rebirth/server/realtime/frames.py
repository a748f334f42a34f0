"""Each distinct broadcast payload serialised once (issue 15 item 6).

A broadcast sends every connection the new steps as its seat may see them. Connections that see
the same thing — every spectator, two devices of one seat, a seat's socket and its other tab —
share one JSON text: with a thousand spectators a step costs one serialisation, not a thousand.
The key names what the payload depends on (the seat whose view it is and the version the
connection saw last), so sharing never hands one seat's view to another.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import orjson
from prometheus_client import Counter

_OPTS = orjson.OPT_NON_STR_KEYS


def dumps(msg: dict[str, Any]) -> str:
    """The JSON text of a message: compact, UTF-8, the same value ``json.dumps`` would give.

    Views and other frozen dataclasses of tuples go in as they are (orjson writes dataclasses
    and tuples itself): converting a view to lists and dicts first cost more than writing it."""
    return orjson.dumps(msg, option=_OPTS).decode()


class FrameCache:
    """The texts of one broadcast, by what they depend on; counts each serialisation."""

    def __init__(self, counter: Counter | None = None) -> None:
        self.counter = counter
        self._texts: dict[Hashable, str] = {}

    def text(self, key: Hashable, build: Callable[[], dict[str, Any]]) -> str:
        """The text for ``key``, built and serialised on its first use only."""
        out = self._texts.get(key)
        if out is None:
            out = self._texts[key] = dumps(build())
            if self.counter is not None:
                self.counter.inc()
        return out
