"""The journal's cost per save, through the store rooms use: events, a new room, a finished round.

Run: .venv/bin/python -m bench.journal [--saves 5000] [--url postgresql+asyncpg://...]
Without --url it writes a fresh SQLite file in a temporary folder (events go to its event log).
A database given with --url is migrated as the server would, and must hold no rooms yet.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from sqlalchemy import func, select

from app.engine.match import Match, MatchRules, RoundResult
from app.rooms.registry import hash_token
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState
from app.rooms.store import FinishedRound
from app.storage.db import make_engine
from app.storage.statements import ROOMS
from app.storage.store import DatabaseStore

ROOT = Path(__file__).resolve().parents[1]


def a_round_result() -> RoundResult:
    """A round of four players played to its end with random moves."""
    rng = random.Random(1)
    match = Match(4, MatchRules(rounds=1), "bench")
    current = match.start_round()
    while True:
        result = match.apply(current.random_action(rng))
        if result is not None:
            return result


async def timed(saves: int, save: Callable[[int], Awaitable[None]]) -> tuple[float, float]:
    """Microseconds a save, and of them this process's CPU, in the quickest of three runs (the
    rest is the database server's and the waits for it)."""
    best = (float("inf"), float("inf"))
    for run in range(3):
        started, cpu = time.perf_counter(), time.process_time()
        for n in range(saves):
            await save(run * saves + n)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        best = min(best, (elapsed / saves * 1e6, cpu / saves * 1e6))
    return best


def migrate(url: str) -> None:
    """The schema as the server makes it (its sequences included), or a clear exit."""
    migrated = subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": url, "REDIS_URL": "", "CLUSTER_NAME": ""},
        capture_output=True,
        text=True,
    )
    if migrated.returncode:
        raise SystemExit(f"{url} could not be migrated:\n{migrated.stderr}")


async def run(url: str, saves: int, outbox: Path) -> None:
    migrate(url)
    engine = make_engine(url)
    async with engine.connect() as connection:
        if await connection.scalar(select(func.count()).select_from(ROOMS)):
            await engine.dispose()
            raise SystemExit(f"{url} holds rooms already: give a fresh database")
    store = DatabaseStore(engine, flush_seconds=0, outbox=outbox)
    store.start()
    room = RoomState("BENC-HMRK", RoomSettings(), 0)
    result = a_round_result()
    names = ("Ann", "Bob", "Cy", "Dee")

    async def events(n: int) -> None:
        room.join("P", hash_token("p"), n)
        room.leave(len(room.seats) - 1)
        await store.save(room)

    async def new_room(n: int) -> None:
        state = RoomState(f"N{n:07d}"[:9], RoomSettings(), n)
        state.join("Ann", hash_token("ann"), n)
        await store.save(state)

    async def finished_round(n: int) -> None:
        finished = FinishedRound(
            f"match{n:027d}", "BENC-HMRK", {"rounds": 1}, n, names, result, n + 1, True,
            (1, 2, 3, 4),
        )  # fmt: skip
        await store.save(None, [finished])

    try:
        for name, save in (("events", events), ("new room", new_room), ("round", finished_round)):
            elapsed, cpu = await timed(saves, save)
            print(f"{name:>9}: {elapsed:8.1f} µs a save, {cpu:6.1f} µs of them this process's CPU")
    finally:
        await store.stop()
        await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--saves", type=int, default=5000)
    parser.add_argument("--url")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = arguments.url or f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}"
        asyncio.run(run(url, arguments.saves, Path(folder) / "outbox"))


if __name__ == "__main__":
    main()
