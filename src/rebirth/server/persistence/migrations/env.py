"""Alembic's environment: migrations run on the connection that
:func:`rebirth.server.persistence.migrate.upgrade` hands over (under its lock), never on a URL of their own.

``alembic revision --autogenerate`` (docs/server.md) compares against the store's metadata.
"""

from __future__ import annotations

from alembic import context

from rebirth.server.persistence.store import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - the command line without a connection
    raise RuntimeError("run migrations through rebirth.server.persistence.migrate (it passes the connection)")
context.configure(connection=connection, target_metadata=metadata,
                  render_as_batch=connection.dialect.name == "sqlite", compare_type=True)
with context.begin_transaction():
    context.run_migrations()
