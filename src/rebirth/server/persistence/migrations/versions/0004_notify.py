"""Turn notifications: each seat's chosen channels and the durable outbox (server/persistence/outbox.py).

Revision ID: 0004_notify
Revises: 0003_limits (re-chained after merging main)
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_notify"
down_revision = "0003_limits"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notify_subs",
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("webhook", sa.Text, nullable=True),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("link", sa.Text, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_table(
        "notify_outbox",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("due", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("claimed_by", sa.String(64), nullable=True),
        sa.Column("claimed_at", sa.Float, nullable=True),
        sa.Column("done", sa.String(16), nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.UniqueConstraint("game", "version", "seat", "channel", "kind", name="uq_notify_outbox_key"),
    )
    op.create_index("ix_notify_outbox_due", "notify_outbox", ["done", "due"])


def downgrade() -> None:
    op.drop_index("ix_notify_outbox_due", "notify_outbox")
    op.drop_table("notify_outbox")
    op.drop_table("notify_subs")
