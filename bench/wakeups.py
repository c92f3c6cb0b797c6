"""What a wake-up of the process costs: a thousand timer callbacks a second, each on a timer of
its own, against the same callbacks run several at a time by one timer.

    .venv/bin/python -m bench.wakeups [--seconds 10] [--together 1 20]

A bare uvloop loop, pinned to one core, with nothing else to do: the process sleeps in the
kernel between timers, as a quiet server does between its connections' keepalive pings.
Prints the process's CPU time per callback for each grouping.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

import uvloop

from bench.load import SERVER_CORE

PER_SECOND = 1000


async def callbacks(together: int, seconds: float) -> float:
    """CPU µs per callback, ``together`` callbacks a timer, PER_SECOND callbacks a second."""
    loop = asyncio.get_running_loop()
    count = 0

    def callback() -> None:
        nonlocal count
        count += 1

    def tick() -> None:
        for _ in range(together):
            callback()
        loop.call_later(together / PER_SECOND, tick)

    started = time.process_time()
    loop.call_later(together / PER_SECOND, tick)
    await asyncio.sleep(seconds)
    return (time.process_time() - started) / max(1, count) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--together", type=int, nargs="+", default=[1, 20])
    arguments = parser.parse_args()
    os.sched_setaffinity(0, {SERVER_CORE})
    for together in arguments.together:
        cpu = uvloop.run(callbacks(together, arguments.seconds))
        print(f"{together:>3} callbacks a timer: {cpu:.1f} µs of CPU a callback")


if __name__ == "__main__":
    main()
