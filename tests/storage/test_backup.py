"""A backup of a running server's SQLite database holds every finished round and live room."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests import fetch
from tests.e2e.matches import play_matches
from tests.rooms.client import Client, create_room, join_room
from tests.server import FAST, ROOT, migrate, running_server, server_env


def run_backup(url: str, dest: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.scripts.backup", str(dest)],
        cwd=ROOT,
        env=server_env(DATABASE_URL=url),
        capture_output=True,
        text=True,
        timeout=60,
    )


def rounds_in(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(path)) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return int(connection.execute("SELECT count(*) FROM rounds").fetchone()[0])


async def test_a_backup_taken_while_the_server_runs_holds_everything(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    dest = tmp_path / "copy" / "backup.db"
    dest.parent.mkdir()
    with running_server(url, **FAST) as server:
        await play_matches(server, ["Ann", "Bob"], 3)
        # A room under way, whose latest events are in the event log beside the database.
        room = create_room(server, "Cy", turn_seconds=0)
        join_room(server, room["code"], "Dee")
        host = Client(server, room["code"], room["token"])
        await host.connect()
        await host.act("start")
        await host.act("chat", text="mid-game")
        matches = fetch.get(f"{server.url}/api/matches").json()["matches"]
        shown = fetch.get(f"{server.url}/api/rooms/{room['code']}").json()
        await host.close()

        done = run_backup(url, dest)
        assert done.returncode == 0, done.stderr
        assert "copied" in done.stdout
        assert rounds_in(dest) == 3
        assert run_backup(url, dest).returncode != 0  # never over an earlier copy

    # The copy serves as the original did.
    with running_server(f"sqlite+aiosqlite:///{dest}", **FAST) as restored:
        assert fetch.get(f"{restored.url}/api/matches").json()["matches"] == matches
        again = fetch.get(f"{restored.url}/api/rooms/{room['code']}").json()
        assert [p["name"] for p in again["players"]] == [p["name"] for p in shown["players"]]
        assert again["status"] == shown["status"] == "playing"  # its start, from the event log


def test_postgresql_is_pointed_to_its_own_tools(tmp_path: Path) -> None:
    done = run_backup("postgresql+asyncpg://spectrum@127.0.0.1/spectrum", tmp_path / "x.db")
    assert done.returncode == 1
    assert "pg_dump" in done.stderr
    assert not (tmp_path / "x.db").exists()
