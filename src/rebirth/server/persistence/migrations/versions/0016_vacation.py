"""Vacation per account per calendar year (issue 26 item 3).

Revision ID: 0016_vacation
Revises: 0010_ratings
Create Date: 2026-12-03

Additive: ``vacation_years`` (account × year → seconds reserved or used). Table in
``server/persistence/vacation.py``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_vacation"
down_revision = "0010_ratings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "vacation_years",
        sa.Column("account", sa.String(32), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("year", sa.Integer, primary_key=True),
        sa.Column("used_s", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("vacation_years")
