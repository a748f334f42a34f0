"""Shared FastAPI dependencies (``Annotated`` aliases): the registries, the settings and the
bearer token of the REST endpoints that need a secret link."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header
from starlette.requests import HTTPConnection

from rebirth.server.errors import ApiError
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


RegistryDep = Annotated[Registry, Depends(get_registry)]
TablesDep = Annotated[TableRegistry, Depends(get_tables)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
BearerToken = Annotated[str, Depends(bearer_token)]
