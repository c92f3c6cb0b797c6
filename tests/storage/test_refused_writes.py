"""A write the database refuses for what it holds, not for being away: the refused room's
operations are held apart and retried on their own, in order, while every other room's writes
go on; at a restart the outbox's other rooms are written and restored without it."""

from __future__ import annotations

import asyncio
import pickle
from pathlib import Path

import orjson
import pytest

from app.api.deps import Miss, find_room
from app.api.health import readyz
from app.main import restore_rooms, restore_when_taken
from app.rooms.live import RoomConfig
from app.rooms.registry import RoomRegistry, WindowLimiter, hash_token
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState
from app.storage.batching import BatchWriter
from app.storage.db import make_engine
from app.storage.journal import (
    Batch,
    Events,
    Fence,
    Fenced,
    Forget,
    JournalRoom,
    NewRoom,
    Tenure,
)
from app.storage.outbox import Outbox
from app.storage.store import DatabaseStore
from tests.databases import postgres_database
from tests.server import migrate
from tests.storage.test_batching import FlakyJournal, joined, room, running, until
from tests.storage.test_sqlite_journal import close_store, open_store

GOOD = "GOOD-GOOD"
BAD = "BADD-BADD"


def poisoned(code: str, first: int) -> Events:
    """Events no encoder can write: a set is not JSON."""
    return Events(code, 1, first, [{"type": "join", "name": {"a", "set"}}])


def names(events: dict[int, dict[str, object]]) -> list[object]:
    return [event["name"] for _, event in sorted(events.items())]


async def test_a_refused_room_is_held_apart_and_the_others_are_written(tmp_path: Path) -> None:
    store = open_store(tmp_path / "spectrum.db")
    try:
        # Both rooms in one batch: the good room's operations are queued first.
        store.queue(room(GOOD))
        store.queue(joined(GOOD, 0, "Ann"))
        bad = poisoned(BAD, 0)
        assert await store.write([room(BAD), bad]) is False
        assert set(store.refused) == {BAD}
        assert "not JSON serializable" in store.refused[BAD]
        assert store.unsaved_rooms() == {BAD}
        assert not store.failing  # the database is not away: other rooms are not told so

        # The good room goes on; the refused one's later operations wait behind its first.
        assert await store.write([joined(GOOD, 1, "Bob")]) is True
        assert await store.write([joined(BAD, 1, "Cy")]) is False
        assert store.backlog == 3
        # Waiting for one room's writes is not waiting for the refused room's.
        await asyncio.wait_for(store.saved(GOOD), timeout=30)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(store.saved(BAD), timeout=0.5)

        # Once the database takes them, they are written on their own, in order.
        bad.events[0]["name"] = "Dee"
        await until(lambda: not store.refused)
        await asyncio.wait_for(store.saved(), timeout=30)
        assert store.backlog == 0
        rooms = {room.code: room for room in await store.backend.restore()}
        assert names(rooms[GOOD].events) == ["Ann", "Bob"]
        assert names(rooms[BAD].events) == ["Dee", "Cy"]
    finally:
        await close_store(store)


async def stopped_with_a_refused_room(path: Path) -> tuple[DatabaseStore, RoomState]:
    """A store on ``path`` that saved GOOD (Ann seated) and stopped with BAD's writes, which
    the database refuses, kept in its outbox; the stopped store and GOOD's state."""
    store = open_store(path)
    good = RoomState(GOOD, RoomSettings(), 0)
    good.join("Ann", hash_token("ann"), 0)
    assert await store.save(good) is True
    assert await store.write([room(BAD), poisoned(BAD, 0)]) is False
    await close_store(store, grace=0.1)
    return store, good


