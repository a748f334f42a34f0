"""The answers of the seat-transfer, unsubscribe and resign routes (issue 25), beside
:mod:`.answers` (the same rules: every key declared)."""

from __future__ import annotations

from typing import Literal

from rebirth.server.api.answers import Answer


class TransferMade(Answer):
    """``POST /api/games/{id}/transfer``: a one-time transfer code of the seat, shown once."""

    seat: int
    url: str
    """``{public}/game/{id}#x=<code>``: the code in the fragment (never sent to a server)."""
    qr: str
    """The same link as a QR code: an SVG ``data:`` URL (made here, no outside service)."""
    expires: float
    """Wall time (seconds) after which the code is refused."""
    ttl_s: float


class TransferClaimed(Answer):
    """``POST /api/games/{id}/transfer/claim``: the new device's own token of the seat, once."""

    game: str
    role: Literal["seat"]
    seat: int
    token: str


class Unsubscribed(Answer):
    """``POST /api/unsubscribe``: the seat's e-mail notices stopped."""

    unsubscribed: bool
