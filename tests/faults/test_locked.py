"""SQLite's write lock held by another program (a backup, a second tool) as a match's last
round ends: the move's events reach the event log, the round's commit cannot. Killed then, and
started again once the lock is gone, the server comes back with the match finished, and its
last round is stored: every round a room shows is in the history."""

import contextlib
import re
import signal
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

from tests import fetch
from tests.faults.table import Table, new_server, ready, until, waits_for_its_outbox
from tests.rooms.client import closed_with
from tests.server import Server


@contextlib.asynccontextmanager
async def last_round_held(
    tmp_path: Path,
) -> AsyncIterator[tuple[Server, sqlite3.Connection, Table, str]]:
    """A server on an SQLite file in ``tmp_path``, and a one-round match played there, with
    SQLite's write lock held by another connection (the locker), until the move that ends it
    is held: moves go on into the event log, the round's commit waits for the lock. The
    server, the locker, the table and its match's id; the locker closed and the server killed
    after."""
    path = tmp_path / "spectrum.db"
    server = new_server(f"sqlite+aiosqlite:///{path}")
    server.start()
    locker = sqlite3.connect(path, isolation_level=None)
    try:
        table = Table(server, players=2, rounds=1)
        await table.connect()
        await table.start()
        match_id: str = table.state["match_id"]
        locker.execute("BEGIN IMMEDIATE")
        await table.play_until_held(knock_chance=0.2)
        yield server, locker, table, match_id
    finally:
        locker.close()
        server.stop(signal.SIGKILL)


async def finished_and_stored(server: Server, table: Table, match_id: str) -> str:
    """Reconnected, every player sees the match finished, and its every round is stored;
    the match's address in the history."""
    await table.connect()
    for client in table.clients:
        await client.wait_for(lambda s: s["status"] == "finished", 30)
    address = f"{server.url}/api/matches/{match_id}"
    await until(lambda: fetch.get(address, timeout=10).status_code == 200, 60, "stored")
    table.check_history()
    return address


async def test_a_last_round_whose_commit_was_locked_out_is_stored_after_a_restart(
    tmp_path: Path,
) -> None:
    async with last_round_held(tmp_path) as (server, locker, table, match_id):
        assert table.state["status"] == "playing"

        server.stop(signal.SIGKILL)
        for client in table.clients:
            await client.wait_closed()
        locker.execute("ROLLBACK")
        server.start()
        await until(lambda: ready(server), 60, "/readyz ready after the restart")
        address = await finished_and_stored(server, table, match_id)
        assert table.rounds == 1
        assert fetch.get(address, timeout=10).json()["status"] == "finished"
        await table.close()


async def test_rooms_whose_writes_waited_at_a_stop_come_back_once_the_database_takes_them(
    tmp_path: Path,
) -> None:
    """Stopped while a write waits for the lock, the server keeps it in its outbox; started
    again with the lock still held, it cannot write the outbox, so it cannot restore its rooms
    yet: it serves, says so in /readyz, and restores them as soon as the lock is gone, with no
    second restart."""
    async with last_round_held(tmp_path) as (server, locker, table, match_id):
        server.stop()  # a stop that keeps the waiting write in the outbox
        assert (tmp_path / "spectrum.db-outbox").stat().st_size > 0

        server.start()
        room = f"{server.url}/api/rooms/{table.code}"
        waits_for_its_outbox(server)
        # Said in one line with the reason: a traceback at ERROR for a locked file was noise.
        (said,) = [line for line in server.logs().splitlines() if "outbox could not be" in line]
        assert "WARNING" in said, said
        assert "(TimeoutError: the database did not take the outbox in time)" in said, said
        assert "Traceback" not in server.logs()
        # Its players are told to come back in a moment, not that the room is gone.
        waiting = fetch.get(room, timeout=10)
        assert waiting.status_code == 503
        assert waiting.json()["code"] == "restoring"
        assert waiting.headers["retry-after"] == "2"
        hello = {"type": "hello", "token": table.seats[0]["token"]}
        assert await closed_with(server, table.code, hello) == (
            1013,
            "the server is restoring its rooms; try again in a moment",
        )

        locker.execute("ROLLBACK")
        await until(lambda: fetch.get(room, timeout=10).status_code == 200, 90, "restored")
        await until(lambda: ready(server), 60, "/readyz ready")
        assert "the rooms kept at the last stop are restored" in server.logs()
        assert re.search(r"restored 1 room\b(?!s)", server.logs())
        await finished_and_stored(server, table, match_id)
        await table.close()
