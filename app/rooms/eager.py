"""Running an ASGI send at once, without a task, until it completes or has to wait.

A room sends every update to every connection; a task per frame would cost more than the
send itself. uvicorn's WebSocket send only suspends while its transport is paused, so the
send's coroutine is stepped by hand here, as asyncio's Task steps one, and handed to a task
only when it really waits. This leans on asyncio's future protocol
(``_asyncio_future_blocking``) and on uvicorn's send: tests/rooms/test_eager.py checks both
against a real uvicorn server and fails when the versions below change.
"""

from __future__ import annotations

import contextlib
from collections.abc import Coroutine, Generator
from typing import Any, cast

from starlette.types import Message, Send

# What the stepping was checked with (see tests/rooms/test_eager.py).
CHECKED_WITH = {"python": "3.11", "uvicorn": "0.54.0", "uvloop": "0.23.0"}


class Waiting:
    """A send that has started and waits; awaiting it finishes the send."""

    __slots__ = ("coroutine", "waiting_on")

    def __init__(self, coroutine: Coroutine[Any, Any, None], waiting_on: Any) -> None:
        self.coroutine = coroutine
        self.waiting_on = waiting_on

    def __await__(self) -> Generator[Any, None, None]:
        try:
            # What the send yielded goes to the task as if the send had yielded it itself: a
            # future (still marked ``_asyncio_future_blocking``) or None for a bare yield. A
            # failure of that future reaches the send when it resumes and reads its result.
            with contextlib.suppress(Exception):
                yield self.waiting_on
        except BaseException:  # cancelled while waiting: the send forgets its waiter
            self.coroutine.close()
            raise
        yield from self.coroutine.__await__()


def send_at_once(send: Send, message: Message) -> Waiting | None:
    """Run ``send(message)`` until it completes (None) or has to wait (the rest, to await).

    What the send raises before waiting is raised here.
    """
    coroutine = cast(Coroutine[Any, Any, None], send(message))
    try:
        waiting_on = coroutine.send(None)
    except StopIteration:
        return None
    return Waiting(coroutine, waiting_on)
