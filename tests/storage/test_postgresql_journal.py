"""The PostgreSQL journal on the real server: a batch is written all or none, whether it is the
usual one statement of moves' events (one round trip) or several in a transaction; two batches
are written at once, rooms apart, each room's in order."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import pytest

from app.rooms.registry import hash_token
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState
from app.storage.backends.postgresql import PostgresJournal
from app.storage.db import make_engine
from app.storage.journal import Batch, Events, Fence, Fenced, Forget, NewRoom, Rewrite, Tenure
from app.storage.store import DatabaseStore
from tests.databases import blocked_on_a_lock, connect, postgres_database
from tests.server import migrate
from tests.storage.test_batching import running
from tests.storage.test_sqlite_journal import seated

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

            again = Batch([joined("AAAA-AAAA", 1, "Bob"), joined("BBBB-BBBB", 0, "Di")])
            await journal.write(again)
            await journal.write(Batch([joined("AAAA-AAAA", 2, "Eve")]))  # a single row
            await journal.write(Batch([Forget("BBBB-BBBB")]))
            assert await stored(journal) == {"AAAA-AAAA": ["Ann", "Bob", "Eve"]}
        finally:
            await journal.close()
            await engine.dispose()


@asynccontextmanager
async def journal_and_session() -> AsyncIterator[tuple[PostgresJournal, asyncpg.Connection]]:
    """A journal on a fresh, migrated database, and a plain session of its own on that
    database; both closed at the end."""
    with postgres_database() as url:
        migrate(url)
        engine = make_engine(url)
        journal = PostgresJournal(engine)
        other = await connect(url)
        try:
            yield journal, other
        finally:
            await other.close()
            await journal.close()
            await engine.dispose()


def server_pids(journal: PostgresJournal) -> list[int]:
    """The database's process behind each idle connection of the journal."""
    return [driver.get_server_pid() for _, driver in journal.idle]


async def test_a_batch_the_database_turns_down_keeps_its_connection() -> None:
    """A broken constraint, a value the database will not take, a newer owner's fence: the
    database answered and the transaction is over, so the connection goes on writing. A
    connection given up mid-write, or one the database lost, is dropped, and the next batch
    opens another."""
    async with journal_and_session() as (journal, other):
        await journal.write(Batch([NewRoom("AAAA-AAAA", SETTINGS, 1)]))
        [pid] = server_pids(journal)
        turned_down = [
            # Moves' events alone, one row: a room the database does not hold.
            Batch([joined("GONE-GONE", 0, "Ann")]),
            # Several rows of one statement.
            Batch([joined("AAAA-AAAA", 0, "Ann"), joined("GONE-GONE", 0, "Bob")]),
            # A transaction of several statements.
            Batch([NewRoom("DDDD-DDDD", SETTINGS, 1), joined("GONE-GONE", 0, "Cy")]),
        ]
        for batch in turned_down:
            with pytest.raises(asyncpg.ForeignKeyViolationError):
                await journal.write(batch)
            assert server_pids(journal) == [pid]
        # A value the database will not take: a NUL in text.
        with pytest.raises(asyncpg.CharacterNotInRepertoireError):
            await journal.write(Batch([joined("AAAA\x00AAA", 0, "Ann")]))
        assert server_pids(journal) == [pid]
        # A value the driver cannot send (a number past the column's range), found while it
        # streams the rows: it reports the refusal as the database would, and nothing was
        # written.
        with pytest.raises(asyncpg.DataError):
            await journal.write(
                Batch([joined("AAAA-AAAA", 0, "Ann"), joined("AAAA-AAAA", 2**40, "Bob")])
            )
        assert server_pids(journal) == [pid]
        # A newer owner holds the room: the older owner's fenced batch is refused.
        await journal.write(Batch([Fence("AAAA-AAAA", Tenure(5)), joined("AAAA-AAAA", 0, "Ann")]))
        with pytest.raises(Fenced) as fenced:
            await journal.write(
                Batch([Fence("AAAA-AAAA", Tenure(3)), joined("AAAA-AAAA", 1, "Di")])
            )
        assert fenced.value.codes == {"AAAA-AAAA"}
        assert server_pids(journal) == [pid]
        await journal.write(Batch([joined("AAAA-AAAA", 1, "Eve")]))
        assert server_pids(journal) == [pid]
        assert await stored(journal) == {"AAAA-AAAA": ["Ann", "Eve"]}

        # A write given up while the database holds it (as at a write's time bound or a
        # stop): its connection, mid-statement, is not kept.
        holding = other.transaction()
        await holding.start()
        await other.execute(
            "INSERT INTO live_rooms (code, settings, created_at) VALUES ('EEEE-EEEE', '{}', 1)"
        )
        given_up = asyncio.create_task(journal.write(Batch([NewRoom("EEEE-EEEE", SETTINGS, 1)])))
        await blocked_on_a_lock(other)
        given_up.cancel()
        with pytest.raises(asyncio.CancelledError):
            await given_up
        assert journal.idle == []
        await holding.rollback()
        await journal.write(Batch([NewRoom("EEEE-EEEE", SETTINGS, 1)]))
        [pid] = server_pids(journal)

        # The database ends the connection's session: the next write on it fails, and
        # the connection is not kept.
        assert await other.fetchval("SELECT pg_terminate_backend($1)", pid)
        # What the driver raises depends on when it finds the session gone.
        lost = (OSError, asyncpg.InterfaceError, asyncpg.InternalClientError)
        with pytest.raises((*lost, asyncpg.PostgresConnectionError, asyncpg.AdminShutdownError)):
            await journal.write(Batch([joined("AAAA-AAAA", 2, "Fay")]))
        assert journal.idle == []
        await journal.write(Batch([joined("AAAA-AAAA", 2, "Fay")]))
        [again] = server_pids(journal)
        assert again != pid
        assert await stored(journal) == {"AAAA-AAAA": ["Ann", "Eve", "Fay"], "EEEE-EEEE": []}


