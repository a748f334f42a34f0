"""The FastAPI application: lobby REST, the game WebSocket and the page (docs/server.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from rebirth.server import calc, data, lobby, play, static, table
from rebirth.server.errors import ERRORS, ApiError, error_response
from rebirth.server.hub import GameFactory, Registry, SeedFactory, log
from rebirth.server.settings import Settings
from rebirth.server.store import Store
from rebirth.server.tables import TableRegistry


def app_from_env() -> FastAPI:
    """The app of one worker of ``rebirth serve --workers N`` (uvicorn's factory): its settings
    come from the ``REBIRTH_*`` environment the command line set."""
    return create_app(Settings())


def create_app(settings: Settings | None = None, *, game_factory: GameFactory | None = None,
               seed_factory: SeedFactory | None = None) -> FastAPI:
    """The server app. ``game_factory``/``seed_factory`` exist for scripted tests (canary cards,
    a canary seed); a real server deals from secret seeds with the shipped rules."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(settings.resolved_database_url())
        registry = Registry(store, settings, game_factory, seed_factory)
        app.state.registry = registry
        # The table companion: the same authority-and-registry pattern, on the same store.
        app.state.tables = TableRegistry(store)
        if settings.redis_url:
            # One worker of several on the same database: Redis tells it when games move on.
            await registry.start_workers()
        await registry.load_all()
        try:
            yield
        finally:
            await registry.close()
            store.close()

    app = FastAPI(title="Rebirth", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings

    @app.middleware("http")
    async def headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        # Bodies larger than allowed are refused before they are read.
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > settings.max_message_bytes):
            response: Response = error_response(413, "too_large")
        else:
            response = await call_next(request)
        # Links carry secret tokens (in the fragment); no page may leak its address onwards.
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Content-Type-Options"] = "nosniff"
        if request.url.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return exc.response()

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()))
        why = str(first.get("msg", "invalid"))
        return error_response(400, "bad_message", {"en": f"{ERRORS['bad_message']['en']}: {where}: {why}",
                                                   "de": f"{ERRORS['bad_message']['de']}: {where}: {why}"},
                              {"field": where, "reason": why})

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return error_response(exc.status_code, code, {"en": str(exc.detail), "de": str(exc.detail)})

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        # A bug must not show a stack trace (or anything else) to the client.
        log.exception("unexpected error", exc_info=exc)
        return error_response(500, "server_error")

    # One router per area: lobby (REST), data (maps, catalogs, variants), play (WebSocket), the
    # score calculator, the table companion, then the pages.
    app.include_router(lobby.router)
    app.include_router(data.router)
    app.include_router(play.router)
    app.include_router(calc.router)
    app.include_router(table.router)
    app.include_router(static.router)
    app.mount("/static", static.static_files(settings), name="static")
    return app
