"""Matches, seats, rounds, hands, and live rooms with their events.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "live_rooms",
        sa.Column("code", sa.String(length=9), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("code", name=op.f("pk_live_rooms")),
    )
    op.create_table(
        "live_room_events",
        sa.Column("code", sa.String(length=9), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("event", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["code"],
            ["live_rooms.code"],
            name=op.f("fk_live_room_events_code_live_rooms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("code", "seq", name=op.f("pk_live_room_events")),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("room_code", sa.String(length=9), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("rounds_planned", sa.Integer(), nullable=False),
        sa.Column("rounds_played", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    op.create_index(op.f("ix_matches_room_code"), "matches", ["room_code"])
    op.create_index("ix_matches_started_at_id", "matches", ["started_at", "id"])
    op.create_table(
        "match_seats",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=24), nullable=False),
        sa.Column("name_key", sa.String(length=96), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_match_seats_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_match_seats")),
    )
    op.create_index(op.f("ix_match_seats_name_key"), "match_seats", ["name_key"])
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("knocker", sa.Integer(), nullable=True),
        sa.Column("ending", sa.String(length=16), nullable=False),
        sa.Column("seed", sa.String(length=64), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_rounds_match_id_matches"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rounds")),
        sa.UniqueConstraint("match_id", "number", name=op.f("uq_rounds_match_id_number")),
    )
    op.create_index(op.f("ix_rounds_match_id"), "rounds", ["match_id"])
    op.create_table(
        "round_hands",
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("cards", sa.JSON(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("scoring", sa.JSON(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["round_id"],
            ["rounds.id"],
            name=op.f("fk_round_hands_round_id_rounds"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("round_id", "seat", name=op.f("pk_round_hands")),
    )
    op.create_index(op.f("ix_round_hands_points"), "round_hands", ["points"])


def downgrade() -> None:
    op.drop_index(op.f("ix_round_hands_points"), table_name="round_hands")
    op.drop_table("round_hands")
    op.drop_index(op.f("ix_rounds_match_id"), table_name="rounds")
    op.drop_table("rounds")
    op.drop_index(op.f("ix_match_seats_name_key"), table_name="match_seats")
    op.drop_table("match_seats")
    op.drop_index("ix_matches_started_at_id", table_name="matches")
    op.drop_index(op.f("ix_matches_room_code"), table_name="matches")
    op.drop_table("matches")
    op.drop_table("live_room_events")
    op.drop_table("live_rooms")
