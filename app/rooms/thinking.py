"""Where bots think: in worker processes, so a long decision never holds up the event loop.

A strong bot may think for tens of milliseconds (hundreds in 10-card Spectrum with multiple
pickups); in the server's own process that would stall every room. With ``workers`` above zero
decisions run in a pool of separate processes; with zero they run in place (tests, tiny hosts).
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from app.bots.levels import Decision, decide_seeded
from app.bots.observation import Observation


class Thinker:
    """Runs bot decisions, in worker processes when there are any."""

    def __init__(self, workers: int) -> None:
        self.pool: ProcessPoolExecutor | None = None
        if workers:
            # A fresh interpreter per worker: forking a process with live threads is unsafe.
            context = multiprocessing.get_context("spawn")
            self.pool = ProcessPoolExecutor(workers, mp_context=context)

    async def decide(self, level: str, observation: Observation, seed: int) -> Decision:
        """The decision of a bot of ``level`` for the observing seat."""
        if self.pool is None:
            return decide_seeded(level, observation, seed)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, decide_seeded, level, observation, seed)

    def close(self) -> None:
        """Stop the workers and wait until they have ended (a decision under way finishes)."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None
