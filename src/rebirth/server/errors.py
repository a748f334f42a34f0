"""The server's one error type and one error shape, for HTTP answers and WebSocket frames.

Every refusal carries a protocol ``code``, a ``message`` in every declared language
(``{"en": ..., "de": ..., ...}``, the registry of :mod:`rebirth.engine.i18n`)
and, when there is more to say, ``details`` (an object). HTTP answers wrap it as
``{"error": {...}}``; the WebSocket sends it as ``{"type": "error", ..., "version": v}``
(docs/protocol.md).
"""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse

from rebirth.engine.i18n import codes, same_text
from rebirth.engine.messages import UnknownLanguage, require_lang, text

LANGS = codes()
"""The languages every error message is given in (the registry's, not a list of its own)."""

CODES = ("bad_message", "bad_token", "revoked", "unknown_game", "not_your_turn", "too_large",
         "hello_first", "server_error", "forbidden", "still_online", "not_human", "unknown_seat",
         "conflict", "claimed")
"""The protocol's error codes with a fixed text (catalog key ``server.<code>``)."""


def texts(key: str, **args: Any) -> dict[str, str]:
    """The catalog message ``key`` with ``args`` in every language (data/i18n, docs/messages.md)."""
    return {lang: text(key, lang, **args) for lang in LANGS}


ERRORS: dict[str, dict[str, str]] = {code: texts(f"server.{code}") for code in CODES}
"""The fixed texts of the protocol's error codes (codes with variable text pass their own)."""


def error_object(code: str, text: dict[str, str] | None = None,
                 details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The one error shape: ``code``, ``message`` (every language) and optional ``details``."""
    message = dict(text or ERRORS.get(code) or same_text(code))
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
    """A refused request: HTTP status, protocol error code, text (every language) and optional details.

    Raised by every router; the app's exception handler turns it into :func:`error_response`."""

    def __init__(self, status: int, code: str, text: dict[str, str] | None = None,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(code)
        self.status = status
        self.code = code
        self.text = dict(text or ERRORS.get(code) or same_text(code))
        self.details = details

    def response(self) -> JSONResponse:
        """The HTTP answer of this error."""
        return error_response(self.status, self.code, self.text, self.details)


def known_lang(lang: object, status: int = 400) -> str:
    """``lang`` when the language registry declares it; otherwise the one refusal of every
    surface: ``unknown_lang`` naming the supported languages (``details.supported``, in menu order)."""
    try:
        return require_lang(lang)
    except UnknownLanguage as exc:
        raise ApiError(status, "unknown_lang", exc.texts(), {"supported": list(codes())}) from None
