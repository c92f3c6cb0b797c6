"""Snapshots of live rooms, which compact their events.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "live_room_snapshots",
        sa.Column("code", sa.String(length=9), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["code"],
            ["live_rooms.code"],
            name=op.f("fk_live_room_snapshots_code_live_rooms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("code", name=op.f("pk_live_room_snapshots")),
    )


def downgrade() -> None:
    op.drop_table("live_room_snapshots")
