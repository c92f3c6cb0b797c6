"""The running asyncio loop, looked up once by an object that needs it on every call.

On Python 3.11 each ``asyncio.get_running_loop()`` checks the process id with a ``getpid``
system call; the batch writer and a room's clock ask for the loop on nearly every move.
"""

from __future__ import annotations

import asyncio


class RunningLoop:
    """Called, the loop that was running at the first call."""

    __slots__ = ("_loop",)

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None

    def __call__(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        return loop
