"""The FastAPI application: lobby REST, the game WebSocket and the page (docs/server.md)."""

from __future__ import annotations

import gc
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from rebirth.engine.formats import field_fault
from rebirth.engine.messages import text
from rebirth.server.accounts.signin import SigninMailer
from rebirth.server.api import (
    account,
    analysis,
    calc,
    data,
    health,
    lobby,
    open_games,
    openapi,
    play,
    pwa,
    rematch,
    share,
)
from rebirth.server.api import bot as botapi
from rebirth.server.api import botaccounts as botaccounts_api
from rebirth.server.api import clocks as clockapi
from rebirth.server.api import notify as notify_api
from rebirth.server.api import pages as static
from rebirth.server.api import push as push_api
from rebirth.server.api import puzzles as puzzles_api
from rebirth.server.api import ratings as ratings_api
from rebirth.server.api import tables as table
from rebirth.server.api import transfer as transfer_api
from rebirth.server.errors import ApiError, error_response, texts
from rebirth.server.metrics import Metrics
from rebirth.server.notifications import notifier as notify
from rebirth.server.operations.caps import Caps
from rebirth.server.operations.guard import CLIENT_CLOSED, CLIENT_GONE, Guard
from rebirth.server.operations.throttle import RateLimit, Throttle
from rebirth.server.persistence import seatnotify
from rebirth.server.persistence.store import Store
from rebirth.server.play import botevents
from rebirth.server.play import results as game_results
from rebirth.server.play.lifecycle import Lifecycle
from rebirth.server.play.registry import GameFactory, Registry, SeedFactory, log
from rebirth.server.play.session import ServerError
from rebirth.server.settings import Settings
from rebirth.server.tables.authority import TableRegistry

access = logging.getLogger("rebirth.access")
"""One JSON line per HTTP request (method, path, route template, status, ms, client)."""


def app_from_env() -> FastAPI:
    """The app of one worker of ``rebirth serve --workers N`` (uvicorn's factory): its settings
    come from the ``REBIRTH_*`` environment the command line set."""
    app = create_app(Settings())
    tune_gc()
    return app


GC_YOUNG_THRESHOLD = 50_000
"""Allocations between two collections of the youngest generation (Python's default: 700).
Each step's committed value is a new match (the commit path proposes on a copy), which lives
until the game's next step: collected five times less often, most of them are freed by their
reference count before a collection visits them (measured, 100 games in memory: the
collector's time per step 30 -> 9 us)."""


def tune_gc() -> None:
    """The garbage collector of a server process (``rebirth serve`` and each of its workers;
    not of a process that merely builds apps, such as the tests'): what was built at start
    (modules, the app, its routes) is frozen out of every collection, and the youngest
    generation is collected after 10,000 allocations instead of 700. Measured through the proxy
    (2 workers, N = 100, CPU time of each collection): two or three full collections a run
    paused each worker for ~160 ms apiece and the younger generations cost 0.19-0.35 s per
    worker; frozen and tuned, no full collection came within a run and the younger ones took
    7-8 ms in all (though a middle-generation collection, rarer now, can take 40-50 ms).
    Cycles are still collected."""
    gc.collect()
    gc.freeze()
    gen0, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(max(gen0, GC_YOUNG_THRESHOLD), gen1, gen2)


