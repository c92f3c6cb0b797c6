"""The SQLite journal: events appended to the event log and folded into the database beside
play, everything else written in the server's own thread, checkpointed beside it, never
blocking play on a database someone else has locked; and every room restored from both."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import logging
import os
import random
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from app.engine.match import Match, MatchRules
from app.rooms.registry import hash_token
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState
from app.rooms.store import FinishedRound
from app.storage.backends.sqlite import SqliteJournal
from app.storage.db import SQLITE_LOG_BYTES, make_engine
from app.storage.eventlog import folder_for
from app.storage.journal import Batch, DatabaseInUse, Events, NewRoom
from app.storage.store import DatabaseStore
from tests.server import migrate


def events_in(path: Path, code: str) -> int:
    with contextlib.closing(sqlite3.connect(path)) as connection:
        row = connection.execute(
            "SELECT count(*) FROM live_room_events WHERE code = ?", (code,)
        ).fetchone()
    return int(row[0])


def open_store(path: Path, segment_bytes: int = 8 << 20) -> DatabaseStore:
    url = f"sqlite+aiosqlite:///{path}"
    migrate(url)
    store = DatabaseStore(make_engine(url), flush_seconds=0, segment_bytes=segment_bytes)
    store.start()
    return store


async def close_store(store: DatabaseStore, grace: float = 5.0) -> None:
    await store.stop(grace)
    await store.engine.dispose()


async def written_in_30_lines(path: Path, segment_bytes: int = 8 << 20) -> None:
    """Room AAAA-AAAA's 60 events, written by a store then closed, in 30 lines of the event log
    of two events each (a player sits down and leaves)."""
    store = open_store(path, segment_bytes)
    ann = RoomState("AAAA-AAAA", RoomSettings(), 1)
    try:
        for n in range(30):
            ann.join(f"P{n}", hash_token(f"t{n}"), n)
            ann.leave(0)
            await store.save(ann)
    finally:
        await close_store(store)


def seated(state: RoomState) -> list[str]:
    return [seat.name for seat in state.seats]


def churn(state: RoomState, times: int) -> None:
    """Events: a player sits down and leaves again."""
    for n in range(times):
        seat = state.join(f"P{n}", hash_token(f"t{n}"), n)
        state.leave(seat)


async def test_events_are_folded_from_the_log_into_the_database_file(tmp_path: Path) -> None:
    path = tmp_path / "spectrum.db"
    store = open_store(path, segment_bytes=4096)
    state = RoomState("ABCD-EFGH", RoomSettings(), 0)
    segments = folder_for(str(path))
    try:
        for _ in range(300):
            churn(state, 1)
            await store.save(state)
        assert len(list(segments.iterdir())) >= 1
        # Full segments are folded in the background and deleted; the database file alone
        # (without its write-ahead log) comes to hold their events.
        alone = tmp_path / "alone.db"
        deadline = time.monotonic() + 60
        while True:
            shutil.copyfile(path, alone)
            try:
                folded = events_in(alone, state.code)
            except sqlite3.DatabaseError:  # copied while a checkpoint wrote into it: copy again
                folded = 0
            if folded >= 500 and len(list(segments.iterdir())) <= 2:
                break
            assert time.monotonic() < deadline, f"only {folded} events folded"
            await asyncio.sleep(0.05)
        # Nothing lost or doubled between the log and the table.
        (restored,) = await store.restore()
        assert restored.event_count == 600
    finally:
        await close_store(store)


async def test_rooms_come_back_from_the_log_and_the_database_together(tmp_path: Path) -> None:
    path = tmp_path / "spectrum.db"
    store = open_store(path, segment_bytes=2048)
    ann = RoomState("AAAA-AAAA", RoomSettings(), 1)
    gone = RoomState("BBBB-BBBB", RoomSettings(), 2)
    try:
        for n in range(40):
            ann.join(f"P{n}", hash_token(f"t{n}"), n)
            ann.leave(0)
            await store.save(ann)
        gone.join("Old", hash_token("old"), 3)
        await store.save(gone)
        store.forget(gone.code)
        await store.save(None)
        # A later room given the same code: the events of the one forgotten are not its own.
        again = RoomState("BBBB-BBBB", RoomSettings(rounds=3), 5)
        again.join("New", hash_token("new"), 6)
        await store.save(again)
    finally:
        await close_store(store)
    # The server was killed in the middle of a write: the line it cut short is skipped.
    (last, *_) = sorted(folder_for(str(path)).iterdir(), reverse=True)
    with last.open("ab") as segment:
        segment.write(b'{"code":"AAAA-AAAA","created_at":1,"first":80,"ev')
    store = open_store(path, segment_bytes=2048)
    try:
        restored = {state.code: state for state in await store.restore()}
        assert set(restored) == {"AAAA-AAAA", "BBBB-BBBB"}
        assert restored["AAAA-AAAA"].event_count == 80
        assert seated(restored["AAAA-AAAA"]) == []
        assert seated(restored["BBBB-BBBB"]) == ["New"]
        assert restored["BBBB-BBBB"].settings.rounds == 3
        # The first write after a restart folds what the last run left, then deletes it.
        ann = restored["AAAA-AAAA"]
        ann.join("Late", hash_token("late"), 90)
        await store.save(ann)
        deadline = time.monotonic() + 60
        while len(list(folder_for(str(path)).iterdir())) > 1:
            assert time.monotonic() < deadline, "the earlier segments were not folded"
            await asyncio.sleep(0.05)
        assert events_in(path, "AAAA-AAAA") == 80
        assert events_in(path, "BBBB-BBBB") == 1
        again = {state.code: state for state in await store.restore()}
        assert again["AAAA-AAAA"].event_count == 81
        assert seated(again["AAAA-AAAA"]) == ["Late"]
        assert seated(again["BBBB-BBBB"]) == ["New"]
    finally:
        await close_store(store)


async def test_a_database_locked_by_another_writer_does_not_hold_up_play(tmp_path: Path) -> None:
    path = tmp_path / "spectrum.db"
    store = open_store(path)
    first = RoomState("ABCD-EFGH", RoomSettings(), 0)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        churn(first, 1)
        await store.save(first)
        other.execute("BEGIN IMMEDIATE")  # a backup or a second program writing
        churn(first, 1)
        await store.save(first)  # events alone: the log takes them, the lock is no matter
        assert not store.failing
        second = RoomState("WXYZ-WXYZ", RoomSettings(), 1)
        churn(second, 2)
        started = time.monotonic()
        await store.save(second)  # a new room is written to the database itself
        # Waiting for the lock would take the database's busy timeout (5 s) and then fail; half
        # of that leaves room for a loaded machine.
        assert time.monotonic() - started < 2.5, "play does not wait for the lock"
        assert store.failing
        assert store.backlog == 2
        assert "locked" in (store.last_error or "")
        churn(first, 1)
        await store.save(first)  # queued behind the new room, in order
        assert store.backlog == 3
        other.execute("COMMIT")
        deadline = time.monotonic() + 60
        while store.backlog or store.failing:
            assert time.monotonic() < deadline, store.last_error
            await asyncio.sleep(0.05)
        restored = {state.code: state.event_count for state in await store.restore()}
        assert restored == {"ABCD-EFGH": 6, "WXYZ-WXYZ": 4}
    finally:
        other.close()
        await close_store(store)


async def test_folding_never_keeps_the_database_locked_from_play(tmp_path: Path) -> None:
    path = tmp_path / "spectrum.db"
    store = open_store(path, segment_bytes=256 << 10)
    big = RoomState("BIGG-ROOM", RoomSettings(), 0)
    try:
        for _ in range(1000):  # some 30 segments to fold
            churn(big, 25)
            await store.save(big)
        # While full segments are folded in their thread, new rooms are written to the database
        # itself, from a thread busy with other rooms' work as a loaded server's is.
        for n in range(100):
            state = RoomState(f"R{n:03d}-ROOM", RoomSettings(), n)
            churn(state, 1)
            await store.save(state)
            assert not store.failing, store.last_error
            busy_until = time.perf_counter() + 0.003
            while time.perf_counter() < busy_until:
                pass
            await asyncio.sleep(0)  # the next message, as the server's loop goes round
        assert 0 < events_in(path, big.code) < big.event_count  # folding was under way
        restored = {state.code: state.event_count for state in await store.restore()}
        assert len(restored) == 101
        assert restored["BIGG-ROOM"] == big.event_count
    finally:
        await close_store(store)


async def test_a_fold_another_program_locks_out_is_said_in_one_line_and_done_later(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Another program holding the database's write lock (a backup, a shell) fails the fold:
    one warning with SQLite's words, not a traceback at ERROR each time, and the segments are
    kept and folded once the lock is let go."""
    path = tmp_path / "spectrum.db"
    store = open_store(path, segment_bytes=2048)
    state = RoomState("LOCK-EDOU", RoomSettings(), 0)
    churn(state, 1)
    assert await store.save(state)  # the room's row, before the lock
    locker = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        with caplog.at_level(logging.WARNING):
            locker.execute("BEGIN EXCLUSIVE")
            try:
                for _ in range(40):
                    churn(state, 1)
                    await store.save(state)
                deadline = time.monotonic() + 60
                while not [r for r in caplog.records if "could not be folded" in r.message]:
                    assert time.monotonic() < deadline, "no fold was tried"
                    await asyncio.sleep(0.05)
            finally:
                locker.execute("ROLLBACK")
        said = [r for r in caplog.records if "could not be folded" in r.message]
        assert {(r.levelno, r.exc_info) for r in said} == {(logging.WARNING, None)}
        assert "database is locked" in said[0].message
        for _ in range(40):  # later segments close: the kept ones are folded with them
            churn(state, 1)
            await store.save(state)
        deadline = time.monotonic() + 60
        while events_in(path, state.code) < 120:
            assert time.monotonic() < deadline, f"{events_in(path, state.code)} events folded"
            await asyncio.sleep(0.05)
        (restored,) = await store.restore()
        assert restored.event_count == state.event_count
    finally:
        locker.close()
        await close_store(store)


