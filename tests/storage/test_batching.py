"""Batches in front of a journal backend: in order, gathered while a write is under way, retried
in order while the database is away, each caller told within a bounded wait whether its write
is done, written before a stop or kept in the outbox."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from app.storage.backends.memory import MemoryJournal
from app.storage.batching import BatchWriter
from app.storage.journal import Batch, Events, Fence, Forget, NewRoom, Op, Tenure
from app.storage.outbox import Outbox


class FlakyJournal(MemoryJournal):
    """The memory journal, away while ``down`` is set, held up while ``gate`` is closed, and
    refusing the operations of the room ``refuse`` names as a broken constraint would."""

    def __init__(self, inline: bool = False) -> None:
        super().__init__()
        self.inline = inline
        self.down = False
        self.gate = asyncio.Event()
        self.gate.set()
        self.refuse: str | None = None
        self.attempts: list[list[Op]] = []
        self.closed = False

    async def write(self, batch: Batch) -> None:
        self.attempts.append(list(batch.ops))
        await self.gate.wait()
        if self.down:
            raise ConnectionError("the database is away")
        if self.refuse is not None and any(
            getattr(op, "code", None) == self.refuse for op in batch.ops
        ):
            raise sqlite3.IntegrityError("UNIQUE constraint failed")
        await super().write(batch)

    async def close(self) -> None:
        self.closed = True


def room(code: str) -> NewRoom:
    return NewRoom(code, {"rounds": 5}, 1)


def joined(code: str, first: int, *names: str) -> Events:
    return Events(code, 1, first, [{"type": "join", "name": name} for name in names])


async def until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, "the condition never came true"
        await asyncio.sleep(0.01)


@pytest.fixture
def journal() -> FlakyJournal:
    return FlakyJournal()


@pytest.fixture
async def writer(journal: FlakyJournal) -> AsyncIterator[BatchWriter]:
    """A writer in front of ``journal``, started, writing as soon as it can."""
    writer = BatchWriter(journal, flush_seconds=0)
    writer.start()
    yield writer
    await writer.stop()


async def test_writes_that_come_together_go_in_one_batch_in_order(
    journal: FlakyJournal, writer: BatchWriter
) -> None:
    await writer.write([room("AAAA-AAAA"), joined("AAAA-AAAA", 0, "Ann")])
    assert journal.attempts == [[room("AAAA-AAAA"), joined("AAAA-AAAA", 0, "Ann")]]
    await asyncio.gather(
        writer.write([joined("AAAA-AAAA", 1, "Bob")]),
        writer.write([room("BBBB-BBBB")]),
        writer.write([joined("AAAA-AAAA", 2, "Cy")]),
    )
    assert journal.attempts[1:] == [
        [joined("AAAA-AAAA", 1, "Bob"), room("BBBB-BBBB"), joined("AAAA-AAAA", 2, "Cy")]
    ]
    (kept, other) = await journal.restore()
    assert [event["name"] for _, event in sorted(kept.events.items())] == ["Ann", "Bob", "Cy"]
    assert (other.code, other.events) == ("BBBB-BBBB", {})
    assert writer.backlog == 0
    assert not writer.failing


async def test_while_the_database_is_away_writes_wait_and_are_retried_in_order(
    journal: FlakyJournal, writer: BatchWriter
) -> None:
    journal.down = True
    journal.gate.clear()
    first = asyncio.create_task(writer.write([room("AAAA-AAAA"), joined("AAAA-AAAA", 0, "Ann")]))
    await until(lambda: bool(journal.attempts))
    writer.queue(joined("AAAA-AAAA", 1, "Bob"))  # comes while the first write is under way
    journal.gate.set()
    assert await first is False  # not written: the caller is told
    assert writer.failing
    assert writer.backlog == 3
    assert writer.save_failures >= 1
    assert "away" in (writer.last_error or "")
    # While failing, a caller is told at once, and its write waits behind the others.
    assert await writer.write([joined("AAAA-AAAA", 2, "Cy")]) is False
    writer.queue(Forget("GONE-GONE"))
    assert writer.backlog == 5
    assert journal.rooms == {}
    assert writer.oldest_unsaved_seconds() > 0

    journal.down = False
    await asyncio.wait_for(writer.saved(), timeout=30)
    assert not writer.failing
    assert writer.backlog == 0
    assert writer.oldest_unsaved_seconds() == 0
    assert journal.attempts[-1] == [
        room("AAAA-AAAA"),
        joined("AAAA-AAAA", 0, "Ann"),
        joined("AAAA-AAAA", 1, "Bob"),
        joined("AAAA-AAAA", 2, "Cy"),
        Forget("GONE-GONE"),
    ]
    (kept,) = await journal.restore()
    assert [event["name"] for _, event in sorted(kept.events.items())] == ["Ann", "Bob", "Cy"]


async def test_a_slow_write_is_waited_for_a_bounded_time(journal: FlakyJournal) -> None:
    writer = BatchWriter(journal, flush_seconds=0, wait_seconds=0.05)
    writer.start()
    try:
        journal.gate.clear()
        assert await asyncio.wait_for(writer.write([room("AAAA-AAAA")]), timeout=10) is False
        assert journal.rooms == {}  # still being written when the wait ended
        # A second caller has its own bound, though the first write is still under way.
        assert await asyncio.wait_for(writer.write([room("BBBB-BBBB")]), timeout=10) is False
        journal.gate.set()
        await asyncio.wait_for(writer.saved(), timeout=10)
        assert set(journal.rooms) == {"AAAA-AAAA", "BBBB-BBBB"}
        assert not writer.failing
    finally:
        await writer.stop()


async def test_stopping_writes_what_is_pending_then_closes_the_backend(
    journal: FlakyJournal,
) -> None:
    writer = BatchWriter(journal, flush_seconds=0.05)
    writer.start()
    await writer.write([room("AAAA-AAAA")])
    writer.queue(room("BBBB-BBBB"))  # not yet: writes are 50 ms apart
    await writer.stop()
    assert set(journal.rooms) == {"AAAA-AAAA", "BBBB-BBBB"}
    assert writer.backlog == 0
    assert journal.closed


async def test_stopping_keeps_in_the_outbox_what_the_database_would_not_take(
    journal: FlakyJournal, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    outbox = Outbox(tmp_path / "outbox")
    writer = BatchWriter(journal, flush_seconds=0, outbox=outbox)
    writer.start()
    journal.down = True
    ops: list[Op] = [room("AAAA-AAAA"), joined("AAAA-AAAA", 0, "Ann")]
    assert await writer.write(ops) is False
    await writer.stop(grace=0.1)
    assert journal.closed
    assert "stopped with 2 writes unsaved" in caplog.text
    assert str(outbox.path) in caplog.text
    assert outbox.read() == ops

    # The next start writes them first, before anything else, and deletes the file.
    journal.down = False
    again = BatchWriter(journal, flush_seconds=0, outbox=outbox)
    again.start()
    try:
        await again.drain_outbox()
        assert journal.attempts[-1] == ops
        assert "AAAA-AAAA" in journal.rooms
        assert not outbox.path.exists()
    finally:
        await again.stop()


async def test_a_write_that_hangs_fails_after_its_bound(journal: FlakyJournal) -> None:
    writer = BatchWriter(journal, flush_seconds=0, wait_seconds=0.05, write_seconds=0.2)
    writer.start()
    try:
        journal.gate.clear()  # the database never answers
        assert await writer.write([room("AAAA-AAAA")]) is False
        await until(lambda: writer.failing)
        assert "TimeoutError" in (writer.last_error or "")
        journal.gate.set()
        await asyncio.wait_for(writer.saved(), timeout=30)
        assert "AAAA-AAAA" in journal.rooms
    finally:
        await writer.stop()


async def test_a_backend_that_writes_inline_is_written_without_the_writer_task() -> None:
    journal = FlakyJournal(inline=True)
    writer = BatchWriter(journal, flush_seconds=0)
    await writer.write([room("AAAA-AAAA")])
    assert "AAAA-AAAA" in journal.rooms
    journal.down = True
    assert await writer.write([joined("AAAA-AAAA", 0, "Ann")]) is False
    assert writer.failing
    assert writer.backlog == 1
    await writer.stop(grace=0)


async def test_an_entry_holding_two_holds_on_a_room_is_written_not_deferred_for_ever(
    journal: FlakyJournal, writer: BatchWriter
) -> None:
    """The outbox gives a room's operations as one entry, which may span two of a node's
    holds on the room (dropped and claimed again before a stop): it is written whole, first."""
    first, second = Tenure(1), Tenure(2)
    kept: list[Op] = [
        Fence("AAAA-AAAA", first),
        room("AAAA-AAAA"),
        Fence("AAAA-AAAA", second),
        joined("AAAA-AAAA", 0, "Ann"),
    ]
    later: list[Op] = [Fence("AAAA-AAAA", second), joined("AAAA-AAAA", 1, "Bob")]
    assert await asyncio.wait_for(
        asyncio.gather(writer.write(kept), writer.write(later)), timeout=30
    ) == [True, True]
    assert journal.attempts[0] == kept
    (stored,) = await journal.restore()
    assert [event["name"] for _, event in sorted(stored.events.items())] == ["Ann", "Bob"]
