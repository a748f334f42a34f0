"""Puzzle ratings of accounts (issue 27 item 4).

Revision ID: 0017_puzzles
Revises: 0016_vacation
Create Date: 2026-12-03

Additive: ``puzzle_attempts`` (an account's first answer per puzzle) and ``puzzle_ratings``
(per account). Tables in ``server/persistence/puzzles.py``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017_puzzles"
down_revision = "0016_vacation"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzle_attempts",
        sa.Column("account", sa.String(32), primary_key=True),
        sa.Column("puzzle", sa.String(64), primary_key=True),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("before", sa.Float, nullable=False),
        sa.Column("after", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        "puzzle_ratings",
        sa.Column("account", sa.String(32), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("puzzle_ratings")
    op.drop_table("puzzle_attempts")
