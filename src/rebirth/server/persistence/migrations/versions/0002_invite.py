"""Seat invitations (issue 15 item 7): a seat link is an invitation that the first browser to
open it claims; only its hash is stored, and the seat's token is made at the claim.

Revision ID: 0002_invite
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_invite"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "invites",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("claimed", sa.Boolean, nullable=False),
        sa.Column("revoked", sa.Boolean, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_invites_game", "invites", ["game"])


def downgrade() -> None:
    op.drop_index("ix_invites_game", table_name="invites")
    op.drop_table("invites")