async def test_the_outbox_of_a_refused_room_holds_up_no_other_at_a_restart(
    tmp_path: Path,
) -> None:
    path = tmp_path / "spectrum.db"
    store, good = await stopped_with_a_refused_room(path)
    assert store.outbox is not None
    kept = store.outbox.read()
    assert {op.code for op in kept if isinstance(op, (NewRoom, Events))} == {BAD}

    # Kept again with the good room's next events, as after a stop while both waited.
    good.join("Bob", hash_token("bob"), 1)
    first, events = good.take_unsaved()
    store.outbox.keep([*kept, Events(GOOD, good.created_at, first, events)])

    again = open_store(path)
    try:
        await asyncio.wait_for(again.drain_outbox(), timeout=30)  # does not wait for BAD
        assert set(again.refused) == {BAD}
        # The file keeps what is left, never the good room's events a second time.
        assert {op.code for op in store.outbox.read() if isinstance(op, Events)} == {BAD}
        restored = {state.code: state for state in await again.restore()}
        assert set(restored) == {GOOD}  # BAD's journal is behind what its players saw
        assert [seat.name for seat in restored[GOOD].seats] == ["Ann", "Bob"]
        assert store.outbox.path.exists()  # what the database has not taken stays kept
    finally:
        await close_store(again, grace=0.1)
    # Kept again at that stop, and not deleted after.
    await asyncio.sleep(0.1)
    assert {op.code for op in store.outbox.read() if isinstance(op, (NewRoom, Events))} == {BAD}


async def test_a_database_away_is_retried_whole_not_room_by_room() -> None:
    journal = FlakyJournal()
    async with running(journal, wait_seconds=0.05) as writer:
        journal.down = True
        results = await asyncio.gather(
            writer.write([room(GOOD)]), writer.write([room(BAD)]), writer.write([room("CCCC-CCCC")])
        )
        assert list(results) == [False, False, False]
        assert writer.failing
        assert not writer.refused
        assert all(len(attempt) >= 1 for attempt in journal.attempts)
        tries = len(journal.attempts)
        journal.down = False
        journal.refuse = BAD
        await until(lambda: bool(writer.refused))
        # One whole batch refused, then each room alone: three more attempts, no more.
        assert [len(attempt) for attempt in journal.attempts[tries:]][-3:] == [1, 1, 1]
        assert set(journal.rooms) == {GOOD, "CCCC-CCCC"}
        assert set(writer.refused) == {BAD}
        assert "IntegrityError" in writer.refused[BAD]
        assert not writer.failing
        journal.refuse = None
        await until(lambda: not writer.refused)
        assert set(journal.rooms) == {GOOD, BAD, "CCCC-CCCC"}


async def test_postgresql_refusing_one_room_holds_up_no_other(tmp_path: Path) -> None:
    with postgres_database() as url:
        migrate(url)
        store = DatabaseStore(
            make_engine(url), flush_seconds=0.05, wait_seconds=5, outbox=tmp_path / "outbox"
        )
        store.start()
        try:
            assert await store.write([room(GOOD)]) is True
            # Gathered into one batch (the writer waits 50 ms between writes): events of a
            # room the database does not hold break a foreign key, the good room's do not.
            results = await asyncio.gather(
                store.write([joined(GOOD, 0, "Ann")]),
                store.write([joined(BAD, 0, "Cy")]),
                store.write([joined(GOOD, 1, "Bob")]),
            )
            assert list(results) == [True, False, True]
            assert set(store.refused) == {BAD}
            assert "ForeignKeyViolation" in store.refused[BAD]
            assert not store.failing
            rooms = {room.code: room for room in await store.backend.restore()}
            assert names(rooms[GOOD].events) == ["Ann", "Bob"]
            # The room is put in the database by other means: its held events follow it in.
            await store.backend.write(Batch([room(BAD)]))
            await until(lambda: not store.refused)
            rooms = {room.code: room for room in await store.backend.restore()}
            assert names(rooms[BAD].events) == ["Cy"]
        finally:
            await store.stop(grace=0.1)
            await store.engine.dispose()


async def test_readiness_names_the_refused_rooms(tmp_path: Path) -> None:
    store = open_store(tmp_path / "spectrum.db")
    registry = RoomRegistry(RoomConfig(), 10, store)
    try:
        response = await readyz(store, registry, None)
        assert response.status_code == 200
        assert await store.write([room(BAD), poisoned(BAD, 0)]) is False
        response = await readyz(store, registry, None)
        assert response.status_code == 503
        body = orjson.loads(response.body)
        assert body["status"] == "degraded"
        assert body["backlog"] == 2
        (problem,) = body["problems"]
        # The error's kind, not its words (they are in the log).
        assert problem == "the database refuses the writes of 1 room(s) (TypeError)"
    finally:
        await close_store(store, grace=0.1)


