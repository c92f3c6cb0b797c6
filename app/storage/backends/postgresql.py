"""The journal in PostgreSQL, written through asyncpg on one connection kept for it.

This is the hottest write of the server (every accepted action), so it skips the ORM and the
pool: each batch is one transaction of the compiled statements run by the driver itself (a
fraction of the CPU of going through SQLAlchemy's async adapters).
"""

from __future__ import annotations

import contextlib
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.storage.journal import Batch, Fence, Fenced, Forget, JournalRoom
from app.storage.statements import (
    FENCE_LOCK,
    FENCE_RAISE,
    FENCED_ROOMS,
    Statements,
    ping,
    read_rooms,
)


class PostgresJournal:
    """One connection, kept, that writes batches as single transactions."""

    inline = False

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.statements = Statements(engine.dialect)
        self.connection: AsyncConnection | None = None
        self.driver: Any = None  # the asyncpg connection under ``connection``

    async def write(self, batch: Batch) -> None:
        """Write the batch in one transaction; on failure the connection is dropped."""
        plan = self.statements.plan(batch.ops)
        fences = {op.code: op.tenure.epoch for op in batch.ops if isinstance(op, Fence)}
        try:
            driver = self.driver
            if driver is None:
                if self.connection is None:
                    self.connection = await self.engine.connect()
                raw = await self.connection.get_raw_connection()
                driver = self.driver = raw.driver_connection
            if len(plan) == 1 and not fences:
                # The usual batch, moves' events only: one statement, which asyncpg runs as a
                # transaction of its own, in one round trip rather than three (and for a single
                # row without the machinery that streams many).
                statement, rows = plan[0]
                if len(rows) == 1:
                    await driver.execute(statement.sql, *rows[0])
                else:
                    await driver.executemany(statement.sql, rows)
                return
            async with driver.transaction():
                if any(type(op) is Forget and op.code in fences for op in batch.ops):
                    # A room's journal is deleted only by its owner: checked, and the room's
                    # row locked against a newer claim, before anything is deleted.
                    await self._check_fences(driver, fences)
                for statement, rows in plan:
                    await driver.executemany(statement.sql, rows)
                if fences:
                    await self._check_fences(driver, fences)
        except BaseException:
            await self.close()
            raise

    @staticmethod
    async def _check_fences(driver: Any, fences: dict[str, int]) -> None:
        """Refuse the batch when a room's stored epoch is newer than its writer's."""
        codes = list(fences)
        epochs = [fences[code] for code in codes]
        await driver.execute(FENCE_RAISE, codes, epochs)
        await driver.execute(FENCE_LOCK, codes)
        rows = await driver.fetch(FENCED_ROOMS, codes, epochs)
        if rows:
            raise Fenced({row[0] for row in rows}, fences)

    async def restore(self) -> list[JournalRoom]:
        """The rooms in the database, with their events."""
        return list((await read_rooms(self.engine)).values())

    async def ping(self) -> None:
        """Raise if the database cannot be reached."""
        await ping(self.engine)

    async def close(self) -> None:
        """Give the connection back (or drop it if it broke)."""
        connection, self.connection = self.connection, None
        self.driver = None
        if connection is not None:
            with contextlib.suppress(Exception):
                await connection.invalidate()
            with contextlib.suppress(Exception):
                await connection.close()
