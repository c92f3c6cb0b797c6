"""Put an SQLite backup (made by ``app.scripts.backup``) in place of the server's database, with
the server stopped.

    .venv/bin/python -m app.scripts.restore BACKUP      # DATABASE_URL as the server's

The backup (``BACKUP`` and its event log, ``BACKUP-live/``) is copied in as the database and
its event log. What belonged to the database it replaces is moved aside, into a folder beside
it (``spectrum.db-replaced-<time>/``), so that a restore can be undone: the database, its
event log, and two things that would otherwise undo the restore or hold it up. SQLite's
write-ahead log (``-wal``, with ``-shm``), which a server that did not stop cleanly leaves
behind: SQLite would replay it over the restored file. And the outbox of writes the replaced
database had not taken (``OUTBOX_PATH``): the restored one would refuse them, and the rooms that
made them would wait for them for ever. PostgreSQL is restored with its own tools (README).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy.engine import make_url

from app.config import load_settings
from app.scripts.backup import sqlite_database
from app.storage.eventlog import folder_for
from app.storage.filelock import RESTORING, SERVING, NoLocks, hold
from app.storage.journal import DatabaseInUse
from app.storage.migrations import known_revisions, newer_than_known
from app.storage.outbox import outbox_for
from app.storage.private import keep_files_private


class Refused(Exception):
    """The restore cannot be done; the message says why."""


def check_backup(backup: Path) -> None:
    """A whole SQLite database, as the backup script writes it, of this version's migrations
    (an earlier one's, which the server migrates, included)."""
    if not backup.is_file():
        raise Refused(f"there is no backup at {backup}")
    unreadable = _unreadable(backup)
    if unreadable is not None:
        uid = os.getuid()
        raise Refused(
            f"cannot read {unreadable} as uid {uid}: make the backup and its -live/ folder "
            f"readable by this user (chown -R {uid} on both; a backup is its maker's alone)"
        )
    wal = Path(f"{backup}-wal")
    if wal.exists() and wal.stat().st_size:
        raise Refused(
            f"{backup} has a write-ahead log beside it ({wal.name}): it is in use, or was not "
            "made by app.scripts.backup"
        )
    try:
        # Read as it is on disk, without SQLite's locks and their files beside it.
        reading = f"file:{backup}?mode=ro&immutable=1"
        with contextlib.closing(sqlite3.connect(reading, uri=True)) as copy:
            found = copy.execute("PRAGMA integrity_check(1)").fetchone()
            tables = {row[0] for row in copy.execute("SELECT name FROM sqlite_master")}
            whole = found == ("ok",)
            rooms = (
                copy.execute("SELECT count(*) FROM live_rooms").fetchone()[0]
                if "live_rooms" in tables and whole
                else 0
            )
            revisions = (
                [row[0] for row in copy.execute("SELECT version_num FROM alembic_version")]
                if "alembic_version" in tables and whole
                else []
            )
    except sqlite3.Error as error:
        raise Refused(f"{backup} is not an SQLite database ({error})") from None
    if not whole:
        raise Refused(f"{backup} is damaged: {found[0] if found else 'unreadable'}")
    if "matches" not in tables or len(revisions) != 1:
        raise Refused(
            f"{backup} is not a Spectrum Online database (it has no matches or no migration)"
        )
    if revisions[0] not in known_revisions():
        raise Refused(
            newer_than_known(str(backup), revisions[0]) + "made it. Restore it with that version"
        )
    live = folder_for(str(backup))
    if rooms and not live.is_dir():
        raise Refused(
            f"{live} is not beside the backup: its {rooms} live room(s) would come back "
            "without their latest moves. Copy that folder from where the backup was made "
            "(app.scripts.backup makes it, empty when there was nothing in it)"
        )


def _unreadable(backup: Path) -> Path | None:
    """The backup, its event log's folder or a file in it, if this user cannot read it (it
    would otherwise be taken for no database, or its live rooms for none)."""
    if not os.access(backup, os.R_OK):
        return backup
    live = folder_for(str(backup))
    if not live.is_dir():
        return None
    if not os.access(live, os.R_OK | os.X_OK):
        return live
    return next((path for path in live.iterdir() if not os.access(path, os.R_OK)), None)


def check_stopped(database: Path) -> None:
    """Refuse while a server has the database open: it would go on writing to the file moved
    aside, or over the restored one."""
    if not database.exists():
        return
    connection = sqlite3.connect(database, timeout=0)
    try:
        connection.execute("PRAGMA locking_mode=EXCLUSIVE")
        connection.execute("BEGIN EXCLUSIVE")
        connection.rollback()
    except sqlite3.OperationalError:
        raise Refused(f"{database} is in use: stop the server first") from None
    finally:
        connection.close()


def restore(backup: Path, database: Path, outbox: Path) -> Path | None:
    """Put ``backup`` (and its event log) in place of ``database``; the folder that what was
    replaced was moved to (None when there was nothing to replace)."""
    backup, database = backup.resolve(), database.resolve()
    if backup == database:
        raise Refused("the backup is the database itself")
    check_backup(backup)
    database.parent.mkdir(parents=True, exist_ok=True)  # as the server makes it
    with claimed(database):
        check_stopped(database)
        return put_in_place(backup, database, outbox)


@contextlib.contextmanager
def claimed(database: Path) -> Iterator[None]:
    """Hold the database file as a server does while it serves it (``<database>.lock``): no
    server is serving it, whether or not it has the file open at this moment, and none starts
    on it before the restore is over (it would find the file half replaced)."""
    try:
        fd = hold(str(database), RESTORING)
    except DatabaseInUse as error:
        then = "stop the server first" if error.doing == SERVING else "wait for it to end"
        raise Refused(f"{error}: {then}") from None
    except NoLocks:  # a file system without locks: SQLite's own are all there is to go by
        yield
        return
    try:
        yield
    finally:
        os.close(fd)


def put_in_place(backup: Path, database: Path, outbox: Path) -> Path | None:
    """Copy the backup beside the database first (a copy that fails moves nothing and leaves
    nothing), then move what it replaces aside and the copy into its place; the folder that
    what was replaced was moved to (None when there was nothing to replace)."""
    live = folder_for(str(database))
    replaced = [
        path
        for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm"), live, outbox)
        if path.exists()
    ]
    aside = database.with_name(f"{database.name}-replaced-{time.strftime('%Y%m%dT%H%M%S')}")
    if replaced:
        aside.mkdir()
    staged = database.with_name(f"{database.name}-restoring")
    shutil.rmtree(staged, ignore_errors=True)  # a restore cut short earlier
    try:
        staged.mkdir()
        shutil.copy2(backup, staged / database.name)
        copied_live = folder_for(str(backup))
        if copied_live.is_dir():
            shutil.copytree(copied_live, staged / live.name)
    except OSError:
        shutil.rmtree(staged, ignore_errors=True)
        if replaced:
            aside.rmdir()
        raise
    for path in replaced:
        shutil.move(path, aside / path.name)
    for path in staged.iterdir():
        os.rename(path, database.with_name(path.name))
    staged.rmdir()
    return aside if replaced else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("backup", type=Path, help="the backup to restore")
    arguments = parser.parse_args()
    keep_files_private()
    settings = load_settings()
    database = sqlite_database(settings, "restore it with pg_restore")
    chosen = settings.outbox_path
    outbox = Path(chosen) if chosen else outbox_for(make_url(settings.database_url))
    try:
        aside = restore(arguments.backup, database, outbox.expanduser().resolve())
    except (Refused, OSError) as error:
        sys.exit(f"cannot restore: {error}")
    replaced = f"what it replaced is in {aside}" if aside else "there was nothing to replace"
    print(f"restored {arguments.backup} as {database}; {replaced}")


if __name__ == "__main__":
    main()
