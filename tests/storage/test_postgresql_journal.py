"""The PostgreSQL journal on the real server: a batch is written all or none, whether it is the
usual one statement of moves' events (one round trip) or several in a transaction."""

from __future__ import annotations

import asyncpg
import pytest

from app.rooms.settings import RoomSettings
from app.storage.backends.postgresql import PostgresJournal
from app.storage.db import make_engine
from app.storage.journal import Batch, Events, Forget, NewRoom
from tests.databases import postgres_database
from tests.server import migrate

SETTINGS = RoomSettings().model_dump()


def joined(code: str, seq: int, name: str) -> Events:
    return Events(code, 1, seq, [{"type": "join", "name": name, "at": seq}])


async def stored(journal: PostgresJournal) -> dict[str, list[str]]:
    """Each stored room's events, as the names that joined, in order."""
    rooms = await journal.restore()
    return {
        room.code: [event["name"] for _, event in sorted(room.events.items())] for room in rooms
    }


async def test_a_batch_is_written_all_or_none() -> None:
    with postgres_database() as url:
        migrate(url)
        engine = make_engine(url)
        journal = PostgresJournal(engine)
        try:
            # Several statements: one transaction.
            await journal.write(
                Batch([NewRoom("AAAA-AAAA", SETTINGS, 1), joined("AAAA-AAAA", 0, "Ann")])
            )
            await journal.write(Batch([NewRoom("BBBB-BBBB", SETTINGS, 1)]))
            assert await stored(journal) == {"AAAA-AAAA": ["Ann"], "BBBB-BBBB": []}

            # One statement, events only: its second row names a room the database does not
            # hold, so the first row is not kept either.
            refused = Batch([joined("AAAA-AAAA", 1, "Bob"), joined("GONE-GONE", 0, "Cy")])
            with pytest.raises(asyncpg.ForeignKeyViolationError):
                await journal.write(refused)
            assert await stored(journal) == {"AAAA-AAAA": ["Ann"], "BBBB-BBBB": []}

            # The connection dropped after the failure is opened again for the next batch.
            again = Batch([joined("AAAA-AAAA", 1, "Bob"), joined("BBBB-BBBB", 0, "Di")])
            await journal.write(again)
            await journal.write(Batch([joined("AAAA-AAAA", 2, "Eve")]))  # a single row
            await journal.write(Batch([Forget("BBBB-BBBB")]))
            assert await stored(journal) == {"AAAA-AAAA": ["Ann", "Bob", "Eve"]}
        finally:
            await journal.close()
            await engine.dispose()
