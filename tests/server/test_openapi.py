"""The OpenAPI schema is served for integrators, and a schema-driven fuzzer (schemathesis) runs
over it (issue 15 item 7 and its must-show "schemathesis over the served schema finds no 5xx"):
a started server on a temporary database, every operation of the schema, a bounded number of
examples each; no answer is a 5xx and every answer conforms to the schema (status code,
content type, headers, body)."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
import uvicorn
from fastapi import FastAPI
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from pydantic import BaseModel
from schemathesis.core.result import Ok
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from rebirth.server.app import create_app
from server import kit

MAX_EXAMPLES = int(os.environ.get("REBIRTH_FUZZ_EXAMPLES", "20"))
"""Examples per operation and generation mode: the whole run stays well under a minute on a
busy machine (a deeper run: ``REBIRTH_FUZZ_EXAMPLES=150``, about three minutes)."""
CHECKS = [schemathesis.checks.not_a_server_error, status_code_conformance, content_type_conformance,
          response_headers_conformance, response_schema_conformance]


@contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """``app`` served on a free loopback port (uvicorn in a thread); yields its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server on a fresh temporary database."""
    with serving(create_app(kit.settings(tmp_path_factory.mktemp("openapi")))) as base:
        yield base


def test_the_schema_is_served(live: str) -> None:
    r = httpx.get(f"{live}/openapi.json", timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    doc = r.json()
    assert doc["openapi"].startswith("3.")
    paths = doc["paths"]
    for path in ("/api/games", "/api/games/{game_id}/claim", "/api/games/{game_id}/seats/{seat}/revoke",
                 "/api/score", "/api/tables", "/healthz", "/readyz"):
        assert path in paths, path
    # Refusals are documented in the one error shape (server/errors.py).
    claim = paths["/api/games/{game_id}/claim"]["post"]["responses"]
    assert {"200", "400", "403", "409"} <= set(claim)


def fuzz(base: str, paths: tuple[str, ...] | None = None) -> list[str]:
    """Run the fuzzer over the schema served at ``base`` (only ``paths``, if given); one line
    per failing operation and mode."""
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations() if isinstance(result, Ok)]
    operations = [op for op in operations if paths is None or op.path in paths]
    failures: list[str] = []
    # Valid requests to every operation; requests the schema forbids (wrong types, missing or
    # extra fields, …) to those that take a body or a number (a GET's string path parameters
    # cannot be made invalid).
    runs = [(op, GenerationMode.POSITIVE) for op in operations] + [
        (op, GenerationMode.NEGATIVE) for op in operations if op.method.upper() == "POST"]
    for op, mode in runs:
        try:
            strategy = op.as_strategy(mode)
        except Exception:  # an operation without inputs has no negative examples
            assert mode is GenerationMode.NEGATIVE
            continue

        @given(case=strategy)
        @settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck), phases=[Phase.generate])
        def run(case: schemathesis.Case[Any]) -> None:
            case.call_and_validate(checks=CHECKS, timeout=20)

        try:
            run()
        except Unsatisfiable:
            # Nothing the schema forbids can be sent to it (only string path parameters).
            assert mode is GenerationMode.NEGATIVE
        except (Exception, BaseExceptionGroup) as exc:  # every failing operation, reported together
            failures.append(f"{op.label} ({mode.value}): {type(exc).__name__}: {str(exc)[:1500]}")
    return failures


def test_fuzz_every_operation(live: str) -> None:
    """Every operation of the served schema, MAX_EXAMPLES generated requests each: no 5xx, and
    every answer as the schema says. (Run through schemathesis' Python API: its pytest plugin
    does not load under this pytest.)"""
    assert len(httpx.get(f"{live}/openapi.json", timeout=10).json()["paths"]) >= 18
    failures = fuzz(live)
    assert failures == [], "\n\n".join(failures)


class Probe(BaseModel):
    """The planted endpoint's body."""

    n: int


def test_the_fuzzer_finds_a_planted_server_error(tmp_path: Path) -> None:
    """The check can fail: an endpoint that answers 500 for some valid bodies is reported."""
    app = create_app(kit.settings(tmp_path))

    @app.post("/api/planted")
    async def planted(body: Probe) -> dict[str, int]:
        if body.n % 2:
            raise RuntimeError("planted")
        return {"n": body.n}

    with serving(app) as base:
        failures = fuzz(base, ("/api/planted",))
    assert failures and all("planted" in f for f in failures)
    assert any("Server error" in f or "500" in f for f in failures), failures
