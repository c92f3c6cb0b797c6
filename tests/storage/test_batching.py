"""Batches in front of a journal backend: in order, gathered while a write is under way, retried
in order while the database is away, each caller told within a bounded wait whether its write
is done, written before a stop or kept in the outbox."""

from __future__ import annotations

import asyncio
import pickle
import random
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from app.storage import batching
from app.storage.backends.memory import MemoryJournal
from app.storage.batching import SECOND_LANE_AFTER, BatchWriter
from app.storage.journal import Batch, Events, Fence, Forget, JournalBackend, NewRoom, Op, Tenure
from app.storage.outbox import Outbox, database_name


class FlakyJournal(MemoryJournal):
    """The memory journal, away while ``down`` is set, held up while ``gate`` is closed (a
    room's writes while its gate in ``gates`` is), and refusing the operations of the room
    ``refuse`` names as a broken constraint would. It counts the most writes it was given at
    once, and the writes given while another with a room in common was under way."""

    def __init__(self, inline: bool = False) -> None:
        super().__init__()
        self.inline = inline
        self.down = False
        self.gate = asyncio.Event()
        self.gate.set()
        self.refuse: str | None = None
        self.gates: dict[str, asyncio.Event] = {}
        self.attempts: list[list[Op]] = []
        self.under_way = 0
        self.most_at_once = 0
        self.rooms_under_way: list[str] = []
        self.overlaps = 0
        self.closed = False

    def hold(self, code: str) -> asyncio.Event:
        """Hold up the writes of room ``code`` until the gate returned is set."""
        gate = self.gates[code] = asyncio.Event()
        return gate

    async def write(self, batch: Batch) -> None:
        self.attempts.append(list(batch.ops))
        self.under_way += 1
        self.most_at_once = max(self.most_at_once, self.under_way)
        rooms = {getattr(op, "code", "") for op in batch.ops}
        self.overlaps += bool(rooms & set(self.rooms_under_way))
        self.rooms_under_way.extend(rooms)
        try:
            await self._write(batch)
        finally:
            self.under_way -= 1
            for code in rooms:
                self.rooms_under_way.remove(code)

    async def _write(self, batch: Batch) -> None:
        await self.gate.wait()
        for op in batch.ops:
            gate = self.gates.get(getattr(op, "code", ""))
            if gate is not None:
                await gate.wait()
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


@asynccontextmanager
async def running(journal: JournalBackend, **options: float) -> AsyncIterator[BatchWriter]:
    """A writer in front of ``journal``, started, writing as soon as it can (``options`` for
    the rest of its settings); stopped at the end."""
    writer = BatchWriter(journal, flush_seconds=0, **options)
    writer.start()
    try:
        yield writer
    finally:
        await writer.stop()


@pytest.fixture
async def writer(journal: FlakyJournal) -> AsyncIterator[BatchWriter]:
    """A writer in front of ``journal``, started, writing as soon as it can."""
    async with running(journal) as writer:
        yield writer


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
    async with running(journal, wait_seconds=0.05) as writer:
        journal.gate.clear()
        assert await asyncio.wait_for(writer.write([room("AAAA-AAAA")]), timeout=10) is False
        assert journal.rooms == {}  # still being written when the wait ended
        # A second caller has its own bound, though the first write is still under way.
        assert await asyncio.wait_for(writer.write([room("BBBB-BBBB")]), timeout=10) is False
        journal.gate.set()
        await asyncio.wait_for(writer.saved(), timeout=10)
        assert set(journal.rooms) == {"AAAA-AAAA", "BBBB-BBBB"}
        assert not writer.failing


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


