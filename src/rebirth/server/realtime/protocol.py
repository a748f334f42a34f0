"""The WebSocket protocol (docs/protocol.md, "WebSocket"): every frame, both directions, is a
declared type here; frames are parsed and validated in :func:`decode`, serialised in
:func:`encode`, and what a seat may see is chosen in :func:`seat_part` alone.

msgspec, not pydantic: measured per frame (benchmarks/frames.py), a Scotland ``update`` encodes
in less time than the orjson dict it replaces, and an ``act`` decodes and validates in a fraction
of ``json.loads`` (the bounded parse of :func:`~rebirth.server.operations.guard.bounded_loads`
runs first: depth, integer length, valid strings).

docs/protocol.md's two WebSocket tables are checked against these types by
tests/server/test_protocol_doc.py: a frame type or field added here and not there fails.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from rebirth.app.match import Match
from rebirth.engine.views import View
from rebirth.server.errors import error_object
from rebirth.server.operations.guard import BadJson, bounded_loads

# ---------------------------------------------------------------------------------- inbound

Version = Annotated[int, msgspec.Meta(ge=-1, le=2**31)]
"""A version as a client sends it (-1: before the deal)."""
Seat = Annotated[int, msgspec.Meta(ge=0, le=64)]


class _In(msgspec.Struct, tag_field="type"):
    """A client frame (unknown fields are ignored: newer pages may send more)."""


class HelloFrame(_In, tag="hello"):
    """``hello``: authenticate with a link's token; ``since``: the last version seen (-1: all).
    Without a token (``""``) the socket's session cookie speaks: that account's seat in the game,
    a spectator if it has none (server/api/play.py)."""

    token: str = ""
    since: Version = -1


class ActFrame(_In, tag="act"):
    """``act``: an action chosen at ``version``; ``seat`` only from a hot-seat device."""

    action: str
    version: Version
    seat: Seat | None = None


class PreviewAsk(_In, tag="preview"):
    """``preview``: what ``action`` would score for the seat to move."""

    action: str
    seat: Seat | None = None


class ClaimFrame(_In, tag="claim"):
    """``claim``: a hot-seat device is taken by the seat to move."""

    seat: Seat


class PingFrame(_In, tag="ping"):
    """``ping``: keep-alive, answered by ``pong``."""


class ChatSay(_In, tag="chat"):
    """``chat``: a message (checked and cleaned by server/social); ``name``: spectators only."""

    text: Any = None
    name: Any = ""


class ChatHistoryAsk(_In, tag="chat_history"):
    """``chat_history``: the messages after ``after`` (0: all) and the rematch."""

    after: Any = 0


Inbound = HelloFrame | ActFrame | PreviewAsk | ClaimFrame | PingFrame | ChatSay | ChatHistoryAsk
"""Every frame a client may send."""

INBOUND: tuple[type[_In], ...] = (HelloFrame, ActFrame, PreviewAsk, ClaimFrame, PingFrame, ChatSay,
                                  ChatHistoryAsk)

MAX_TOKEN = 200
MAX_ACTION = 64


class BadFrame(ValueError):
    """A client frame that is not one of :data:`Inbound` (``reason``: why, when the bounded
    parse said so)."""

    def __init__(self, reason: str | None = None, text: dict[str, str] | None = None) -> None:
        super().__init__(reason or "bad_message")
        self.reason = reason
        self.text = text


_decoder: msgspec.json.Decoder[Inbound] = msgspec.json.Decoder(Inbound)


def decode(raw: str) -> Inbound:
    """The client frame in ``raw``, parsed with bounds and validated against its type; raises
    :class:`BadFrame` (the connection answers ``bad_message`` and stays open)."""
    try:
        # The bounds first (depth, integer length, valid strings: a reason the page is told),
        # then the typed decode of the same text (a fraction of a microsecond).
        bounded_loads(raw)
    except BadJson as exc:
        raise BadFrame(exc.reason, exc.text()) from None
    try:
        frame = _decoder.decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError):
        raise BadFrame() from None
    if isinstance(frame, HelloFrame) and len(frame.token) > MAX_TOKEN:
        raise BadFrame()
    if isinstance(frame, ActFrame | PreviewAsk) and len(frame.action) > MAX_ACTION:
        raise BadFrame()
    return frame


# ---------------------------------------------------------------------------------- outbound


class _Out(msgspec.Struct, tag_field="type", omit_defaults=False):
    """A server frame."""


class Sync(_Out, tag="sync"):
    """Everything a device holds, replacing what it had (its seat's view and log)."""

    game: str
    seat: int | None
    seats: list[int]
    role: str | None
    version: int
    view: View
    events: list[dict[str, Any]]
    names: list[str]
    kinds: list[str]
    online: list[bool]
    lang: str
    clock: dict[str, Any] | None
    handover_at: list[float | None]


class Update(_Out, tag="update"):
    """The steps after the last version this connection got, and the view after them."""

    version: int
    view: View
    events: list[dict[str, Any]]
    online: list[bool]
    clock: dict[str, Any] | None


class PreviewFrame(_Out, tag="preview"):
    """What an action would score, from the seat's own view (events in their public form)."""

    action: str
    points: int
    version: int
    events: list[dict[str, Any]]


class Presence(_Out, tag="presence"):
    """Which seats have a device online, and from when each may be handed to a bot."""

    online: list[bool]
    handover_at: list[float | None]


class ClockFrame(_Out, tag="clock"):
    """The clock or the seats' kinds changed between steps; ``seats``: a hot-seat device's
    seats (omitted for the others)."""

    clock: dict[str, Any] | None
    kinds: list[str]
    handover_at: list[float | None]
    seats: list[int] | msgspec.UnsetType = msgspec.UNSET


class Pong(_Out, tag="pong"):
    """The answer to ``ping``."""


class ChatFrame(_Out, tag="chat"):
    """New chat messages (names and texts are data, never markup)."""

    messages: list[dict[str, Any]]


class ChatHistory(_Out, tag="chat", omit_defaults=False):
    """The answer to ``chat_history``: the messages, and the rematch's game id (or null)."""

    messages: list[dict[str, Any]]
    history: bool
    rematch: str | None


class RematchFrame(_Out, tag="rematch"):
    """The game's rematch was just made (its link comes over REST, never in a frame)."""

    game: str


class ErrorFrame(_Out, tag="error"):
    """A refusal: nothing changed, the connection stays open (server/errors.py's one shape)."""

    code: str
    message: dict[str, str]
    version: int | None
    details: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET


Outbound = (Sync | Update | PreviewFrame | Presence | ClockFrame | Pong | ChatFrame | ChatHistory
            | RematchFrame | ErrorFrame)
"""Every frame the server sends."""

OUTBOUND: tuple[type[_Out], ...] = (Sync, Update, PreviewFrame, Presence, ClockFrame, Pong, ChatFrame,
                                    ChatHistory, RematchFrame, ErrorFrame)

_encoder = msgspec.json.Encoder()


def encode(frame: Outbound) -> str:
    """The JSON text of a server frame (views and other dataclasses written directly)."""
    return _encoder.encode(frame).decode()


def error_frame(code: str, version: int | None, text: dict[str, str] | None = None,
                details: dict[str, Any] | None = None) -> ErrorFrame:
    """The ``error`` frame: the one error shape (:func:`rebirth.server.errors.error_object`)
    and the game's current version."""
    obj = error_object(code, text, details)
    return ErrorFrame(code, obj["message"], version, obj.get("details", msgspec.UNSET))


def seat_part(match: Match, seat: int | None, since: int) -> tuple[View, list[dict[str, Any]]]:
    """What ``seat`` (None: a spectator) may see: its view and the steps after ``since`` as it
    may see them — the one place the server filters a payload per seat (redaction by
    construction: :meth:`~rebirth.app.match.Match.view`, :meth:`~rebirth.app.match.Match.events_for`)."""
    # copy=False: the frame is serialised at once and never edited (a copy per seat and step
    # was a tenth of a step's CPU).
    return match.view(seat), match.events_for(seat, since, copy=False)


def update(match: Match, seat: int | None, since: int, online: list[bool],
           clock: dict[str, Any] | None) -> Update:
    """The ``update`` for a connection of ``seat`` that last got version ``since``."""
    view, events = seat_part(match, seat, since)
    return Update(match.version, view, events, online, clock)


__all__ = [
    "INBOUND",
    "OUTBOUND",
    "ActFrame",
    "BadFrame",
    "ChatFrame",
    "ChatHistory",
    "ChatHistoryAsk",
    "ChatSay",
    "ClaimFrame",
    "ClockFrame",
    "ErrorFrame",
    "HelloFrame",
    "Inbound",
    "Outbound",
    "PingFrame",
    "Pong",
    "Presence",
    "PreviewAsk",
    "PreviewFrame",
    "RematchFrame",
    "Sync",
    "Update",
    "decode",
    "encode",
    "error_frame",
    "seat_part",
    "update",
]
