"""Where the database stands against the migrations in migrations/.

The revisions are read from the migration files' own ``revision`` and ``down_revision``
assignments, without importing Alembic: the server needs Alembic only when it must migrate, and
importing it costs a start a fifth of a second. A test checks that this reading agrees with
Alembic's.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


def _constants(node: ast.expr | None) -> tuple[str, ...]:
    """The revisions an assignment names: one string, a tuple or list of them, or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, ast.Tuple | ast.List):
        return tuple(name for element in node.elts for name in _constants(element))
    return ()


def _revision_of(source: str) -> tuple[str, tuple[str, ...]] | None:
    """A migration file's revision and the revisions it follows; None if it names none."""
    found: dict[str, tuple[str, ...]] = {}
    for statement in ast.parse(source).body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            found[statement.target.id] = _constants(statement.value)
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = _constants(statement.value)
    revision = found.get("revision", ())
    if len(revision) != 1:
        return None
    return revision[0], found.get("down_revision", ())


@lru_cache(maxsize=1)
def _graph() -> dict[str, tuple[str, ...]]:
    """Every migration this version has, with the migrations it follows."""
    graph: dict[str, tuple[str, ...]] = {}
    for path in sorted((MIGRATIONS / "versions").glob("*.py")):
        read = _revision_of(path.read_text(encoding="utf-8"))
        if read is not None:
            graph[read[0]] = read[1]
    return graph


@lru_cache(maxsize=1)
def head_revision() -> str | None:
    """The newest migration (None when there is none); more than one newest is an error."""
    graph = _graph()
    followed = {earlier for previous in graph.values() for earlier in previous}
    heads = sorted(set(graph) - followed)
    if len(heads) > 1:
        raise RuntimeError(f"the migrations have more than one head: {', '.join(heads)}")
    return heads[0] if heads else None


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


def known_revisions() -> frozenset[str]:
    """Every migration this version has."""
    return frozenset(_graph())


def newer_than_known(what: str, revision: str) -> str:
    """What to say of ``what`` (a database, a backup) at a migration this version does not
    have: a newer version made it."""
    return (
        f"{what} is at migration {revision}, which this version does not know (its newest is "
        f"{head_revision()}): a newer Spectrum Online "
    )
