"""Accounts: accounts, their sessions, sign-in codes, passkeys and WebAuthn challenges, the
seats an account holds, and per-game account facts (issue 25 items 1 and 2).

Revision ID: 0008_accounts
Revises: 0007_downtime
Create Date: 2026-12-02

Only new tables (server/persistence/accounts.py): the earlier revisions' tables are not touched.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_accounts"
down_revision = "0007_downtime"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(32), nullable=False, unique=True),
        sa.Column("name_key", sa.String(32), nullable=False, unique=True),
        sa.Column("email", sa.String(254), nullable=True, unique=True),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("deleted", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("notify", sa.String(16), nullable=False, server_default=sa.text("'away'")),
    )
    op.create_table(
        "account_sessions",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("account", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False, index=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("seen", sa.Float, nullable=False),
        sa.Column("agent", sa.String(200), nullable=False),
        sa.Column("revoked", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "signin_codes",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("email", sa.String(254), nullable=False, index=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
        sa.Column("used", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "passkeys",
        sa.Column("credential_id", sa.String(512), primary_key=True),
        sa.Column("account", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False, index=True),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("label", sa.String(64), nullable=False),
    )
    op.create_table(
        "webauthn_challenges",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("challenge", sa.String(128), nullable=False),
        sa.Column("account", sa.String(32), nullable=True),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_table(
        "account_seats",
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("account", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False, index=True),
    )
    op.create_table(
        "game_meta",
        sa.Column("game", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("creator_account", sa.String(32), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    for name in ("game_meta", "account_seats", "webauthn_challenges", "passkeys", "signin_codes",
                 "account_sessions", "accounts"):
        op.drop_table(name)