@pytest.mark.parametrize("damage", ["zeros", "not_utf8"])
async def test_a_damaged_line_inside_a_segment_is_skipped_and_the_rest_folded(
    tmp_path: Path, damage: str
) -> None:
    path = tmp_path / "spectrum.db"
    await written_in_30_lines(path)
    # Bytes that are no record among whole lines, as a power cut can leave: zeros, or a line
    # one of whose bytes is not UTF-8 (SQLite is given text, and a byte of no text stopped every
    # fold).
    (segment,) = folder_for(str(path)).iterdir()
    lines = segment.read_bytes().splitlines(keepends=True)
    assert len(lines) == 30
    bad = b"\x00" * 40 + b"\n" if damage == "zeros" else lines[3].replace(b'"P3"', b'"P\xff"')
    assert bad != lines[3]
    segment.write_bytes(b"".join([*lines[:10], bad, *lines[10:]]))
    store = open_store(path)
    try:
        (restored,) = await store.restore()
        assert restored.event_count == 60
        restored.join("Late", hash_token("late"), 90)
        await store.save(restored)
        deadline = time.monotonic() + 60
        while segment.exists():
            assert time.monotonic() < deadline, "the damaged segment was not folded"
            await asyncio.sleep(0.05)
        assert events_in(path, "AAAA-AAAA") == 60
        (again,) = await store.restore()
        assert again.event_count == 61
    finally:
        await close_store(store)


