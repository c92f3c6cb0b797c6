"""Rooms' epochs in PostgreSQL: read before a claim, raised by it before the journal is read.

Raising the stored epoch takes the room's row lock, so it waits for an older owner's write under
way and refuses every one that comes after (see the journal's fence in ``statements.py``): the
journal the new owner reads is the last one any older owner could write.
"""

from __future__ import annotations

from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine

from app.rooms.settings import RoomSettings
from app.rooms.state import Event, RoomState
from app.storage.journal import Rewrite, Snapshot
from app.storage.statements import EVENTS, ROOMS, SNAPSHOTS
from app.storage.store import rebuilt

# Each node's connections to PostgreSQL carry its cluster's name (application_name), so that a
# node can see whether another cluster's nodes use the database too: those would claim its rooms.
APPLICATION = "spectrum:"


def application_name(cluster_name: str) -> str:
    """What a node of ``cluster_name`` calls its connections to PostgreSQL."""
    return f"{APPLICATION}{cluster_name}"


async def other_clusters(engine: AsyncEngine, cluster_name: str) -> list[str]:
    """The names of the other clusters whose nodes are connected to this database now."""
    own = application_name(cluster_name)
    async with engine.connect() as connection:
        names = await connection.scalars(
            text(
                "SELECT DISTINCT application_name FROM pg_stat_activity "
                "WHERE datname = current_database() AND application_name LIKE 'spectrum:%' "
                "AND pid <> pg_backend_pid()"
            )
        )
        return sorted(name.removeprefix(APPLICATION) for name in names if name != own)


async def stored_epoch(engine: AsyncEngine, code: str) -> int | None:
    """The newest epoch the database has for the room; None when it holds no such room."""
    async with engine.connect() as connection:
        epoch = await connection.scalar(select(ROOMS.c.epoch).where(ROOMS.c.code == code))
    return None if epoch is None else int(epoch)


async def stored_codes(engine: AsyncEngine) -> list[str]:
    """The code of every room the database holds."""
    async with engine.connect() as connection:
        return list((await connection.scalars(select(ROOMS.c.code))).all())


async def raise_epoch(engine: AsyncEngine, code: str, epoch: int) -> bool:
    """Raise the room's stored epoch to ``epoch``; False when it holds a newer one (or no room)."""
    async with engine.begin() as connection:
        raised = await connection.execute(
            update(ROOMS).where(ROOMS.c.code == code, ROOMS.c.epoch <= epoch).values(epoch=epoch)
        )
    return bool(raised.rowcount)


async def claim_in_database(
    engine: AsyncEngine, code: str, epoch: int
) -> tuple[RoomState, Rewrite | None] | None:
    """Raise the room's epoch, then rebuild it from its journal, as a restart does (with the
    rewrite of a journal that lost events: ``rebuilt``); None when the room is gone or a newer
    owner raised the epoch first."""
    async with engine.begin() as connection:
        row = (
            await connection.execute(
                update(ROOMS)
                .where(ROOMS.c.code == code, ROOMS.c.epoch <= epoch)
                .values(epoch=epoch)
                .returning(ROOMS.c.settings, ROOMS.c.created_at)
            )
        ).first()
        if row is None:
            return None
        query = select(EVENTS.c.seq, EVENTS.c.event).where(EVENTS.c.code == code)
        numbered: dict[int, Event] = {
            int(seq): event for seq, event in await connection.execute(query)
        }
        kept = (
            await connection.execute(
                select(SNAPSHOTS.c.seq, SNAPSHOTS.c.state).where(SNAPSHOTS.c.code == code)
            )
        ).first()
    settings = RoomSettings.model_validate(row.settings)
    snapshot = None if kept is None else Snapshot(code, int(kept.seq), kept.state)
    return rebuilt(code, settings, row.created_at, snapshot, numbered)
