"""Who created each game (a hash of the client address): the cap on unfinished games per
client (issue 15 item 6, server/operations/caps.py).

Revision ID: 0003_limits
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_limits"
down_revision = "0002_invite"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_creators",
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("client", sa.String(64), nullable=False),
    )
    op.create_index("ix_game_creators_client", "game_creators", ["client"])


def downgrade() -> None:
    op.drop_index("ix_game_creators_client", table_name="game_creators")
    op.drop_table("game_creators")
