"""The journal in an SQLite file: events appended to the event log beside it and folded into it
later, everything else committed at once from the event loop's thread.

A transaction of a few rows takes tens of microseconds; handing it to another thread and back
would cost more than it does, so the journal keeps its own connection through the standard
``sqlite3`` driver and commits in the caller's thread. Events, the bulk of what is written, cost
less still: one append to the open segment of the event log (``eventlog.py``). Checkpoints (which
copy the write-ahead log into the database file and wait for the disk) and the folding of full
segments into the database run in a thread of their own, so that no write waits for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson
from sqlalchemy import Integer, bindparam, exists, func, literal_column, select
from sqlalchemy.dialects.sqlite import insert
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine

from app.rooms.store import FinishedRound
from app.storage.db import SQLITE_LOG_LIMIT
from app.storage.eventlog import EventLog, folder_for, read_segment
from app.storage.filelock import NoLocks, hold_to_serve
from app.storage.journal import Batch, Events, JournalRoom, Op, Snapshot
from app.storage.statements import EVENTS, ROOMS, SNAPSHOTS, Plan, Statements, ping, read_rooms

log = logging.getLogger(__name__)

# What a statement copies at most (at least one line): some 200 events, a millisecond or so.
FOLD_BYTES = 32 << 10
# Between two statements of a fold, a write waiting for its turn gets it (a lock released and
# taken again at once could be taken back before the waiting thread wakes).
FOLD_PAUSE_SECONDS = 0.002
# How long a write waits for a fold statement under way: one statement's work, with room for
# a machine so loaded that the fold's thread waits its turn for a core.
FOLD_WAIT_SECONDS = 1.0


def fold_statement(dialect: Dialect) -> str:
    """The SQL that copies a chunk of a segment's lines (as one JSON array) into the database."""
    # SQLite reads the segment's lines itself, so the fold's thread does next to nothing in
    # Python: a thread that holds the GIL for long stretches keeps the event loop's thread
    # waiting for it after each of its system calls. Each chunk is one statement, its own
    # transaction. Events of a room that is gone, or of an earlier room with the same code, are
    # left out, and so are those a snapshot took the place of.
    line = func.json_each(bindparam("lines")).table_valued("value").alias("line").c.value
    code, first, created_at = (
        line.op("->>")(literal_column(f"'{key}'")) for key in ("code", "first", "created_at")
    )
    event = (
        func.json_each(line, literal_column("'$.events'"))
        .table_valued("key", "value")
        .alias("event")
    )
    seq = first.cast(Integer) + event.c.key
    room_kept = exists().where(ROOMS.c.code == code, ROOMS.c.created_at == created_at)
    covered = exists().where(SNAPSHOTS.c.code == code, SNAPSHOTS.c.seq > seq)
    rows = select(code, seq, event.c.value).where(room_kept, ~covered)
    fold = insert(EVENTS).from_select(["code", "seq", "event"], rows).on_conflict_do_nothing()
    return str(fold.compile(dialect=dialect))


def segment_chunks(data: bytes) -> Iterator[list[bytes]]:
    """A segment's whole lines, up to ``FOLD_BYTES`` of them at a time (a longer line alone)."""
    lines = data.split(b"\n")
    tail = lines.pop()  # what follows the last newline: nothing, or a line cut short
    if tail:
        if _is_record(tail):
            lines.append(tail)
        else:
            log.warning("skipping an incomplete last line of a segment")
    chunk: list[bytes] = []
    size = 0
    for line in lines:
        if not line:
            continue
        if chunk and size + len(line) > FOLD_BYTES:
            yield chunk
            chunk, size = [], 0
        chunk.append(line)
        size += len(line)
    if chunk:
        yield chunk


def json_array(lines: list[bytes]) -> str:
    """Lines of JSON as one JSON array."""
    return (b"[" + b",".join(lines) + b"]").decode()


def whole_records(lines: list[bytes]) -> list[bytes]:
    """The lines that are whole records, each one parsed (the slow way, when some are not)."""
    kept = [line for line in lines if _is_record(line)]
    if len(kept) < len(lines):
        log.warning("skipping %d incomplete lines of a segment", len(lines) - len(kept))
    return kept


def _is_record(line: bytes) -> bool:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return isinstance(record, dict) and {"code", "created_at", "first", "events"} <= record.keys()


