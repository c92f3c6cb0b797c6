"""Players' names composed (Unicode NFC), as names have been kept since they were tidied so:
a name stored before with its accents apart ("Jose" and a combining accent) is the same
player as the same name typed with the accented letter, in the history, the leaderboard and
lookups by name.

Only seats whose name is not already composed are rewritten, with the key their name is
looked up by (its case folded). Nothing to undo: a downgrade leaves the names composed.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-05
"""

import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    seats = sa.table(
        "match_seats",
        sa.column("match_id", sa.String),
        sa.column("seat", sa.Integer),
        sa.column("name", sa.String),
        sa.column("name_key", sa.String),
    )
    bind = op.get_bind()
    changed = [
        {"m": match_id, "s": seat, "n": composed, "k": composed.casefold()}
        for match_id, seat, name in bind.execute(
            sa.select(seats.c.match_id, seats.c.seat, seats.c.name)
        )
        if not name.isascii() and (composed := unicodedata.normalize("NFC", name)) != name
    ]
    if changed:
        bind.execute(
            seats.update()
            .where(seats.c.match_id == sa.bindparam("m"), seats.c.seat == sa.bindparam("s"))
            .values(name=sa.bindparam("n"), name_key=sa.bindparam("k")),
            changed,
        )


def downgrade() -> None:
    pass  # composed names are the same names
