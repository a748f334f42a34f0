"""The server's one error type and one error shape, for HTTP answers and WebSocket frames.

Every refusal carries a protocol ``code``, a ``message`` in every language (``{"en": ..., "de": ...}``)
and, when there is more to say, ``details`` (an object). HTTP answers wrap it as
``{"error": {...}}``; the WebSocket sends it as ``{"type": "error", ..., "version": v}``
(docs/protocol.md).
"""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse

ERRORS: dict[str, dict[str, str]] = {
    "bad_message": {"en": "this message is not understood", "de": "diese Nachricht ist unverständlich"},
    "bad_token": {"en": "this link is not valid for this game",
                  "de": "dieser Link gilt nicht für diese Partie"},
    "revoked": {"en": "this link was revoked; ask for a new one",
                "de": "dieser Link wurde zurückgezogen; bitte um einen neuen"},
    "unknown_game": {"en": "there is no such game", "de": "diese Partie gibt es nicht"},
    "not_your_turn": {"en": "it is not your turn", "de": "du bist nicht am Zug"},
    "too_large": {"en": "the message is too large", "de": "die Nachricht ist zu groß"},
    "hello_first": {"en": "send hello with your link's token first",
                    "de": "sende zuerst hello mit dem Token deines Links"},
    "server_error": {"en": "the server could not save this move; please try again",
                     "de": "der Server konnte diesen Zug nicht speichern; bitte erneut versuchen"},
    "forbidden": {"en": "this link may not do that", "de": "dieser Link darf das nicht"},
    "still_online": {"en": "that seat is still online or left only a moment ago",
                     "de": "dieser Platz ist noch online oder erst gerade gegangen"},
    "not_human": {"en": "that seat is already played by a bot",
                  "de": "dieser Platz wird schon von einem Bot gespielt"},
    "unknown_seat": {"en": "there is no such seat", "de": "diesen Platz gibt es nicht"},
    "conflict": {"en": "someone entered something meanwhile: the page was refreshed, check and retry",
                 "de": "inzwischen wurde etwas eingegeben: die Seite wurde aktualisiert, prüfen und erneut"},
}
"""The fixed texts of the protocol's error codes (codes with variable text pass their own)."""


def error_object(code: str, text: dict[str, str] | None = None,
                 details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The one error shape: ``code``, ``message`` (en, de) and optional ``details``."""
    message = dict(text or ERRORS.get(code) or {"en": code, "de": code})
    out: dict[str, Any] = {"code": code, "message": message}
    if details:
        out["details"] = details
    return out


def error_frame(code: str, version: int | None, text: dict[str, str] | None = None,
                details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``error`` message of the WebSocket protocol."""
    return {"type": "error", **error_object(code, text, details), "version": version}


def error_response(status: int, code: str, text: dict[str, str] | None = None,
                   details: dict[str, Any] | None = None) -> JSONResponse:
    """An HTTP error answer (``{"error": {...}}``)."""
    return JSONResponse({"error": error_object(code, text, details)}, status_code=status)


class ApiError(Exception):
    """A refused request: HTTP status, protocol error code, text (en, de) and optional details.

    Raised by every router; the app's exception handler turns it into :func:`error_response`."""

    def __init__(self, status: int, code: str, text: dict[str, str] | None = None,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(code)
        self.status = status
        self.code = code
        self.text = dict(text or ERRORS.get(code) or {"en": code, "de": code})
        self.details = details

    def response(self) -> JSONResponse:
        """The HTTP answer of this error."""
        return error_response(self.status, self.code, self.text, self.details)
