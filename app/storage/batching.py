"""Operations gathered into batches for a journal backend, written in order and retried until
they are.

Operations are written as soon as they come, but no sooner than ``flush_seconds`` after the
previous write began (0 by default), and not while a write is under way: what comes meanwhile
goes into the next batch, so a quiet server writes each change at once and a busy one writes
many in one. A backend that can write on several connections at once (``lanes``; PostgreSQL's
two) has a second batch begun beside one of several statements (a finished round, a snapshot,
a cluster's fenced batch: a round trip each) once that one has been under way
``second_lane_after``, so that no room's moves wait long behind it when the database is a
network away; never beside moves' events alone, one statement, soon done. No two batches under
way have a room in common: a room's operations are written in the order they came.

Each caller waits for its own operations at most ``wait_seconds`` and is told whether they were
written; operations not yet written stay queued, in order, and are retried after a pause that
grows (one lane tries the database again, the others wait for it), so a caller can wait for
them again (``saved``) without a bound, outside any lock. A write that hangs fails after
``write_seconds``. A batch the database refuses for what it holds (a constraint, a value it
cannot store), not for being away, is written again room by room: the rooms whose operations
are refused are held apart and retried on their own, and every other room's writes go on. At a
stop, what the database did not take is kept in the outbox file (``outbox.py``) and written
first at the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from sqlalchemy import exc as sql_errors

from app.rooms.store import FinishedRound
from app.running_loop import RunningLoop
from app.storage.journal import (
    Batch,
    Events,
    Fence,
    Fenced,
    JournalBackend,
    Op,
    Tenure,
    refused_for_its_data,
)
from app.storage.outbox import ForeignOutbox, Outbox

log = logging.getLogger(__name__)

RETRY_SECONDS = (0.5, 1, 2, 5)

# How long a batch of several statements is under way before a second lane opens beside it:
# longer than such a batch takes with the database on the same machine (a finished round: 1.7
# ms as a median under load, 3 ms at the 99th percentile), where two batches at once cost more
# than they save; a database a network away takes a round trip per statement.
SECOND_LANE_AFTER = 0.003


@dataclass(slots=True)
class Pending:
    """Operations queued together, the future resolved once they are written, and since when."""

    ops: list[Op]
    written: asyncio.Future[None]
    since: float


class BatchWriter:
    """The queue in front of a backend, and the task that writes it."""

    def __init__(
        self,
        backend: JournalBackend,
        flush_seconds: float,
        wait_seconds: float = 2.0,
        write_seconds: float = 10.0,
        outbox: Outbox | None = None,
        second_lane_after: float = SECOND_LANE_AFTER,
    ) -> None:
        self.backend = backend
        self.second_lane_after = second_lane_after
        self.flush_seconds = flush_seconds
        self.wait_seconds = wait_seconds
        self.write_seconds = write_seconds
        self.outbox = outbox
        # Whether ``drain_outbox`` has read the outbox (and queued what it kept); what it
        # queued, by room, and the rooms of it not yet written.
        self._outbox_read = False
        self._outbox_writes: dict[str, asyncio.Future[None]] = {}
        self._outbox_left: dict[str, list[Op]] = {}
        self._queue: list[Pending] = []
        # Batches that may be under way at once (rooms apart), as the backend allows.
        self.lanes = max(1, backend.lanes)
        # Every entry being written, whatever its lane.
        self._writing: list[Pending] = []
        # Set when entries were left queued until a write under way ends (their room is being
        # written, or they are a later hold on a room being written): its end wakes the writer.
        self._wake_after_write = False
        # Writes under way whose batch holds moves' events only (one statement), and since
        # when each other write under way has been.
        self._quick_under_way = 0
        self._slow_since: list[float] = []
        # Resolved (and replaced) at each failed write, so that waiters are told at once;
        # meanwhile, the writes of the entries another lane is writing (not told).
        self._failure: asyncio.Future[None] | None = None
        self._beside_failure: set[int] = set()
        self._wakeup = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._loop = RunningLoop()
        self._last_write = float("-inf")
        self._attempt = 0
        self._retry_at = float("-inf")
        self.failing = False
        self.rounds_saved = 0
        self.save_failures = 0
        self.last_error: str | None = None
        # The rooms whose operations the stop left unwritten (kept in the outbox).
        self.kept_rooms: set[str] = set()
        # Told of each room whose write was refused because the database holds a newer epoch
        # than the one the write carried (its tenure, and the epoch read from it); answers True
        # to write it again (the node raised that tenure's epoch past it meanwhile).
        self.on_fenced: Callable[[str, Tenure, int], bool] | None = None
        # Rooms whose operations the database refuses while it takes others', with why: held
        # apart from the batch and retried on their own after a pause that grows.
        self.refused: dict[str, str] = {}
        # Told of each room whose refused writes the database has taken at last.
        self.on_accepted: Callable[[str], None] | None = None
        self._refused_attempt = 0
        self._refused_retry_at = float("-inf")
        self._refused_timer: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Take the database (``DatabaseInUse`` if another server has it), then start writing
        in the background."""
        self.backend.take()
        self._tasks = [asyncio.create_task(self._run()) for _ in range(self.lanes)]

    async def stop(self, grace: float = 5.0) -> None:
        """Write what is pending (within ``grace`` seconds), keep in the outbox what could not
        be written, then stop and close the backend."""
        loop = self._loop()
        deadline = loop.time() + grace
        self._retry_at = float("-inf")  # one more try at once, not after the retry pause
        while self._worth_waiting_for() and loop.time() < deadline:
            self._wakeup.set()
            await asyncio.sleep(0.02)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        unsaved = [op for pending in self._queue for op in pending.ops]
        self.kept_rooms = {_room_of(op) for op in unsaved}
        if unsaved and self.outbox is not None:
            try:
                if not self._outbox_read and self.outbox.path.exists():
                    aside = self.outbox.move_aside("unread")  # never written over
                    log.error("the outbox that could not be read is kept as %s", aside)
                self.outbox.keep(unsaved)
            except OSError:
                log.exception("stopped with %d writes unsaved, and the outbox failed", len(unsaved))
            else:
                log.error(
                    "stopped with %d writes unsaved (%s); kept in %s, written at the next start",
                    len(unsaved),
                    self.last_error,
                    self.outbox.path,
                )
        elif unsaved:
            log.error("stopped with %d writes unsaved (%s)", len(unsaved), self.last_error)
        else:
            log.info("stopped with every write saved")
        for pending in self._queue:
            pending.written.cancel()
        self._queue = []
        with contextlib.suppress(Exception):
            async with asyncio.timeout(self.write_seconds):
                await self.backend.close()

    def _worth_waiting_for(self) -> bool:
        """Whether a stop should wait on: a write is under way, or writes are queued that the
        writer would write now, none held behind a room the database refused (those go to the
        outbox, not to a database that will refuse them again until the grace is over)."""
        if self._writing:
            return True
        free, _ = _hold(self._queue, set(self.refused))
        return bool(free)

    async def drain_outbox(self) -> None:
        """Write what the outbox kept at the last stop, before anything else; raise if the
        database does not take it within ``write_seconds`` (it stays queued and kept). A room
        whose operations the database refuses stays queued, held apart (``refused``), and
        does not hold up the others."""
        if self.outbox is None or self._outbox_read:
            return
        try:
            kept = self.outbox.read()
        except ForeignOutbox as foreign:
            aside = self.outbox.move_aside(foreign.database)
            log.error(
                "the outbox %s holds writes for the database %r, not this server's %r: moved "
                "to %s; a server on %r started with OUTBOX_PATH=%s writes them",
                self.outbox.path,
                foreign.database,
                self.outbox.database,
                aside,
                foreign.database,
                aside,
            )
            self._outbox_read = True
            return
        self._outbox_read = True
        if not kept:
            return
        log.info("writing %d operations kept in the outbox at the last stop", len(kept))
        by_room: dict[str, list[Op]] = {}
        for op in kept:
            by_room.setdefault(_room_of(op), []).append(op)
        outbox = self.outbox
        # What is not yet in the database: the file keeps no more than that, so that a room
        # written already is never written a second time at a later start.
        left = dict(by_room)
        # One entry per room, so that a room the database refuses holds up no other.
        written = {room: self._enqueue(ops, first=True) for room, ops in reversed(by_room.items())}

        def stored(room: str, future: asyncio.Future[None]) -> None:
            if future.cancelled():
                return  # dropped at a stop (which keeps it again) or by a newer owner
            del left[room]
            try:
                if left:
                    outbox.keep([op for ops in left.values() for op in ops])
                else:
                    outbox.clear()
            except OSError:  # the file then keeps more than is left: written again, harmless
                log.exception("the outbox could not be rewritten")

        for room, future in written.items():
            future.add_done_callback(partial(stored, room))
        self._wakeup.set()
        self._outbox_writes = written
        self._outbox_left = left
        await self.outbox_written()

    async def outbox_written(self) -> None:
        """Wait until what ``drain_outbox`` queued is written (or refused, each room for
        itself), reading the outbox first if it could not be read before; raise if it still
        cannot be read, or ``TimeoutError`` if the database does not take what it kept within
        ``write_seconds`` (it stays queued, and can be waited for again)."""
        if not self._outbox_read:  # it could not be read: read it again
            await self.drain_outbox()
            return
        written, left = self._outbox_writes, self._outbox_left
        loop = self._loop()
        deadline = loop.time() + self.write_seconds + self.wait_seconds
        while any(
            not future.done() and room not in self.refused for room, future in written.items()
        ):
            if loop.time() >= deadline:
                raise TimeoutError("the database did not take the outbox in time")
            await asyncio.sleep(0.02)
        if all(future.done() for future in written.values()) and left and self.outbox:
            # Every room left has a newer owner (a cluster): the database refused them.
            log.warning("the outbox kept at the last stop was refused: newer owners hold its rooms")
            self.outbox.clear()
            left.clear()

    @property
    def backlog(self) -> int:
        """Operations waiting for the database."""
        return sum(len(pending.ops) for pending in (*self._writing, *self._queue))

    def unsaved_rooms(self) -> set[str]:
        """The rooms with an operation queued or being written: their journal is not complete."""
        return {_room_of(op) for pending in (*self._writing, *self._queue) for op in pending.ops}

    async def settle(self, rooms: set[str], seconds: float) -> set[str]:
        """Wait at most ``seconds`` for every operation of ``rooms`` to be written (failed
        writes are retried as always); the rooms whose journal is still not complete then."""
        loop = self._loop()
        deadline = loop.time() + seconds
        while True:
            left = rooms & self.unsaved_rooms()
            if not left or loop.time() >= deadline:
                return left
            self._wakeup.set()
            await asyncio.sleep(0.05)

    def oldest_unsaved_seconds(self) -> float:
        """How long the oldest operation not yet written has waited (0 when none waits)."""
        waiting = [pending.since for pending in (*self._writing, *self._queue)]
        if not waiting:
            return 0.0
        return self._loop().time() - min(waiting)

    async def write(self, ops: Sequence[Op]) -> bool:
        """Queue the operations; True once they and those before are written, False if that
        takes longer than ``wait_seconds`` or the database is failing (they stay queued)."""
        written = self._enqueue(ops)
        if written.done():
            return True
        if self.failing:
            self._wakeup.set()
            return False  # the database is away: say so now rather than after a wait
        if self.backend.inline and not self.flush_seconds and not self._writing:
            # Written in this thread (with whatever else is queued): handing the write to the
            # writer task and waiting for it would cost more than the write, and the task is
            # not woken, since nothing is left for it (a failed write wakes it to retry).
            await self._write()
            return written.done() and not written.cancelled()
        self._wakeup.set()
        return await self._wait(written)

    async def _wait(self, written: asyncio.Future[None]) -> bool:
        """Wait until ``written`` is done, a write fails or ``wait_seconds`` pass; whether it
        was written. (What ``asyncio.wait`` would do, without its checks and sets: this runs
        for every move a room makes while the database is a round trip away.)"""
        loop = self._loop()
        failure = self._failure
        if failure is None or failure.done():
            failure = self._failure = loop.create_future()
        told: asyncio.Future[None] = loop.create_future()
        tell = partial(_tell, told)
        failed = partial(self._told_of_failure, told, written)
        written.add_done_callback(tell)
        failure.add_done_callback(failed)
        timer = loop.call_later(self.wait_seconds, tell, None)
        try:
            await told
        finally:
            timer.cancel()
            written.remove_done_callback(tell)
            failure.remove_done_callback(failed)
        return written.done() and not written.cancelled()

    def _told_of_failure(
        self, told: asyncio.Future[None], written: asyncio.Future[None], _: object
    ) -> None:
        """A write failed: its waiters are told at once, and those whose operations wait
        behind it, but not those whose operations another lane is writing (it may succeed)."""
        if id(written) not in self._beside_failure:
            _tell(told, None)

    async def saved(self, room: str | None = None) -> None:
        """Wait, however long it takes, until everything queued so far (of ``room`` alone, if
        given: another room's may be refused for good) is written, or dropped, its room held
        by a newer owner."""
        waiting = [
            pending.written
            for pending in (*self._writing, *self._queue)
            if room is None or any(_room_of(op) == room for op in pending.ops)
        ]
        waiting = [future for future in waiting if not future.done()]
        if waiting:
            await asyncio.wait(waiting)  # neither cancels them nor raises if one was cancelled

    def queue(self, *ops: Op) -> None:
        """Queue operations, written together, without waiting for them."""
        self._enqueue(ops)
        self._wakeup.set()

    def _enqueue(self, ops: Sequence[Op], first: bool = False) -> asyncio.Future[None]:
        loop = self._loop()
        written: asyncio.Future[None] = loop.create_future()
        if not ops:
            written.set_result(None)
            return written
        pending = Pending(list(ops), written, loop.time())
        if first:
            self._queue.insert(0, pending)
        else:
            self._queue.append(pending)
        return written

    async def _run(self) -> None:
        loop = self._loop()
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            wait = max(self._last_write + self.flush_seconds, self._retry_at) - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            await self._write()

    async def _write(self) -> None:
        """Write everything queued as one batch, but the rooms the database refuses: those are
        written apart, each on its own, once their pause is over. A batch never holds writes
        of two holds on one room (a cluster's node that dropped a room and claimed it again):
        the later ones wait for the next batch, so each is checked at its own epoch. Nor does
        it hold a room another lane is writing: those operations wait for that write's end."""
        if not self._queue:
            return
        loop = self._loop()
        if self._writing and not self._beside():
            self._wake_after_write = True
            return
        entries, self._queue = _one_hold_each(self._queue)
        if self._queue:
            self._wake_after_write = True  # a later hold on a room: once this write ends
        if self._writing:
            entries, busy = _hold(entries, {_room_of(op) for p in self._writing for op in p.ops})
            if busy:
                self._queue = busy + self._queue
                self._wake_after_write = True
        if self.refused:
            entries, held = _hold(entries, set(self.refused))
            if held and loop.time() < self._refused_retry_at:
                self._queue = held + self._queue
                held = []
        else:
            held = []
        if not entries and not held:
            return
        self._last_write = loop.time()
        mine = entries + held
        self._writing.extend(mine)
        # Moves' events alone, written together: one statement. Refused rooms tried again are
        # written one by one, a statement each, as is a batch once the database refuses it.
        quick = not held and all(type(op) is Events for pending in mine for op in pending.ops)
        self._quick_under_way += quick
        since = self._last_write
        lane_timer = None if quick else self._slow(since)
        refused: set[str] = set()  # the rooms this write found refused
        try:
            apart = await self._write_together(entries) if entries else []
            if apart:  # refused as a batch: room by room, from now on a slow write
                if quick:
                    quick = False
                    self._quick_under_way -= 1
                    since = loop.time()
                    lane_timer = self._slow(since)
                refused |= await self._write_apart(apart)
            if held and not self.failing:  # the database away: tried again whole, later
                refused |= await self._write_apart(held)
            elif held:
                self._queue = held + self._queue
        except BaseException:  # cancelled at a stop: what is unwritten stays queued, in order
            queued = {id(pending) for pending in self._queue}
            self._queue = [
                pending
                for pending in mine
                if not pending.written.done() and id(pending) not in queued
            ] + self._queue
            raise
        finally:
            self._quick_under_way -= quick
            if not quick:
                self._slow_since.remove(since)
            if lane_timer is not None:
                lane_timer.cancel()
            written = {id(pending) for pending in mine}
            self._writing = [pending for pending in self._writing if id(pending) not in written]
            if self._wake_after_write:
                self._wake_after_write = False
                self._wakeup.set()
        if held or refused:
            # Once a write, whether rooms were tried again or newly refused; not for rooms
            # another lane found refused meanwhile (that lane's own end does it).
            self._refused_pause()

    def _slow(self, since: float) -> asyncio.TimerHandle | None:
        """Count a write of several statements under way since ``since``; the timer that
        wakes the writer once a second lane may open beside it, if the backend has one."""
        self._slow_since.append(since)
        if self.lanes == 1:
            return None
        return self._loop().call_later(self.second_lane_after, self._wakeup.set)

    def _beside(self) -> bool:
        """Whether a batch may begin beside those under way: not while another lane tries a
        failing database again (one try at a time), nor while one writes moves' events alone
        (one round trip: what comes meanwhile joins the next batch, which costs less than a
        batch of its own), nor before a batch of several statements has been under way
        ``second_lane_after``."""
        if self.failing or self._quick_under_way or len(self._slow_since) >= self.lanes:
            return False
        now = self._loop().time()
        return all(now - since >= self.second_lane_after for since in self._slow_since)

    async def _write_together(self, entries: list[Pending]) -> list[Pending]:
        """Write the entries as one batch. If the database refuses it, they are returned, to be
        written room by room."""
        batch = Batch([op for pending in entries for op in pending.ops])
        try:
            await self._write_batch(batch)
        except Fenced as fenced:
            self._queue = self._fenced(entries, fenced) + self._queue
            self._wakeup.set()
        except Exception as error:  # any database failure: keep the batch and retry
            if _refused(error):
                # The database answers, but not to this batch: find the rooms it refuses.
                return entries
            self._queue = entries + self._queue
            self._failed(error)
        else:
            self._written(batch, entries)
        return []

    async def _write_batch(self, batch: Batch) -> None:
        if self.backend.inline:
            await self.backend.write(batch)
        else:
            async with asyncio.timeout(self.write_seconds):
                await self.backend.write(batch)

    async def _write_apart(self, entries: list[Pending]) -> set[str]:
        """Write each room's operations on their own; hold apart the rooms refused again, and
        stop at a failure that is not a refusal (the database went away meanwhile). Returns
        the rooms refused."""
        refused: set[str] = set()
        groups = _apart(entries)
        for n, group in enumerate(groups):
            rooms = {_room_of(op) for pending in group for op in pending.ops}
            batch = Batch([op for pending in group for op in pending.ops])
            try:
                await self._write_batch(batch)
            except Fenced as fenced:
                self._queue = self._fenced(group, fenced) + self._queue
                self._wakeup.set()
            except Exception as error:
                if not _refused(error):
                    self._queue = [p for g in groups[n:] for p in g] + self._queue
                    self._failed(error)
                    return refused
                self._queue = group + self._queue
                refused |= rooms
                why = _said(error)
                for room in sorted(rooms - set(self.refused)):
                    log.error("the database refuses the writes of room %s, held: %s", room, why)
                self.refused.update(dict.fromkeys(rooms, why))
                self.save_failures += 1
                self.last_error = why
            else:
                for room in sorted(rooms & set(self.refused)):
                    log.info("room %s: its held writes are in the database at last", room)
                    del self.refused[room]
                    if self.on_accepted is not None:
                        self.on_accepted(room)
                self._written(batch, group)
        return refused

    def _refused_pause(self) -> None:
        """Try the refused rooms again after a pause that grows while they stay refused."""
        if self._refused_timer is not None:
            self._refused_timer.cancel()
            self._refused_timer = None
        if not self.refused:
            self._refused_attempt = 0
            return
        pause = _pause(self._refused_attempt)
        self._refused_attempt += 1
        loop = self._loop()
        self._refused_retry_at = loop.time() + pause
        self._refused_timer = loop.call_later(pause, self._wakeup.set)

    def _fenced(self, entries: list[Pending], fenced: Fenced) -> list[Pending]:
        """Drop the refused rooms' operations (their rooms stop, told first); the rest are
        written again. A write left with nothing is never done: its future is cancelled."""
        dropped = set()
        tenures = {
            op.code: op.tenure for pending in entries for op in pending.ops if type(op) is Fence
        }
        for code in sorted(fenced.codes):
            tenure = tenures.get(code)
            if (
                self.on_fenced is None
                or tenure is None
                or not self.on_fenced(code, tenure, fenced.epochs[code])
            ):
                log.warning("write of room %s refused: a newer owner holds it", code)
                dropped.add(code)
        for code in dropped:
            self.refused.pop(code, None)  # nothing of it is left to write
        kept = []
        for pending in entries:
            pending.ops = [op for op in pending.ops if _room_of(op) not in dropped]
            if pending.ops:
                kept.append(pending)
            else:
                pending.written.cancel()
        return kept

    def _failed(self, error: Exception) -> None:
        """Keep the batch ahead of what came since, and retry after a pause that grows."""
        self.failing = True
        self.save_failures += 1
        self.last_error = _said(error)
        log.warning("database write failed, will retry: %s", self.last_error)
        pause = _pause(self._attempt)
        self._attempt += 1
        self._retry_at = self._loop().time() + pause
        self._wakeup.set()
        if self._failure is not None and not self._failure.done():
            queued = {id(pending) for pending in self._queue}
            self._beside_failure = {
                id(pending.written) for pending in self._writing if id(pending) not in queued
            }
            self._failure.set_result(None)  # its callbacks run later: the set is kept

    def _written(self, batch: Batch, entries: list[Pending]) -> None:
        self._attempt = 0
        self._retry_at = float("-inf")
        if self.failing:
            log.info("database writes resumed")
        self.failing = False
        self.rounds_saved += sum(isinstance(op, FinishedRound) for op in batch.ops)
        for pending in entries:
            if not pending.written.done():
                pending.written.set_result(None)


