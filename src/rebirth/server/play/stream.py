"""The bot API's game streams on this worker (docs/bot-api.md, docs/protocol.md "Bot API").

A program that plays a seat reads one NDJSON stream of it: a ``game`` line, then a ``state``
line after every committed change of the position, an ``over`` line at the end. The streams of a
game are one listener of its authority (server/authority/kernel.py): every committed value,
whatever path brought it (a step taken here, a bot's, another worker's read back), reaches every
open stream, by version, as the room's sockets get it. What a line shows of the game is the
seat's part chosen by :func:`rebirth.server.realtime.protocol.seat_part` — the one per-seat
filter of the server — and the PettingZoo environment's observation of that same view
(:func:`rebirth.env.observe.observe`).
"""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec

from rebirth.engine.game import Game
from rebirth.engine.observer import Observer
from rebirth.engine.views import View
from rebirth.env.observe import observe
from rebirth.server.authority.kernel import Committed
from rebirth.server.authority.live import LiveGame
from rebirth.server.realtime.protocol import seat_part
from rebirth.server.realtime.room import Stream

MAX_BACKLOG = 256
"""Lines a stream may have waiting; a reader that falls this far behind is closed (it resumes
with ``since``)."""


class _Line(msgspec.Struct, tag_field="type", omit_defaults=False):
    """A line of a bot stream."""


class GameLine(_Line, tag="game"):
    """The first line of a stream: the seat's whole position now."""

    seat: int
    version: int
    view: View
    observation: list[float]
    action_mask: list[int]
    legal: list[dict[str, Any]]
    events: list[dict[str, Any]]


class StateLine(GameLine, tag="state"):
    """The position after a committed change (the same fields as ``game``)."""


class OverLine(_Line, tag="over"):
    """The game is over: the final scores and the winners (seat numbers)."""

    scores: list[int]
    winners: list[int]


LINES: tuple[type[_Line], ...] = (GameLine, StateLine, OverLine)
"""Every line a stream sends (docs/protocol.md lists their fields; a test checks it)."""
KEEPALIVE = b"\n"
"""The keep-alive: an empty line."""

_encoder = msgspec.json.Encoder()


class SeatStream:
    """One open stream of one seat on this worker: the lines waiting to be sent."""

    def __init__(self, seat: int, token_hash: str) -> None:
        self.seat = seat
        self.token_hash = token_hash
        self.last = -1
        """The version of the last line made for it."""
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.closed = False

    def push(self, line: bytes) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= MAX_BACKLOG:
            self.close()  # a reader this far behind resumes with ``since``
            return
        self.queue.put_nowait(line)

    def close(self) -> None:
        """No more lines: the reader's response ends after those waiting."""
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)


class LineMaker:
    """The lines of one game's seats (its observer built once)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._observer: Observer | None = None

    @property
    def observer(self) -> Observer:
        if self._observer is None:
            self._observer = Observer(self.game)
        return self._observer

    def line(self, value: LiveGame, seat: int, since: int, first: bool) -> bytes:
        """The ``game`` (``first``) or ``state`` line of ``seat`` at ``value``: its view and
        the steps after ``since`` as the seat may see them, and the environment's observation."""
        m = value.match
        view, events = seat_part(m, seat, since)
        ob = observe(self.observer, view, self.game.num_actions)
        legal = [{"id": i, "text": t} for i, t in zip(view.legal_action_ids, view.legal_actions, strict=True)]
        kind = GameLine if first else StateLine
        out = kind(seat, m.version, view, ob["observation"].tolist(), ob["action_mask"].tolist(), legal,
                   events)
        return _encoder.encode(out) + b"\n"

    @staticmethod
    def over(value: LiveGame, seat: int) -> bytes:
        """The ``over`` line (from the seat's own view: public once the game is over)."""
        view = value.match.view(seat)
        return _encoder.encode(OverLine(list(view.scores), list(view.winners))) + b"\n"


class BotStreams:
    """The streams of one game on this worker: a listener of its authority."""

    def __init__(self, game: Game, open_streams: list[Stream]) -> None:
        self.maker = LineMaker(game)
        self.open = open_streams
        """The room's list (server/realtime/room.py: a stream counts as the seat online)."""

    def committed(self, e: Committed[LiveGame]) -> None:
        """A listener: every open stream gets the position after the versions it has (one
        line per seat and version, shared by that seat's streams)."""
        if not self.open:
            return
        after = e.after
        v = after.version
        made: dict[tuple[int, int], bytes] = {}
        for st in list(self.open):
            if not isinstance(st, SeatStream) or st.closed or st.last >= v:
                continue
            key = (st.seat, st.last)
            line = made.get(key)
            if line is None:
                line = made[key] = self.maker.line(after, st.seat, st.last, False)
            st.push(line)
            st.last = v
            if after.over:
                st.push(self.maker.over(after, st.seat))
                st.close()

    def start(self, st: SeatStream, value: LiveGame, since: int) -> None:
        """A new stream's first line (and, at the end, its ``over`` line)."""
        st.push(self.maker.line(value, st.seat, since, True))
        st.last = value.version
        if value.over:
            st.push(self.maker.over(value, st.seat))
            st.close()
