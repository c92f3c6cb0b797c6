"""The moves of each round, for replays; which seats were computer players, and the hash of
each person's player key, for the leaderboard.

Rounds stored before keep no moves (no replay); seats stored before keep no key. Seats then
named as the room names its bots ("Easy bot", "Normal bot 2", ...) are marked as bots: the
name was all that was kept of them.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The bots' levels and how many of one level a room can name (app.bots.levels, app.rooms.seats).
LEVELS = ("easy", "normal", "strong")
BOTS_PER_LEVEL = 7


def upgrade() -> None:
    # Columns added and dropped in place (SQLite does both since 3.35): a table copied anew by
    # a batch operation would take the rows that reference it with it (ON DELETE CASCADE).
    op.add_column("rounds", sa.Column("moves", sa.JSON(), nullable=True))
    op.add_column("match_seats", sa.Column("bot", sa.String(length=16), nullable=True))
    op.add_column("match_seats", sa.Column("key_hash", sa.String(length=64), nullable=True))
    seats = sa.table("match_seats", sa.column("name", sa.String), sa.column("bot", sa.String))
    for level in LEVELS:
        base = f"{level.capitalize()} bot"
        names = [base, *(f"{base} {n}" for n in range(2, BOTS_PER_LEVEL + 1))]
        op.execute(seats.update().where(seats.c.name.in_(names)).values(bot=level))


def downgrade() -> None:
    op.drop_column("match_seats", "key_hash")
    op.drop_column("match_seats", "bot")
    op.drop_column("rounds", "moves")
