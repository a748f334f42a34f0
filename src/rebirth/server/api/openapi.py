"""The served OpenAPI schema (``/openapi.json``, for integrators and the fuzzer of
tests/server/test_openapi.py): every refusal in the one error shape of :mod:`.errors`.

FastAPI documents a 422 for bad input; this server answers 400 ``bad_message`` instead
(``app.py``'s handler), so the schema says that and drops the 422 it never sends.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from rebirth.server.api.answers import ErrorBody

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
                    responses = op.get("responses", {})
                    responses.pop("422", None)
                    for status, r in responses.items():
                        # A refusal is JSON even where the answer is not (``/metrics``' text):
                        # FastAPI gives it the route's media type.
                        content = r.get("content", {})
                        if status[0] in "45" and content and "application/json" not in content:
                            r["content"] = {"application/json": next(iter(content.values()))}
            for name in ("HTTPValidationError", "ValidationError"):
                doc.get("components", {}).get("schemas", {}).pop(name, None)
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = schema  # type: ignore[method-assign]


def allowed_methods(app: FastAPI, path: str) -> set[str]:
    """The methods the served schema gives ``path`` (a 405's ``Allow``, RFC 9110 15.5.6): every
    operation of the path, not only those of the first route that matched it."""
    out: set[str] = set()
    for template, ops in app.openapi().get("paths", {}).items():
        pattern = "".join("[^/]+" if part.startswith("{") else re.escape(part)
                          for part in re.split(r"(\{[^}]*\})", template))
        if re.fullmatch(pattern, path):
            out |= {m.upper() for m in ops}
    if "GET" in out:
        out.add("HEAD")  # Starlette answers HEAD wherever it answers GET
    return out
