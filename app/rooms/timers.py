"""A room's clock and its timers (turn, ready, back, bot, idle, host), each set for a typed key.

A timer rings at most once for the key it was set for; the room checks, under its lock, that the
timer is still set for that key before acting, so a ring that lost a race changes nothing. What
keys the timers should hold for a state is worked out by the pure ``plan`` functions.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Generic, NamedTuple, Protocol, TypeVar

from app.engine.options import Step
from app.rooms.state import RoomState, Status
from app.running_loop import RunningLoop

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[None]]


class Handle(Protocol):
    """A scheduled call that can still be called off."""

    def cancel(self) -> None:
        """Call it off (nothing happens if it already ran)."""


class Clock(Protocol):
    """Where a room reads the time and schedules its timers."""

    def now(self) -> float:
        """Seconds since the epoch."""

    def steady(self) -> float:
        """Seconds on a clock that setting the system's time does not move (timers run on it)."""

    def call_later(self, delay: float, job: Job) -> Handle:
        """Run ``job`` once ``delay`` seconds have passed."""


class LoopClock:
    """The wall clock, and timers on the running asyncio loop."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop = RunningLoop()

    def now(self) -> float:
        """Seconds since the epoch."""
        return time.time()

    def steady(self) -> float:
        """The loop's own clock, which its timers run on."""
        return self._loop().time()

    def call_later(self, delay: float, job: Job) -> Handle:
        """Start ``job`` as a task after ``delay`` seconds; a failure is logged."""
        return self._loop().call_later(delay, self._spawn, job)

    def _spawn(self, job: Job) -> None:
        task = self._loop().create_task(_run(job))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


async def _run(job: Job) -> None:
    try:
        await job()
    except Exception:
        log.exception("room timer failed")


@dataclass(frozen=True, slots=True)
class RoomConfig:
    """Server-wide timings that rooms follow."""

    ready_seconds: float = 30.0
    idle_seconds: float = 900.0
    bot_delay_seconds: float = 1.0
    standin_seconds: float = 10.0
    host_grace_seconds: float = 60.0


def millis(clock: Clock) -> int:
    """The clock's time in milliseconds, as deadlines are given to clients."""
    return int(clock.now() * 1000)


class TurnKey(NamedTuple):
    """The turn a turn timer plays for."""

    match_id: str | None
    round: int
    turns: int


class ReadyKey(NamedTuple):
    """The pause after a round that a ready timer ends."""

    match_id: str | None
    rounds_finished: int


class BackKey(NamedTuple):
    """The pause after a round, held for a player who lost their link (a reload, a phone's
    blip) until ``until`` (the clock's steady seconds): then it deals if everyone is ready."""

    match_id: str | None
    rounds_finished: int
    until: float


class BotKey(NamedTuple):
    """The turn a bot is to play, for its own seat or for a player (``away``: not connected)."""

    match_id: str | None
    round: int
    turns: int
    step: Step
    away: bool


class HostKey(NamedTuple):
    """A host away while the room needs one: the host's seat, and since when (the clock's
    seconds)."""

    seat: int
    since: float


class IdleKey(NamedTuple):
    """The room left with nobody connected, the ``n``-th time the idle timer was set (a ring
    that waited while the timer was set again is not the new one's)."""

    code: str
    n: int


K = TypeVar("K")


