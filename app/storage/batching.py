"""Operations gathered into batches for a journal backend, written in order and retried until
they are.

Operations are written as soon as they come, but no sooner than ``flush_seconds`` after the
previous write began (0 by default) and never while the previous write is under way: what comes
meanwhile goes into the next batch, so a quiet server writes each change at once and a busy one
writes many in one. Those who queued them wait for that write (a bounded time). When the
database is unreachable, play goes on: the operations wait in memory, in order, and are retried
after a pause that grows; ``backlog`` says how many wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence

from app.rooms.store import FinishedRound
from app.storage.journal import Batch, Fenced, JournalBackend, Op

log = logging.getLogger(__name__)

RETRY_SECONDS = (0.5, 1, 2, 5, 10)


class BatchWriter:
    """The queue in front of a backend, and the task that writes it."""

    def __init__(
        self, backend: JournalBackend, flush_seconds: float, wait_seconds: float = 2.0
    ) -> None:
        self.backend = backend
        self.flush_seconds = flush_seconds
        self.wait_seconds = wait_seconds
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
        # Told of each room whose write was refused because the database holds a newer epoch;
        # answers True to write it again (the node raised its own epoch meanwhile).
        self.on_fenced: Callable[[str], bool] | None = None

    def start(self) -> None:
        """Start writing in the background."""
        self._task = asyncio.create_task(self._run())

    async def stop(self, grace: float = 5.0) -> None:
        """Write what is pending (within ``grace`` seconds), then stop and close the backend."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace):
                while self._ops or self._waiters:
                    self._wakeup.set()
                    await asyncio.sleep(0.01)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.backend.close()
        if self._ops:
            log.error("stopped with %d writes unsaved", len(self._ops))

    @property
    def backlog(self) -> int:
        """Operations waiting for the database."""
        return len(self._ops)

    async def write(self, ops: Sequence[Op]) -> None:
        """Queue the operations; wait (a bounded time) until they and those before are written."""
        self._ops.extend(ops)
        if not self._ops:
            return
        if self.failing:
            self._wakeup.set()
            return  # the database is away: play on, the writes wait in order
        if self.backend.inline and not self.flush_seconds:
            # Written in this thread: handing the write to the writer task and waiting for it
            # would cost more than the write.
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

    def queue(self, op: Op) -> None:
        """Queue an operation without waiting for it."""
        self._ops.append(op)
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
        """Write everything queued as one batch."""
        self._last_write = asyncio.get_running_loop().time()
        batch, waiters = Batch(self._ops), self._waiters
        self._ops, self._waiters = [], []
        if not batch.ops:
            _resolve(waiters, True)
            return
        try:
            await self.backend.write(batch)
        except Fenced as fenced:
            self._fenced(batch, waiters, fenced.codes)
        except Exception as error:  # any database failure: keep the batch and retry
            self._failed(batch, waiters, error)
        else:
            self._written(batch, waiters)

    def _failed(self, batch: Batch, waiters: list[asyncio.Future[bool]], error: Exception) -> None:
        """Keep the batch ahead of what came since, and retry after a pause that grows."""
        self._ops = batch.ops + self._ops
        self.failing = True
        self.save_failures += 1
        self.last_error = f"{error.__class__.__name__}: {error}"
        log.warning("database write failed, will retry: %s", self.last_error)
        pause = RETRY_SECONDS[min(self._attempt, len(RETRY_SECONDS) - 1)]
        self._attempt += 1
        self._retry_at = asyncio.get_running_loop().time() + pause
        self._wakeup.set()
        _resolve(waiters, False)

    def _fenced(self, batch: Batch, waiters: list[asyncio.Future[bool]], codes: set[str]) -> None:
        """Drop the refused rooms' operations (their rooms stop, told first), write the rest."""
        dropped = set()
        for code in sorted(codes):
            if self.on_fenced is None or not self.on_fenced(code):
                log.warning("write of room %s refused: a newer owner holds it", code)
                dropped.add(code)
        kept = [op for op in batch.ops if _room_of(op) not in dropped]
        self._ops = kept + self._ops
        self._waiters = waiters + self._waiters
        self._wakeup.set()

    def _written(self, batch: Batch, waiters: list[asyncio.Future[bool]]) -> None:
        self._attempt = 0
        self._retry_at = float("-inf")
        if self.failing:
            log.info("database writes resumed")
        self.failing = False
        self.rounds_saved += sum(isinstance(op, FinishedRound) for op in batch.ops)
        _resolve(waiters, True)


def _room_of(op: Op) -> str:
    return op.room_code if isinstance(op, FinishedRound) else op.code


def _resolve(waiters: list[asyncio.Future[bool]], value: bool) -> None:
    for waiter in waiters:
        if not waiter.done():
            waiter.set_result(value)