async def test_a_room_restored_up_to_a_gap_in_its_events_keeps_what_it_plays_after_it(
    tmp_path: Path,
) -> None:
    """A line lost inside a segment leaves the room's later events behind a gap: the room comes
    back up to the gap, and what it plays from there is not mixed, at the next restart or in
    the database, with the events after the gap (it was, and the room could not be rebuilt)."""
    path = tmp_path / "spectrum.db"
    first, later = await written_with_a_gap(path)
    store = open_store(path, segment_bytes=2048)
    try:
        (restored,) = await store.restore()
        assert restored.event_count == 10
        assert seated(restored) == []
        restored.join("Late", hash_token("late"), 90)
        await store.save(restored)
        restored.join("Later", hash_token("later"), 91)
        restored.leave(0)
        await store.save(restored)
        deadline = time.monotonic() + 60
        while first.exists() or any(segment.exists() for segment in later):
            assert time.monotonic() < deadline, "the earlier segments were not folded"
            await asyncio.sleep(0.05)
        # What was kept before the gap is in the database; nothing after it is.
        assert events_in(path, "AAAA-AAAA") == 10
    finally:
        await close_store(store)
    store = open_store(path, segment_bytes=2048)
    try:
        (again,) = await store.restore()
        assert again.event_count == 13
        assert seated(again) == ["Later"]
        again.join("Last", hash_token("last"), 92)
        await store.save(again)
    finally:
        await close_store(store)
    store = open_store(path, segment_bytes=2048)
    try:
        (last,) = await store.restore()
        assert last.event_count == 14
        assert seated(last) == ["Later", "Last"]
    finally:
        await close_store(store)