class HangingJournal(FlakyJournal):
    """Refuses BAD's operations; any other write hangs while ``hang`` is set, and BAD's are
    refused by a newer owner's epoch once ``fenced`` is."""

    def __init__(self) -> None:
        super().__init__()
        self.refuse = BAD
        self.hang = False
        self.fenced = False

    async def write(self, batch: Batch) -> None:
        codes = {getattr(op, "code", None) for op in batch.ops}
        if self.fenced and BAD in codes:
            raise Fenced({BAD}, {BAD: 1})
        if self.hang and codes - {BAD}:
            await asyncio.Event().wait()
        await super().write(batch)


async def test_a_stop_during_another_write_keeps_the_refused_room_in_the_outbox(
    tmp_path: Path,
) -> None:
    journal = HangingJournal()
    outbox = Outbox(tmp_path / "outbox")
    # A write at most every 5 s: the refused room's retry (due after 0.5 s) goes with the
    # next batch, the good room's, which hangs.
    writer = BatchWriter(journal, 5.0, wait_seconds=0.05, write_seconds=100, outbox=outbox)
    writer.start()
    assert await writer.write([room(BAD)]) is False
    await until(lambda: BAD in writer.refused)
    journal.hang = True
    writer.queue(room(GOOD))
    await until(lambda: len(writer._writing) == 2)  # both under way, the good one hung
    await writer.stop(grace=0.1)  # cancels the hung write
    assert {op.code for op in outbox.read() if isinstance(op, NewRoom)} == {GOOD, BAD}


async def test_a_refused_room_a_newer_owner_holds_is_refused_no_more() -> None:
    journal = HangingJournal()
    writer = BatchWriter(journal, 0, wait_seconds=0.05)
    writer.on_fenced = lambda code, tenure, epoch: False  # another node holds it
    writer.start()
    try:
        tenure = Tenure(1)
        assert await writer.write([Fence(BAD, tenure), room(BAD)]) is False
        assert set(writer.refused) == {BAD}
        writer.queue(Fence(BAD, tenure), Forget(BAD))  # idle: forgotten, behind its write
        journal.fenced = True  # claimed by another node meanwhile
        await until(lambda: writer.backlog == 0)  # dropped
        assert writer.refused == {}
    finally:
        await writer.stop(grace=0.1)


async def with_a_refused_room(tmp_path: Path) -> tuple[HangingJournal, Outbox, BatchWriter]:
    """A writer, with an outbox, that has written BAD's new room and had it refused."""
    journal = HangingJournal()
    outbox = Outbox(tmp_path / "outbox")
    writer = BatchWriter(journal, 0, wait_seconds=0.05, outbox=outbox)
    writer.start()
    assert await writer.write([room(BAD)]) is False
    await until(lambda: BAD in writer.refused)
    return journal, outbox, writer


async def test_a_stop_waits_for_no_refused_room_and_keeps_it_in_the_outbox(
    tmp_path: Path,
) -> None:
    _, outbox, writer = await with_a_refused_room(tmp_path)
    assert await writer.write([room(GOOD)]) is True
    # A grace far longer than the guard: waiting it out for the refused room would fail here.
    async with asyncio.timeout(30):
        await writer.stop(grace=3600)
    assert {op.code for op in outbox.read() if isinstance(op, NewRoom)} == {BAD}
    assert writer.kept_rooms == {BAD}


async def test_a_stop_with_a_refused_room_still_waits_for_the_other_rooms_writes(
    tmp_path: Path,
) -> None:
    journal, outbox, writer = await with_a_refused_room(tmp_path)
    journal.down = True
    assert await writer.write([room(GOOD)]) is False  # the database away: GOOD waits
    await until(lambda: writer.failing)
    stopping = asyncio.create_task(writer.stop(grace=3600))
    await asyncio.sleep(0)  # the stop has looked at what is queued, with the database away
    assert not stopping.done()
    journal.down = False  # back: the stop waits for GOOD's write, then goes
    async with asyncio.timeout(30):
        await stopping
    assert {op.code for op in outbox.read() if isinstance(op, NewRoom)} == {BAD}
    assert writer.kept_rooms == {BAD}


