"""The first schema: games, seats, tokens, the action log and the table companion.

Revision ID: 0001
Revises:
Create Date: 2026-12-01

Databases made before migrations existed (``metadata.create_all``) have exactly this schema;
:func:`rebirth.server.persistence.migrate.upgrade` stamps them at this revision instead of creating it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("board", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("variants", sa.Text, nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("hotseat", sa.Boolean, nullable=False),
        sa.Column("seed", sa.Text, nullable=False),
        sa.Column("setup", sa.Text, nullable=False),
        sa.Column("engine_version", sa.String(32), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
    )
    op.create_table(
        "seats",
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
    )
    op.create_table(
        "tokens",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("revoked", sa.Boolean, nullable=False),
    )
    op.create_index("ix_tokens_game", "tokens", ["game"])
    op.create_table(
        "actions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("text", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.UniqueConstraint("game", "seq", name="uq_actions_game_seq"),
    )
    op.create_table(
        "table_games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("board", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("variants", sa.Text, nullable=False),
        sa.Column("names", sa.Text, nullable=False),
        sa.Column("colours", sa.Text, nullable=False),
        sa.Column("setup", sa.Text, nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "table_entries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game", sa.String(32), sa.ForeignKey("table_games.id"), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("text", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.UniqueConstraint("game", "seq", name="uq_table_entries_game_seq"),
    )


def downgrade() -> None:
    for name in ("table_entries", "table_games", "actions", "tokens", "seats", "games"):
        op.drop_table(name)