async def written_with_a_gap(path: Path) -> tuple[Path, list[Path]]:
    """``written_in_30_lines`` over several segments, then the sixth line of the first (events
    10 and 11) damaged in place: events 12 on are behind a gap. The first segment, and the
    others."""
    await written_in_30_lines(path, segment_bytes=2048)
    first, *later = sorted(folder_for(str(path)).iterdir())
    assert later
    lines = first.read_bytes().splitlines(keepends=True)
    assert len(lines) > 6
    lines[5] = b"#" * (len(lines[5]) - 1) + b"\n"
    first.write_bytes(b"".join(lines))
    return first, later


async def test_a_journal_written_again_is_kept_at_a_stop_like_any_write(tmp_path: Path) -> None:
    """The rewrite after a gap, refused by a database another program locks, goes into the
    outbox at the stop, and is written first at the next start, before the moves after it."""
    path = tmp_path / "spectrum.db"
    await written_with_a_gap(path)
    store = open_store(path, segment_bytes=2048)
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        (restored,) = await store.restore()
        assert restored.event_count == 10
        restored.join("Late", hash_token("late"), 90)
        assert not await store.save(restored)
    finally:
        await close_store(store, grace=0.5)
        blocker.execute("ROLLBACK")
        blocker.close()
    assert (tmp_path / "spectrum.db-outbox").exists()
    store = open_store(path, segment_bytes=2048)
    try:
        await store.drain_outbox()
        (again,) = await store.restore()
        assert (again.event_count, seated(again)) == (11, ["Late"])
    finally:
        await close_store(store)


async def test_a_journal_written_again_twice_from_one_gap_is_not_mixed_with_the_first_time(
    tmp_path: Path,
) -> None:
    """A rewrite lost while the events written after it are kept (a backup of the database
    taken before it, of the event log after; or a power cut) is made again at the next start:
    under a creation time of its own, or the first time's events would be taken for the
    second's, and the moves acknowledged then lost."""
    path = tmp_path / "spectrum.db"
    await written_with_a_gap(path)
    live = folder_for(str(path))
    before = tmp_path / "before"
    before.mkdir()
    source, target = sqlite3.connect(path), sqlite3.connect(before / "spectrum.db")
    with contextlib.closing(source), contextlib.closing(target):
        source.backup(target)
    shutil.copytree(live, before / "live")
    store = open_store(path, segment_bytes=1 << 20)  # the new events stay in one open segment
    try:
        (restored,) = await store.restore()
        restored.join("Late", hash_token("late"), 90)
        restored.join("Later", hash_token("later"), 91)
        assert await store.save(restored)
    finally:
        await close_store(store)
    # The database as it was before the rewrite, the event log as it is after.
    written = [
        segment for segment in live.iterdir() if not (before / "live" / segment.name).exists()
    ]
    assert written
    for segment in written:
        shutil.copy2(segment, before / "live")
    for name in ("spectrum.db-wal", "spectrum.db-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    shutil.rmtree(live)
    shutil.copy2(before / "spectrum.db", path)
    shutil.copytree(before / "live", live)
    store = open_store(path, segment_bytes=1 << 20)
    try:
        (restored,) = await store.restore()
        assert restored.event_count == 10  # the gap again
        restored.join("Other", hash_token("other"), 95)
        assert await store.save(restored)
    finally:
        await close_store(store)
    store = open_store(path, segment_bytes=1 << 20)
    try:
        (again,) = await store.restore()
        assert (again.event_count, seated(again)) == (11, ["Other"])
    finally:
        await close_store(store)


def files_open(path: Path) -> list[str]:
    """This process's open files that are ``path`` or its write-ahead log and index."""
    found = []
    for entry in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):  # a descriptor closed meanwhile
            target = os.readlink(entry)
            if target.startswith(str(path)):
                found.append(target)
    return found