async def test_a_room_the_database_refuses_holds_up_no_other_rooms_restore(tmp_path: Path) -> None:
    """A start whose outbox holds a room the database refuses restores the other rooms at
    once: the refused one is left out, not waited for."""
    path = tmp_path / "spectrum.db"
    await stopped_with_a_refused_room(path)

    again = open_store(path)
    try:
        await again.drain_outbox()
        assert set(again.refused) == {BAD}
        registry = RoomRegistry(RoomConfig(), 10, again)
        assert await restore_rooms(registry, again) is True
        assert registry.unrestored is None
        assert set(registry.rooms) == {GOOD}
    finally:
        await close_store(again, grace=0.1)


async def test_an_outbox_that_cannot_be_read_is_never_written_over(tmp_path: Path) -> None:
    """Stopped before the outbox it could not read was read, with writes of its own to keep,
    the writer keeps them in a new outbox and the one it could not read under another name."""
    path = tmp_path / "outbox"
    path.write_bytes(b"not what a server writes")
    journal = FlakyJournal()
    writer = BatchWriter(journal, 0, wait_seconds=0.05, outbox=Outbox(path))
    writer.start()
    with pytest.raises(pickle.UnpicklingError):
        await writer.drain_outbox()
    journal.down = True
    assert await writer.write([room(GOOD), joined(GOOD, 0, "Ann")]) is False
    await writer.stop(grace=0.1)
    assert {op.code for op in Outbox(path).read()} == {GOOD}
    assert (tmp_path / "outbox.unread").read_bytes() == b"not what a server writes"


async def left_out_at_a_restart(store: DatabaseStore) -> tuple[RoomRegistry, Events]:
    """BAD saved with Ann; Bob's join, which the database refuses (a set is not JSON) until
    its name is put right, held; the rooms restored (BAD left out) into a registry that
    restores a left-out room once its writes are taken. The registry and Bob's events."""
    bad = RoomState(BAD, RoomSettings(), 0)
    bad.join("Ann", hash_token("ann"), 0)
    assert await store.save(bad) is True
    bad.join("Bob", hash_token("bob"), 1)
    first, events = bad.take_unsaved()
    events[0]["name"] = {"not", "json"}
    held = Events(BAD, bad.created_at, first, events)
    assert await store.write([held]) is False
    registry = RoomRegistry(RoomConfig(), 10, store)
    restore_when_taken(registry, store)
    return registry, held


async def test_a_left_out_room_comes_back_even_if_taken_while_the_rooms_are_read(
    tmp_path: Path,
) -> None:
    """The database took the refused room's writes while the restore was reading the rooms:
    what was read is behind them, so the room is left out, and, its acceptance told before it
    was, it is restored at once after (it was left out for good)."""
    store = open_store(tmp_path / "spectrum.db")
    try:
        registry, held = await left_out_at_a_restart(store)
        read, reading, gate = store.backend.restore, asyncio.Event(), asyncio.Event()

        async def slow_read() -> list[JournalRoom]:
            rooms = await read()
            reading.set()
            await gate.wait()
            return rooms

        store.backend.restore = slow_read  # type: ignore[method-assign]
        restoring = asyncio.create_task(restore_rooms(registry, store))
        await reading.wait()
        held.events[0]["name"] = "Bob"  # the database takes it now, after the read
        await until(lambda: not store.refused)
        gate.set()
        assert await restoring is True
        await until(lambda: BAD in registry.rooms)
        assert [seat.name for seat in registry.rooms[BAD].state.seats] == ["Ann", "Bob"]
        assert not store.left_out
    finally:
        await close_store(store, grace=0.1)


async def test_a_left_out_room_forgotten_behind_its_refused_writes_is_unknown_once_taken(
    tmp_path: Path,
) -> None:
    """Its players gone, a left-out room's journal is forgotten behind its refused writes:
    once they are taken it is no room, answered unknown (it was "restoring" for good)."""
    store = open_store(tmp_path / "spectrum.db")
    try:
        registry, held = await left_out_at_a_restart(store)
        assert await store.write([Forget(BAD)]) is False  # behind the refused join
        assert await restore_rooms(registry, store) is True
        assert store.left_out == {BAD}
        misses = WindowLimiter(30, 60)
        assert find_room(registry, misses, BAD, "10.0.0.1") is Miss.RESTORING
        held.events[0]["name"] = "Bob"
        await until(lambda: not store.left_out)
        assert find_room(registry, misses, BAD, "10.0.0.1") is Miss.UNKNOWN
        assert BAD not in registry.rooms
    finally:
        await close_store(store, grace=0.1)
