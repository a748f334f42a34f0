"""Bot accounts' API tokens, challenges and the bots' event log (issue 27 item 2).

Revision ID: 0018_botaccounts
Revises: 0017_puzzles
Create Date: 2026-12-03

Only new tables (server/persistence/botaccounts.py); an account is a bot by the ``accounts.bot``
column revision 0008 made.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018_botaccounts"
down_revision = "0017_puzzles"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bot_tokens",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("account", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False, index=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("revoked", sa.Boolean, nullable=False),
    )
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("challenger", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False, index=True),
        sa.Column("bot", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("board", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("clock", sa.Text, nullable=True),
        sa.Column("variants", sa.Text, nullable=False),
        sa.Column("others", sa.String(16), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("decided", sa.Float, nullable=True),
        sa.Column("reason", sa.String(32), nullable=True),
        sa.Column("game", sa.String(32), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("bot_seat", sa.Integer, nullable=True),
    )
    op.create_index("ix_challenges_bot_status", "challenges", ["bot", "status"])
    op.create_table(
        "bot_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("account", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False, index=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("key", sa.String(96), nullable=True, unique=True),
    )


def downgrade() -> None:
    op.drop_table("bot_events")
    op.drop_index("ix_challenges_bot_status", "challenges")
    op.drop_table("challenges")
    op.drop_table("bot_tokens")
