"""Seat transfer codes, notification policies, unsubscribe tokens and forfeits (issue 25).

Revision ID: 0009_seatnotify
Revises: 0015_open
Create Date: 2026-12-02

Self-contained: the tables of ``server/persistence/seatnotify.py``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_seatnotify"
down_revision = "0015_open"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seat_transfers",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), nullable=False, index=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
        sa.Column("used", sa.Float, nullable=True),
    )
    op.create_table(
        "notify_prefs",
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("policy", sa.String(16), nullable=False),
    )
    op.create_table(
        "notify_unsub",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_notify_unsub_game", "notify_unsub", ["game", "seat"])
    op.create_table(
        "forfeits",
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("forfeits")
    op.drop_index("ix_notify_unsub_game", table_name="notify_unsub")
    op.drop_table("notify_unsub")
    op.drop_table("notify_prefs")
    op.drop_table("seat_transfers")
