"""Test databases: a fresh SQLite file, or a fresh database on the real PostgreSQL server.

PostgreSQL is found at TEST_DATABASE_URL (default postgresql+asyncpg://postgres@127.0.0.1:5432/test).
Without it those tests skip, unless REQUIRE_POSTGRES=1, when they fail.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.engine import make_url

TEST_DATABASE_URL = os.environ.get(
    "TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)
BACKENDS = ["sqlite", "postgresql"]
# A server that is down refuses at once; this bounds only a connection that hangs, and is long
# enough for a machine loaded many times over (5 s ran out there, in a test's clean-up).
CONNECT_TIMEOUT = 60


def _dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def connect(url: str) -> asyncpg.Connection:
    """A plain asyncpg session on the database at ``url`` (the application's URL form)."""
    return await asyncpg.connect(_dsn(url), timeout=CONNECT_TIMEOUT)


async def blocked_on_a_lock(connection: asyncpg.Connection) -> None:
    """Wait until another session of this database waits for a lock."""
    for _ in range(6000):
        waiting = await connection.fetchval(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        if waiting:
            return
        await connection.execute("SELECT pg_stat_clear_snapshot()")
        await asyncio.sleep(0.01)
    raise AssertionError("no session ever waited for a lock")


async def _execute(statements: tuple[str, ...]) -> None:
    connection = await connect(TEST_DATABASE_URL)
    try:
        for statement in statements:
            await connection.execute(statement)
    finally:
        await connection.close()


def admin(*statements: str, now: bool = False) -> None:
    """Run statements on the test server's maintenance database, from sync or async tests
    (``now``: in this thread, which runs no event loop, as at exit)."""
    if now:
        asyncio.run(_execute(statements))
        return
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _execute(statements)).result()


def fetch_value(url: str, statement: str) -> str:
    """The first value ``statement`` answers in the database at ``url`` (as text; "" for none)."""

    async def fetch() -> str:
        connection = await connect(url)
        try:
            return str(await connection.fetchval(statement) or "")
        finally:
            await connection.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, fetch()).result()


def postgres_reachable() -> str | None:
    """None when PostgreSQL answers, else why not."""
    try:
        admin("SELECT 1")
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        return f"PostgreSQL at {TEST_DATABASE_URL} is not reachable: {error}"
    return None


def need_postgres() -> None:
    """Skip (or fail, with REQUIRE_POSTGRES=1) when PostgreSQL is not reachable."""
    problem = postgres_reachable()
    if problem is None:
        return
    if os.environ.get("REQUIRE_POSTGRES") == "1":
        pytest.fail(f"REQUIRE_POSTGRES=1 but {problem}")
    pytest.skip(problem)


@contextmanager
def postgres_database() -> Iterator[str]:
    """A new, empty PostgreSQL database for one test, dropped afterwards."""
    need_postgres()
    name = f"spectrum_test_{secrets.token_hex(6)}"
    admin(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(TEST_DATABASE_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def fresh_database(backend: str, folder: Path) -> Iterator[str]:
    """The URL of a new, empty database of the given backend."""
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{folder}/spectrum.db"
    else:
        with postgres_database() as url:
            yield url


def set_connections_allowed(url: str, allowed: bool) -> None:
    """Open or shut a PostgreSQL database to new connections, cutting the open ones when shut."""
    name = make_url(url).database

    statements = [f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(allowed).lower()}']
    if not allowed:
        statements.append(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE datname = '{name}' AND pid <> pg_backend_pid()"
        )
    admin(*statements)
