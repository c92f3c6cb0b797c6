"""Each match's place in the history's list: a number given when the match is first stored
(with its first finished round), above any before it, so that the list, newest first, only
ever grows at its top. Ordered by start, a match whose first round ended after later matches
had been listed appeared among them, in pages a reader had already passed.

Matches stored before are numbered in the order they started. On PostgreSQL a sequence gives
the numbers, and is the column's default: a node of a cluster not yet upgraded, which names no
number, still stores its matches with one.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SEQUENCE = "matches_listed_seq"  # app.storage.statements.LISTED_SEQUENCE


def upgrade() -> None:
    # Added in place, nullable (SQLite cannot make a column NOT NULL without copying the table,
    # and a copy would take the rows that reference it with it); every match stored has one.
    op.add_column("matches", sa.Column("listed", sa.BigInteger(), nullable=True))
    matches = sa.table(
        "matches",
        sa.column("id", sa.String),
        sa.column("started_at", sa.DateTime),
        sa.column("listed", sa.BigInteger),
    )
    bind = op.get_bind()
    ids = bind.execute(sa.select(matches.c.id).order_by(matches.c.started_at, matches.c.id))
    numbered = [{"m": match_id, "n": n} for n, (match_id,) in enumerate(ids, start=1)]
    if numbered:
        bind.execute(
            matches.update()
            .where(matches.c.id == sa.bindparam("m"))
            .values(listed=sa.bindparam("n")),
            numbered,
        )
    if bind.dialect.name == "postgresql":
        op.execute(f"CREATE SEQUENCE {SEQUENCE} OWNED BY matches.listed")
        if numbered:
            op.execute(f"SELECT setval('{SEQUENCE}', {len(numbered)})")
        op.execute(f"ALTER TABLE matches ALTER COLUMN listed SET DEFAULT nextval('{SEQUENCE}')")
    op.create_index("ix_matches_listed", "matches", ["listed"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_matches_listed", table_name="matches")
    op.drop_column("matches", "listed")  # on PostgreSQL, with the sequence it owns
