"""Game clocks (issue 16 item 1): one row per game with a clock.

Revision ID: 0006_clocks
Revises: 0004_notify
Create Date: 2026-12-01

Self-contained: only the ``clocks`` table (``server/persistence/clocks.py``). ``rev`` counts the clock's
writes, so a time-out, a take-back or an adjustment is a conditional write that only one worker
wins; ``deadline`` lets a worker find the games whose running seat has run out.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_clocks"
down_revision = "0005_chat"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "clocks",
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("rev", sa.Integer, nullable=False),
        sa.Column("deadline", sa.Float, nullable=True),
    )
    op.create_index("ix_clocks_deadline", "clocks", ["deadline"])


def downgrade() -> None:
    op.drop_index("ix_clocks_deadline", "clocks")
    op.drop_table("clocks")
