"""Writing journal batches through the database driver itself.

The journal is the hottest write of the server (every accepted action), so it skips the
ORM and the connection pool: one connection is kept for it, and each batch is one transaction
of plain statements (a quarter of the CPU of going through SQLAlchemy's async adapters).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.rooms.state import Event


@dataclass(slots=True)
class NewRoom:
    """A room's first write: its code, first settings and creation time."""

    code: str
    settings: dict[str, Any]
    created_at: int


@dataclass(slots=True)
class Events:
    """Events of a room, numbered from ``first``."""

    code: str
    first: int
    events: list[Event]


@dataclass(slots=True)
class Forget:
    """The room is gone: delete what was kept of it."""

    code: str


Op = NewRoom | Events | Forget

_SQL = {
    "sqlite": {
        "room": "INSERT INTO live_rooms (code, settings, created_at) VALUES (?, ?, ?) "
        "ON CONFLICT DO NOTHING",
        "event": "INSERT INTO live_room_events (code, seq, event) VALUES (?, ?, ?) "
        "ON CONFLICT DO NOTHING",
        "forget events": "DELETE FROM live_room_events WHERE code = ?",
        "forget room": "DELETE FROM live_rooms WHERE code = ?",
    },
    "postgresql": {
        "room": "INSERT INTO live_rooms (code, settings, created_at) VALUES ($1, $2, $3) "
        "ON CONFLICT DO NOTHING",
        "event": "INSERT INTO live_room_events (code, seq, event) VALUES ($1, $2, $3) "
        "ON CONFLICT DO NOTHING",
        "forget events": "DELETE FROM live_room_events WHERE code = $1",
        "forget room": "DELETE FROM live_rooms WHERE code = $1",
    },
}


def _text(value: Any) -> str:
    return orjson.dumps(value).decode()


def _statements(batch: list[Op]) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """The batch as (statement, rows) in order, consecutive events merged into one."""
    plan: list[tuple[str, list[tuple[Any, ...]]]] = []
    for op in batch:
        if isinstance(op, Events):
            rows = [
                (op.code, op.first + index, _text(event)) for index, event in enumerate(op.events)
            ]
            if plan and plan[-1][0] == "event":
                plan[-1][1].extend(rows)
            else:
                plan.append(("event", rows))
        elif isinstance(op, NewRoom):
            plan.append(("room", [(op.code, _text(op.settings), op.created_at)]))
        else:
            plan.append(("forget events", [(op.code,)]))
            plan.append(("forget room", [(op.code,)]))
    return plan


class JournalWriter:
    """One connection, kept, that writes journal batches as single transactions."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sql = _SQL[engine.dialect.name]
        self.connection: AsyncConnection | None = None

    async def write(self, batch: list[Op]) -> None:
        """Write the batch in one transaction; on failure the connection is dropped."""
        try:
            if self.connection is None:
                self.connection = await self.engine.connect()
            driver: Any = (await self.connection.get_raw_connection()).driver_connection
            plan = _statements(batch)
            if self.engine.dialect.name == "sqlite":
                try:
                    for statement, rows in plan:
                        await driver.executemany(self.sql[statement], rows)
                    await driver.commit()
                except BaseException:
                    await driver.rollback()
                    raise
            else:
                async with driver.transaction():
                    for statement, rows in plan:
                        await driver.executemany(self.sql[statement], rows)
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        """Give the connection back (or drop it if it broke)."""
        connection, self.connection = self.connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                await connection.invalidate()
            with contextlib.suppress(Exception):
                await connection.close()
