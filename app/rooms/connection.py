"""One WebSocket's outgoing side: a bounded queue drained by its own writer task.

The room only ever appends to the queue, so a slow or dead client never holds the room up; a
client that falls too far behind is closed and gets a fresh state when it comes back.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

from starlette.types import Send

from app.rooms.views import View

CLOSE_BEHIND = 4008


class TokenBucket:
    """Allows ``rate`` messages a second on average and bursts of ``burst``."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        """Take one token if there is one."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Connection:
    """A client of a room: its seat (None to watch), versions and outgoing queue."""

    __slots__ = (
        "address",
        "closing",
        "max_queue",
        "queue",
        "seat",
        "send",
        "version",
        "wakeup",
        "you",
    )

    def __init__(self, send: Send, seat: int | None, address: str, max_queue: int) -> None:
        self.send = send
        self.seat = seat
        self.address = address
        self.max_queue = max_queue
        self.version = 0
        self.you: View | None = None
        self.queue: deque[bytes] = deque()
        self.wakeup = asyncio.Event()
        self.closing: tuple[int, str] | None = None

    def push(self, frame: bytes) -> None:
        """Queue a frame; a client too far behind is closed instead."""
        if self.closing is not None:
            return
        if len(self.queue) >= self.max_queue:
            self.close(CLOSE_BEHIND, "fell too far behind; reconnect to resync")
            return
        self.queue.append(frame)
        self.wakeup.set()

    def close(self, code: int, reason: str) -> None:
        """Close after what is already queued is dropped; the writer sends the close frame."""
        if self.closing is None:
            self.closing = (code, reason)
            self.queue.clear()
            self.wakeup.set()

    async def run_writer(self) -> None:
        """Send queued frames in order until the connection closes."""
        send, queue = self.send, self.queue
        while True:
            await self.wakeup.wait()
            self.wakeup.clear()
            while queue:
                message: dict[str, Any] = {
                    "type": "websocket.send",
                    "text": queue.popleft().decode(),
                }
                await send(message)
            if self.closing is not None:
                code, reason = self.closing
                await send({"type": "websocket.close", "code": code, "reason": reason})
                return