def _said(error: Exception) -> str:
    """A failed write's error in one line: its class, and its words if it has any."""
    return f"{error.__class__.__name__}: {error}".rstrip(": ")


def error_kind(said: str | None) -> str:
    """The kind of a failed write's error as ``_said`` put it ("OSError" of "OSError: disk
    full")."""
    return (said or "unknown").split(":", 1)[0]


def _pause(attempt: int) -> float:
    """Seconds before the next try, after ``attempt`` failed tries in a row."""
    return RETRY_SECONDS[min(attempt, len(RETRY_SECONDS) - 1)]


def _tell(told: asyncio.Future[None], _: object) -> None:
    if not told.done():
        told.set_result(None)


def _room_of(op: Op) -> str:
    return op.room_code if isinstance(op, FinishedRound) else op.code


def _refused(error: Exception) -> bool:
    """Whether a failed write was refused for what it holds (it would fail again as it is),
    rather than for the database being away, busy or slow."""
    if isinstance(error, (OSError, sqlite3.OperationalError, sql_errors.OperationalError)):
        return False  # away, locked, full, timed out: the same write can succeed later
    cause = getattr(error, "orig", None)  # what SQLAlchemy wrapped
    if isinstance(cause, Exception) and cause is not error and _refused(cause):
        return True
    if isinstance(
        error,
        (
            TypeError,  # a value that cannot be encoded
            ValueError,
            sqlite3.IntegrityError,
            sqlite3.DataError,
            sql_errors.IntegrityError,
            sql_errors.DataError,
        ),
    ):
        return True
    # asyncpg: the SQLSTATE classes of bad data and broken constraints (a missing table or a
    # missing grant fails every room's writes alike: the database is failing, not a room).
    return refused_for_its_data(error)


