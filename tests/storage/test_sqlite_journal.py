"""The SQLite journal: written in the server's own thread, checkpointed beside it, never blocking
play on a database someone else has locked."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import time
from pathlib import Path

from app.rooms.registry import hash_token
from app.rooms.settings import RoomSettings
from app.rooms.state import RoomState
from app.storage.db import make_engine
from app.storage.store import DatabaseStore
from tests.server import migrate


def events_in(path: Path, code: str) -> int:
    with sqlite3.connect(path) as connection:
        row = connection.execute(
            "SELECT count(*) FROM live_room_events WHERE code = ?", (code,)
        ).fetchone()
    return int(row[0])


def churn(state: RoomState, times: int) -> None:
    """Events: a player sits down and leaves again."""
    for n in range(times):
        seat = state.join(f"P{n}", hash_token(f"t{n}"), n)
        state.leave(seat)


async def test_checkpoints_copy_the_log_into_the_database_file(tmp_path: Path) -> None:
    path = tmp_path / "spectrum.db"
    migrate(f"sqlite+aiosqlite:///{path}")
    store = DatabaseStore(make_engine(f"sqlite+aiosqlite:///{path}"), flush_seconds=0)
    store.start()
    state = RoomState("ABCD-EFGH", RoomSettings(), 0)
    try:
        for _ in range(300):
            churn(state, 1)
            await store.save(state)
        assert events_in(path, state.code) == 600  # through the log, as any reader sees it
        # The database file alone (without its write-ahead log) comes to hold them too.
        alone = tmp_path / "alone.db"
        deadline = time.monotonic() + 10
        while True:
            shutil.copyfile(path, alone)
            written = events_in(alone, state.code)
            if written >= 500:
                break
            assert time.monotonic() < deadline, f"only {written} events checkpointed"
            await asyncio.sleep(0.05)
    finally:
        await store.stop()
        await store.engine.dispose()


async def test_a_database_locked_by_another_writer_does_not_hold_up_play(tmp_path: Path) -> None:
    path = tmp_path / "spectrum.db"
    url = f"sqlite+aiosqlite:///{path}"
    migrate(url)
    store = DatabaseStore(make_engine(url), flush_seconds=0)
    store.start()
    state = RoomState("ABCD-EFGH", RoomSettings(), 0)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        churn(state, 1)
        await store.save(state)
        other.execute("BEGIN IMMEDIATE")  # a backup or a second program writing
        churn(state, 2)
        started = time.monotonic()
        await store.save(state)
        assert time.monotonic() - started < 0.5, "play does not wait for the lock"
        assert store.failing
        assert store.backlog == 1
        assert "locked" in (store.last_error or "")
        churn(state, 1)
        await store.save(state)  # queued behind the first, in order
        assert store.backlog == 2
        other.execute("COMMIT")
        deadline = time.monotonic() + 10
        while store.backlog or store.failing:
            assert time.monotonic() < deadline, store.last_error
            await asyncio.sleep(0.05)
        assert events_in(path, state.code) == 8
        with sqlite3.connect(path) as reader:
            seqs = [row[0] for row in reader.execute("SELECT seq FROM live_room_events")]
        assert sorted(seqs) == list(range(8))
    finally:
        other.close()
        await store.stop()
        await store.engine.dispose()
