"""The database behind rooms: a journal of live-room events, and the match history.

Events and finished rounds are written in one transaction as soon as they come, but no sooner
than ``journal_flush_ms`` after the previous write began (0 by default) and never while the
previous write is under way: what comes meanwhile goes into the next transaction, so a quiet
server writes each change at once and a busy one writes many in one. With SQLite, the events
go to the event log beside the database instead (one append; ``eventlog.py``), everything else
to the database. The rooms that wrote them wait for that write before announcing the change:
what players saw survives a SIGKILL, and a round is stored before its results are shown. When
the database is unreachable, play goes on: the writes wait in memory, in order, and are retried
until they are written; ``/readyz`` reports the backlog.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.rooms.settings import RoomSettings
from app.rooms.state import Event, RoomState
from app.rooms.store import FinishedRound
from app.storage.eventlog import SEGMENT_BYTES, LoggedEvents, read_segment
from app.storage.journal import Events, Forget, JournalWriter, NewRoom, Op
from app.storage.models import LiveEventRecord, LiveRoomRecord

log = logging.getLogger(__name__)

RETRY_SECONDS = (0.5, 1, 2, 5, 10)


class DatabaseStore:
    """Rooms' events and finished rounds in an SQL database."""

    def __init__(
        self,
        engine: AsyncEngine,
        flush_seconds: float,
        wait_seconds: float = 2.0,
        segment_bytes: int = SEGMENT_BYTES,
    ):
        self.engine = engine
        self.flush_seconds = flush_seconds
        self.wait_seconds = wait_seconds
        self._journal = JournalWriter(engine, segment_bytes)
        self._ops: list[Op] = []
        self._waiters: list[asyncio.Future[bool]] = []
        self._wakeup = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._last_write = float("-inf")
        self._attempt = 0
        self._retry_at = float("-inf")
        self.failing = False
        self.rounds_saved = 0
        self.save_failures = 0
        self.last_error: str | None = None

    # Lifecycle.

    def start(self) -> None:
        """Start writing in the background."""
        self._task = asyncio.create_task(self._run())

    async def stop(self, grace: float = 5.0) -> None:
        """Write what is pending (within ``grace`` seconds), then stop."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace):
                while self._ops or self._waiters:
                    self._wakeup.set()
                    await asyncio.sleep(0.01)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._journal.close()
        if self._ops:
            log.error("stopped with %d writes unsaved", len(self._ops))

    @property
    def backlog(self) -> int:
        """Writes waiting for the database."""
        return len(self._ops)

    async def ping(self) -> None:
        """Raise if the database cannot be reached."""
        async with self.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))

    # Writing.

    async def save(self, state: RoomState | None, rounds: Sequence[FinishedRound] = ()) -> None:
        """Queue a room's unsaved events and finished rounds; wait (a bounded time) until they
        are written."""
        if state is not None:
            first, events = state.take_unsaved()
            if first == 0 and events:
                settings = state.initial_settings.model_dump()
                self._ops.append(NewRoom(state.code, settings, state.created_at))
            if events:
                self._ops.append(Events(state.code, state.created_at, first, events))
        self._ops.extend(rounds)
        if not self._ops:
            return
        if self.failing:
            self._wakeup.set()
            return  # the database is away: play on, the writes wait in order
        if self._journal.inline and not self.flush_seconds:
            # SQLite is written in this thread: handing the write to the writer task and
            # waiting for it would cost more than the write.
            await self._write()
            return
        self._wakeup.set()
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        if not self._waiters:
            # One timer for everyone in the coming batch: no one waits past wait_seconds.
            loop.call_later(self.wait_seconds, _resolve, self._waiters, False)
        self._waiters.append(waiter)
        await waiter

    def forget(self, code: str) -> None:
        """Drop a room's journal (queued after its last events)."""
        self._ops.append(Forget(code))
        self._wakeup.set()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            wait = max(self._last_write + self.flush_seconds, self._retry_at) - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            await self._write()

    async def _write(self) -> None:
        """Write everything queued in one transaction (with SQLite, without suspending)."""
        self._last_write = asyncio.get_running_loop().time()
        batch, waiters = self._ops, self._waiters
        self._ops, self._waiters = [], []
        if not batch:
            _resolve(waiters, True)
            return
        try:
            await self._journal.write(batch)
        except Exception as error:  # any database failure: keep the batch and retry
            self._failed(batch, waiters, error)
        else:
            self._written(batch, waiters)

    def _failed(
        self, batch: list[Op], waiters: list[asyncio.Future[bool]], error: Exception
    ) -> None:
        """Keep the batch ahead of what came since, and retry after a pause that grows."""
        self._ops = batch + self._ops
        self.failing = True
        self.save_failures += 1
        self.last_error = f"{error.__class__.__name__}: {error}"
        log.warning("database write failed, will retry: %s", self.last_error)
        pause = RETRY_SECONDS[min(self._attempt, len(RETRY_SECONDS) - 1)]
        self._attempt += 1
        self._retry_at = asyncio.get_running_loop().time() + pause
        self._wakeup.set()
        _resolve(waiters, False)

    def _written(self, batch: list[Op], waiters: list[asyncio.Future[bool]]) -> None:
        self._attempt = 0
        self._retry_at = float("-inf")
        if self.failing:
            log.info("database writes resumed")
        self.failing = False
        self.rounds_saved += sum(isinstance(op, FinishedRound) for op in batch)
        _resolve(waiters, True)

    # Reading.

    async def restore(self) -> list[RoomState]:
        """Every room the journal holds, rebuilt from its events.

        The event log's segments are read before the database: a segment folded into the
        database and deleted meanwhile is then found there.
        """
        logged: list[LoggedEvents] = []
        event_log = self._journal.event_log
        if event_log is not None:
            for segment in event_log.segments():
                logged.extend(read_segment(segment))
        async with self.engine.connect() as connection:
            rooms = (
                await connection.execute(
                    select(LiveRoomRecord.code, LiveRoomRecord.settings, LiveRoomRecord.created_at)
                )
            ).all()
            numbered: dict[str, dict[int, Event]] = defaultdict(dict)
            result = await connection.execute(
                select(LiveEventRecord.code, LiveEventRecord.seq, LiveEventRecord.event)
            )
            for code, seq, event in result:
                numbered[code][seq] = event
        created = {code: created_at for code, _, created_at in rooms}
        for batch in logged:
            if created.get(batch.code) == batch.created_at:
                for n, event in enumerate(batch.events):
                    numbered[batch.code].setdefault(batch.first + n, event)
        states = []
        for code, settings, created_at in rooms:
            try:
                found = _in_order(code, numbered.get(code, {}))
                states.append(
                    RoomState.replay(code, RoomSettings.model_validate(settings), created_at, found)
                )
            except Exception:  # a room that cannot be rebuilt must not stop the others
                log.exception("room %s could not be restored", code)
        return states

    # The match history.


def _in_order(code: str, numbered: dict[int, Event]) -> list[Event]:
    """A room's events by number, up to the first one missing."""
    events: list[Event] = []
    while len(events) in numbered:
        events.append(numbered[len(events)])
    if len(events) < len(numbered):
        log.error("room %s: events after #%d are missing; restored up to there", code, len(events))
    return events


def _resolve(waiters: list[asyncio.Future[bool]], value: bool) -> None:
    for waiter in waiters:
        if not waiter.done():
            waiter.set_result(value)
