"""A copy of an SQLite database that a running server may be writing: every finished round, and
every live room as far as its events were written.

    .venv/bin/python -m app.scripts.backup DEST        # DATABASE_URL as the server's

A plain copy of the file can miss what is still in its write-ahead log (``spectrum.db-wal``);
this uses SQLite's online backup, which copies the database as one consistent whole. The live
rooms' latest events, in the event log beside the database (``spectrum.db-live/``), are copied
beside the copy (``DEST-live/``, made even when there are none), before the database and again
after it, so that no event is older than the database's copy; if a segment was folded into
the database and deleted meanwhile, the whole copy is made again. Restore with
``app.scripts.restore``, the server stopped. PostgreSQL is backed up with its own tools
(``pg_dump``).
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
from pathlib import Path

from sqlalchemy.engine import make_url

from app.config import Settings, load_settings
from app.storage.db import is_sqlite
from app.storage.eventlog import folder_for
from app.storage.private import keep_files_private

# Copies made again, at most, while the event log's segments are folded under them.
ATTEMPTS = 5


def backup(database: Path, dest: Path) -> int:
    """Copy ``database`` and its event log to ``dest``; the number of event-log segments."""
    if not database.is_file():
        raise FileNotFoundError(f"there is no SQLite database at {database}")
    if not dest.parent.is_dir():
        # Never made here: a folder mistyped, or a disk not mounted, would take the copy
        # somewhere nobody looks for it.
        raise FileNotFoundError(f"there is no folder {dest.parent}; make it first")
    live, copied = folder_for(str(database)), folder_for(str(dest))
    for path in (dest, copied):
        if path.exists():
            raise FileExistsError(f"{path} exists already; name a new file")
    try:
        return _copied(database, dest, live, copied)
    except BaseException:
        # Nothing half written is left to stand in the way of the next try (a full disk).
        for path in (dest, Path(f"{dest}-journal")):
            path.unlink(missing_ok=True)
        shutil.rmtree(copied, ignore_errors=True)
        raise


def _copied(database: Path, dest: Path, live: Path, copied: Path) -> int:
    """Copy the database and the event log's segments until no segment was folded between
    the two copies; the number of segments."""
    for _ in range(ATTEMPTS):
        before = _copy_segments(live, copied)  # what may be folded while the database is copied
        source = sqlite3.connect(database)
        target = sqlite3.connect(dest)
        try:
            source.backup(target)
        finally:
            target.close()
            source.close()
        # Again, newer: no event is older than the database's copy (a finished round is
        # committed after the events that ended it, and events without their round are
        # replayed and the round written at the start).
        after = _copy_segments(live, copied)
        if before <= after and _no_gap(before, after):
            copied.mkdir(exist_ok=True)  # always there, if empty: a restore looks for it
            return len(after)
        # A segment was folded and deleted meanwhile, perhaps after the database was read:
        # its last events may be in neither copy. Copied again from the start.
        dest.unlink()
        shutil.rmtree(copied, ignore_errors=True)
    raise RuntimeError(f"the event log kept moving on; tried {ATTEMPTS} times")


def _copy_segments(live: Path, copied: Path) -> set[int]:
    """Copy the event log's segments (those deleted meanwhile are skipped); their numbers."""
    numbers = set()
    for segment in sorted(live.iterdir()) if live.is_dir() else []:
        if not segment.stem.isdigit():
            continue
        copied.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copy2(segment, copied / segment.name)
        except FileNotFoundError:
            continue  # folded and deleted meanwhile: the database's copy holds it
        numbers.add(int(segment.stem))
    return numbers


def _no_gap(before: set[int], after: set[int]) -> bool:
    """Whether no segment can have come and gone between the two copies: the numbers seen
    after follow on from those seen before."""
    return not before or not after or min(after - before, default=max(before)) <= max(before) + 1


def sqlite_database(settings: Settings, otherwise: str) -> Path:
    """The SQLite file DATABASE_URL names; for PostgreSQL, exit saying ``otherwise`` (what to
    do with PostgreSQL's own tools)."""
    if not is_sqlite(settings.database_url):
        sys.exit(f"DATABASE_URL is PostgreSQL: {otherwise} (see the README)")
    return Path(make_url(settings.database_url).database or "").expanduser().resolve()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="the new file to copy the database to")
    arguments = parser.parse_args()
    keep_files_private()
    database = sqlite_database(load_settings(), "back it up with pg_dump")
    try:
        segments = backup(database, arguments.dest)
    except (OSError, sqlite3.Error, RuntimeError) as error:
        sys.exit(f"cannot back up: {error}")
    print(f"copied {database} to {arguments.dest}, with {segments} event-log segments")


if __name__ == "__main__":
    main()
