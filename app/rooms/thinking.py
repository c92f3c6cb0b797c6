"""Where bots think: in worker processes, so a long decision never holds up the event loop.

A strong bot may think for tens of milliseconds (hundreds in 10-card Spectrum with multiple
pickups); in the server's own process that would stall every room. With ``workers`` above zero
decisions run in a pool of separate processes; with zero they run in place (tests, tiny hosts).
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from app.bots.levels import Decision, decide_seeded
from app.bots.observation import Observation

log = logging.getLogger(__name__)

# prctl(2): the signal a process gets when the thread that started it ends (Linux).
PR_SET_PDEATHSIG = 1


def end_with_parent(parent: int) -> None:
    """In a worker: end when the server that started it ends, even killed outright (SIGKILL
    gives it no time to stop its workers), rather than live on without it."""
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it ended before the signal was asked for
        os._exit(0)


class Behind(Exception):
    """The workers did not get to a decision within its time: more is asked of them than they
    can think through (``BOT_WORKERS``)."""


class Thinker:
    """Runs bot decisions, in worker processes when there are any."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool: ProcessPoolExecutor | None = None
        # Decisions not made within their time, and those of them dropped before a worker
        # began them.
        self.late = 0
        self.dropped = 0

    def _pool(self) -> ProcessPoolExecutor:
        """The worker pool, made at the first decision: a server that never seats a bot, and
        every server's start, go without it (and without the process that tracks its locks)."""
        if self.pool is None:
            # A fresh interpreter per worker: forking a process with live threads is unsafe.
            context = multiprocessing.get_context("spawn")
            self.pool = ProcessPoolExecutor(
                self.workers,
                mp_context=context,
                initializer=end_with_parent,
                initargs=(os.getpid(),),
            )
        return self.pool

    async def decide(
        self, level: str, observation: Observation, seed: int, within: float | None = None
    ) -> Decision:
        """The decision of a bot of ``level`` for the observing seat; ``Behind`` if the workers
        have not made it ``within`` seconds (it is then dropped if no worker began it, so that
        decisions nobody waits for any more do not pile up before those asked for next). A
        worker that ended (killed for memory, say) breaks its pool for good: the pool is made
        anew and the decision asked again, once."""
        if not self.workers:
            return decide_seeded(level, observation, seed)
        pool = self._pool()
        try:
            return await self._ask(pool, level, observation, seed, within)
        except BrokenProcessPool:
            if not self.workers:  # closed meanwhile
                raise
            if self.pool is pool:  # not made anew already for another decision
                log.warning("a bot worker process ended; starting new ones")
                self.pool = None
                pool.shutdown(wait=False, cancel_futures=True)
        return await self._ask(self._pool(), level, observation, seed, within)

    async def _ask(
        self,
        pool: ProcessPoolExecutor,
        level: str,
        observation: Observation,
        seed: int,
        within: float | None,
    ) -> Decision:
        asked = pool.submit(decide_seeded, level, observation, seed)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(asked), within)
        except TimeoutError:
            self.late += 1
            if asked.cancel():
                self.dropped += 1
            if self.late == 1 or self.late % 1000 == 0:
                log.warning(
                    "bot decisions are late (%d so far): more rooms ask the bot workers than "
                    "they can think for; their bots play the timer's move meanwhile, and hints "
                    "are refused (raise BOT_WORKERS if cores are free)",
                    self.late,
                )
            raise Behind(f"no decision within {within} s") from None

    def close(self) -> None:
        """Stop the workers and wait until they have ended (a decision under way finishes)."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None
        self.workers = 0  # a decision asked for after this runs in place
