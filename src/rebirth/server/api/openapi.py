"""The served OpenAPI schema (``/openapi.json``, for integrators and the fuzzer of
tests/server/test_openapi.py): every refusal in the one error shape of :mod:`.errors`.

FastAPI documents a 422 for bad input; this server answers 400 ``bad_message`` instead
(``app.py``'s handler), so the schema says that and drops the 422 it never sends.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel


class ErrorObject(BaseModel):
    """One refusal: a protocol code, its words in every language, optional details."""

    code: str
    message: dict[str, str]
    details: dict[str, Any] | None = None


class ErrorBody(BaseModel):
    """An HTTP error answer (``{"error": {...}}``)."""

    error: ErrorObject


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": why} for status, why in (
        (400, "bad input (bad_message, bad_seats, bad_game, …)"),
        (401, "no bearer token"),
        (403, "a token or invitation that is not valid here, revoked, or not allowed"),
        (404, "no such game, seat, board or page"),
        (409, "a conflict: an invitation already claimed, a seat still online, …"),
        (413, "a body over the size limit"),
        (429, "too many requests"),
        (503, "the database cannot serve now"),
    )}
"""The refusals every operation may answer (FastAPI adds them to each one)."""


def install(app: FastAPI) -> None:
    """Serve the schema without the 422 answers the server never gives."""

    def schema() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = get_openapi(title=app.title, version=app.version, routes=app.routes,
                              description="The Rebirth server's REST API (docs/protocol.md).")
            for ops in doc.get("paths", {}).values():
                for op in ops.values():
                    op.get("responses", {}).pop("422", None)
            for name in ("HTTPValidationError", "ValidationError"):
                doc.get("components", {}).get("schemas", {}).pop(name, None)
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = schema  # type: ignore[method-assign]
