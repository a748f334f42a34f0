"""Chat per game, the creator's choice whether the chat goes into the record, and the one
rematch of a game (issue 16, items 3 and 4).

Revision ID: 0005_chat
Revises: 0001
Create Date: 2026-12-01

Only new tables: the tables of 0001 are not touched, so this revision chains after any other.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_chat"
down_revision = "0004_notify"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.UniqueConstraint("game", "seq", name="uq_chat_messages_game_seq"),
    )
    op.create_table(
        "chat_options",
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("in_record", sa.Boolean, nullable=False),
    )
    op.create_table(
        "rematches",
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("new_game", sa.String(32), sa.ForeignKey("games.id"), nullable=False, unique=True),
        sa.Column("created", sa.Float, nullable=False),
    )


def downgrade() -> None:
    for name in ("rematches", "chat_options", "chat_messages"):
        op.drop_table(name)
