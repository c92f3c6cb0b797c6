"""The room's own cost per action, without sockets or a database: parse, apply, views, patches.

Run: .venv/bin/python -m bench.room [--players 4] [--actions 20000] [--profile]
         [--encoding standard|compact|binary] [--rooms 1] [--turn-seconds 0]
     .venv/bin/python -m bench.room --sizes [--players 4] [--actions N] [--turn-seconds 60]
Connections are stand-ins whose send does nothing; storage keeps nothing.

With --sizes it instead plays whole matches and compares every patch a player receives with
the full state it updates (that player's state just after the patch, as a resync would send it).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import random
import statistics
import time
from collections.abc import AsyncIterator
from typing import Any

import orjson

from app.collection import Connections, start_collecting
from app.rooms import protocol
from app.rooms.connection import Connection
from app.rooms.frames import CONNECTIONS
from app.rooms.live import LiveRoom, RoomConfig
from app.rooms.registry import hash_token
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState
from app.rooms.timers import LoopClock


async def _discard(message: dict[str, Any]) -> None:
    return None


def next_message(
    room: LiveRoom, rng: random.Random, knock_chance: float = 0.03
) -> tuple[int, bytes]:
    """The seat that acts next and its message, as a client would send it."""
    state = room.state
    if state.status.value == "round_over":
        seat = next(i for i, s in enumerate(state.seats) if not s.ready)
        return seat, b'{"type":"ready"}'
    if state.status.value == "finished":
        return 0, b'{"type":"rematch"}'
    current = state.match.round  # type: ignore[union-attr]
    seat = current.turn
    action = current.random_action(rng, knock_chance=knock_chance)
    message = {"take": lambda: {"type": "take", "piles": list(getattr(action, "piles", []))}}
    kind = type(action).__name__.lower()
    if kind == "take":
        body = message["take"]()
    elif kind == "discard":
        from app.engine.cards import card_ids

        body = {"type": "discard", "cards": card_ids(action.cards)}  # type: ignore[attr-defined]
    else:
        body = {"type": "knock"}
    return seat, orjson.dumps(body)


async def seated_room(
    code: str,
    settings: RoomSettings,
    sends: list[Any],
    encoding: str,
    max_queue: int,
    clock: LoopClock | None = None,
) -> tuple[LiveRoom, list[Connection]]:
    """A room with a connection for each of ``sends`` (in ``encoding``, each sending through
    its own), a player in every seat, whose match has begun."""
    state = RoomState(code, settings, 0)
    for seat in range(len(sends)):
        state.join(f"P{seat}", hash_token(f"t{seat}"), 0)
    room = LiveRoom(state, RoomConfig(), lambda room: None, clock=clock)
    kind = CONNECTIONS[encoding]
    connections = [kind(send, seat, max_queue) for seat, send in enumerate(sends)]
    for connection in connections:
        await room.attach(connection)
    await room.handle(connections[0], protocol.parse_message(b'{"type":"start"}'))
    return room, connections


async def run(
    players: int,
    actions: int,
    profile: bool,
    encoding: str = "standard",
    rooms: int = 1,
    turn_seconds: int = 0,
) -> None:
    # The server's garbage collection policy (what importing made frozen, the old generations
    # left alone during play): CPython's default walks every room again and again.
    collecting = start_collecting(Connections())
    settings = RoomSettings(turn_seconds=turn_seconds)
    sends = [_discard] * players
    tables = [
        await seated_room(f"{number:04d}-EFGH", settings, sends, encoding, 256)
        for number in range(rooms)
    ]
    rng = random.Random(1)
    plan = []
    profiler = cProfile.Profile() if profile else None
    started, cpu = time.perf_counter(), time.process_time()
    if profiler:
        profiler.enable()
    for _ in range(actions):
        # One room after another at random, as a server's rooms take their turns: with many
        # rooms each action finds less of its room in the processor's caches.
        room, connections = tables[rng.randrange(rooms)] if rooms > 1 else tables[0]
        seat, raw = next_message(room, rng)
        plan.append(raw)
        await room.handle(connections[seat], protocol.parse_message(raw))
    if profiler:
        profiler.disable()
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    # The process's CPU time as well as the clock's: on a shared machine the clock also
    # counts the time other processes held the core.
    where = f", {rooms} rooms" if rooms > 1 else ""
    timer = f", turn timer {turn_seconds} s" if turn_seconds else ""
    print(
        f"{players} players, {encoding}{where}{timer}: {elapsed / actions * 1e6:.1f} us per "
        f"action, {cpu / actions * 1e6:.1f} us of CPU (parse, apply, views, patches, frames for "
        f"{players} connections)"
    )
    collecting.cancel()
    if profiler:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


class Recorder:
    """A send that keeps the size of every frame and the text of the last one (of every one
    when ``keep``); a binary frame is kept as its bytes."""

    def __init__(self, keep: bool = False) -> None:
        self.sizes: list[int] = []
        self.last: str | bytes = ""
        self.texts: list[str | bytes] | None = [] if keep else None

    async def __call__(self, message: dict[str, Any]) -> None:
        text = message.get("text")
        frame: str | bytes = message.get("bytes", b"") if text is None else text
        self.sizes.append(len(frame.encode() if isinstance(frame, str) else frame))
        self.last = frame
        if self.texts is not None:
            self.texts.append(frame)


class SteppedClock(LoopClock):
    """The loop's timers, at a time the benchmark moves on itself."""

    def __init__(self) -> None:
        super().__init__()
        self.time = 1_800_000_000.0

    def now(self) -> float:
        return self.time


