"""The database schema's migrations (Alembic), applied at start-up by
:mod:`rebirth.server.persistence.migrate`."""
