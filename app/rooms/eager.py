"""Sending a frame at once, without a task: written straight to the socket, or an ASGI send
run until it completes or has to wait.

A room sends every update to every connection; a task per frame would cost more than the
send itself, and so would uvicorn's send, which turns the frame into text and back and builds
it through the websockets library's frame objects. While a connection is open and its
transport takes data, ``direct_writer`` writes the frame's header and payload to uvicorn's
transport itself, as uvicorn's send would (an unmasked text frame, no extensions). Otherwise
the ASGI send's coroutine is stepped by hand, as asyncio's Task steps one, and handed to a
task only when it really waits (uvicorn's send only suspends while its transport is paused).
This leans on asyncio's future protocol (``_asyncio_future_blocking``) and on uvicorn's
websockets-sansio protocol: tests/rooms/test_eager.py checks both against a real uvicorn
server and fails when the versions below change.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Generator
from typing import Any, cast

from starlette.types import Message, Send
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import OPEN

log = logging.getLogger(__name__)
# What the stepping, the direct writes and inbound.py's reading were checked with (see
# tests/rooms/test_eager.py and test_inbound.py).
CHECKED_WITH = {"python": "3.11", "uvicorn": "0.54.0", "uvloop": "0.23.0", "websockets": "17.4"}


class Waiting:
    """A coroutine that has started and waits; awaiting it finishes the coroutine."""

    __slots__ = ("coroutine", "waiting_on")

    def __init__(self, coroutine: Coroutine[Any, Any, None], waiting_on: Any) -> None:
        self.coroutine = coroutine
        self.waiting_on = waiting_on

    def __await__(self) -> Generator[Any, None, None]:
        # What the coroutine yields goes to the task as if the coroutine had yielded it itself
        # (a future, still marked ``_asyncio_future_blocking``, or None for a bare yield), and
        # what the task sends or throws in goes to the coroutine: a cancellation reaches it
        # where it waits, as it would in a task of its own (``asyncio.Lock.acquire`` then hands
        # a lock it was given on to the next waiter).
        coroutine = self.coroutine
        waiting_on = self.waiting_on
        while True:
            try:
                sent = yield waiting_on
            except BaseException as error:
                try:
                    waiting_on = coroutine.throw(error)
                except StopIteration:
                    return
            else:
                try:
                    waiting_on = coroutine.send(sent)
                except StopIteration:
                    return

    def cancel(self) -> None:
        """Cancel the coroutine where it waits, as a task's cancellation would, when nothing
        will await it; what it still waits for after that is given up."""
        try:
            self.coroutine.throw(asyncio.CancelledError())
        except (asyncio.CancelledError, StopIteration):
            return
        except Exception:
            log.exception("a coroutine cancelled while it waited failed as it ended")
            return
        self.coroutine.close()  # it waits again (its own clean-up): not finished


def run_at_once(coroutine: Coroutine[Any, Any, None]) -> Waiting | None:
    """Run ``coroutine`` until it completes (None) or has to wait (the rest, to await), as a
    task's first step would, but in the caller's own step.

    What the coroutine raises before waiting is raised here.
    """
    try:
        waiting_on = coroutine.send(None)
    except StopIteration:
        return None
    return Waiting(coroutine, waiting_on)


def send_at_once(send: Send, message: Message) -> Waiting | None:
    """Run ``send(message)`` until it completes (None) or has to wait (the rest, to await).

    What the send raises before waiting is raised here.
    """
    return run_at_once(cast(Coroutine[Any, Any, None], send(message)))


# A server's frame: FIN and the text (1) or binary (2) opcode, then the length in 7, 7+16 or
# 7+64 bits.
_HEADERS = [bytes((0x81, length)) for length in range(126)]
_BINARY_HEADERS = [bytes((0x82, length)) for length in range(126)]


def frame_header(length: int, binary: bool = False) -> bytes:
    """The header of an unmasked, unfragmented text (or ``binary``) frame of ``length`` payload
    bytes."""
    if length < 126:
        return (_BINARY_HEADERS if binary else _HEADERS)[length]
    first = b"\x82" if binary else b"\x81"
    if length < 1 << 16:
        return first + b"\x7e" + length.to_bytes(2, "big")
    return first + b"\x7f" + length.to_bytes(8, "big")


def direct_writer(send: Send) -> Callable[[bytes, bool], bool] | None:
    """A function writing a text frame (or a binary one, when its second argument is true)
    straight to the socket behind ``send`` (True), or
    declining (False) when uvicorn's own send must do it: the transport is paused, or the
    connection is closing or gone. None when ``send`` is not uvicorn's websockets-sansio
    send on a connection without extensions, or when its frames are traced (debug level)."""
    protocol = getattr(send, "__self__", None)
    if not isinstance(protocol, WebSocketsSansIOProtocol) or protocol.conn.extensions:
        return None
    if protocol.conn.debug:  # the websockets library traces every frame it sends: it sends
        return None
    transport = protocol.transport
    writable = protocol.writable
    conn = protocol.conn

    def write(payload: bytes, binary: bool) -> bool:
        if (
            not writable.is_set()
            or protocol.close_sent
            or protocol.disconnected
            or conn.state is not OPEN
            or conn.expect_continuation_frame
            or transport.is_closing()
        ):
            return False
        transport.write(frame_header(len(payload), binary) + payload)
        return True

    return write
