"""Health and metrics: ``/healthz`` (the process answers), ``/readyz`` (it can serve: the
database answers and has its tables) and ``/metrics`` (Prometheus' text format).

These answer load balancers and monitoring, not players: plain JSON, no language, no
token, nothing about any game but counts.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Response
from fastapi.responses import JSONResponse, PlainTextResponse
from starlette.requests import HTTPConnection

from rebirth.server.api import answers as a
from rebirth.server.api.deps import RegistryDep
from rebirth.server.metrics import Metrics

router = APIRouter(tags=["health"])

READY_TIMEOUT = 5.0
"""Seconds a readiness check may take before it counts as failed (a stuck database)."""


def get_metrics(conn: HTTPConnection) -> Metrics:
    """The app's metrics."""
    m: Metrics = conn.app.state.metrics
    return m


MetricsDep = Annotated[Metrics, Depends(get_metrics)]


@router.get("/healthz", response_model=a.Health)
async def healthz() -> dict[str, str]:
    """Alive: the process and its event loop answer."""
    return {"status": "ok"}


@router.get("/readyz", response_model=a.Readiness,
            responses={503: a.described(a.Readiness, "not ready: the reason per check")})
async def readyz(registry: RegistryDep) -> JSONResponse | dict[str, Any]:
    """Ready: the database answers and has the server's tables; 503 with the reasons when not."""
    try:
        why = await asyncio.wait_for(asyncio.to_thread(registry.store.ready), READY_TIMEOUT)
    except TimeoutError:
        why = f"the database did not answer within {READY_TIMEOUT:g} s"
    checks = {"database": "ok" if why is None else why}
    if why is not None:
        return JSONResponse({"status": "unavailable", "checks": checks}, status_code=503)
    return {"status": "ready", "checks": checks}


@router.get("/metrics", response_class=PlainTextResponse)
async def metrics(m: MetricsDep) -> Response:
    """Prometheus metrics of this process."""
    body, ctype = m.exposition()
    return Response(body, media_type=ctype)
