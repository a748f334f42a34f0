"""Web push (issue 26 item 1): the server's VAPID key pair and each seat's push subscription
(server/persistence/push.py).

Revision ID: 0013_push
Revises: 0009_seatnotify (re-chained after merging main)
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_push"
down_revision = "0009_seatnotify"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "push_keys",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("private_key", sa.Text, nullable=False),
        sa.Column("public_key", sa.String(128), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "push_subs",
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("p256dh", sa.String(256), nullable=False),
        sa.Column("auth", sa.String(64), nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("push_subs")
    op.drop_table("push_keys")
