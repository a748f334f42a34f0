"""Shared FastAPI dependencies (``Annotated`` aliases): the registries, the settings, the
bearer token of the REST endpoints that need a secret link, and the signed-in account
(``MaybeAccount``, ``CurrentAccount``: the ``rebirth_session`` cookie, server/accounts)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header
from starlette.requests import HTTPConnection

from rebirth.server.accounts.auth import account_of
from rebirth.server.accounts.store import Account
from rebirth.server.errors import ApiError, texts
from rebirth.server.play.registry import Registry
from rebirth.server.settings import Settings
from rebirth.server.tables.authority import TableRegistry

MAX_AUTHORIZATION = 200
"""The longest ``Authorization`` header looked at (tokens are 32 characters)."""


def get_registry(conn: HTTPConnection) -> Registry:
    """The app's registry of online games."""
    reg: Registry = conn.app.state.registry
    return reg


def get_tables(conn: HTTPConnection) -> TableRegistry:
    """The app's registry of table-companion games."""
    reg: TableRegistry = conn.app.state.tables
    return reg


def get_settings(conn: HTTPConnection) -> Settings:
    """The app's settings."""
    s: Settings = conn.app.state.settings
    return s


def bearer_token(authorization: Annotated[str | None, Header()] = None) -> str:
    """The secret token of ``Authorization: Bearer <token>`` (401 ``bad_token`` without one)."""
    if not authorization or not authorization.startswith("Bearer ") or len(authorization) > MAX_AUTHORIZATION:
        raise ApiError(401, "bad_token")
    return authorization[len("Bearer "):].strip()


async def maybe_account(conn: HTTPConnection) -> Account | None:
    """The account of the session cookie, or None (no cookie, or a revoked/expired session)."""
    reg: Registry = conn.app.state.registry
    return await account_of(conn, reg.store, get_settings(conn))


async def current_account(conn: HTTPConnection) -> Account:
    """The signed-in account; 401 ``signin_required`` without a live session."""
    acct = await maybe_account(conn)
    if acct is None:
        raise ApiError(401, "signin_required", texts("server.signin_required"))
    return acct


RegistryDep = Annotated[Registry, Depends(get_registry)]
TablesDep = Annotated[TableRegistry, Depends(get_tables)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
BearerToken = Annotated[str, Depends(bearer_token)]
MaybeAccount = Annotated[Account | None, Depends(maybe_account)]
"""The signed-in account or None; a cookie sent with a change from a foreign Origin: 403."""
CurrentAccount = Annotated[Account, Depends(current_account)]
"""The signed-in account (401 ``signin_required`` otherwise)."""
