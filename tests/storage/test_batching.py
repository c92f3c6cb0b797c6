"""Batches in front of a journal backend: in order, gathered while a write is under way, retried
in order while the database is away, waited for a bounded time, and written before a stop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

import pytest

from app.storage.backends.memory import MemoryJournal
from app.storage.batching import BatchWriter
from app.storage.journal import Batch, Events, Forget, NewRoom, Op


class FlakyJournal(MemoryJournal):
    """The memory journal, away while ``down`` is set, held up while ``gate`` is closed."""

    def __init__(self, inline: bool = False) -> None:
        super().__init__()
        self.inline = inline
        self.down = False
        self.gate = asyncio.Event()
        self.gate.set()
        self.attempts: list[list[Op]] = []
        self.closed = False

    async def write(self, batch: Batch) -> None:
        self.attempts.append(list(batch.ops))
        await self.gate.wait()
        if self.down:
            raise ConnectionError("the database is away")
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
    await first
    assert writer.failing
    assert writer.backlog == 3
    assert writer.save_failures == 1
    assert "away" in (writer.last_error or "")
    await writer.write([joined("AAAA-AAAA", 2, "Cy")])  # returns at once: play goes on
    writer.queue(Forget("GONE-GONE"))
    assert writer.backlog == 5
    assert journal.rooms == {}

    journal.down = False
    await until(lambda: not writer.failing)
    assert writer.backlog == 0
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
        await asyncio.wait_for(writer.write([room("AAAA-AAAA")]), timeout=10)
        assert journal.rooms == {}  # still being written when the wait ended
        journal.gate.set()
        await until(lambda: "AAAA-AAAA" in journal.rooms)
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


async def test_stopping_gives_up_after_its_grace_when_the_database_is_away(
    journal: FlakyJournal, caplog: pytest.LogCaptureFixture
) -> None:
    writer = BatchWriter(journal, flush_seconds=0)
    writer.start()
    journal.down = True
    await writer.write([room("AAAA-AAAA"), joined("AAAA-AAAA", 0, "Ann")])
    await writer.stop(grace=0.1)
    assert writer.backlog == 2
    assert journal.closed
    assert "stopped with 2 writes unsaved" in caplog.text


async def test_a_backend_that_writes_inline_is_written_without_the_writer_task() -> None:
    journal = FlakyJournal(inline=True)
    writer = BatchWriter(journal, flush_seconds=0)
    await writer.write([room("AAAA-AAAA")])
    assert "AAAA-AAAA" in journal.rooms
    journal.down = True
    await writer.write([joined("AAAA-AAAA", 0, "Ann")])
    assert writer.failing
    assert writer.backlog == 1
    await writer.stop(grace=0)
