"""Profile the game server under load with py-spy; prints where its time goes.

Run: .venv/bin/python -m bench.profile [--rooms 500] [--players 4] [--seconds 12] [--native]
         [--whole] [--keep FILE] [--database postgresql+asyncpg://postgres@127.0.0.1:5432/postgres]
Needs py-spy (pip install py-spy). The server runs on core 0, the load on core 1.

By default py-spy reads the server's stacks while it runs, which costs the server next to
nothing but can tear a stack (its outer frames read before a call returned, its inner ones
after the next began): with 1,000 rooms of 4, a sixth of the samples or more lack their
outermost frames or hold callers that never made those calls.
``--whole`` stops the server for each sample and keeps only the thread that holds the
interpreter's lock: every stack whole, and what runs outside the lock (the event log's fold
inside SQLite, say) left out. ``--native`` stops the server too, and keeps every thread.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from bench import load


def py_spy() -> str:
    """py-spy from this environment (as `pip install py-spy` in .venv puts it), else from PATH."""
    beside = Path(sys.executable).parent / "py-spy"
    found = str(beside) if beside.exists() else shutil.which("py-spy")
    if found is None:
        raise SystemExit("py-spy is needed: .venv/bin/pip install py-spy")
    return found


async def record(
    rooms: int,
    players: int,
    seconds: float,
    output: Path,
    native: bool = False,
    database: str | None = None,
    whole: bool = False,
) -> float:
    """Load a server, record it with py-spy, return server CPU microseconds per action."""
    with tempfile.TemporaryDirectory() as folder:
        server = load.Server(True, load.free_port(), folder, database=database)
        try:
            bench = load.Bench(server.url, server.url.replace("http", "ws"), True)
            await bench.setup(rooms, players)
            await bench.run(2, 1.0)
            spy = await asyncio.create_subprocess_exec(
                *[
                    py_spy(),
                    "record",
                    "-p",
                    str(server.process.pid),
                    "-d",
                    str(int(seconds)),
                    "-r",
                    "250",
                    "-f",
                    "raw",
                    "-o",
                    str(output),
                    # py-spy reads native stacks only with the process stopped for a sample.
                    *(["--native"] if native else ["--gil"] if whole else ["--nonblocking"]),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            cpu = load.cpu_seconds(server.process.pid)
            bench.stats = load.Stats()
            await bench.run(seconds, 1.0)
            used = load.cpu_seconds(server.process.pid) - cpu
            await spy.wait()
            await bench.close()
            return used / max(bench.stats.actions, 1) * 1e6
        finally:
            server.stop()


def summarise(path: Path, top: int) -> None:
    """Self and inclusive shares of the hottest frames."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    pending = ""
    for line in path.read_text().splitlines():
        # A frame's name can hold a line break; its stack then goes on on the next line.
        stack, _, count = (pending + line).rpartition(" ")
        if not count.isdigit():
            pending += line + "\n"
            continue
        pending = ""
        samples = int(count)
        total += samples
        frames = stack.split(";")
        own[frames[-1]] += samples
        for frame in set(frames):
            inclusive[frame] += samples
    print(f"{total} samples")
    print("-- self")
    for frame, samples in own.most_common(top):
        print(f"{samples / total * 100:5.1f}% {frame[:140]}")
    print("-- inclusive")
    for frame, samples in inclusive.most_common(top * 3):
        print(f"{samples / total * 100:5.1f}% {frame[:140]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rooms", type=int, default=500)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=12)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--native", action="store_true", help="show C frames too")
    parser.add_argument(
        "--whole",
        action="store_true",
        help="whole stacks, of the thread holding the interpreter's lock only",
    )
    parser.add_argument("--keep", type=Path, help="keep py-spy's raw stacks in this file")
    parser.add_argument(
        "--database",
        help="a PostgreSQL server (postgresql+asyncpg://user@host:port/db) on which the run "
        "gets a fresh database for the journal (default: SQLite)",
    )
    arguments = parser.parse_args()
    os.sched_setaffinity(0, {load.CLIENT_CORE})
    with tempfile.TemporaryDirectory() as folder:
        output = arguments.keep or Path(folder) / "profile.txt"
        per_action = asyncio.run(
            record(
                arguments.rooms,
                arguments.players,
                arguments.seconds,
                output,
                arguments.native,
                arguments.database,
                arguments.whole,
            )
        )
        print(f"server CPU per action: {per_action:.0f} us")
        summarise(output, arguments.top)


if __name__ == "__main__":
    main()