def create_app(settings: Settings | None = None, *, game_factory: GameFactory | None = None,
               seed_factory: SeedFactory | None = None) -> FastAPI:
    """The server app. ``game_factory``/``seed_factory`` exist for scripted tests (canary cards,
    a canary seed); a real server deals from secret seeds with the shipped rules."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(settings.resolved_database_url())
        registry = Registry(store, settings, game_factory, seed_factory, metrics)
        app.state.registry = registry
        # Turn notifications: the writers' hook and this worker's outbox dispatcher.
        app.state.notifier = notifier = notify.Notifier(store, settings, registry)
        notify.attach(registry, notifier)
        # A seat without its own policy takes its account's (issue 25 item 6).
        notifier.default_policy = partial(seatnotify.account_policy, store)
        notifier.start()
        # Sign-in links (server/accounts/signin.py): made and mailed off the request path.
        app.state.signin_mailer = mailer = SigninMailer(store, settings)
        # The end of each game: its result stored, then rated (server/play/results.py).
        app.state.results = results = game_results.attach(registry)
        # The table companion: the same authority-and-registry pattern, on the same store.
        app.state.tables = TableRegistry(store)
        if settings.redis_url:
            # One worker of several on the same database: Redis tells it when games move on.
            await registry.start_workers()
        # What bot accounts are told: challenges, game starts and ends (server/play/botevents.py).
        app.state.bot_events = bot_events = botevents.attach(registry)
        # Caps and the games' life in memory (server/operations/caps.py, server/play/lifecycle.py): the bot
        # games load in the background, so the server listens at once.
        app.state.caps = Caps(store, settings.max_games_per_client, settings.max_bot_games,
                              settings.max_sockets_per_game)
        lifecycle = Lifecycle(registry, app.state.caps)
        app.state.lifecycle = lifecycle
        lifecycle.start()
        try:
            yield
        finally:
            await lifecycle.drain(settings.shutdown_grace)
            await registry.close()
            await notifier.close()
            await mailer.close()
            await results.close()
            await bot_events.close()
            await store.aclose()
            store.close()

    # The OpenAPI schema is served for integrators (and the fuzzer, tests/server/test_openapi.py).
    app = FastAPI(title="Rebirth", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url="/openapi.json", responses=openapi.ERROR_RESPONSES)
    openapi.install(app)
    app.state.settings = settings
    metrics = Metrics()
    app.state.metrics = metrics

    # Rate limits (server/operations/throttle.py), inside the guard: a 429 carries the security headers.
    app.state.throttle = Throttle(settings, metrics)
    app.add_middleware(RateLimit, throttle=app.state.throttle)
    # Bounded bodies (counted as they stream), security headers, the WebSocket's Origin check.
    app.add_middleware(Guard, max_bytes=settings.max_message_bytes, public_url=settings.public_url)

    # Added last, so outermost: every request is logged and counted, those the guard refuses too.
    @app.middleware("http")
    async def access_log(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        # One structured line per request. Only the path is logged, never the query, the
        # headers (bearer tokens) or a body; seat links carry their token in the fragment,
        # which browsers never send.
        start = time.perf_counter()
        status = 500
        try:
            response = await call_next(request)
            status = response.status_code
            return response
        except ClientDisconnect:
            # A client that hung up mid-request is no server error: recorded as 499 (client
            # closed request), without a traceback; nobody reads the answer.
            status = CLIENT_CLOSED
            return Response(status_code=CLIENT_CLOSED)
        except RuntimeError:
            # The guard saw the hang-up and returned without an answer; starlette then raises
            # "No response returned". Any other RuntimeError is a bug and goes on.
            if not request.scope.get(CLIENT_GONE):
                raise
            status = CLIENT_CLOSED
            return Response(status_code=CLIENT_CLOSED)
        finally:
            seconds = time.perf_counter() - start
            route = request.scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            metrics.requests.labels(request.method, template, str(status)).inc()
            metrics.request_seconds.labels(template).observe(seconds)
            access.info(json.dumps({
                "ts": round(time.time(), 3), "event": "request", "method": request.method,
                "path": request.url.path[:200],
                "route": template, "status": status, "ms": round(seconds * 1000, 2),
                "client": request.client.host if request.client else None}))


    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return exc.response()

    @app.exception_handler(ServerError)
    async def storage_failed(_request: Request, _exc: ServerError) -> JSONResponse:
        # A change the store could not take (server/play/session.py): nothing changed.
        return error_response(503, "server_error", texts("server.storage_failed"), {"reason": "storage"})

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "type": "missing", "msg": ""}
        where = ".".join(str(x) for x in first.get("loc", ()))
        # The fault as a catalog message (formats.field_fault), so both languages read it;
        # ``details.reason`` keeps the English words for clients that log it.
        why = field_fault(first)[1]
        return error_response(400, "bad_message", texts("server.bad_field", field=where, why=why),
                              {"field": where, "reason": text(why["msg"], "en", **why["args"])})

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        out = error_response(exc.status_code, code, texts(f"server.{code}", status=exc.status_code))
        if exc.status_code == 405:
            # Every method the path has, not only the first matching route's (Starlette's own).
            allow = openapi.allowed_methods(app, request.url.path) or set(
                (exc.headers or {}).get("Allow", "").replace(" ", "").split(","))
            out.headers["Allow"] = ", ".join(sorted(m for m in allow if m))
        return out

    @app.exception_handler(ClientDisconnect)
    async def client_gone(_request: Request, _exc: ClientDisconnect) -> Response:
        # The client hung up while a route read its body: nobody to answer, nothing to log.
        return Response(status_code=CLIENT_CLOSED)

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        # A bug must not show a stack trace (or anything else) to the client.
        log.exception("unexpected error", exc_info=exc)
        return error_response(500, "server_error")

    # One router per area: health, lobby (REST), data (maps, catalogs, variants), play
    # (WebSocket), the score calculator, the table companion, the analysis, then the pages.
    app.include_router(health.router)
    app.include_router(lobby.router)
    app.include_router(open_games.router)
    app.include_router(clockapi.router)
    app.include_router(notify_api.router)
    app.include_router(transfer_api.router)
    app.include_router(push_api.router)
    app.include_router(pwa.router)
    app.include_router(data.router)
    app.include_router(play.router)
    app.include_router(calc.router)
    app.include_router(table.router)
    app.include_router(analysis.router)
    app.include_router(rematch.router)
    app.include_router(account.router)
    app.include_router(ratings_api.router)
    app.include_router(puzzles_api.router)
    app.include_router(botapi.router)
    app.include_router(botaccounts_api.router)
    app.include_router(share.router)
    app.include_router(static.router)
    app.mount("/static", static.static_files(settings), name="static")
    return app
