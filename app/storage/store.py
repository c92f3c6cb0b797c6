"""The database behind rooms: a journal of live-room events and the match history.

Events are gathered for ``journal_flush_ms`` and written in one transaction, and the rooms that
wrote them wait for that commit before announcing the change, so what players saw survives a
SIGKILL. A finished round is written in one transaction before it is announced. When the
database is unreachable, play goes on: events and rounds wait in memory, in order, and are
retried until they are written; ``/readyz`` reports the backlog.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from datetime import UTC, datetime

from sqlalchemy import insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine

from app.engine.cards import card_ids
from app.rooms.settings import RoomSettings
from app.rooms.state import Event, RoomState
from app.rooms.store import FinishedRound
from app.storage.journal import Events, Forget, JournalWriter, NewRoom, Op
from app.storage.models import (
    HandRecord,
    LiveEventRecord,
    LiveRoomRecord,
    MatchRecord,
    RoundRecord,
    SeatRecord,
)

log = logging.getLogger(__name__)

RETRY_SECONDS = (0.5, 1, 2, 5, 10)


def utc(milliseconds: int) -> datetime:
    """An epoch-milliseconds time as an aware UTC datetime."""
    return datetime.fromtimestamp(milliseconds / 1000, tz=UTC)


class DatabaseStore:
    """Rooms' events and finished rounds in an SQL database."""

    def __init__(self, engine: AsyncEngine, flush_seconds: float, wait_seconds: float = 2.0):
        self.engine = engine
        self.flush_seconds = flush_seconds
        self.wait_seconds = wait_seconds
        self._journal = JournalWriter(engine)
        self._ops: list[Op] = []
        self._waiters: list[asyncio.Future[bool]] = []
        self._wakeup = asyncio.Event()
        self._journal_task: asyncio.Task[None] | None = None
        self.journal_failing = False
        self.rounds_waiting: list[FinishedRound] = []
        self._rounds_task: asyncio.Task[None] | None = None
        self.rounds_saved = 0
        self.save_failures = 0
        self.last_error: str | None = None

    # Lifecycle.

    def start(self) -> None:
        """Start writing the journal in the background."""
        self._journal_task = asyncio.create_task(self._run_journal())

    async def stop(self, grace: float = 5.0) -> None:
        """Write what is pending (within ``grace`` seconds), then stop."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace):
                while self._ops or self._waiters:
                    self._wakeup.set()
                    await asyncio.sleep(0.01)
                if self.rounds_waiting:
                    await self._retry_rounds_once()
        for task in (self._journal_task, self._rounds_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self._journal.close()
        if self._ops or self.rounds_waiting:
            log.error(
                "stopped with %d journal writes and %d rounds unsaved",
                len(self._ops),
                len(self.rounds_waiting),
            )

    @property
    def backlog(self) -> int:
        """Journal writes and rounds waiting for the database."""
        return len(self._ops) + len(self.rounds_waiting)

    async def ping(self) -> None:
        """Raise if the database cannot be reached."""
        async with self.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))

    # The journal of live rooms.

    async def save_events(self, state: RoomState) -> None:
        """Queue the room's unsaved events and wait (a bounded time) until they are written."""
        first, events = state.take_unsaved()
        if not events:
            return
        if first == 0:
            settings = state.initial_settings.model_dump()
            self._ops.append(NewRoom(state.code, settings, state.created_at))
        self._ops.append(Events(state.code, first, events))
        self._wakeup.set()
        if self.journal_failing:
            return  # the database is away: play on, the writes wait in order
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

    async def _run_journal(self) -> None:
        attempt = 0
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            if self.flush_seconds:
                await asyncio.sleep(self.flush_seconds)
            batch, waiters = self._ops, self._waiters
            self._ops, self._waiters = [], []
            if not batch:
                _resolve(waiters, True)
                continue
            try:
                await self._journal.write(batch)
            except Exception as error:  # any database failure: keep the batch and retry
                self._ops = batch + self._ops
                self.journal_failing = True
                self.last_error = f"journal: {error.__class__.__name__}: {error}"
                log.warning("journal write failed, will retry: %s", self.last_error)
                _resolve(waiters, False)
                await asyncio.sleep(RETRY_SECONDS[min(attempt, len(RETRY_SECONDS) - 1)])
                attempt += 1
                self._wakeup.set()
                continue
            attempt = 0
            if self.journal_failing:
                log.info("journal writes resumed")
            self.journal_failing = False
            _resolve(waiters, True)

    async def restore(self) -> list[RoomState]:
        """Every room the journal holds, rebuilt from its events."""
        async with self.engine.connect() as connection:
            rooms = (
                await connection.execute(
                    select(LiveRoomRecord.code, LiveRoomRecord.settings, LiveRoomRecord.created_at)
                )
            ).all()
            events: dict[str, list[Event]] = defaultdict(list)
            result = await connection.execute(
                select(LiveEventRecord.code, LiveEventRecord.event).order_by(
                    LiveEventRecord.code, LiveEventRecord.seq
                )
            )
            for code, event in result:
                events[code].append(event)
        states = []
        for code, settings, created_at in rooms:
            try:
                states.append(
                    RoomState.replay(
                        code, RoomSettings.model_validate(settings), created_at, events[code]
                    )
                )
            except Exception:  # a room that cannot be rebuilt must not stop the others
                log.exception("room %s could not be restored", code)
        return states

    # The match history.

    async def save_round(self, finished: FinishedRound) -> None:
        """Write a finished round, or keep it (in order) to retry until it is written."""
        if self.rounds_waiting:
            self.rounds_waiting.append(finished)
            return
        try:
            written = await asyncio.wait_for(self._write_round(finished), self.wait_seconds)
        except Exception as error:  # any failure: the round waits in memory
            self.save_failures += 1
            self.last_error = f"rounds: {error.__class__.__name__}: {error}"
            log.warning(
                "round %d of match %s waits to be saved: %s",
                finished.result.number,
                finished.match_id,
                self.last_error,
            )
            self.rounds_waiting.append(finished)
            if self._rounds_task is None or self._rounds_task.done():
                self._rounds_task = asyncio.create_task(self._retry_rounds())
            return
        self.rounds_saved += written

    async def _retry_rounds(self) -> None:
        attempt = 0
        while self.rounds_waiting:
            await asyncio.sleep(RETRY_SECONDS[min(attempt, len(RETRY_SECONDS) - 1)])
            attempt += 1
            await self._retry_rounds_once()

    async def _retry_rounds_once(self) -> None:
        while self.rounds_waiting:
            try:
                written = await self._write_round(self.rounds_waiting[0])
            except Exception as error:  # still away: try again later
                self.save_failures += 1
                self.last_error = f"rounds: {error.__class__.__name__}: {error}"
                return
            self.rounds_waiting.pop(0)
            self.rounds_saved += written

    async def _write_round(self, finished: FinishedRound) -> bool:
        """Write the round in one transaction; False if it was already there."""
        result, match_id = finished.result, finished.match_id
        async with self.engine.begin() as connection:
            stored = await connection.scalar(
                select(RoundRecord.id).where(
                    RoundRecord.match_id == match_id, RoundRecord.number == result.number
                )
            )
            if stored is not None:
                return False  # a retry of a round already written
            played = await connection.scalar(
                select(MatchRecord.rounds_played).where(MatchRecord.id == match_id)
            )
            if played is None:
                played = 0
                await connection.execute(
                    insert(MatchRecord).values(
                        id=match_id,
                        room_code=finished.room_code,
                        settings=finished.settings,
                        rounds_planned=finished.settings["rounds"],
                        rounds_played=0,
                        started_at=utc(finished.started_at),
                    )
                )
                await connection.execute(
                    insert(SeatRecord),
                    [
                        {
                            "match_id": match_id,
                            "seat": seat,
                            "name": name,
                            "name_key": name.casefold(),
                            "total": 0,
                        }
                        for seat, name in enumerate(finished.names)
                    ],
                )
            round_id = await connection.scalar(
                insert(RoundRecord)
                .values(
                    match_id=match_id,
                    number=result.number,
                    dealer=result.dealer,
                    knocker=result.knocker,
                    ending=result.ending.value,
                    seed=result.seed,
                    commitment=result.commitment,
                    ended_at=utc(finished.ended_at),
                )
                .returning(RoundRecord.id)
            )
            await connection.execute(
                insert(HandRecord),
                [
                    {
                        "round_id": round_id,
                        "seat": seat,
                        "cards": card_ids(hand),
                        "points": score.points,
                        "scoring": score.as_dict(),
                        "total": result.totals[seat],
                    }
                    for seat, (hand, score) in enumerate(
                        zip(result.hands, result.scores, strict=True)
                    )
                ],
            )
            if result.number >= played:
                ended = {"ended_at": utc(finished.ended_at)} if finished.final else {}
                await connection.execute(
                    update(MatchRecord)
                    .where(MatchRecord.id == match_id)
                    .values(rounds_played=result.number, **ended)
                )
                for seat, total in enumerate(result.totals):
                    place = finished.places[seat] if finished.final else None
                    await connection.execute(
                        update(SeatRecord)
                        .where(SeatRecord.match_id == match_id, SeatRecord.seat == seat)
                        .values(total=total, place=place)
                    )
        return True


def _resolve(waiters: list[asyncio.Future[bool]], value: bool) -> None:
    for waiter in waiters:
        if not waiter.done():
            waiter.set_result(value)
