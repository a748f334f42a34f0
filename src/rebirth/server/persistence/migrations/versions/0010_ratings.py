"""Finished games' results, ratings and their history (issue 25 items 3 and 4).

Revision ID: 0010_ratings
Revises: 0013_push
Create Date: 2026-12-02

Self-contained: ``game_results`` (each finished game's final result, once), ``rated_games``
(a game is rated exactly once: its primary key), ``ratings`` (per account × board × player
count) and ``rating_history`` (per rated game and account). Tables in
``server/persistence/ratings.py``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_ratings"
down_revision = "0013_push"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_results",
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("board", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("scores", sa.Text, nullable=False),
        sa.Column("winners", sa.Text, nullable=False),
        sa.Column("places", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_game_results_at", "game_results", ["at"])
    op.create_table(
        "rated_games",
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        "ratings",
        sa.Column("account", sa.String(32), primary_key=True),
        sa.Column("board", sa.String(64), primary_key=True),
        sa.Column("players", sa.Integer, primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Float, nullable=False),
        sa.Column("score_sum", sa.Integer, nullable=False),
    )
    op.create_table(
        "rating_history",
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("account", sa.String(32), primary_key=True),
        sa.Column("board", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_rating_history_account", "rating_history", ["account"])


def downgrade() -> None:
    op.drop_index("ix_rating_history_account", "rating_history")
    op.drop_table("rating_history")
    op.drop_table("ratings")
    op.drop_table("rated_games")
    op.drop_index("ix_game_results_at", "game_results")
    op.drop_table("game_results")