class SqliteJournal:
    """The journal's own connection to the SQLite file, and its event log."""

    inline = True
    lanes = 1
    CHECKPOINT_EVERY = 256  # commits

    def __init__(self, engine: AsyncEngine, segment_bytes: int) -> None:
        self.engine = engine
        self.path = engine.url.database or ""
        self.statements = Statements(engine.dialect)
        self.fold_sql = fold_statement(engine.dialect)
        self.connection: sqlite3.Connection | None = None
        self.background: sqlite3.Connection | None = None
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="journal checkpoint")
        self.commits = 0
        self.checkpoint: asyncio.Future[None] | None = None
        self.log = EventLog(folder_for(self.path), segment_bytes)
        self.folding: asyncio.Future[None] | None = None
        self.fold_again = False
        self.closing = False
        # The fold and the journal's writes take turns here rather than at SQLite's lock,
        # which queues nobody: a writer polls for it and gives up after its busy timeout.
        self.turn = threading.Lock()
        # The lock file's descriptor while this process holds the database (see ``take``).
        self.held: int | None = None

    async def write(self, batch: Batch) -> None:
        """Commit everything but the events, finished rounds and snapshots, then append the
        events to the event log, then commit the rounds and snapshots: a room's first events
        never reach the log before the room reaches the database, a snapshot never before the
        events after it, and a finished round never before the move that ended it (a restart
        between the two replays that move and writes the round then)."""
        events: list[Events] = []
        after: list[Op] = []
        rest: list[Op] = []
        for op in batch.ops:
            if type(op) is Events:
                events.append(op)
            elif type(op) is Snapshot or type(op) is FinishedRound:
                after.append(op)
            else:
                rest.append(op)
        if rest:
            self._commit(self.statements.plan(rest))
        if events:
            self._append(events)
        if after:
            self._commit(self.statements.plan(after))

    def take(self) -> None:
        """Take the database file for this process: a lock on ``<database>.lock``, held until
        the close (the system lets it go if the process dies). A second server on the file
        would fold and delete the event-log segment the first one writes to, and the moves
        the first then acknowledges would be lost."""
        if not self.path or self.path == ":memory:" or self.held is not None:
            return
        try:
            fd = hold_to_serve(self.path)
        except NoLocks as error:  # a file system without locks: serve, and say what is at stake
            log.warning(
                "%s.lock cannot be locked (%s): nothing stops a second server on this database, "
                "which would lose the moves this one acknowledges",
                self.path,
                error,
            )
            return
        self.held = fd

    async def restore(self) -> list[JournalRoom]:
        """The rooms in the database, with the events of the event log added to theirs.

        The segments are read before the database: a segment folded into the database and
        deleted meanwhile is then found there.
        """
        logged = [batch for segment in self.log.segments() for batch in read_segment(segment)]
        rooms = await read_rooms(self.engine)
        for batch in logged:
            room = rooms.get(batch.code)
            if room is not None and room.created_at == batch.created_at:
                since = room.snapshot.seq if room.snapshot is not None else 0
                for n, event in enumerate(batch.events, batch.first):
                    if n >= since:
                        room.events.setdefault(n, event)
        return list(rooms.values())

    async def ping(self) -> None:
        """Raise if the database cannot be reached."""
        await ping(self.engine)

    def _append(self, batch: list[Events]) -> None:
        """Append events to the log; fold what is in closed segments when one fills up, and
        on the first append (segments a previous run left)."""
        first = self.folding is None
        full = self.log.append(batch)
        if full or first:
            self._fold_soon()

    def _fold_soon(self) -> None:
        """Fold the closed segments now, or as soon as the fold under way is over (not once
        the journal is closing: the next start folds them)."""
        if self.closing:
            return
        if self.folding is not None and not self.folding.done():
            self.fold_again = True
            return
        self.fold_again = False
        loop = asyncio.get_running_loop()
        self.folding = loop.run_in_executor(self.thread, self.fold, self.log.closed())
        self.folding.add_done_callback(self._fold_after)

    def _fold_after(self, _: asyncio.Future[None]) -> None:
        if self.fold_again:
            self._fold_soon()

    def fold(self, segments: list[Path]) -> None:
        """Copy closed segments' events into the database, then delete them (own thread).

        A segment that cannot be folded now stays, and is folded with the next; until then the
        journal's readers read it too.
        """
        try:
            with self._own_connection() as connection:
                for segment in segments:
                    try:
                        data = segment.read_bytes()
                    except FileNotFoundError:
                        continue
                    for lines in segment_chunks(data):
                        self._fold_chunk(connection, lines)
                        time.sleep(FOLD_PAUSE_SECONDS)
                    segment.unlink(missing_ok=True)
            self._checkpoint()
        except sqlite3.OperationalError as error:  # locked by another program, read-only, full
            log.warning(
                "event log segments could not be folded into the database yet (%s); they are "
                "kept, read with it, and folded with the next",
                error,
            )
        except Exception:
            log.exception("event log segments could not be folded into the database yet")

    def _fold_chunk(self, connection: sqlite3.Connection, lines: list[bytes]) -> None:
        """Copy one chunk of lines into the database; a line that is not a whole record (cut
        short, or bytes that are not UTF-8 text) is left out."""
        with self.turn:
            try:
                array = json_array(lines)
            except UnicodeDecodeError:  # bytes that are not text: no record
                array = json_array(whole_records(lines))
            try:
                connection.execute(self.fold_sql, (array,))
            except sqlite3.OperationalError as error:
                if "malformed JSON" not in str(error):
                    raise
                connection.execute(self.fold_sql, (json_array(whole_records(lines)),))

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        # Another writer (a backup, say) makes a write fail fast rather than stall every room;
        # the batch is kept and written later.
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON",
                       "busy_timeout=20", "wal_autocheckpoint=0", SQLITE_LOG_LIMIT):  # fmt: skip
            connection.execute(f"PRAGMA {pragma}")
        return connection

    def _commit(self, plan: Plan) -> None:
        """Run the plan as one transaction."""
        if not self.turn.acquire(timeout=FOLD_WAIT_SECONDS):
            raise sqlite3.OperationalError("the event log's fold holds the database")
        try:
            if self.connection is None:
                self.connection = self._connect()
            connection = self.connection
            connection.execute("BEGIN IMMEDIATE")
            for statement, rows in plan:
                connection.executemany(statement.sql, rows)
            connection.execute("COMMIT")
        except BaseException:
            self._drop()
            raise
        finally:
            self.turn.release()
        self.commits += 1
        if self.commits % self.CHECKPOINT_EVERY == 0 and (
            self.checkpoint is None or self.checkpoint.done()
        ):
            loop = asyncio.get_running_loop()
            self.checkpoint = loop.run_in_executor(self.thread, self._checkpoint)

    def _checkpoint(self) -> None:
        """Copy the log into the database file without holding up writers (own thread); then
        copy what writes added meanwhile, between two of them, so that the next write begins
        the log again. SQLite starts its log over only once all of it is copied: under writes
        that never pause (rooms playing on), the copy beside them always missed the latest,
        and the log file grew for as long as they went on (to 97 MB beside an 8 MB database
        over 1,500 matches in a row, bench/session.py). The first copy's own count cannot
        tell: it counts the log as it was when the copy began."""
        with self._own_connection() as connection:
            self._copy_log(connection)
            with self.turn:  # what came meanwhile: a few writes, copied at once
                self._copy_log(connection)

    def _copy_log(self, connection: sqlite3.Connection) -> None:
        """Copy the log into the database file as far as readers allow."""
        connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    @contextlib.contextmanager
    def _own_connection(self) -> Iterator[sqlite3.Connection]:
        """The connection of the fold's and checkpoint's thread, kept from one use to the next
        (a new one reads the schema and the pages again, under the lock a write waits on) and
        dropped after an error; it waits up to a second for the write lock, which the journal's
        own writes hold only briefly."""
        if self.background is None:
            self.background = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False
            )
            self.background.execute("PRAGMA busy_timeout=1000")
        try:
            yield self.background
        except BaseException:
            self._drop_background()
            raise

    def _drop_background(self) -> None:
        connection, self.background = self.background, None
        _close(connection)

    async def close(self) -> None:
        """Wait for a running checkpoint or fold, and begin no other (one asked for meanwhile
        would go on after the close, beside the next journal opened on the file); drop the
        connection (rolling back a transaction); close the event log's segment."""
        self.closing = True
        for job in (self.checkpoint, self.folding):
            if job is not None:
                with contextlib.suppress(Exception):
                    await job
        self.checkpoint = self.folding = None
        self._drop()
        self._drop_background()
        self.log.close()
        held, self.held = self.held, None
        if held is not None:
            os.close(held)

    def _drop(self) -> None:
        connection, self.connection = self.connection, None
        _close(connection)


def _close(connection: sqlite3.Connection | None) -> None:
    """Close ``connection`` if there is one (a transaction under way is rolled back), whatever
    the close raises."""
    if connection is not None:
        with contextlib.suppress(Exception):
            connection.close()