class Timer(Generic[K]):
    """One timer: the key it is set for, when it rings, and the job it runs then."""

    __slots__ = ("armed", "clock", "deadline", "due", "handle", "held", "job", "key")

    def __init__(self, clock: Clock, job: Callable[[K], Awaitable[None]]) -> None:
        self.clock = clock
        self.job = job
        self.key: K | None = None
        self.deadline: int | None = None
        self.due = 0.0  # when it rings, on the clock's steady time
        self.handle: Handle | None = None
        self.held: float | None = None  # standing still: the time it had left
        # How many times it was set to ring: a job that waited tells by it whether the timer
        # was set again meanwhile, maybe for the same key.
        self.armed = 0

    def set(self, key: K, delay: float) -> None:
        """Ring for ``key`` in ``delay`` seconds, unless already set for it."""
        if key == self.key:
            return
        self.clear()
        self._ring_in(key, delay)

    def _ring_in(self, key: K, delay: float) -> None:
        """Be set for ``key``, to ring in ``delay`` seconds."""
        self.key = key
        self.armed += 1
        self.deadline = millis(self.clock) + int(delay * 1000)
        self.due = self.clock.steady() + delay
        self.handle = self.clock.call_later(delay, lambda: self.job(key))

    def _call_off(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def clear(self) -> None:
        """Call off the ring and forget the key."""
        self._call_off()
        self.key = None
        self.deadline = None
        self.held = None

    def stand_still(self) -> None:
        """Keep the key and the time left, and ring only once it goes on (``go_on``)."""
        if self.key is None or self.held is not None:
            return
        self.held = self.left()  # 0 for a ring that came and has not been acted on
        self._call_off()

    def go_on(self) -> None:
        """Go on with the time it had left when it stood still."""
        key, left = self.key, self.held
        if key is None or left is None:
            return
        self.held = None
        self._ring_in(key, left)

    def holds(self, key: K) -> bool:
        """Whether the timer is still set for ``key`` (a ring that lost a race is not)."""
        return self.key == key

    def left(self) -> float:
        """Seconds until it rings (0 when it is not set), whatever the system's time did."""
        if self.key is None:
            return 0.0
        if self.held is not None:
            return self.held
        return max(0.0, self.due - self.clock.steady())


@dataclass(frozen=True, slots=True)
class BotTurn:
    """A bot is to play this turn, after ``delay`` seconds."""

    key: BotKey
    delay: float


def turn_key(state: RoomState, here: set[int]) -> TurnKey | None:
    """The turn the turn timer plays for: a timed turn, while anyone is connected."""
    return timed_turn(state) if here else None


def timed_turn(state: RoomState) -> TurnKey | None:
    """The turn under way, if turns are timed."""
    match = state.match
    if state.status is not Status.PLAYING or not state.settings.turn_seconds:
        return None
    if match is None or match.round is None:
        return None
    return TurnKey(state.match_id, match.round.number, match.round.turns)


def ready_key(state: RoomState) -> ReadyKey | None:
    """The pause the ready timer ends: between two rounds of a match."""
    if state.status is not Status.ROUND_OVER or state.match is None:
        return None
    return ReadyKey(state.match_id, len(state.match.results))


def bot_turn(
    state: RoomState, here: set[int], standins: AbstractSet[int], config: RoomConfig
) -> BotTurn | None:
    """Whether a bot plays this turn (its own seat, a stand-in, or for a player who is away).

    ``here`` holds the seats of people connected; with nobody connected nothing is played.
    A player away on their turn gets a grace of ``config.standin_seconds`` to return first.
    """
    match = state.match
    current = match.round if match else None
    if not here or state.status is not Status.PLAYING or current is None:
        return None
    seat = current.turn
    delay: float = config.bot_delay_seconds
    if state.is_bot(seat) or seat in standins:
        away = False
    elif seat not in here:
        away = True
        delay = max(delay, config.standin_seconds)
    else:
        return None
    return BotTurn(BotKey(state.match_id, current.number, current.turns, current.step, away), delay)


class RoomTimers:
    """A room's six timers, each running the room's job for it when it rings; and the turn
    timer's time left while it is paused (nobody connected)."""

    __slots__ = ("back", "bot", "host", "idle", "paused", "ready", "turn")

    def __init__(
        self,
        clock: Clock,
        turn: Callable[[TurnKey], Awaitable[None]],
        ready: Callable[[ReadyKey], Awaitable[None]],
        bot: Callable[[BotKey], Awaitable[None]],
        idle: Callable[[IdleKey], Awaitable[None]],
        host: Callable[[HostKey], Awaitable[None]],
        back: Callable[[BackKey], Awaitable[None]],
    ) -> None:
        self.turn: Timer[TurnKey] = Timer(clock, turn)
        self.ready: Timer[ReadyKey] = Timer(clock, ready)
        self.back: Timer[BackKey] = Timer(clock, back)
        self.bot: Timer[BotKey] = Timer(clock, bot)
        self.idle: Timer[IdleKey] = Timer(clock, idle)
        self.host: Timer[HostKey] = Timer(clock, host)
        self.paused: tuple[TurnKey, float] | None = None

    def follow(
        self,
        state: RoomState,
        here: set[int],
        standins: AbstractSet[int],
        config: RoomConfig,
        back: float | None = None,
    ) -> None:
        """Set or clear the turn, ready, back and bot timers to match the state after a change;
        ``back``: between rounds, until when (the clock's steady seconds) a player who lost
        their link is waited for."""
        planned = bot_turn(state, here, standins, config)
        if planned is None:
            self.bot.clear()
        else:
            self.bot.set(planned.key, planned.delay)
        turn = turn_key(state, here)
        if turn is None:
            held = self.turn.key
            if held is not None and not here and held == timed_turn(state):
                self.paused = (held, self.turn.left())  # everyone left: the turn waits
            self.turn.clear()
        elif turn != self.turn.key:
            paused, self.paused = self.paused, None
            whole = state.settings.turn_seconds
            left = paused[1] if paused is not None and paused[0] == turn else whole
            self.turn.set(turn, min(left, whole))
        ready = ready_key(state)
        if ready is None:
            self.ready.clear()
        else:
            self.ready.set(ready, config.ready_seconds)
        waiting = self.back.key
        if back is not None and ready is not None:
            self.back.set(BackKey(*ready, back), max(0.0, back - self.back.clock.steady()))
        elif waiting is not None and (ready is None or waiting.until > self.back.clock.steady()):
            self.back.clear()  # the pause is over, or nobody is waited for any more
        # Else a wait that has just ended is left to ring: the change that comes first deals.

    def stand_still(self) -> None:
        """While a change is held, the turn, the pause between rounds and a bot's turn stand
        still: nobody can act meanwhile, so nobody's time runs. (The wait between rounds for a
        player who lost their link runs on: they can come back meanwhile.)"""
        for timer in (self.bot, self.turn, self.ready):
            timer.stand_still()

    def go_on(self) -> None:
        """Once the held change is shown, each goes on with the time it had left; the bot's
        first, as ``follow`` sets them, so that a bot whose time comes with the turn's plays."""
        for timer in (self.bot, self.turn, self.ready):
            timer.go_on()

    def stop(self) -> None:
        """Clear every timer."""
        for timer in (self.turn, self.ready, self.back, self.bot, self.idle, self.host):
            timer.clear()
        self.paused = None
