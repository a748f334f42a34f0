"""An account's vacation period, shared by all its games (issue 26 item 3).

Revision ID: 0019_vacation_away
Revises: 0018_botaccounts
Create Date: 2026-12-06

Additive: ``vacation_away`` (account → the period under way: the year its days came from, since
when, the seconds reserved) and ``vacation_games`` (the games and seats away in it). Tables in
``server/persistence/vacation.py``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019_vacation_away"
down_revision = "0018_botaccounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "vacation_away",
        sa.Column("account", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("year", sa.Integer, nullable=False),
        sa.Column("since", sa.Float, nullable=False),
        sa.Column("reserved_s", sa.Float, nullable=False),
    )
    op.create_table(
        "vacation_games",
        sa.Column("account", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("vacation_games")
    op.drop_table("vacation_away")