async def started_room(
    players: int,
    turn_seconds: int,
    clock: SteppedClock,
    encoding: str = "standard",
    rounds: int = RoomSettings().rounds,
    keep: bool = False,
) -> tuple[LiveRoom, list[Recorder], list[Connection]]:
    """A room of ``players`` recorded connections (in ``encoding``, keeping every frame when
    ``keep``) whose match of ``rounds`` has begun."""
    settings = RoomSettings(turn_seconds=turn_seconds, rounds=rounds)
    recorders = [Recorder(keep) for _ in range(players)]
    room, connections = await seated_room(
        "ABCD-EFGH", settings, recorders, encoding, 1 << 20, clock
    )
    return room, recorders, connections


async def played(
    room: LiveRoom,
    recorders: list[Recorder],
    connections: list[Connection],
    clock: SteppedClock,
    actions: int,
    knock_chance: float = 0.03,
    ids: bool = True,
) -> AsyncIterator[tuple[str, int]]:
    """Play ``actions`` random moves, each with an id unless not ``ids``, the clock moved 1 to
    8 s before each; after each, (the move's type, a player's index) for every player a frame
    was sent to."""
    rng = random.Random(1)
    for number in range(actions):
        seat, raw = next_message(room, rng, knock_chance)
        kind = orjson.loads(raw)["type"]
        if ids:
            raw = raw[:-1] + b',"id":%d}' % (number % 1000)
        clock.time += rng.randrange(1000, 8000) / 1000
        before = [len(recorder.sizes) for recorder in recorders]
        await room.handle(connections[seat], protocol.parse_message(raw))
        for index, recorder in enumerate(recorders):
            if len(recorder.sizes) > before[index]:
                yield kind, index


async def sizes(players: int, actions: int, turn_seconds: int) -> None:
    """Bytes of each patch against the bytes of the full state it brings up to date.

    The room's clock moves 1 to 8 seconds between actions (so each turn has its own deadline)
    and every message carries an id, as the browser client's do.
    """
    clock = SteppedClock()
    room, recorders, connections = await started_room(players, turn_seconds, clock)
    patches: list[int] = []
    states: list[int] = []
    ratios: list[float] = []
    samples: dict[str, list[str]] = {}
    async for kind, index in played(room, recorders, connections, clock, actions):
        recorder, connection = recorders[index], connections[index]
        patch = recorder.sizes[-1]
        full = len(
            protocol.state_frame(connection.version, {**room.public, "you": connection.you}, 0)
        )
        patches.append(patch)
        states.append(full)
        ratios.append(patch / full)
        samples.setdefault(kind, []).append(recorder.last)
    quartiles = statistics.quantiles(ratios, n=10)
    print(
        f"{players} players, turn timer {turn_seconds} s, "
        f"{len(patches)} patches over {actions} actions: "
        f"patch mean {statistics.mean(patches):.0f} B (median {statistics.median(patches):.0f}), "
        f"full state mean {statistics.mean(states):.0f} B; patch/state median "
        f"1/{1 / statistics.median(ratios):.1f}, p90 1/{1 / quartiles[8]:.1f}, "
        f"mean of patches / mean of states "
        f"1/{statistics.mean(states) / statistics.mean(patches):.1f}"
    )
    for kind, texts in sorted(samples.items()):
        typical = sorted(texts, key=len)[len(texts) // 2]
        print(f"  typical patch after {kind} ({len(typical)} B): {typical}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--actions", type=int, default=20000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--sizes", action="store_true")
    parser.add_argument("--rooms", type=int, default=1, help="actions spread over this many rooms")
    parser.add_argument(
        "--turn-seconds", type=int, help="turn timer (default: 60 with --sizes, else none)"
    )
    parser.add_argument("--encoding", choices=sorted(CONNECTIONS), default="standard")
    arguments = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    if arguments.sizes:
        turn = 60 if arguments.turn_seconds is None else arguments.turn_seconds
        asyncio.run(sizes(arguments.players, arguments.actions, turn))
        return
    asyncio.run(
        run(
            arguments.players,
            arguments.actions,
            arguments.profile,
            arguments.encoding,
            max(1, arguments.rooms),
            arguments.turn_seconds or 0,
        )
    )


if __name__ == "__main__":
    main()
