"""The journal in PostgreSQL, written through asyncpg on connections kept for it.

This is the hottest write of the server (every accepted action), so it skips the ORM and the
pool: each batch is one transaction of the compiled statements run by the driver itself (a
fraction of the CPU of going through SQLAlchemy's async adapters). Two batches may be under way
at once, each on its own connection (``lanes``): while a batch of several statements is written
(a finished round, a snapshot, a cluster's fenced batch: a round trip each), other rooms' moves
are written beside it rather than behind it.
"""

from __future__ import annotations

import contextlib
from typing import Any

import asyncpg
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.storage.journal import (
    Batch,
    Fence,
    Fenced,
    Forget,
    JournalRoom,
    Rewrite,
    refused_for_its_data,
)
from app.storage.statements import (
    FENCE_LOCK,
    FENCE_RAISE,
    FENCED_ROOMS,
    LISTING_LOCK,
    Statements,
    ping,
    read_rooms,
)


class PostgresJournal:
    """Connections, kept, that write batches as single transactions, one batch each at a
    time."""

    inline = False
    lanes = 2

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.statements = Statements(engine.dialect)
        # Connections between writes, each with the asyncpg connection under it.
        self.idle: list[tuple[AsyncConnection, Any]] = []

    async def write(self, batch: Batch) -> None:
        """Write the batch in one transaction. When the database refuses it (a broken
        constraint, a value it will not take, a newer owner's fence) the transaction is over
        and the connection is kept; on any other failure that connection is dropped, and the
        idle ones with it (the database may have gone away under them too)."""
        plan = self.statements.plan(batch.ops)
        fences = {op.code: op.tenure.epoch for op in batch.ops if isinstance(op, Fence)}
        connection: AsyncConnection | None = None
        driver: Any = None
        try:
            if self.idle:
                connection, driver = self.idle.pop()
            else:
                connection = await self.engine.connect()
                driver = (await connection.get_raw_connection()).driver_connection
            if len(plan) == 1 and not fences:
                # The usual batch, moves' events only: one statement, which asyncpg runs as a
                # transaction of its own, in one round trip rather than three (and for a single
                # row without the machinery that streams many).
                statement, rows = plan[0]
                if len(rows) == 1:
                    await driver.execute(statement.sql, *rows[0])
                else:
                    await driver.executemany(statement.sql, rows)
            else:
                async with driver.transaction():
                    if any(statement is self.statements.match for statement, _ in plan):
                        await driver.execute(LISTING_LOCK)
                    if any(
                        isinstance(op, (Forget, Rewrite)) and op.code in fences for op in batch.ops
                    ):
                        # A room's journal is deleted only by its owner: checked, and the
                        # room's row locked against a newer claim, before anything is deleted.
                        await self._check_fences(driver, fences)
                    for statement, rows in plan:
                        await driver.executemany(statement.sql, rows)
                    if fences:
                        await self._check_fences(driver, fences)
        except BaseException as error:
            if connection is not None:
                if (
                    _answered(error)
                    and driver is not None
                    and not driver.is_closed()
                    and not driver.is_in_transaction()
                ):
                    self.idle.append((connection, driver))
                    raise
                await _drop(connection)
            await self.close()
            raise
        self.idle.append((connection, driver))

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

    def take(self) -> None:
        """Nothing to take: the nodes of a cluster share the database, each room's writes
        fenced by its epoch."""

    async def ping(self) -> None:
        """Raise if the database cannot be reached."""
        await ping(self.engine)

    async def close(self) -> None:
        """Drop the idle connections (a write under way drops its own when it fails)."""
        idle, self.idle = self.idle, []
        for connection, _ in idle:
            await _drop(connection)


def _answered(error: BaseException) -> bool:
    """Whether the database itself turned the batch down and ended its transaction: a fence
    held by a newer owner, or bad data or a broken constraint (SQLSTATE classes 22 and 23).
    The connection it came on is as good as before."""
    if isinstance(error, Fenced):
        return True
    return isinstance(error, asyncpg.PostgresError) and refused_for_its_data(error)


async def _drop(connection: AsyncConnection) -> None:
    """Let a connection go without giving it back to the pool: it may be broken, or inside a
    transaction a cancelled write left."""
    with contextlib.suppress(Exception):
        await connection.invalidate()
    with contextlib.suppress(Exception):
        await connection.close()
