"""Live rooms keep the epoch of their newest owner, so older owners' writes can be refused.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # In place (SQLite adds and drops columns since 3.35): a table copied anew by a batch
    # operation would take the rooms' events with it (ON DELETE CASCADE).
    op.add_column(
        "live_rooms", sa.Column("epoch", sa.BigInteger(), server_default="0", nullable=False)
    )


def downgrade() -> None:
    op.drop_column("live_rooms", "epoch")
