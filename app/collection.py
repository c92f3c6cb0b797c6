"""The server's garbage-collection policy: rare young collections, full ones when the process has
grown, never more often than a floor and at least on a schedule."""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import logging
import os
import time
from collections.abc import Callable

FULL_COLLECTION_SECONDS = 600.0
# How often the process's size is read (cheap: one small file), and the least time between two
# full collections, which bounds how often a pause can come.
CHECK_SECONDS = 2.0
LEAST_SECONDS_BETWEEN = 30.0
# Growth since the last full collection that calls for the next one: half the size after it,
# and at least this many bytes. A full collection walks the whole heap (hundreds of
# milliseconds with thousands of rooms); asking for the heap to have grown by half first makes
# their total work proportional to the heap's growth, as CPython's own rule for the oldest
# generation does, and keeps a steadily playing server from pausing at all.
GROWTH_SHARE = 0.5
GROWTH_BYTES = 64 * 1024 * 1024
# Net new container objects between two young collections (CPython's default: 700). What a
# room keeps from one action to its next (views, parsed messages, timers, awaited reads) lives
# for seconds; collecting every 700 allocations walked all of it twice on its way to the old
# generation, close to a tenth of the server's CPU at a thousand actions a second. Collected
# this rarely, most of it has been freed by then.
YOUNG_COLLECTION_THRESHOLD = 50_000
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
log = logging.getLogger(__name__)


def resident_bytes() -> int:
    """This process's resident memory."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * PAGE_BYTES
    except (OSError, IndexError, ValueError):
        return 0


def _malloc_trim() -> Callable[[], None]:
    """Hand the C heap's free pages back to the system, where the C library can (glibc)."""
    name = ctypes.util.find_library("c")
    trim = getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    if trim is None:
        return lambda: None
    return lambda: trim(0)


class Collector:
    """When to run a full collection: the process grew, or the schedule came round."""

    def __init__(self, size: Callable[[], int] = resident_bytes) -> None:
        self.size = size
        self.trim = _malloc_trim()
        self.after_last = size()
        self.last = time.monotonic()

    def due(self, now: float) -> bool:
        """Whether a full collection is due at ``now``."""
        if now - self.last >= FULL_COLLECTION_SECONDS:
            return True
        if now - self.last < LEAST_SECONDS_BETWEEN:
            return False
        grown = self.size() - self.after_last
        return grown >= max(GROWTH_BYTES, GROWTH_SHARE * self.after_last)

    def collect(self) -> None:
        """A full collection, then the freed C heap handed back."""
        started = time.perf_counter()
        found = gc.collect()
        self.trim()
        self.last = time.monotonic()
        before, self.after_last = self.after_last, self.size()
        log.info(
            "full garbage collection: %d objects in %.0f ms; %d MiB resident (%d MiB before)",
            found,
            (time.perf_counter() - started) * 1000,
            self.after_last >> 20,
            before >> 20,
        )


async def collect_garbage_now_and_then(collector: Collector) -> None:
    """Full garbage collections when the process has grown, instead of CPython's heuristic.

    With thousands of connections the heap holds millions of objects; an automatic full
    collection then stops every room for hundreds of milliseconds, repeatedly while rooms are
    being created. Here one runs when the process has grown by half since the last one (a
    flood of connections left cycles behind), at most every ``LEAST_SECONDS_BETWEEN`` seconds,
    and at least every ``FULL_COLLECTION_SECONDS``. Young generations are still collected
    automatically, every ``YOUNG_COLLECTION_THRESHOLD`` net new objects.
    """
    while True:
        await asyncio.sleep(CHECK_SECONDS)
        if collector.due(time.monotonic()):
            collector.collect()


def start_collecting() -> asyncio.Task[None]:
    """Apply the policy to this process (at start-up); the task that runs the full collections."""
    gc.freeze()  # what importing created lives as long as the process
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, 1, 1_000_000_000)
    return asyncio.create_task(collect_garbage_now_and_then(Collector()))
