"""Stand-ins for a room's surroundings in tests: a clock moved by hand and a store in memory."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.rooms.state import RoomState
from app.rooms.store import FinishedRound
from app.rooms.timers import Job

START = 1_800_000_000.0


@dataclass(order=True)
class _Call:
    when: float
    order: int
    job: Job = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock that stands still until a test moves it; timers ring, in order, as it passes them."""

    def __init__(self, start: float = START) -> None:
        self.time = start
        self._calls: list[_Call] = []
        self._order = itertools.count()

    def now(self) -> float:
        """The time the test has moved the clock to."""
        return self.time

    def steady(self) -> float:
        """The same: a test never sets this clock back."""
        return self.time

    def call_later(self, delay: float, job: Job) -> _Call:
        """Run ``job`` when the clock is moved ``delay`` seconds on."""
        call = _Call(self.time + delay, next(self._order), job)
        heapq.heappush(self._calls, call)
        return call

    def next_ring(self) -> float | None:
        """When the next timer rings, if one is set."""
        while self._calls and self._calls[0].cancelled:
            heapq.heappop(self._calls)
        return self._calls[0].when if self._calls else None

    async def advance(self, seconds: float) -> None:
        """Move the clock on, running each timer it passes to its end, in order."""
        target = self.time + seconds
        while (when := self.next_ring()) is not None and when <= target:
            call = heapq.heappop(self._calls)
            self.time = max(self.time, when)
            await call.job()
        self.time = target

    async def ring_next(self) -> bool:
        """Move the clock to the next timer and run it; False if none is set."""
        when = self.next_ring()
        if when is None:
            return False
        await self.advance(max(0.0, when - self.time))
        return True


class MemoryStore:
    """Keeps every event and finished round handed to it, in order."""

    def __init__(self) -> None:
        self.events: dict[str, list[dict[str, Any]]] = {}
        self.rounds: list[FinishedRound] = []
        self.forgotten: list[str] = []

    async def save(self, state: RoomState | None, rounds: Sequence[FinishedRound] = ()) -> bool:
        """Keep the room's unsaved events and these rounds."""
        if state is not None:
            first, events = state.take_unsaved()
            kept = self.events.setdefault(state.code, [])
            assert first == len(kept), "events are handed over in order, once"
            kept.extend(events)
        self.rounds.extend(rounds)
        return True

    async def saved(self, room: str | None = None) -> None:
        """Everything is kept at once."""

    def forget(self, code: str) -> None:
        """The room is gone from memory."""
        self.forgotten.append(code)
