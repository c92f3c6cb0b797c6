"""The server's garbage-collection policy: young objects collected often and in small steps,
and the long-lived heap walked only once enough connections have ended to have left cycles in it.

CPython's own rule walks the whole heap on object counts, so a server filling up with players
pauses for hundreds of milliseconds again and again, though what it walks is alive. The
cycles that only a full collection frees come from connections that ended (uvicorn's protocol
objects, the cancelled reads) and the rooms they leave: a full collection runs once, since the
last one, a quarter as many connections have ended as are open (and at least
``LEAST_ENDED``), never twice within ``LEAST_SECONDS_BETWEEN``, and every
``FULL_COLLECTION_SECONDS`` if any connection ended. A server filling up pays no pause; one
whose players come and go pays one for every quarter of its players replaced.

Young collections run every ``YOUNG_COLLECTION_SECONDS`` as well as on CPython's count. The
middle generation is collected only once ``SCOPES_PER_MIDDLE_COLLECTION`` HTTP requests or
WebSocket handshakes have come in (each leaves a cycle of uvicorn's HTTP protocol objects
behind), at most every ``CHECK_SECONDS``: play itself leaves none there.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import logging
import os
import time
from collections.abc import Callable

CHECK_SECONDS = 2.0
ENDED_SHARE = 0.25
LEAST_ENDED = 200
LEAST_SECONDS_BETWEEN = 30.0
FULL_COLLECTION_SECONDS = 600.0
# Young collections at CPython's default rate (every 700 net new container objects). What a
# young collection walks is what is alive in the young generation, and its pause grows with
# that: collected every 50,000 objects instead, a server of 1,000 rooms deep in their matches
# paused 100-250 ms every few seconds (p99 168 ms in bench/load.py).
YOUNG_COLLECTION_THRESHOLD = 700
# The count is of objects made less objects freed, old ones included: while a room's new views
# take the place of its old ones the count hardly moves, and the young generation grew to
# 5,000-12,000 live objects between two collections (2-20 ms each). Collecting it on a clock
# as well keeps each collection to what the last 20 ms left alive.
YOUNG_COLLECTION_SECONDS = 0.02
# The middle generation is not collected on CPython's count: what survives a young collection
# during play is alive (a room's state and views, a connection), and walking it again at every
# other young collection cost more than the young collections did (bench/compare.py at 500 x 2:
# 1.1 s of 1.7 s of collections). Requests leave cycles there; see ``Connections.scopes``.
MIDDLE_COLLECTION_THRESHOLD = 1_000_000_000
# A middle collection walks every room's current views (all born since the last one): collected
# every 5 s, the p99 at 1,000 x 4 in bench/compare.py was 68 and 164 ms. Waiting for this many
# requests keeps what they leave to about a megabyte, and a health check every few seconds from
# setting off such a pause each time.
SCOPES_PER_MIDDLE_COLLECTION = 200
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


class Connections:
    """How many connections are open, how many have ended since the process started, and how
    many requests and handshakes (``scopes``) came in."""

    def __init__(self) -> None:
        self.open = 0
        self.ended = 0
        self.scopes = 0

    def scope(self) -> None:
        """An HTTP request or a WebSocket handshake came in."""
        self.scopes += 1

    def opened(self) -> None:
        """A connection was accepted."""
        self.open += 1

    def closed(self) -> None:
        """An accepted connection ended."""
        self.open -= 1
        self.ended += 1


class Collector:
    """When to run a full collection: enough connections ended, or the schedule came round."""

    def __init__(self, connections: Connections) -> None:
        self.connections = connections
        self.trim = _malloc_trim()
        self.last = time.monotonic()
        self.ended_at_last = connections.ended
        self.scopes_at_last_middle = connections.scopes

    def due(self, now: float) -> bool:
        """Whether a full collection is due at ``now``."""
        since = now - self.last
        ended = self.connections.ended - self.ended_at_last
        if since < LEAST_SECONDS_BETWEEN or ended == 0:
            return False
        return since >= FULL_COLLECTION_SECONDS or ended >= max(
            LEAST_ENDED, ENDED_SHARE * self.connections.open
        )

    def middle_due(self) -> bool:
        """Whether enough requests or handshakes came in since the last middle (or full)
        collection."""
        came = self.connections.scopes - self.scopes_at_last_middle
        return came >= SCOPES_PER_MIDDLE_COLLECTION

    def collect_middle(self) -> None:
        """Collect the young and middle generations."""
        gc.collect(1)
        self.scopes_at_last_middle = self.connections.scopes

    def collect(self) -> None:
        """A full collection, then the freed C heap handed back."""
        started = time.perf_counter()
        before = resident_bytes()
        found = gc.collect()
        self.trim()
        self.last = time.monotonic()
        self.ended_at_last = self.connections.ended
        self.scopes_at_last_middle = self.connections.scopes
        log.info(
            "full garbage collection: %d objects in %.0f ms; %d MiB resident (%d MiB before)",
            found,
            (time.perf_counter() - started) * 1000,
            resident_bytes() >> 20,
            before >> 20,
        )


class YoungCollections:
    """The young generation collected every ``YOUNG_COLLECTION_SECONDS`` on the running loop,
    until stopped."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.handle: asyncio.TimerHandle | None = loop.call_later(
            YOUNG_COLLECTION_SECONDS, self._collect
        )

    def _collect(self) -> None:
        gc.collect(0)
        self.handle = self.loop.call_later(YOUNG_COLLECTION_SECONDS, self._collect)

    def stop(self) -> None:
        """Collect no more."""
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None


async def collect_garbage_now_and_then(collector: Collector) -> None:
    """Full and middle collections as the policy says, and young ones on the clock; young ones
    also stay automatic, every ``YOUNG_COLLECTION_THRESHOLD`` net new objects."""
    young = YoungCollections(asyncio.get_running_loop())
    try:
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            if collector.due(time.monotonic()):
                collector.collect()
            elif collector.middle_due():
                collector.collect_middle()
    finally:
        young.stop()


def start_collecting(connections: Connections) -> asyncio.Task[None]:
    """Apply the policy to this process (at start-up); the task that carries it out."""
    gc.freeze()  # what importing created lives as long as the process
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, MIDDLE_COLLECTION_THRESHOLD, 1_000_000_000)
    gc.enable()  # the start's entry points import with collection off
    return asyncio.create_task(collect_garbage_now_and_then(Collector(connections)))
