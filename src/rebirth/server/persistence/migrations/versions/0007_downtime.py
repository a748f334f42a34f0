"""Which worker holds a game's clock, and the workers' heartbeats (issue 24 item 7).

Revision ID: 0007_downtime
Revises: 0006_clocks
Create Date: 2026-12-02

Self-contained: ``clocks.holder`` (the worker that holds the game and runs its clock) and the
``workers`` table (each worker's last heartbeat, wall time). A clock pauses only for the downtime
of its holder: a worker that loads a game whose holder stopped beating credits the clock with
the time since that holder's last beat (``server/persistence/clocks.py``, :func:`hold`).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_downtime"
down_revision = "0006_clocks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "workers",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("beat", sa.Float, nullable=False),
        sa.Column("up", sa.Boolean, nullable=False),
    )
    with op.batch_alter_table("clocks") as batch:
        batch.add_column(sa.Column("holder", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("clocks") as batch:
        batch.drop_column("holder")
    op.drop_table("workers")
