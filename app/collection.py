"""The server's garbage-collection policy: rare young collections, full ones on a schedule."""

from __future__ import annotations

import asyncio
import gc
import logging
import time

FULL_COLLECTION_SECONDS = 600.0
# Net new container objects between two young collections (CPython's default: 700). What a
# room keeps from one action to its next (views, parsed messages, timers, awaited reads) lives
# for seconds; collecting every 700 allocations walked all of it twice on its way to the old
# generation, close to a tenth of the server's CPU at a thousand actions a second. Collected
# this rarely, most of it has been freed by then.
YOUNG_COLLECTION_THRESHOLD = 50_000
log = logging.getLogger(__name__)


async def collect_garbage_now_and_then(seconds: float) -> None:
    """Full garbage collections on a schedule instead of when CPython's heuristic fires.

    With thousands of connections the heap holds millions of objects; an automatic full
    collection then stops every room for hundreds of milliseconds, repeatedly while rooms are
    being created. Young generations are still collected automatically, every
    ``YOUNG_COLLECTION_THRESHOLD`` net new objects.
    """
    while True:
        await asyncio.sleep(seconds)
        started = time.perf_counter()
        found = gc.collect()
        log.info(
            "full garbage collection: %d objects in %.0f ms",
            found,
            (time.perf_counter() - started) * 1000,
        )


def start_collecting() -> asyncio.Task[None]:
    """Apply the policy to this process (at start-up); the task that runs the full collections."""
    gc.freeze()  # what importing created lives as long as the process
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, 1, 1_000_000_000)
    return asyncio.create_task(collect_garbage_now_and_then(FULL_COLLECTION_SECONDS))