async def test_a_room_held_up_in_the_database_holds_up_no_other_room() -> None:
    """Another transaction holds the row a new room's write inserts: that write (several
    statements) waits in the database, another room's moves are written meanwhile on the second
    connection, and the held room's next move waits for its first."""
    async with (
        journal_and_session() as (journal, other),
        running(journal, wait_seconds=30) as writer,
    ):
        assert await writer.write([NewRoom("BBBB-BBBB", SETTINGS, 1)])
        holding = other.transaction()
        await holding.start()
        await other.execute(
            "INSERT INTO live_rooms (code, settings, created_at) VALUES ('AAAA-AAAA', '{}', 1)"
        )
        new = [NewRoom("AAAA-AAAA", SETTINGS, 1), joined("AAAA-AAAA", 0, "Ann")]
        first = asyncio.create_task(writer.write(new))
        await blocked_on_a_lock(other)  # it waits in the database
        assert await writer.write([joined("BBBB-BBBB", 0, "Bob")]) is True
        writer.queue(joined("AAAA-AAAA", 1, "Cy"))
        assert await writer.write([joined("BBBB-BBBB", 1, "Di")]) is True
        assert await stored(journal) == {"BBBB-BBBB": ["Bob", "Di"]}
        assert not first.done()
        assert not writer.failing
        await holding.rollback()
        assert await asyncio.wait_for(first, timeout=60) is True
        await asyncio.wait_for(writer.saved(), timeout=30)
        assert await stored(journal) == {
            "AAAA-AAAA": ["Ann", "Cy"],
            "BBBB-BBBB": ["Bob", "Di"],
        }
        assert len(journal.idle) == 2


async def test_a_room_restored_up_to_a_gap_keeps_what_it_plays_after_it() -> None:
    """An event missing from the middle of a room's journal: the room comes back up to it, and
    its journal is written again from there, so that what it plays next is not mixed with the
    events that were after the gap. A node that no longer holds the room writes nothing of it
    again."""
    async with journal_and_session() as (journal, other):
        store = DatabaseStore(journal.engine, flush_seconds=0)
        store.start()
        try:
            ann = RoomState("AAAA-AAAA", RoomSettings(), 1)
            store.epochs[ann.code] = Tenure(2)
            for n in range(10):
                ann.join(f"P{n}", hash_token(f"t{n}"), n)
                ann.leave(0)
                assert await store.save(ann)
            await other.execute("DELETE FROM live_room_events WHERE code = 'AAAA-AAAA' AND seq = 8")
            (restored,) = await store.restore()
            assert restored.event_count == 8
            restored.join("Late", hash_token("late"), 90)
            restored.join("Later", hash_token("later"), 91)
            restored.leave(0)
            assert await store.save(restored)
            (again,) = await store.restore()
            assert (again.event_count, seated(again)) == (11, ["Later"])
            stored_rows = await other.fetch(
                "SELECT seq FROM live_room_events WHERE code = 'AAAA-AAAA' ORDER BY seq"
            )
            assert [row["seq"] for row in stored_rows] == list(range(11))
            assert (
                await other.fetchval("SELECT epoch FROM live_rooms WHERE code = 'AAAA-AAAA'") == 2
            )

            # Another node claimed the room since (a newer epoch): a rewrite with the older
            # one is refused before anything is deleted.
            await other.execute("UPDATE live_rooms SET epoch = 3 WHERE code = 'AAAA-AAAA'")
            stale = Rewrite("AAAA-AAAA", again.created_at + 1, None, 0, [])
            with pytest.raises(Fenced):
                await journal.write(Batch([Fence("AAAA-AAAA", Tenure(2)), stale]))
            assert (
                await other.fetchval(
                    "SELECT count(*) FROM live_room_events WHERE code = 'AAAA-AAAA'"
                )
                == 11
            )
        finally:
            await store.stop()
