"""Who is asking: the account of the ``rebirth_session`` cookie, and the ``Origin`` check of
cookie-authenticated requests that change anything (docs/server.md, threat model).

A cookie is sent by the browser with every request to this server, whichever page made it:
a change made with it is accepted only from the server's own pages (``Origin`` the server's, or
none — not a browser). The WebSocket's handshake is checked by the guard the same way.
"""

from __future__ import annotations

import asyncio

from starlette.requests import HTTPConnection

from rebirth.server.accounts.store import SESSION_COOKIE, Account, session_account
from rebirth.server.errors import ApiError
from rebirth.server.operations.guard import expected_origin, same_origin
from rebirth.server.persistence.store import Store
from rebirth.server.settings import Settings

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def foreign_origin(conn: HTTPConnection, settings: Settings) -> bool:
    """Does the request come from a page of another site (its ``Origin`` is not the server's)."""
    expected = expected_origin(settings.public_url, conn.url.scheme, conn.headers.get("host"))
    return not same_origin(conn.headers.get("origin"), expected)


def refuse_foreign(conn: HTTPConnection, settings: Settings) -> None:
    """403 ``forbidden`` for a request that changes something from a foreign ``Origin``."""
    if conn.scope.get("type") == "http" and conn.scope.get("method") not in SAFE_METHODS \
            and foreign_origin(conn, settings):
        raise ApiError(403, "forbidden")


async def account_of(conn: HTTPConnection, store: Store, settings: Settings) -> Account | None:
    """The signed-in account of the request's session cookie (None: no live session). A cookie
    sent with a change from a foreign page is refused (403), signed in or not."""
    sid = conn.cookies.get(SESSION_COOKIE)
    if not sid:
        return None
    refuse_foreign(conn, settings)
    return await asyncio.to_thread(session_account, store, sid)


def secure_cookie(conn: HTTPConnection, settings: Settings) -> bool:
    """``Secure`` when the players reach the server over HTTPS (the public URL or the request)."""
    if settings.public_url:
        return settings.public_url.startswith("https://")
    return conn.url.scheme in ("https", "wss")
