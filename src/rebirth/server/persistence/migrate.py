"""Schema migrations at start-up (Alembic), once, however many workers start together.

Every worker calls :func:`upgrade` before it serves. The upgrade runs under a lock that
only one process holds at a time — on PostgreSQL an advisory lock, on SQLite the write lock
that ``BEGIN IMMEDIATE`` takes — and it reads the current revision only once it holds the
lock, so the first worker migrates and the others find the schema at the head and do
nothing. A database made before migrations existed (by ``metadata.create_all``) has
exactly revision 0001's schema and is stamped at it, then upgraded as usual.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, inspect, text

MIGRATION_LOCK = 0x52454249525448
"""The PostgreSQL advisory lock key of the schema (``REBIRTH`` in hex): one migrator at a time."""

BASE_REVISION = "0001"
"""The revision whose schema a pre-migration database already has."""


def _config(connection: Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("rebirth.server.persistence") / "migrations"))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head() -> str:
    """The newest revision this code knows."""
    h = ScriptDirectory.from_config(_config()).get_current_head()
    if h is None:  # pragma: no cover - the package ships its revisions
        raise RuntimeError("no migrations found")
    return h


def current(connection: Connection) -> str | None:
    """The revision the database is at (None: never migrated)."""
    rev: str | None = MigrationContext.configure(connection).get_current_revision()
    return rev


def pending(engine: Engine) -> str | None:
    """Why the schema is not at the head (None: it is): what ``/readyz`` reports."""
    with engine.connect() as c:
        rev = current(c)
    want = head()
    return None if rev == want else f"schema at revision {rev or 'none'}, this server needs {want}"


def upgrade(engine: Engine) -> str:
    """Bring the schema to the head under the migration lock; returns the revision reached.

    The whole upgrade is one transaction: on PostgreSQL (transactional DDL) a failed
    migration leaves the schema as it was."""
    with engine.connect() as conn:
        pg = conn.dialect.name == "postgresql"
        if pg:
            # Session-level: held until released below, whatever the transactions do.
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATION_LOCK})
            conn.commit()
        try:
            # On SQLite the store's connections begin with BEGIN IMMEDIATE: this transaction
            # holds the database's write lock, so a second migrator waits here.
            conn.begin()
            rev = current(conn)
            if rev is None and "games" in inspect(conn).get_table_names():
                command.stamp(_config(conn), BASE_REVISION)
            command.upgrade(_config(conn), "head")
            reached = current(conn)
            conn.commit()
        finally:
            if conn.in_transaction():
                conn.rollback()
            if pg:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATION_LOCK})
                conn.commit()
    if reached is None:  # pragma: no cover - upgrade to head always records a revision
        raise RuntimeError("the migration recorded no revision")
    return reached


def describe(engine: Engine) -> dict[str, Any]:
    """The schema's state, for logs and tests: revision and head."""
    with engine.connect() as c:
        return {"revision": current(c), "head": head()}


__all__ = ["BASE_REVISION", "MIGRATION_LOCK", "current", "describe", "head", "pending", "upgrade"]