def _one_hold_each(entries: list[Pending]) -> tuple[list[Pending], list[Pending]]:
    """The entries up to the first that carries a room's fence of another tenure than an
    earlier entry's, and the rest. The first entry always goes: one entry is written whole
    (the outbox's may hold two holds on a room), or it would never be written."""
    if len(entries) < 2:  # the usual write: one room's save
        return entries, []
    tenures: dict[str, Tenure] = {}
    for n, pending in enumerate(entries):
        fences = [op for op in pending.ops if type(op) is Fence]
        if n and any(tenures.get(fence.code, fence.tenure) is not fence.tenure for fence in fences):
            return entries[:n], entries[n:]
        for fence in fences:
            tenures.setdefault(fence.code, fence.tenure)
    return entries, []


def _hold(entries: list[Pending], refused: set[str]) -> tuple[list[Pending], list[Pending]]:
    """The entries that touch no refused room, and the others: an entry is held if one of its
    rooms is refused or held, so that each room's operations stay in order."""
    held_rooms = set(refused)
    free: list[Pending] = []
    held: list[Pending] = []
    for pending in entries:
        rooms = {_room_of(op) for op in pending.ops}
        if rooms & held_rooms:
            held.append(pending)
            held_rooms |= rooms
        else:
            free.append(pending)
    return free, held


def _apart(entries: list[Pending]) -> list[list[Pending]]:
    """The entries in groups that share no room, each group in order (an entry holding two
    rooms' operations joins their groups)."""
    group_of: dict[str, int] = {}
    groups: dict[int, list[tuple[int, Pending]]] = {}
    for n, pending in enumerate(entries):
        rooms = {_room_of(op) for op in pending.ops}
        joined = sorted({group_of[room] for room in rooms if room in group_of})
        target = joined[0] if joined else n
        members = groups.setdefault(target, [])
        for other in joined[1:]:
            for _, moved in groups[other]:
                for op in moved.ops:
                    group_of[_room_of(op)] = target
            members.extend(groups.pop(other))
        members.append((n, pending))
        for room in rooms:
            group_of[room] = target
    return [[pending for _, pending in sorted(members)] for members in groups.values()]
