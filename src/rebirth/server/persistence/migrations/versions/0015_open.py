"""Open seats, the lobby's open games and "Play now" pairing (issue 25 item 5).

Revision ID: 0015_open
Revises: 0008_accounts
Create Date: 2026-12-02

Only new tables (server/persistence/open_games.py).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_open"
down_revision = "0008_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "open_seats",
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("account", sa.String(32), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("taken", sa.Float, nullable=True),
    )
    op.create_table(
        "listings",
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("board", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("clock", sa.Text, nullable=True),
        sa.Column("creator", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "pairing",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("account", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False, index=True),
        sa.Column("pool", sa.String(200), nullable=False),
        sa.Column("board", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("clock", sa.Text, nullable=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("polled", sa.Float, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("game", sa.String(32), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
    )
    op.create_index("ix_pairing_pool_status", "pairing", ["pool", "status"])


def downgrade() -> None:
    op.drop_index("ix_pairing_pool_status", "pairing")
    op.drop_table("pairing")
    op.drop_table("listings")
    op.drop_table("open_seats")
