"""PostgreSQL for the server tests: a fresh database per test, dropped afterwards.

The server of ``REBIRTH_TEST_POSTGRES`` (default: the development machines' local
PostgreSQL 15 with trust authentication) must be running; ``scripts/services.sh``, which
the README's test command runs, installs and starts it where it is missing.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

ADMIN_URL = os.environ.get("REBIRTH_TEST_POSTGRES",
                           "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")


@contextmanager
def database() -> Iterator[str]:
    """The URL of a new, empty database; dropped (with its connections) at the end."""
    name = f"rebirth_test_{secrets.token_hex(6)}"
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}"'))
        yield make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
