"""Writing batches of live-room events and finished rounds through the database driver itself.

This is the hottest write of the server (every accepted action), so it skips the ORM and the
connection pool: one connection is kept for it, and each batch is one transaction of plain
statements (a fraction of the CPU of going through SQLAlchemy's async adapters). With SQLite,
the events themselves are appended to segment files beside the database (``eventlog.py``) and
folded into it in the background; everything else is written to the database at once. Every
statement is idempotent, and events are numbered, so a batch can be written again after a
failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.engine.cards import card_ids
from app.rooms.state import Event
from app.rooms.store import FinishedRound
from app.storage.eventlog import SEGMENT_BYTES, EventLog, LoggedEvents, folder_for, read_segment

log = logging.getLogger(__name__)


@dataclass(slots=True)
class NewRoom:
    """A room's first write: its code, first settings and creation time."""

    code: str
    settings: dict[str, Any]
    created_at: int


@dataclass(slots=True)
class Events:
    """Events of a room (created at ``created_at``), numbered from ``first``."""

    code: str
    created_at: int
    first: int
    events: list[Event]


@dataclass(slots=True)
class Forget:
    """The room is gone: delete what was kept of it."""

    code: str


Op = NewRoom | Events | Forget | FinishedRound

_STATEMENTS = {
    "room": "INSERT INTO live_rooms (code, settings, created_at) VALUES (?, ?, ?) "
    "ON CONFLICT DO NOTHING",
    "event": "INSERT INTO live_room_events (code, seq, event) VALUES (?, ?, ?) "
    "ON CONFLICT DO NOTHING",
    "forget events": "DELETE FROM live_room_events WHERE code = ?",
    "forget room": "DELETE FROM live_rooms WHERE code = ?",
    "match": "INSERT INTO matches (id, room_code, settings, rounds_planned, rounds_played, "
    "started_at) VALUES (?, ?, ?, ?, 0, ?) ON CONFLICT DO NOTHING",
    "seat": "INSERT INTO match_seats (match_id, seat, name, name_key, total) "
    "VALUES (?, ?, ?, ?, 0) ON CONFLICT DO NOTHING",
    "round": "INSERT INTO rounds (match_id, number, dealer, knocker, ending, seed, commitment, "
    "ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    "hand": "INSERT INTO round_hands (round_id, seat, cards, points, scoring, total) "
    "SELECT id, ?, ?, ?, ?, ? FROM rounds WHERE match_id = ? AND number = ? "
    "ON CONFLICT DO NOTHING",
    "played": "UPDATE matches SET rounds_played = ? WHERE id = ? AND rounds_played < ?",
    "ended": "UPDATE matches SET ended_at = ? WHERE id = ?",
    # Only the newest round sets the totals: a late retry of an older one changes nothing.
    "total": "UPDATE match_seats SET total = ?, place = ? WHERE match_id = ? AND seat = ? "
    "AND ? >= (SELECT rounds_played FROM matches WHERE id = ?)",
}
# Folding a segment: rows given as one JSON array of [code, seq, event, created_at], so that
# each chunk is one statement, its own transaction, run by SQLite without the GIL (a row at a
# time, each thread switch could keep the write lock held for milliseconds). Events of a room
# that is gone, or of an earlier room with the same code, are left out.
_FOLD = (
    "INSERT INTO live_room_events (code, seq, event) "
    "SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?) "
    "WHERE EXISTS (SELECT 1 FROM live_rooms "
    "WHERE code = value ->> 0 AND created_at = value ->> 3) "
    "ON CONFLICT DO NOTHING"
)
FOLD_ROWS = 200  # a statement: under a millisecond
# Between two statements of a fold, the journal's own writes (which poll for the lock: SQLite
# queues nobody) always find the database free.
FOLD_PAUSE_SECONDS = 0.002


def _numbered(statement: str) -> str:
    """The statement with PostgreSQL's $1, $2… placeholders instead of ?."""
    parts = statement.split("?")
    return "".join(f"{part}${n}" for n, part in enumerate(parts[:-1], 1)) + parts[-1]


def _text(value: Any) -> str:
    return orjson.dumps(value).decode()


Plan = list[tuple[str, list[tuple[Any, ...]]]]