async def test_folds_share_one_connection_let_go_of_at_the_close(tmp_path: Path) -> None:
    """One fold after another works on the same connection of the fold's thread (a new one
    reads the schema and the pages again, under the lock a write waits on), and the journal's
    close lets go of every file of the database."""
    path = tmp_path / "spectrum.db"
    url = f"sqlite+aiosqlite:///{path}"
    migrate(url)
    engine = make_engine(url)
    journal = SqliteJournal(engine, segment_bytes=256)
    events = [{"type": "left", "seat": 0}] * 8
    written = 0
    used = []
    try:
        await journal.write(Batch([NewRoom("AAAA-AAAA", {}, 1)]))
        for _ in range(3):
            while not journal.log.closed():
                await journal.write(Batch([Events("AAAA-AAAA", 1, written, events)]))
                written += len(events)
            while journal.folding is not None and not journal.folding.done():
                await journal.folding
            used.append(journal.background)
        assert journal.log.closed() == []
        assert events_in(path, "AAAA-AAAA") > 0
        assert used[0] is not None
        assert used == [used[0]] * 3
    finally:
        await journal.close()
        await engine.dispose()
    assert journal.background is None
    assert files_open(path) == []


def log_restarts(path: Path) -> int:
    """How many times SQLite has begun the database's write-ahead log again (its header's
    checkpoint sequence number, written with the log's first frame after each start)."""
    with (path.parent / f"{path.name}-wal").open("rb") as log:
        return int.from_bytes(log.read(16)[12:16], "big")


class HeldBack(SqliteJournal):
    """A journal whose first copy of the log cannot reach its latest writes, as when rooms
    write while it copies: here a reader holds the log's older frames until that copy ends."""

    reader: sqlite3.Connection | None = None

    def _copy_log(self, connection: sqlite3.Connection) -> None:
        super()._copy_log(connection)
        if self.reader is not None:
            self.reader.close()
            self.reader = None


async def test_the_log_begins_again_after_a_checkpoint_that_writes_overtook(
    tmp_path: Path,
) -> None:
    """What the checkpoint's copy of the log could not reach is copied before it ends, so the
    next write begins the log again: otherwise, with rooms writing while every copy runs, the
    log never starts over and grows for as long as they write."""
    path = tmp_path / "spectrum.db"
    url = f"sqlite+aiosqlite:///{path}"
    migrate(url)
    engine = make_engine(url)
    journal = HeldBack(engine, segment_bytes=8 << 20)
    try:
        await journal.write(Batch([NewRoom("AAAA-AAAA", {}, 1)]))
        journal.reader = sqlite3.connect(path, isolation_level=None)
        journal.reader.execute("BEGIN")
        journal.reader.execute("SELECT count(*) FROM live_rooms").fetchone()
        await journal.write(Batch([NewRoom("BBBB-BBBB", {}, 1)]))
        before = log_restarts(path)
        journal._checkpoint()
        assert journal.reader is None
        await journal.write(Batch([NewRoom("CCCC-CCCC", {}, 1)]))
        assert log_restarts(path) == before + 1
    finally:
        await journal.close()
        await engine.dispose()


async def test_a_fold_asked_for_while_one_runs_does_not_outlive_the_close(tmp_path: Path) -> None:
    """A second segment fills while the first is being folded; the journal is closed then. No
    fold may run after the close, beside the next journal opened on the same file; the next
    one folds what is left, every event once."""
    path = tmp_path / "spectrum.db"
    url = f"sqlite+aiosqlite:///{path}"
    migrate(url)
    engine = make_engine(url)
    journal = SqliteJournal(engine, segment_bytes=256)
    loop = asyncio.get_running_loop()
    gate = threading.Event()
    held = loop.run_in_executor(journal.thread, gate.wait, 60)  # the fold's thread, busy
    events = [{"type": "left", "seat": 0}] * 8
    written = 0

    async def fill(closed: int) -> None:
        nonlocal written
        while len(journal.log.closed()) < closed:
            await journal.write(Batch([Events("AAAA-AAAA", 1, written, events)]))
            written += len(events)

    try:
        await journal.write(Batch([NewRoom("AAAA-AAAA", {}, 1)]))
        await fill(1)
        assert journal.folding is not None  # the first segment's fold, queued behind the gate
        await fill(2)
        assert journal.fold_again  # the second's, asked for while the first is under way
        closing = asyncio.create_task(journal.close())
        await asyncio.sleep(0)
        gate.set()
        await closing
        left = journal.log.segments()
        # Whatever was queued on the fold's thread has run once this has.
        await loop.run_in_executor(journal.thread, lambda: None)
        assert journal.log.segments() == left
        assert left  # the second segment, for the next start
    finally:
        gate.set()
        await held

    again = SqliteJournal(engine, segment_bytes=256)
    try:
        await again.write(Batch([Events("AAAA-AAAA", 1, written, events[:1])]))
        assert again.folding is not None  # a start's first write folds what is left
        await again.folding
        assert again.log.closed() == []
        assert events_in(path, "AAAA-AAAA") == written
    finally:
        await again.close()
        await engine.dispose()


