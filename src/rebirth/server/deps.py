"""Shared FastAPI dependencies (``Annotated`` aliases)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from rebirth.server.hub import Registry
from rebirth.server.settings import Settings


def get_registry(conn: HTTPConnection) -> Registry:
    """The app's registry of games."""
    reg: Registry = conn.app.state.registry
    return reg


def get_settings(conn: HTTPConnection) -> Settings:
    """The app's settings."""
    s: Settings = conn.app.state.settings
    return s


RegistryDep = Annotated[Registry, Depends(get_registry)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
