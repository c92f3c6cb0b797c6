"""A backup of a running server's SQLite database holds every finished round and live room; a
restore puts it back in place whole."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy.engine import make_url

from app.scripts.restore import Refused, claimed
from tests import fetch
from tests.databases import admin, fetch_value, postgres_database
from tests.e2e.matches import play_matches
from tests.faults.table import new_server
from tests.rooms.client import Client, create_room, join_room
from tests.server import FAST, ROOT, alembic_config, migrate, running_server, server_env
from tests.storage.test_migrations import _insert, _old_match, revision

# The user a restore runs as when the tests are root's: nobody.
NOBODY = 65534


def run_script(script: str, url: str, path: Path) -> subprocess.CompletedProcess[str]:
    """``python -m app.scripts.<script> PATH`` with the server's DATABASE_URL."""
    return subprocess.run(
        [sys.executable, "-m", f"app.scripts.{script}", str(path)],
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

        done = run_script("backup", url, dest)
        assert done.returncode == 0, done.stderr
        assert "copied" in done.stdout
        assert rounds_in(dest) == 3
        # Like the database, the copy holds the seed of the round being played: its user's alone.
        live_copy = dest.with_name("backup.db-live")
        for path in (dest, live_copy, *live_copy.iterdir()):
            assert path.stat().st_mode & 0o077 == 0, (path, oct(path.stat().st_mode))
        assert run_script("backup", url, dest).returncode != 0  # never over an earlier copy

    # The copy serves as the original did.
    with running_server(f"sqlite+aiosqlite:///{dest}", **FAST) as restored:
        assert fetch.get(f"{restored.url}/api/matches").json()["matches"] == matches
        again = fetch.get(f"{restored.url}/api/rooms/{room['code']}").json()
        assert [p["name"] for p in again["players"]] == [p["name"] for p in shown["players"]]
        assert again["status"] == shown["status"] == "playing"  # its start, from the event log


def test_postgresql_is_pointed_to_its_own_tools(tmp_path: Path) -> None:
    done = run_script(
        "backup", "postgresql+asyncpg://spectrum@127.0.0.1/spectrum", tmp_path / "x.db"
    )
    assert done.returncode == 1
    assert "pg_dump" in done.stderr
    assert not (tmp_path / "x.db").exists()


async def test_a_restore_after_a_server_was_killed_gives_the_backup(tmp_path: Path) -> None:
    """A server killed outright leaves SQLite's write-ahead log beside its database, which
    SQLite would replay over a backup put back by hand; the restore moves it aside with the
    rest of what it replaces (the outbox too), refuses while a server runs, and gives back
    exactly the backup's history."""
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    backup = tmp_path / "backup.db"
    with running_server(url, **FAST) as server:
        await play_matches(server, ["Ann", "Bob"], 1)
        backed_up = fetch.get(f"{server.url}/api/matches").json()["matches"]
        assert run_script("backup", url, backup).returncode == 0
        await play_matches(server, ["Cy", "Dee"], 2)
        refused = run_script("restore", url, backup)
        assert refused.returncode == 1
        assert refused.stderr.startswith("cannot restore: ")
        said = f"is served by another server (process {server.process.pid}): stop the server first"
        assert said in refused.stderr
        assert len(fetch.get(f"{server.url}/api/matches").json()["matches"]) == 3
        server.stop(signal.SIGKILL)
    restored_after_a_kill(tmp_path, url, backup, backed_up)


def restored_after_a_kill(
    tmp_path: Path, url: str, backup: Path, backed_up: list[dict[str, object]]
) -> None:
    assert (tmp_path / "spectrum.db-wal").stat().st_size > 0  # SQLite would replay it
    (tmp_path / "spectrum.db-outbox").write_bytes(b"kept at a stop of the database replaced\n")

    done = run_script("restore", url, backup)
    assert done.returncode == 0, done.stderr
    [aside] = tmp_path.glob("spectrum.db-replaced-*")
    assert {path.name for path in aside.iterdir()} >= {"spectrum.db", "spectrum.db-outbox"}
    assert not (tmp_path / "spectrum.db-outbox").exists()
    assert rounds_in(aside / "spectrum.db") == 3  # the replaced history, whole, kept aside
    with running_server(url, **FAST) as restored:
        assert fetch.get(f"{restored.url}/api/matches").json()["matches"] == backed_up
        assert fetch.get(f"{restored.url}/readyz").status_code == 200


def test_a_server_started_during_a_restore_waits_for_it_to_end(tmp_path: Path) -> None:
    """A restore holds the database file as a server does: a server started meanwhile refuses
    (it would find the file half replaced), and starts once the restore is over."""
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    database = tmp_path / "spectrum.db"
    starting = new_server(url)
    with claimed(database):
        with pytest.raises(RuntimeError, match="server exited early"):
            starting.start()
        assert starting.process is not None
        assert starting.process.returncode == 3
        said = f"is being restored (process {os.getpid()}): wait for it to end"
        assert said in starting.logs()
    starting.start()
    try:
        assert fetch.get(f"{starting.url}/readyz").status_code == 200
        said = f"is served by another server (process {starting.process.pid}): stop the server"
        with pytest.raises(Refused, match=re.escape(said)), claimed(database):
            pass
    finally:
        starting.stop()


def test_the_sqlite_lock_of_another_program_still_refuses_a_restore(tmp_path: Path) -> None:
    """A program other than a server with the database open (a shell, a reporting tool)
    holds no claim on the file, but SQLite's own lock still stops the restore."""
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    backup = tmp_path / "backup.db"
    shutil.copy(tmp_path / "spectrum.db", backup)
    before = sorted(path.name for path in tmp_path.iterdir())
    with contextlib.closing(sqlite3.connect(tmp_path / "spectrum.db")) as reader:
        reader.execute("BEGIN IMMEDIATE")
        done = run_script("restore", url, backup)
    assert done.returncode == 1
    assert "spectrum.db is in use: stop the server first" in done.stderr
    after = sorted(path.name for path in tmp_path.iterdir())
    assert after == sorted([*before, "spectrum.db.lock"])  # the claim's file, let go


@pytest.mark.parametrize("made", ["missing", "not a database", "in use"])
def test_what_is_not_a_backup_is_refused_and_nothing_moved(made: str, tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    backup = tmp_path / "backup.db"
    if made == "not a database":
        backup.write_text("hello")
    if made == "in use":
        shutil.copy(tmp_path / "spectrum.db", backup)
        Path(f"{backup}-wal").write_bytes(b"\0" * 32)
    before = sorted(path.name for path in tmp_path.iterdir())
    done = run_script("restore", url, backup)
    assert done.returncode == 1
    assert done.stderr.startswith("cannot restore:")
    assert sorted(path.name for path in tmp_path.iterdir()) == before


def pg_tool(name: str) -> str:
    """The path of a PostgreSQL client program (the README's restore runs them in the database's
    container)."""
    found = shutil.which(name)
    if found is None:
        if os.environ.get("REQUIRE_POSTGRES") == "1":
            pytest.fail(f"REQUIRE_POSTGRES=1 but {name} is not installed")
        pytest.skip(f"{name} is not installed (Debian: postgresql-client)")
    return found


README_RESTORE = re.compile(r"docker compose exec -T db sh -ec '(.*?)' < spectrum\.dump", re.S)


def readme_restore(url: str, dump: Path) -> subprocess.CompletedProcess[str]:
    """The README's PostgreSQL restore, its script as written there, run against the database
    at ``url`` (the README's user and database ``spectrum`` made this test's) from ``dump``."""
    found = README_RESTORE.search((ROOT / "README.md").read_text())
    assert found, "the README's restore script"
    database = make_url(url)
    assert database.database
    script = found[1].replace("-U spectrum ", "").replace("spectrum", database.database)
    env = {
        **os.environ,
        "PGHOST": database.host or "127.0.0.1",
        "PGPORT": str(database.port or 5432),
        "PGUSER": database.username or "postgres",
    }
    for tool in ("dropdb", "createdb", "pg_restore", "psql"):
        pg_tool(tool)
    with dump.open("rb") as given:
        done = subprocess.run(["sh", "-ec", script], stdin=given, env=env, capture_output=True)
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def named(url: str, database: str) -> str:
    """``url`` with another database's name."""
    return make_url(url).set(database=database).render_as_string(hide_password=False)


def databases_named(url: str, pattern: str) -> list[str]:
    """The databases whose names match the SQL ``LIKE`` ``pattern``."""
    rows = fetch_value(
        named(url, "postgres"),
        f"SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database "
        f"WHERE datname LIKE '{pattern}'",
    )
    return rows.split(",") if rows else []


@contextlib.contextmanager
def dropped_after(url: str) -> Iterator[None]:
    """Drop, at the end, the databases the README's restore made beside ``url``'s."""
    try:
        yield
    finally:
        name = make_url(url).database
        for made in databases_named(url, f"{name}\\_re%"):
            admin(f'DROP DATABASE IF EXISTS "{made}" WITH (FORCE)')


def test_a_postgresql_backup_from_an_earlier_release_restores_as_the_readme_says(
    tmp_path: Path,
) -> None:
    """The README's restore of a dump taken before an upgrade into the database after it:
    restored into a new database, which takes the old one's name, and migrated again by the
    server; the rooms and matches of after the dump are gone, kept in the replaced database."""
    with postgres_database() as url, dropped_after(url):
        dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        config = alembic_config(url)
        command.upgrade(config, "0001")  # the first release's tables, without those added since
        old, _ = _old_match("a" * 32)  # a match as that release stored it
        asyncio.run(_insert(url, old))
        dump = tmp_path / "spectrum.dump"
        with dump.open("wb") as out:
            subprocess.run([pg_tool("pg_dump"), "-Fc", "-d", dsn], stdout=out, check=True)
        command.upgrade(config, "head")  # the upgrade, then rooms and matches after the dump
        with running_server(url, **FAST) as server:
            later = create_room(server, "Bob")
            asyncio.run(play_matches(server, ["Cy", "Dee"], 1))
            assert len(fetch.get(f"{server.url}/api/matches").json()["matches"]) == 2

        done = readme_restore(url, dump)
        assert done.returncode == 0, done.stderr
        assert asyncio.run(revision(url)) == "0001"
        name = make_url(url).database
        [replaced] = databases_named(url, f"{name}\\_replaced\\_%")
        assert databases_named(url, f"{name}\\_restoring") == []
        assert fetch_value(named(url, replaced), "SELECT count(*) FROM matches") == "2"
        with running_server(url, **FAST) as restored:  # migrated again as it starts
            matches = fetch.get(f"{restored.url}/api/matches").json()["matches"]
            assert [match["id"] for match in matches] == ["a" * 32]
            assert fetch.get(f"{restored.url}/api/rooms/{later['code']}").status_code == 404
            assert fetch.get(f"{restored.url}/readyz").status_code == 200


def test_a_damaged_postgresql_backup_changes_nothing_as_the_readme_restores_it(
    tmp_path: Path,
) -> None:
    """A dump cut short fails the README's restore at ``pg_restore``: the database keeps every
    match, under its own name, and nothing half restored stays behind."""
    with postgres_database() as url, dropped_after(url):
        dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        migrate(url)
        with running_server(url, **FAST) as server:
            asyncio.run(play_matches(server, ["Cy", "Dee"], 1))
        dump = tmp_path / "spectrum.dump"
        with dump.open("wb") as out:
            subprocess.run([pg_tool("pg_dump"), "-Fc", "-d", dsn], stdout=out, check=True)
        whole = dump.read_bytes()
        dump.write_bytes(whole[: len(whole) * 2 // 3])

        done = readme_restore(url, dump)
        assert done.returncode != 0
        assert "pg_restore: error:" in done.stderr
        name = make_url(url).database
        assert databases_named(url, f"{name}\\_replaced\\_%") == []
        assert fetch_value(url, "SELECT count(*) FROM matches") == "1"
        tables = "SELECT count(*)::text FROM pg_tables WHERE schemaname = 'public'"
        assert fetch_value(named(url, f"{name}_restoring"), tables) == "0"


def test_a_backup_always_has_its_event_log_folder_and_never_adds_to_one(
    tmp_path: Path,
) -> None:
    """Made with no segment to copy, the backup's ``-live/`` folder is there all the same (a
    restore then knows none was left behind); a folder already there is never added to."""
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    dest = tmp_path / "backup.db"
    done = run_script("backup", url, dest)
    assert done.returncode == 0, done.stderr
    assert "with 0 event-log segments" in done.stdout
    assert (tmp_path / "backup.db-live").is_dir()
    assert not any((tmp_path / "backup.db-live").iterdir())

    (tmp_path / "other.db-live").mkdir()
    refused = run_script("backup", url, tmp_path / "other.db")
    assert refused.returncode == 1
    assert "other.db-live exists already; name a new file" in refused.stderr
    assert not (tmp_path / "other.db").exists()


@pytest.mark.parametrize("segments", [0, 1])
def test_a_backup_into_a_folder_that_does_not_exist_is_refused(
    tmp_path: Path, segments: int
) -> None:
    """With event-log segments to copy the folder was made (the backup then went wherever a
    mistyped path said); without, the copy failed with sqlite3's "unable to open database
    file"."""
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    live = tmp_path / "spectrum.db-live"
    live.mkdir()
    for number in range(1, segments + 1):
        (live / f"{number:08d}.jsonl").write_text("kept\n")
    refused = run_script("backup", url, tmp_path / "missing" / "backup.db")
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        f"cannot back up: there is no folder {tmp_path / 'missing'}; make it first"
    )
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("part", ["backup.db", "backup.db-live", "backup.db-live/00000001.jsonl"])
def test_a_backup_its_user_cannot_read_is_refused_saying_so(tmp_path: Path, part: str) -> None:
    """A backup is its maker's alone: one copied out of a container (root's) and restored by
    the image's user was refused as "not an SQLite database". As root, the restore runs as
    another user (root reads anything); otherwise the part is made unreadable."""
    as_root = os.geteuid() == 0
    data = Path(tempfile.mkdtemp(prefix="spectrum-unreadable-"))  # open to the other user
    try:
        url = f"sqlite+aiosqlite:///{data}/spectrum.db"
        migrate(url)
        backup = data / "copies" / "backup.db"
        backup.parent.mkdir()
        assert run_script("backup", url, backup).returncode == 0
        (backup.parent / "backup.db-live" / "00000001.jsonl").write_text("")
        target = backup.parent / part
        if as_root:
            for path in (data, *data.rglob("*")):
                os.chown(path, NOBODY, NOBODY)
            os.chown(target, 0, 0)
            target.chmod(0o700 if target.is_dir() else 0o600)
        else:
            target.chmod(0)
        before = sorted(data.rglob("*"))
        user = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        done = subprocess.run(
            [*(user if as_root else []), sys.executable, "-m", "app.scripts.restore", str(backup)],
            cwd=ROOT,
            env=server_env(DATABASE_URL=url),
            capture_output=True,
            text=True,
            timeout=60,
        )
        uid = NOBODY if as_root else os.getuid()
        assert done.returncode == 1, done.stderr
        assert done.stderr.strip() == (
            f"cannot restore: cannot read {target} as uid {uid}: make the backup and its -live/ "
            f"folder readable by this user (chown -R {uid} on both; a backup is its maker's alone)"
        )
        assert sorted(data.rglob("*")) == before
    finally:
        for path in data.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(data)


def test_a_backup_without_its_event_log_is_refused_when_it_holds_live_rooms(
    tmp_path: Path,
) -> None:
    """Copied off without its ``-live/`` folder, a backup would bring its live rooms back
    without their latest moves (a lobby without its players): the restore says what is
    missing and moves nothing; with the folder it goes ahead."""
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    backup = tmp_path / "copy" / "backup.db"
    backup.parent.mkdir()
    with running_server(url, **FAST) as server:
        room = create_room(server, "Cy", turn_seconds=0)
        join_room(server, room["code"], "Dee")
        assert run_script("backup", url, backup).returncode == 0
    kept = tmp_path / "kept-live"
    shutil.move(tmp_path / "copy" / "backup.db-live", kept)
    before = sorted(path.name for path in tmp_path.iterdir())
    refused = run_script("restore", url, backup)
    assert refused.returncode == 1
    assert f"{backup}-live is not beside the backup: its 1 live room(s)" in refused.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == before

    shutil.move(kept, tmp_path / "copy" / "backup.db-live")
    done = run_script("restore", url, backup)
    assert done.returncode == 0, done.stderr
    with running_server(url, **FAST) as restored:
        shown = fetch.get(f"{restored.url}/api/rooms/{room['code']}").json()
        assert [p["name"] for p in shown["players"]] == ["Cy", "Dee"]


def test_a_backup_that_cannot_be_copied_whole_replaces_nothing(tmp_path: Path) -> None:
    """The backup and its event log are copied beside the database before anything is moved:
    one that cannot be copied whole (a segment gone from under it here) leaves the database,
    its event log and the folder as they were."""
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    (tmp_path / "spectrum.db-live").mkdir()
    (tmp_path / "spectrum.db-live" / "00000001.jsonl").write_text("kept\n")
    backup = tmp_path / "copy" / "backup.db"
    backup.parent.mkdir()
    assert run_script("backup", url, backup).returncode == 0
    (tmp_path / "copy" / "backup.db-live" / "00000009.jsonl").symlink_to(tmp_path / "gone")
    before = {path.name: path.stat().st_mtime_ns for path in tmp_path.iterdir()}
    refused = run_script("restore", url, backup)
    assert refused.returncode == 1
    assert refused.stderr.startswith("cannot restore:")
    after = {path.name: path.stat().st_mtime_ns for path in tmp_path.iterdir()}
    assert after.keys() - {"spectrum.db.lock"} == before.keys()
    assert (tmp_path / "spectrum.db-live" / "00000001.jsonl").read_text() == "kept\n"
    assert rounds_in(tmp_path / "spectrum.db") == 0


def foreign_database(path: Path) -> None:
    """Another program's SQLite file, which happens to have a table called matches."""
    with contextlib.closing(sqlite3.connect(path)) as made:
        made.execute("CREATE TABLE matches (id INTEGER PRIMARY KEY, home TEXT, away TEXT)")
        made.commit()


def newer_backup(path: Path) -> None:
    """A backup of a database a newer version has migrated."""
    with contextlib.closing(sqlite3.connect(path)) as made:
        made.execute("UPDATE alembic_version SET version_num = '0099'")
        made.commit()


def damaged_index(path: Path) -> None:
    """A backup whose index no longer matches its table: SQLite's quick check passes it."""
    with contextlib.closing(sqlite3.connect(path)) as made:
        made.execute(
            "INSERT INTO matches (id, room_code, settings, rounds_planned, rounds_played, "
            "started_at) VALUES (?, 'ABCD', '{}', 1, 0, '2026-01-01')",
            ("a" * 32,),
        )
        made.commit()
        made.execute("PRAGMA writable_schema = ON")
        made.execute(
            "UPDATE sqlite_master SET sql = 'CREATE INDEX ix_matches_room_code ON matches (id)' "
            "WHERE name = 'ix_matches_room_code'"
        )
        made.commit()
    with contextlib.closing(sqlite3.connect(path)) as check:
        assert check.execute("PRAGMA quick_check").fetchone() == ("ok",)


@pytest.mark.parametrize(
    ("spoil", "said"),
    [
        (foreign_database, "is not a Spectrum Online database (it has no matches or no migration)"),
        (newer_backup, "is at migration 0099, which this version does not know"),
        (damaged_index, "is damaged: row 1 missing from index ix_matches_room_code"),
    ],
)
def test_a_foreign_newer_or_damaged_database_is_refused_and_nothing_moved(
    spoil: Callable[[Path], None], said: str, tmp_path: Path
) -> None:
    """Each was put in place, and the server then refused to start on it (or served it)."""
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    backup = tmp_path / "backup.db"
    if spoil is foreign_database:
        spoil(backup)
    else:
        assert run_script("backup", url, backup).returncode == 0
        spoil(backup)
    before = sorted(path.name for path in tmp_path.iterdir())
    done = run_script("restore", url, backup)
    assert done.returncode == 1
    assert done.stderr.startswith("cannot restore:")
    assert said in done.stderr, done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == before


def test_a_restore_into_a_new_folder_makes_it_and_replaces_nothing(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    backup = tmp_path / "backup.db"
    assert run_script("backup", url, backup).returncode == 0
    fresh = tmp_path / "new" / "data"
    done = run_script("restore", f"sqlite+aiosqlite:///{fresh}/spectrum.db", backup)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("; there was nothing to replace")
    assert sorted(path.name for path in fresh.iterdir()) == [
        "spectrum.db",
        "spectrum.db-live",
        "spectrum.db.lock",
    ]


def test_a_failed_backup_leaves_nothing_in_the_way_of_the_next(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/spectrum.db"
    migrate(url)
    live = tmp_path / "spectrum.db-live"
    live.mkdir()
    (live / "00000001.jsonl").write_text("kept\n")
    (live / "00000002.jsonl").symlink_to(tmp_path)  # a segment that cannot be copied
    backup = tmp_path / "copy" / "backup.db"
    backup.parent.mkdir()
    failed = run_script("backup", url, backup)
    assert failed.returncode != 0
    assert failed.stderr.startswith("cannot back up:"), failed.stderr
    assert list(backup.parent.iterdir()) == []
    (live / "00000002.jsonl").unlink()
    done = run_script("backup", url, backup)
    assert done.returncode == 0, done.stderr
    assert (backup.parent / "backup.db-live" / "00000001.jsonl").read_text() == "kept\n"