async def test_a_round_is_not_stored_before_the_move_that_ended_it(tmp_path: Path) -> None:
    """The event log's append comes before the finished round's commit: an append that fails
    (or a server killed between the two) leaves no round in the history that no player was
    shown; the events replayed at a restart write the round then."""
    path = tmp_path / "spectrum.db"
    store = open_store(path)
    journal = store.backend
    assert isinstance(journal, SqliteJournal)
    match = Match(2, MatchRules(rounds=1), "m" * 32)
    rng = random.Random(3)
    current = match.start_round()
    while not current.ended:
        match.apply(current.random_action(rng))
    finished = FinishedRound(
        "m" * 32, "ABCD-EFGH", RoomSettings().model_dump(), 0, ("Ann", "Bob"), match.results[0],
        1, True, (1, 2),
    )  # fmt: skip
    room = NewRoom("ABCD-EFGH", RoomSettings().model_dump(), 0)
    ending = Events("ABCD-EFGH", 0, 0, [{"type": "join", "name": "Ann"}])

    def full_disk(batch: object) -> bool:
        raise OSError(28, "No space left on device")

    try:
        journal.log.append = full_disk  # type: ignore[method-assign]
        with pytest.raises(OSError, match="No space left"):
            await journal.write(Batch([room, ending, finished]))
        with contextlib.closing(sqlite3.connect(path)) as connection:
            assert connection.execute("SELECT count(*) FROM rounds").fetchone() == (0,)
            assert connection.execute("SELECT count(*) FROM live_rooms").fetchone() == (1,)
    finally:
        del journal.log.append
        await close_store(store)


async def test_one_journal_at_a_time_holds_a_database_file(tmp_path: Path) -> None:
    """Another journal on the file would fold and delete the segment this one writes to."""
    path = tmp_path / "spectrum.db"
    first = open_store(path)
    try:
        second = DatabaseStore(make_engine(f"sqlite+aiosqlite:///{path}"), flush_seconds=0)
        with pytest.raises(DatabaseInUse) as refused:
            second.start()
        said = str(refused.value)
        assert said.startswith(f"{path} is served by another server (process {os.getpid()})")
    finally:
        await close_store(first)
    second.start()  # once the first has let go
    await close_store(second)


async def test_on_a_filesystem_without_locks_the_server_serves_and_says_what_is_at_stake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    path = tmp_path / "spectrum.db"
    store = open_store(path)
    try:
        assert "spectrum.db.lock cannot be locked ([Errno 37] No locks available)" in caplog.text
        assert f"{path}.lock" not in files_open(path)
        state = RoomState("ABCD-EFGH", RoomSettings(), 0)
        state.join("Ann", hash_token("a"), 1)
        assert await store.save(state)
    finally:
        await close_store(store)


def log_bytes(path: Path) -> int:
    """The size of the database's write-ahead log file."""
    return os.path.getsize(f"{path}-wal")


async def test_the_log_is_cut_back_when_it_starts_over_after_a_spike(tmp_path: Path) -> None:
    """A write far larger than usual grows SQLite's log past its limit; once a checkpoint has
    copied it, the next write starts the log over and cuts the file back, instead of keeping
    the spike's size on disk for good."""
    path = tmp_path / "spectrum.db"
    url = f"sqlite+aiosqlite:///{path}"
    migrate(url)
    engine = make_engine(url)
    journal = SqliteJournal(engine, segment_bytes=8 << 20)
    try:
        spike = "x" * (SQLITE_LOG_BYTES + (8 << 20))
        await journal.write(Batch([NewRoom("AAAA-AAAA", {"spike": spike}, 1)]))
        assert log_bytes(path) > len(spike)
        journal._checkpoint()
        await journal.write(Batch([NewRoom("BBBB-BBBB", {}, 1)]))
        assert log_bytes(path) <= SQLITE_LOG_BYTES
    finally:
        await journal.close()
        await engine.dispose()