class _SqliteWriter:
    """The journal's own connection to the SQLite file, written from the event loop's thread,
    and its event log.

    A transaction of a few rows takes tens of microseconds; handing it to another thread and
    back would cost more than it does. Events, the bulk of what is written, cost less still:
    one append to the open segment of the event log. The checkpoints that copy the write-ahead
    log into the database file (and wait for the disk) and the folding of full segments into
    the database are left to a thread of their own, so that no write waits for them.
    """

    CHECKPOINT_EVERY = 256  # commits

    def __init__(self, path: str, segment_bytes: int = SEGMENT_BYTES) -> None:
        self.path = path
        self.connection: sqlite3.Connection | None = None
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="journal checkpoint")
        self.commits = 0
        self.checkpoint: asyncio.Future[None] | None = None
        self.log = EventLog(folder_for(path), segment_bytes)
        self.folding: asyncio.Future[None] | None = None
        self.fold_again = False
        self.fold_failures = 0

    def append(self, batch: list[Events]) -> None:
        """Append events to the log; fold what is in closed segments when one fills up, and
        on the first append (segments a previous run left)."""
        first = self.folding is None
        full = self.log.append(
            [LoggedEvents(op.code, op.created_at, op.first, op.events) for op in batch]
        )
        if full or first:
            self._fold_soon()

    def _fold_soon(self) -> None:
        """Fold the closed segments now, or as soon as the fold under way is over."""
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
                    rows = [
                        (e.code, e.first + n, _text(event), e.created_at)
                        for e in read_segment(segment)
                        for n, event in enumerate(e.events)
                    ]
                    for start in range(0, len(rows), FOLD_ROWS):
                        connection.execute(_FOLD, (_text(rows[start : start + FOLD_ROWS]),))
                        time.sleep(FOLD_PAUSE_SECONDS)
                    segment.unlink()
            self._checkpoint()
        except Exception:
            self.fold_failures += 1
            log.exception("event log segments could not be folded into the database yet")

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        # Another writer (a backup, say) makes a write fail fast rather than stall every room;
        # the batch is kept and written later.
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON",
                       "busy_timeout=20", "wal_autocheckpoint=0"):  # fmt: skip
            connection.execute(f"PRAGMA {pragma}")
        return connection

    def write(self, plan: Plan) -> None:
        """Run the plan as one transaction."""
        try:
            if self.connection is None:
                self.connection = self._connect()
            connection = self.connection
            connection.execute("BEGIN IMMEDIATE")
            for statement, rows in plan:
                connection.executemany(_STATEMENTS[statement], rows)
            connection.execute("COMMIT")
        except BaseException:
            self._drop()
            raise
        self.commits += 1
        if self.commits % self.CHECKPOINT_EVERY == 0 and (
            self.checkpoint is None or self.checkpoint.done()
        ):
            loop = asyncio.get_running_loop()
            self.checkpoint = loop.run_in_executor(self.thread, self._checkpoint)

    def _checkpoint(self) -> None:
        """Copy the log into the database file without holding up writers (own thread)."""
        with self._own_connection() as connection:
            connection.execute("PRAGMA wal_checkpoint(PASSIVE)")

    @contextlib.contextmanager
    def _own_connection(self) -> Iterator[sqlite3.Connection]:
        """A connection for the checkpoint thread's work, closed after it; it waits up to a
        second for the write lock, which the journal's own writes hold only briefly."""
        with contextlib.closing(sqlite3.connect(self.path, isolation_level=None)) as connection:
            connection.execute("PRAGMA busy_timeout=1000")
            yield connection

    async def close(self) -> None:
        """Wait for a running checkpoint or fold; drop the connection (rolling back a
        transaction); close the event log's segment."""
        for job in (self.checkpoint, self.folding):
            if job is not None:
                with contextlib.suppress(Exception):
                    await job
        self.checkpoint = self.folding = None
        self._drop()
        self.log.close()

    def _drop(self) -> None:
        connection, self.connection = self.connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.close()