async def test_an_outbox_of_another_database_is_moved_aside_not_written(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """Servers on two databases started from one folder share its default outbox: the second
    never writes the first's rooms into its own database, and leaves the file for the first."""
    path = tmp_path / "spectrum-outbox"
    ops: list[Op] = [room("AAAA-AAAA"), joined("AAAA-AAAA", 0, "Ann")]
    Outbox(path, "games").keep(ops)
    other = FlakyJournal()
    writer = BatchWriter(other, flush_seconds=0, outbox=Outbox(path, "games_test"))
    writer.start()
    try:
        await writer.drain_outbox()
        assert other.attempts == []
        assert not path.exists()
        assert "holds writes for the database 'games', not this server's 'games_test'" in (
            caplog.text
        )
    finally:
        await writer.stop()
    aside = tmp_path / "spectrum-outbox.games"
    assert f"OUTBOX_PATH={aside}" in caplog.text
    assert Outbox(aside, "games").read() == ops

    Outbox(path, "games").keep(ops[:1])  # again: the first aside is not written over
    writer = BatchWriter(other, flush_seconds=0, outbox=Outbox(path, "games_test"))
    writer.start()
    await writer.drain_outbox()
    await writer.stop()
    assert Outbox(aside, "games").read() == ops
    assert Outbox(tmp_path / "spectrum-outbox.games-2", "games").read() == ops[:1]

    # Its own database's server writes it.
    journal = FlakyJournal()
    owner = BatchWriter(journal, flush_seconds=0, outbox=Outbox(aside, "games"))
    owner.start()
    try:
        await owner.drain_outbox()
        assert journal.attempts == [ops]
        assert not aside.exists()
    finally:
        await owner.stop()


def test_an_outbox_of_an_earlier_version_is_taken_by_any_database(tmp_path: Path) -> None:
    path = tmp_path / "outbox"
    ops: list[Op] = [room("AAAA-AAAA")]
    path.write_bytes(pickle.dumps(ops))
    assert Outbox(path, "games").read() == ops


def test_an_outbox_is_named_after_the_database_not_the_way_to_its_host() -> None:
    named = [
        database_name(make_url(url))
        for url in (
            "postgresql+asyncpg://spectrum:secret@db:5432/games",
            "postgresql+asyncpg://spectrum@10.0.0.5/games",
            "sqlite+aiosqlite:////srv/spectrum/data/spectrum.db",
        )
    ]
    assert named == ["games", "games", "spectrum.db"]


async def test_a_write_that_hangs_fails_after_its_bound(journal: FlakyJournal) -> None:
    async with running(journal, wait_seconds=0.05, write_seconds=0.2) as writer:
        journal.gate.clear()  # the database never answers
        assert await writer.write([room("AAAA-AAAA")]) is False
        await until(lambda: writer.failing)
        assert "TimeoutError" in (writer.last_error or "")
        journal.gate.set()
        await asyncio.wait_for(writer.saved(), timeout=30)
        assert "AAAA-AAAA" in journal.rooms


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


class TwoLaneJournal(FlakyJournal):
    """The flaky journal, writing two batches at once."""

    lanes = 2


def names(journal: FlakyJournal, code: str) -> list[str]:
    room = journal.rooms[code]
    return [event["name"] for _, event in sorted(room.events.items())]


@asynccontextmanager
async def slow_batch_held(
    second_lane_after: float = SECOND_LANE_AFTER,
) -> AsyncIterator[tuple[TwoLaneJournal, BatchWriter, asyncio.Event, asyncio.Task[bool]]]:
    """A two-lane writer (each caller waits up to 30 s) that has written room BBBB-BBBB, and
    room AAAA-AAAA's first write, several statements (a new room and a join), under way and
    held up until the gate is set: the journal, the writer, the gate and that write's task.
    The writer is stopped at the end."""
    journal = TwoLaneJournal()
    async with running(journal, wait_seconds=30, second_lane_after=second_lane_after) as writer:
        await writer.write([room("BBBB-BBBB")])
        gate = journal.hold("AAAA-AAAA")
        first = asyncio.create_task(
            writer.write([room("AAAA-AAAA"), joined("AAAA-AAAA", 0, "Ann")])
        )
        await until(lambda: journal.under_way == 1)
        yield journal, writer, gate, first


async def test_a_second_lane_writes_other_rooms_while_a_slow_batch_is_under_way() -> None:
    """A batch of several statements (here a new room's) held up in the database does not hold
    up another room's moves; the held room's next move waits for its first."""
    async with slow_batch_held() as (journal, writer, gate, first):
        assert await asyncio.wait_for(writer.write([joined("BBBB-BBBB", 0, "Bob")]), 30) is True
        assert names(journal, "BBBB-BBBB") == ["Bob"]
        assert journal.most_at_once == 2
        second = asyncio.create_task(writer.write([joined("AAAA-AAAA", 1, "Cy")]))
        assert await asyncio.wait_for(writer.write([joined("BBBB-BBBB", 1, "Di")]), 30) is True
        assert not second.done()
        assert all(
            op != joined("AAAA-AAAA", 1, "Cy") for attempt in journal.attempts for op in attempt
        )
        assert "AAAA-AAAA" not in journal.rooms
        gate.set()
        assert await asyncio.wait_for(asyncio.gather(first, second), 30) == [True, True]
        assert names(journal, "AAAA-AAAA") == ["Ann", "Cy"]
        assert names(journal, "BBBB-BBBB") == ["Bob", "Di"]
        assert journal.overlaps == 0
        assert writer.backlog == 0


async def test_no_second_lane_while_a_batch_of_moves_alone_is_under_way() -> None:
    """Moves' events are one statement, soon written: what comes meanwhile joins the next
    batch rather than a batch of its own."""
    journal = TwoLaneJournal()
    async with running(journal, wait_seconds=30) as writer:
        await writer.write([room("AAAA-AAAA"), room("BBBB-BBBB"), room("CCCC-CCCC")])
        gate = journal.hold("AAAA-AAAA")
        first = asyncio.create_task(writer.write([joined("AAAA-AAAA", 0, "Ann")]))
        await until(lambda: journal.under_way == 1)
        others = asyncio.gather(
            writer.write([joined("BBBB-BBBB", 0, "Bob")]),
            writer.write([joined("CCCC-CCCC", 0, "Cy")]),
        )
        for _ in range(20):
            await asyncio.sleep(0.005)
        assert journal.under_way == 1
        assert journal.most_at_once == 1
        gate.set()
        assert await asyncio.wait_for(asyncio.gather(first, others), 30) == [True, [True, True]]
        assert journal.attempts[-1] == [joined("BBBB-BBBB", 0, "Bob"), joined("CCCC-CCCC", 0, "Cy")]
        assert journal.most_at_once == 1


async def test_no_second_lane_before_a_slow_batch_has_been_under_way_a_while() -> None:
    """A batch of several statements with the database near is soon written too: a second
    lane opens beside it only once it has been under way ``second_lane_after``."""
    async with slow_batch_held(second_lane_after=3600) as (journal, writer, gate, first):
        other = asyncio.create_task(writer.write([joined("BBBB-BBBB", 0, "Bob")]))
        for _ in range(20):
            await asyncio.sleep(0.005)
        assert journal.most_at_once == 1
        writer.second_lane_after = 0
        writer.queue(joined("BBBB-BBBB", 1, "Cy"))  # wakes the writer: the lane opens now
        assert await asyncio.wait_for(other, 30) is True
        assert journal.most_at_once == 2
        assert names(journal, "BBBB-BBBB") == ["Bob", "Cy"]
        gate.set()
        assert await asyncio.wait_for(first, 30) is True


async def test_the_second_lane_opens_on_its_own_once_a_slow_batch_has_been_under_way_a_while() -> (
    None
):
    """Nothing else comes to wake the writer: the second lane opens when its time comes."""
    async with slow_batch_held(second_lane_after=0.05) as (_, writer, gate, first):
        assert await asyncio.wait_for(writer.write([joined("BBBB-BBBB", 0, "Bob")]), 60) is True
        assert not first.done()
        gate.set()
        assert await asyncio.wait_for(first, 30) is True


async def test_a_failed_write_on_one_lane_tells_no_waiter_of_the_other() -> None:
    """The database fails one lane's write while the other's is under way: that one's waiters
    are not told it failed; it may yet be written, and is."""
    async with slow_batch_held() as (journal, writer, gate, first):
        journal.down = True
        assert await asyncio.wait_for(writer.write([joined("BBBB-BBBB", 0, "Bob")]), 60) is False
        assert writer.failing
        for _ in range(10):
            await asyncio.sleep(0)
        assert not first.done()
        journal.down = False
        gate.set()
        assert await asyncio.wait_for(first, 30) is True
        await asyncio.wait_for(writer.saved(), timeout=30)
        assert names(journal, "AAAA-AAAA") == ["Ann"]
        assert names(journal, "BBBB-BBBB") == ["Bob"]


async def test_two_lanes_while_the_database_is_away_try_it_one_at_a_time() -> None:
    journal = TwoLaneJournal()
    async with running(journal, wait_seconds=0.05) as writer:
        journal.down = True
        assert await writer.write([room("AAAA-AAAA"), joined("AAAA-AAAA", 0, "Ann")]) is False
        assert writer.failing
        journal.gate.clear()  # the next try hangs, under way
        tried = len(journal.attempts)
        await until(lambda: len(journal.attempts) > tried)  # tried again, after a pause
        journal.most_at_once = journal.under_way
        # Another room's writes, while that try is under way: they wait for it, not tried
        # on the other lane against a database that is away.
        for code in ("BBBB-BBBB", "CCCC-CCCC"):
            assert await writer.write([room(code), joined(code, 0, "Ann")]) is False
            writer.queue(joined(code, 1, "Bob"))
        writer.queue(joined("AAAA-AAAA", 1, "Bob"))
        await asyncio.sleep(0.1)
        assert journal.most_at_once == 1
        journal.down = False
        journal.gate.set()
        await asyncio.wait_for(writer.saved(), timeout=30)
        assert not writer.failing
        for code in ("AAAA-AAAA", "BBBB-BBBB", "CCCC-CCCC"):
            assert names(journal, code) == ["Ann", "Bob"]


async def test_stopping_with_two_writes_under_way_keeps_both_in_the_outbox(
    tmp_path: Path,
) -> None:
    journal = TwoLaneJournal()
    outbox = Outbox(tmp_path / "outbox")
    writer = BatchWriter(journal, flush_seconds=0, wait_seconds=0.05, outbox=outbox)
    writer.start()
    journal.hold("AAAA-AAAA")
    journal.hold("BBBB-BBBB")
    a: list[Op] = [room("AAAA-AAAA"), joined("AAAA-AAAA", 0, "Ann")]
    b: list[Op] = [room("BBBB-BBBB"), joined("BBBB-BBBB", 0, "Bob")]
    assert await writer.write(a) is False
    assert await writer.write(b) is False
    assert journal.under_way == 2
    writer.queue(joined("AAAA-AAAA", 1, "Cy"))
    await writer.stop(grace=0.1)
    assert journal.rooms == {}
    kept = outbox.read()
    assert [op for op in kept if op.code == "AAAA-AAAA"] == [*a, joined("AAAA-AAAA", 1, "Cy")]
    assert [op for op in kept if op.code == "BBBB-BBBB"] == b


async def test_a_room_refused_on_one_lane_is_paused_for_once_not_once_a_lane(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A room refused beside another lane's write: the first pause before it is tried again
    is the shortest, not lengthened again when the other lane's write ends."""
    monkeypatch.setattr(batching, "RETRY_SECONDS", (60, 120))  # no retry while it looks
    async with slow_batch_held() as (journal, writer, gate, first):
        journal.refuse = "BBBB-BBBB"
        writer.queue(joined("BBBB-BBBB", 0, "Bob"))
        await until(lambda: bool(writer.refused) and journal.under_way == 1)
        assert set(writer.refused) == {"BBBB-BBBB"}
        assert not first.done()
        gate.set()
        assert await asyncio.wait_for(first, 30) is True
        loop = asyncio.get_running_loop()
        assert writer._refused_retry_at - loop.time() <= 60
        assert [op for attempt in journal.attempts for op in attempt].count(
            joined("BBBB-BBBB", 0, "Bob")
        ) == 2  # as a batch, then on its own


class AloneJournal(TwoLaneJournal):
    """The two-lane journal, holding up a room's writes only when they are written on their
    own (room by room, after the database refused them with others, or tried again after a
    refusal) while the room has a gate in ``alone``."""

    def __init__(self) -> None:
        super().__init__()
        self.alone: dict[str, asyncio.Event] = {}

    async def _write(self, batch: Batch) -> None:
        rooms = {getattr(op, "code", "") for op in batch.ops}
        if len(rooms) == 1 and (code := rooms.pop()) in self.alone:
            await self.alone[code].wait()
        await super()._write(batch)


async def test_moves_refused_as_a_batch_are_written_room_by_room_beside_other_rooms() -> None:
    """Moves' events alone are one statement, but once the database refuses them they are
    written room by room, a round trip each: a second lane opens beside that, when its time
    comes, as beside any batch of several statements."""
    journal = AloneJournal()
    async with running(journal, wait_seconds=30, second_lane_after=0.5) as writer:
        await writer.write([room("AAAA-AAAA"), room("BBBB-BBBB"), room("CCCC-CCCC")])
        journal.refuse = "BBBB-BBBB"
        held = journal.alone["AAAA-AAAA"] = asyncio.Event()
        writer.queue(joined("AAAA-AAAA", 0, "Ann"))
        writer.queue(joined("BBBB-BBBB", 0, "Bob"))
        await until(lambda: journal.under_way == 1 and len(journal.attempts) == 3)
        assert journal.attempts[-1] == [joined("AAAA-AAAA", 0, "Ann")]  # on its own, held up
        # Nothing but the lane's timer wakes the writer once the lane may open.
        assert await asyncio.wait_for(writer.write([joined("CCCC-CCCC", 0, "Cy")]), 30) is True
        assert names(journal, "CCCC-CCCC") == ["Cy"]
        assert journal.most_at_once == 2
        held.set()
        await until(lambda: bool(writer.refused))
        assert set(writer.refused) == {"BBBB-BBBB"}
        journal.refuse = None
        await asyncio.wait_for(writer.saved(), timeout=30)
        assert names(journal, "AAAA-AAAA") == ["Ann"]
        assert names(journal, "BBBB-BBBB") == ["Bob"]
        assert journal.overlaps == 0
        assert (writer._quick_under_way, writer._slow_since) == (0, [])


async def test_refused_rooms_tried_again_are_written_beside_other_rooms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Refused rooms tried again are written one by one: a second lane opens beside that."""
    monkeypatch.setattr(batching, "RETRY_SECONDS", (0.05, 0.05))
    journal = AloneJournal()
    async with running(journal, wait_seconds=30) as writer:
        await writer.write([room("BBBB-BBBB"), room("CCCC-CCCC")])
        journal.refuse = "BBBB-BBBB"
        writer.queue(joined("BBBB-BBBB", 0, "Bob"))
        await until(lambda: bool(writer.refused))
        tried = len(journal.attempts)
        held = journal.alone["BBBB-BBBB"] = asyncio.Event()
        journal.refuse = None
        await until(lambda: journal.under_way == 1 and len(journal.attempts) > tried)
        assert journal.attempts[-1] == [joined("BBBB-BBBB", 0, "Bob")]  # tried again, held up
        assert await asyncio.wait_for(writer.write([joined("CCCC-CCCC", 0, "Cy")]), 30) is True
        assert journal.most_at_once == 2
        held.set()
        await asyncio.wait_for(writer.saved(), timeout=30)
        assert names(journal, "BBBB-BBBB") == ["Bob"]
        assert names(journal, "CCCC-CCCC") == ["Cy"]
        assert not writer.refused
        assert (writer._quick_under_way, writer._slow_since) == (0, [])


class SlowJournal(TwoLaneJournal):
    """The two-lane journal, each write taking a while of the random ``pause`` length."""

    def __init__(self, pauses: random.Random) -> None:
        super().__init__()
        self.pauses = pauses

    async def _write(self, batch: Batch) -> None:
        await asyncio.sleep(self.pauses.choice((0, 0, 0.001, 0.003)))
        await super()._write(batch)


@pytest.mark.parametrize("seed", range(3))
async def test_two_lanes_never_leave_a_write_waiting_and_keep_each_room_in_order(
    seed: int,
) -> None:
    """Rooms' writes come at random moments, some of several statements (a second lane opens
    while one is under way), some while both lanes are busy, some for a room being written,
    some in bursts: each is written (no wake-up is missed, which nothing else would make up for
    when writes are few), and every room's in the order they came."""
    chance = random.Random(seed)
    journal = SlowJournal(random.Random(seed + 100))
    codes = [f"ROOM-{n:04d}" for n in range(6)]
    sent: dict[str, int] = dict.fromkeys(codes, 0)

    async with running(journal, wait_seconds=30) as writer:

        def event(code: str) -> Events:
            seq = sent[code]
            sent[code] += 1
            return joined(code, seq, f"n{seq}")

        async def player(code: str) -> list[bool]:
            said = [await writer.write([room(code)])]
            while sent[code] < 25:
                await asyncio.sleep(chance.choice((0, 0, 0.0005, 0.002)))
                ops: list[Op] = [event(code)]
                if chance.random() < 0.3:
                    ops.insert(0, room(code))  # several statements: a second lane may open
                if chance.random() < 0.3:
                    writer.queue(*ops)  # not waited for: the next may find it under way
                else:
                    said.append(await writer.write(ops))
            await writer.saved(code)
            return said

        said = await asyncio.wait_for(asyncio.gather(*map(player, codes)), timeout=60)
        assert all(all(answers) for answers in said)
        assert journal.most_at_once == 2
        for code in codes:
            assert names(journal, code) == [f"n{seq}" for seq in range(25)]
            # As written, batch after batch (the journal keeps events by number, whatever
            # order they came in): each room's in the order they were queued.
            firsts = [
                op.first
                for batch in journal.batches
                for op in batch.ops
                if isinstance(op, Events) and op.code == code
            ]
            assert firsts == list(range(25))
        assert journal.overlaps == 0  # no two writes under way at once had a room in common
        assert writer.backlog == 0
