"""Where the database stands against the migrations in migrations/."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


@lru_cache(maxsize=1)
def head_revision() -> str | None:
    """The newest migration."""
    return ScriptDirectory(str(MIGRATIONS)).get_current_head()


async def current_revision(engine: AsyncEngine) -> str | None:
    """The migration the database is at (None before the first)."""
    async with engine.connect() as connection:
        exists = await connection.run_sync(
            lambda sync: sync.dialect.has_table(sync, "alembic_version")
        )
        if not exists:
            return None
        revision: str | None = await connection.scalar(
            text("SELECT version_num FROM alembic_version")
        )
        return revision


@lru_cache(maxsize=1)
def known_revisions() -> frozenset[str]:
    """Every migration this version has."""
    return frozenset(
        script.revision for script in ScriptDirectory(str(MIGRATIONS)).walk_revisions()
    )
