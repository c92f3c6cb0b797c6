"""One WebSocket's outgoing side: frames sent at once, or queued behind a send that waits.

The room never awaits a socket: a send that cannot finish at once is left to a task, so a slow
or dead client never holds the room up, and a client that falls too far behind is closed and
gets a fresh state when it comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import deque
from typing import Any

from starlette.types import Send

from app.rooms.eager import Waiting, direct_writer, send_at_once
from app.rooms.views import View

CLOSE_BEHIND = 4008
# Bytes of frames a connection may have waiting (its send under way included) by default.
SEND_QUEUE_BYTES = 1 << 20
_serials = itertools.count()
# A close frame's reason has room for 123 bytes; a longer one would fail the close itself.
CLOSE_REASON_BYTES = 123


def fit_close_reason(reason: str) -> str:
    """``reason`` cut to what a close frame can carry, never inside a character."""
    encoded = reason.encode()
    if len(encoded) <= CLOSE_REASON_BYTES:
        return reason
    return encoded[: CLOSE_REASON_BYTES - 3].decode(errors="ignore") + "..."


def _message(frame: bytes, binary: bool) -> dict[str, Any]:
    """The ASGI message that sends ``frame``."""
    if binary:
        return {"type": "websocket.send", "bytes": frame}
    return {"type": "websocket.send", "text": frame.decode()}


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
    """A client of a room: its seat (None to watch), versions and outgoing frames.

    A frame is written to the socket at once when it takes data, or handed to the server's
    send, which normally finishes without waiting. When one has to wait (the socket is backed
    up), a task finishes it and later frames queue behind it, up to ``max_queue`` frames and
    ``max_bytes`` bytes; past either the client is closed (a client that asks for whole states
    and reads nothing holds no more than that).
    """

    __slots__ = (
        "address",
        "closing",
        "direct",
        "gone",
        "max_bytes",
        "max_queue",
        "queue",
        "queued_bytes",
        "seat",
        "send",
        "serial",
        "version",
        "writer",
        "you",
    )

    def __init__(
        self, send: Send, seat: int | None, max_queue: int, max_bytes: int = SEND_QUEUE_BYTES
    ) -> None:
        self.send = send
        self.direct = direct_writer(send)
        self.seat = seat
        self.max_queue = max_queue
        self.max_bytes = max_bytes
        self.version = 0
        self.you: View | None = None
        self.queue: deque[tuple[dict[str, Any], int]] = deque()
        # The bytes of the frames queued and of the send under way.
        self.queued_bytes = 0
        self.writer: asyncio.Task[None] | None = None
        self.closing: tuple[int, str] | None = None
        self.gone = False
        self.serial = next(_serials)  # tells this connection from later ones of the same seat
        # The client's address as the limits count it ("" when not known).
        self.address = ""

    def push(self, frame: bytes, binary: bool = False) -> None:
        """Send a frame (UTF-8 text, or ``binary``), or queue it behind a send that is waiting;
        too far behind: close."""
        if self.closing is not None or self.gone:
            return
        if self.writer is None:
            if self.direct is None or not self.direct(frame, binary):
                self._start(_message(frame, binary), len(frame))
        elif len(self.queue) >= self.max_queue or self.queued_bytes + len(frame) > self.max_bytes:
            self.close(CLOSE_BEHIND, "fell too far behind; reconnect to resync")
        else:
            self.queue.append((_message(frame, binary), len(frame)))
            self.queued_bytes += len(frame)

    def close(self, code: int, reason: str) -> None:
        """Drop what is queued and send a close frame (after a send under way, if any)."""
        if self.closing is None:
            reason = fit_close_reason(reason)
            self.closing = (code, reason)
            self.queue.clear()
            if self.writer is None and not self.gone:
                self._start({"type": "websocket.close", "code": code, "reason": reason}, 0)

    def _start(self, message: dict[str, Any], size: int) -> None:
        """Run one send until it completes or must wait; a waiting send is finished by a task."""
        try:
            waiting = send_at_once(self.send, message)
        except Exception:  # the socket is gone; the reader will see the disconnect
            self.gone = True
            return
        if waiting is not None:
            self.queued_bytes = size
            self.writer = asyncio.get_running_loop().create_task(self._finish(waiting, size))

    async def _finish(self, waiting: Waiting, size: int) -> None:
        try:
            await waiting
            self.queued_bytes -= size
            while self.queue:
                message, size = self.queue.popleft()
                await self.send(message)
                self.queued_bytes -= size
            if self.closing is not None:
                code, reason = self.closing
                await self.send({"type": "websocket.close", "code": code, "reason": reason})
        except Exception:  # the socket is gone
            self.gone = True
        finally:
            self.writer = None
            self.queued_bytes = 0

    async def settle(self, seconds: float) -> None:
        """Wait (a bounded time) for a send under way to finish."""
        if self.writer is not None:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self.writer), seconds)
            if self.writer is not None:
                self.writer.cancel()