class JournalWriter:
    """One connection, kept, that writes batches as single transactions."""

    def __init__(self, engine: AsyncEngine, segment_bytes: int = SEGMENT_BYTES) -> None:
        self.engine = engine
        sqlite = engine.dialect.name == "sqlite"
        self._sqlite = _SqliteWriter(engine.url.database or "", segment_bytes) if sqlite else None
        # PostgreSQL, through asyncpg: the statements with numbered placeholders.
        self.sql = {name: _numbered(statement) for name, statement in _STATEMENTS.items()}
        self.connection: AsyncConnection | None = None

    def _time(self, milliseconds: int) -> Any:
        """A timestamp as the driver takes it (SQLite: SQLAlchemy's text form, in UTC)."""
        moment = datetime.fromtimestamp(milliseconds / 1000, tz=UTC)
        return moment.strftime("%Y-%m-%d %H:%M:%S.%f") if self.inline else moment

    def plan(self, batch: Sequence[Op]) -> Plan:
        """The batch as (statement, rows) in order; consecutive rows of one statement merged."""
        plan: Plan = []

        def add(statement: str, rows: list[tuple[Any, ...]]) -> None:
            if plan and plan[-1][0] == statement:
                plan[-1][1].extend(rows)
            else:
                plan.append((statement, rows))

        for op in batch:
            if isinstance(op, Events):
                add(
                    "event",
                    [(op.code, op.first + n, _text(event)) for n, event in enumerate(op.events)],
                )
            elif isinstance(op, NewRoom):
                add("room", [(op.code, _text(op.settings), op.created_at)])
            elif isinstance(op, Forget):
                add("forget events", [(op.code,)])
                add("forget room", [(op.code,)])
            else:
                self._plan_round(op, add)
        return plan

    def _plan_round(self, finished: FinishedRound, add: Any) -> None:
        result, match_id = finished.result, finished.match_id
        settings = finished.settings
        started = self._time(finished.started_at)
        add("match", [(match_id, finished.room_code, _text(settings), settings["rounds"], started)])
        add("seat", [(match_id, seat, name, name.casefold()) for seat, name in
                     enumerate(finished.names)])  # fmt: skip
        ended = self._time(finished.ended_at)
        add("round", [(match_id, result.number, result.dealer, result.knocker,
                       result.ending.value, result.seed, result.commitment, ended)])  # fmt: skip
        add("hand", [(seat, _text(card_ids(hand)), score.points, _text(score.as_dict()),
                      result.totals[seat], match_id, result.number)
                     for seat, (hand, score) in enumerate(zip(result.hands, result.scores,
                                                              strict=True))])  # fmt: skip
        add("played", [(result.number, match_id, result.number)])
        places = finished.places if finished.final else (None,) * len(result.totals)
        add("total", [(total, places[seat], match_id, seat, result.number, match_id)
                      for seat, total in enumerate(result.totals)])  # fmt: skip
        if finished.final:
            add("ended", [(ended, match_id)])

    @property
    def inline(self) -> bool:
        """Whether ``write`` runs in the caller's thread and never suspends (SQLite)."""
        return self._sqlite is not None

    @property
    def event_log(self) -> EventLog | None:
        """Where events are appended (SQLite), or None (they go to the database)."""
        return self._sqlite.log if self._sqlite is not None else None

    async def write(self, batch: list[Op]) -> None:
        """Write the batch in one transaction; on failure the connection is dropped.

        With SQLite, everything but the events is committed first, then the events appended to
        the event log: a room's first events never reach it before the room does.
        """
        if self._sqlite is not None:
            events = [op for op in batch if isinstance(op, Events)]
            rest = [op for op in batch if not isinstance(op, Events)]
            if rest:
                self._sqlite.write(self.plan(rest))
            if events:
                self._sqlite.append(events)
            return
        plan = self.plan(batch)
        try:
            if self.connection is None:
                self.connection = await self.engine.connect()
            driver: Any = (await self.connection.get_raw_connection()).driver_connection
            async with driver.transaction():
                for statement, rows in plan:
                    await driver.executemany(self.sql[statement], rows)
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        """Give the connection back (or drop it if it broke)."""
        if self._sqlite is not None:
            await self._sqlite.close()
        connection, self.connection = self.connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                await connection.invalidate()
            with contextlib.suppress(Exception):
                await connection.close()
