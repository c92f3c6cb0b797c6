"""Where bots think: in worker processes, so a long decision never holds up the event loop.

A strong bot may think for tens of milliseconds (hundreds in 10-card Spectrum with multiple
pickups); in the server's own process that would stall every room. With ``workers`` above zero
decisions run in a pool of separate processes; with zero they run in place (tests, tiny hosts).
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import math
import multiprocessing
import os
import signal
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from app.bots.levels import Decision, decide_seeded
from app.bots.observation import Observation

log = logging.getLogger(__name__)

# prctl(2): the signal a process gets when the thread that started it ends (Linux).
PR_SET_PDEATHSIG = 1


# How much less of the processor than the server a worker asks for (nice(2)): when the cores
# are all busy, the server's own work (every room's moves) goes first, then hints (a person
# waits on each), then the bots' turns.
HINT_NICENESS = 2
BOT_NICENESS = 5


def start_worker(parent: int, niceness: int) -> None:
    """In a worker: yield the processor by ``niceness``; end when the server that started it
    ends, even killed outright (SIGKILL gives it no time to stop its workers), rather than live
    on without it."""
    os.nice(niceness)
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it ended before the signal was asked for
        os._exit(0)


class Behind(Exception):
    """The workers did not get to a decision within its time: more is asked of them than they
    can think through (``BOT_WORKERS``)."""


def decide_before(
    deadline: float, level: str, observation: Observation, seed: int
) -> Decision | None:
    """In a worker: the decision, or None at once if ``deadline`` (``time.monotonic``, the
    same clock in every process of the machine) has passed: nobody waits for it any more, and
    the decisions asked for after it should not wait behind it."""
    if time.monotonic() > deadline:
        return None
    return decide_seeded(level, observation, seed)


# What the log says when decisions are late (at most once a minute), with how many so far.
BOTS_LATE = (
    "bot decisions are late (%d so far): more rooms ask the bot workers than they can think "
    "for; their bots play the timer's move meanwhile (raise BOT_WORKERS if cores are free)"
)
HINTS_LATE = (
    "hints are late (%d so far): more are asked at once than their workers can work out; "
    "they are refused meanwhile (raise BOT_WORKERS if cores are free)"
)


class Workers:
    """A pool of worker processes, made at the first decision asked of it, and the decisions
    it did not make within their time."""

    # The least time between two warnings that decisions are late.
    WARN_EVERY_SECONDS = 60.0

    def __init__(self, kind: str, size: int, late_warning: str, niceness: int) -> None:
        self.kind = kind  # what the log calls them: "bot", "hint"
        self.size = size
        self.late_warning = late_warning
        self.niceness = niceness
        self.pool: ProcessPoolExecutor | None = None
        self.late = 0
        self.warned_at = -self.WARN_EVERY_SECONDS

    def get(self) -> ProcessPoolExecutor:
        """The pool, made at the first decision: a server that never seats a bot, and every
        server's start, go without it (and without the process that tracks its locks)."""
        if self.pool is None:
            # A fresh interpreter per worker: forking a process with live threads is unsafe.
            context = multiprocessing.get_context("spawn")
            self.pool = ProcessPoolExecutor(
                self.size,
                mp_context=context,
                initializer=start_worker,
                initargs=(os.getpid(), self.niceness),
            )
        return self.pool

    def broken(self, pool: ProcessPoolExecutor) -> None:
        """``pool`` lost a worker: the next decision makes a new one (unless it was made anew
        already, for another decision)."""
        if self.pool is pool:
            log.warning("a %s worker process ended; starting new ones", self.kind)
            self.pool = None
            pool.shutdown(wait=False, cancel_futures=True)

    def was_late(self, now: float) -> None:
        """Count a decision not made within its time; say so, once in a while."""
        self.late += 1
        if now - self.warned_at >= self.WARN_EVERY_SECONDS:
            self.warned_at = now
            log.warning(self.late_warning, self.late)

    def close(self) -> None:
        """Stop the workers and wait until they have ended (a decision under way finishes)."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


class Thinker:
    """Runs bot decisions, in worker processes when there are any.

    Hints are worked out in workers of their own, as many at most as the bots have: a person
    waits on a hint, and in the bots' pool it would wait behind every bot's turn asked before it
    (the pool gives its workers what it is given in that order, and seconds of them when more
    rooms ask than it can think for). A pool starts its workers as decisions find none free.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.bot_workers = Workers("bot", workers, BOTS_LATE, BOT_NICENESS)
        self.hint_workers = Workers("hint", workers, HINTS_LATE, HINT_NICENESS)
        # Decisions a worker skipped, having come to them after their time.
        self.dropped = 0

    async def decide(
        self,
        level: str,
        observation: Observation,
        seed: int,
        within: float = math.inf,
        *,
        hint: bool = False,
    ) -> Decision:
        """The decision of a bot of ``level`` for the observing seat (a ``hint``: in the hints'
        workers); ``Behind`` if the workers have not made it ``within`` seconds (a worker that
        comes to it later skips it). A worker that ended (killed for memory, say) breaks its
        pool for good: the pool is made anew and the decision asked again, once, within the
        same time."""
        if not self.workers:
            return decide_seeded(level, observation, seed)
        deadline = time.monotonic() + within
        workers = self.hint_workers if hint else self.bot_workers
        pool = workers.get()
        try:
            return await self._ask(workers, pool, deadline, level, observation, seed)
        except BrokenProcessPool:
            if not self.workers:  # closed meanwhile
                raise
            workers.broken(pool)
        return await self._ask(workers, workers.get(), deadline, level, observation, seed)

    async def _ask(
        self,
        workers: Workers,
        pool: ProcessPoolExecutor,
        deadline: float,
        level: str,
        observation: Observation,
        seed: int,
    ) -> Decision:
        # Never cancelled once asked: a pool of Python 3.11 whose worker ends while it holds a
        # cancelled decision loses the thread that tends it (and its other workers live on).
        asked = asyncio.wrap_future(pool.submit(decide_before, deadline, level, observation, seed))
        asked.add_done_callback(self._came)
        left = deadline - time.monotonic()
        done, _ = await asyncio.wait({asked}, timeout=None if left == math.inf else max(left, 0))
        if done:
            decision = asked.result()
            if decision is not None:
                return decision
        now = time.monotonic()
        workers.was_late(now)
        raise Behind(f"no decision within its time ({deadline - now:.3f} s left)")

    def _came(self, asked: asyncio.Future[Decision | None]) -> None:
        """A decision's answer, waited for or not: one a worker skipped is counted, and a
        failure is read here too, so that one nobody waits for any more is not reported as
        never retrieved."""
        if asked.cancelled():
            return
        if asked.exception() is None and asked.result() is None:
            self.dropped += 1

    def close(self) -> None:
        """Stop the workers and wait until they have ended (a decision under way finishes)."""
        self.bot_workers.close()
        self.hint_workers.close()
        self.workers = 0  # a decision asked for after this runs in place
